/**
 * Checks shared by the extractors for values that come straight from input
 * text: a step number and a time. A value that fails them is a bad field
 * (each extractor warns with its own code and skips the line); it must never
 * reach the resolver, where it would crash `toISOString` or the row schema.
 */

/** The largest |epoch ms| a JavaScript `Date` can hold (±8.64e15 ms, about ±275,000 years). */
export const MAX_TIME_MS = 8.64e15;

/** True when `ms` is a time a `Date` can hold (finite, within ±{@link MAX_TIME_MS}). */
export function isTimeMs(ms: number): boolean {
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_TIME_MS;
}

/**
 * A training step written as decimal digits, or null when `text` is not
 * digits or its value is not a safe integer (e.g. `step_99999999999999999999`).
 */
export function parseStep(text: string): number | null {
  if (!/^\d+$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}
