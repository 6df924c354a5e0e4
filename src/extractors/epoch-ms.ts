/**
 * Epoch seconds as a listing writes them (`find %T@`, SOURCES.md: pvc/) to
 * epoch milliseconds: the one conversion of the listing readers
 * (`pvc-listing.ts`) and the live walk (`pvc-dir-scan.ts`), in a file of its
 * own so the walk (and its worker thread) load it without the listing
 * readers' imports.
 */

/** Epoch seconds with a fraction (`1790003123.4567891230`) to epoch ms, keeping sub-ms digits. */
export function epochToMs(epoch: string): number {
  const dot = epoch.indexOf(".");
  // As `epoch.split(".")` would: the whole part, and the fraction up to a second dot.
  const whole = dot < 0 ? epoch : epoch.slice(0, dot);
  const frac = dot < 0 ? "" : epoch.slice(dot + 1, (epoch.indexOf(".", dot + 1) + 1 || epoch.length + 1) - 1);
  return Number(whole) * 1000 + Number(`0.${frac.padEnd(3, "0")}`) * 1000;
}
