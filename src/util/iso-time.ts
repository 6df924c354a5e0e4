/**
 * A reader for the ISO 8601 times the driver logs write (TRAJECTORIES.md:
 * codex, claude-code and pi stamp each line with an RFC 3339 UTC time), read
 * from the characters with integer arithmetic: no regular expression, no
 * `Date.parse`, no object made per call.
 */

const DAY_MS = 86_400_000;

/** Days from 1970-01-01 to the proleptic Gregorian date `y-m-d` (m 1–12). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** The digit at `s[i]` (0–9), or -1. */
function digit(s: string, i: number): number {
  const d = s.charCodeAt(i) - 48;
  return d >= 0 && d <= 9 ? d : -1;
}

/** The two-digit number at `s[i..i+1]`, or -1. */
function two(s: string, i: number): number {
  const a = digit(s, i);
  const b = digit(s, i + 1);
  return a < 0 || b < 0 ? -1 : a * 10 + b;
}

/**
 * Reads `YYYY-MM-DD[T ]HH:MM[:SS[.F…]]` followed by `Z` or `±HH[:]MM`, or by
 * nothing (then read as UTC and {@link zoneless} is set); the separator may
 * be `t` and the zone `z` when a zone is written, the fraction has 1–12
 * digits, surrounding whitespace is ignored. Every field must be in range
 * (no `2026-02-30`, no hour 24, no second 60, no offset beyond ±23:59):
 * an impossible time is refused, never rolled over.
 *
 * The result is `Date.parse`'s millisecond for the same time (the fraction
 * truncated to whole milliseconds; also past 9 digits, which V8's
 * `Date.parse` misreads), in UTC epoch ms; years 0000–0099 are those years,
 * not 1900–1999.
 *
 * One reader is reused for every line: {@link read} sets {@link ms} and
 * {@link zoneless} in place.
 */
export class IsoTimeReader {
  /** Epoch ms of the last time read (NaN when it was refused). */
  ms = Number.NaN;
  /** Whether the last time read carried no `Z` and no offset. */
  zoneless = false;

  /** Reads `text`; returns false (and sets {@link ms} to NaN) when it is not such a time. */
  read(text: string): boolean {
    this.ms = Number.NaN;
    this.zoneless = false;
    if (this.readTrimmed(text)) return true;
    const t = text.trim();
    return t.length !== text.length && this.readTrimmed(t);
  }

  private readTrimmed(s: string): boolean {
    const n = s.length;
    if (n < 16) return false;
    const y0 = two(s, 0);
    const y1 = two(s, 2);
    if (y0 < 0 || y1 < 0 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(13) !== 58) return false;
    const year = y0 * 100 + y1;
    const month = two(s, 5);
    const day = two(s, 8);
    const sep = s.charCodeAt(10);
    const hour = two(s, 11);
    const minute = two(s, 14);
    if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
    if (hour < 0 || hour > 23 || minute < 0 || minute > 59) return false;
    let i = 16;
    let second = 0;
    let frac = 0;
    if (i < n && s.charCodeAt(i) === 58) {
      second = two(s, i + 1);
      if (second < 0 || second > 59) return false;
      i += 3;
      if (i < n && s.charCodeAt(i) === 46) {
        i += 1;
        const start = i;
        while (i < n && digit(s, i) >= 0) {
          if (i - start < 3) frac = frac * 10 + digit(s, i);
          i += 1;
        }
        const len = i - start;
        if (len === 0 || len > 12) return false;
        if (len === 1) frac *= 100;
        else if (len === 2) frac *= 10;
      }
    }
    let offsetMin = 0;
    if (i === n) {
      if (sep !== 84 && sep !== 32) return false; // "T" or " " (no lower-case "t" without a zone)
      this.zoneless = true;
    } else {
      if (sep !== 84 && sep !== 116 && sep !== 32) return false;
      const z = s.charCodeAt(i);
      if (z === 90 || z === 122) {
        if (i + 1 !== n) return false;
      } else if (z === 43 || z === 45) {
        const oh = two(s, i + 1);
        const colon = s.charCodeAt(i + 3) === 58 ? 1 : 0;
        const om = two(s, i + 3 + colon);
        if (i + 5 + colon !== n || oh < 0 || oh > 23 || om < 0 || om > 59) return false;
        offsetMin = (z === 45 ? -1 : 1) * (oh * 60 + om);
      } else return false;
    }
    this.ms =
      daysFromCivil(year, month, day) * DAY_MS +
      hour * 3_600_000 +
      minute * 60_000 +
      second * 1000 +
      frac -
      offsetMin * 60_000;
    return true;
  }
}
