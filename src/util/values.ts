/**
 * Checks shared by the extractors for values that come straight from input
 * text: a step number and a time. A value that fails them is a bad field
 * (each extractor warns with its own code and skips the line); it must never
 * reach the resolver, where it would crash `toISOString` or the row schema.
 */

/** The largest |epoch ms| a JavaScript `Date` can hold (±8.64e15 ms, about ±275,000 years). */
const MAX_TIME_MS = 8.64e15;

/** True when `ms` is a time a `Date` can hold (finite, within ±{@link MAX_TIME_MS}). */
export function isTimeMs(ms: number): boolean {
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_TIME_MS;
}

/**
 * From this on (2100-01-01T00:00:00Z) a time read from the sources is a unit
 * error, not a date: milliseconds read as seconds, or microseconds as
 * milliseconds, land thousands of years ahead (a call's time, a STABLE mtime).
 */
export const UNIT_ERROR_FROM_MS = Date.UTC(2100, 0, 1);

/**
 * A training step written as decimal digits, or null when `text` is not
 * digits or its value is not a safe integer (e.g. `step_99999999999999999999`).
 */
export function parseStep(text: string): number | null {
  if (!/^\d+$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,12}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * Parses an ISO 8601 / RFC 3339 date-time strictly: every field in range
 * (no `2026-02-30`, no hour 24, no leap second, no offset beyond ±23:59), so
 * an impossible date is refused rather than rolled over as `Date.parse`
 * does. A time without an offset is refused unless `assumeUtc` (the formats
 * that write UTC without saying so).
 *
 * @returns UTC epoch milliseconds (with the sub-millisecond fraction kept), or NaN.
 */
export function parseIsoTime(text: string, opts: { assumeUtc?: boolean } = {}): number {
  const m = ISO_RE.exec(text.trim());
  if (!m) return NaN;
  const [, y, mo, d, h, mi, s = "0", frac = "", off] = m as unknown as string[];
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return NaN;
  let offsetMin = 0;
  if (off === undefined || off === "") {
    if (!opts.assumeUtc) return NaN;
  } else if (off !== "Z" && off !== "z") {
    const sign = off.startsWith("-") ? -1 : 1;
    const digits = off.slice(1).replace(":", "");
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (oh > 23 || om > 59) return NaN;
    offsetMin = sign * (oh * 60 + om);
  }
  const ms =
    Date.UTC(year, month - 1, day, hour, minute, second) + Number(`0.${frac || "0"}`) * 1000 - offsetMin * 60_000;
  return isTimeMs(ms) ? ms : NaN;
}

/** Code-point string comparison: deterministic, independent of locale. */
export function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Shortens a raw line for a message. */
export function clip(text: string, max = 160): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
