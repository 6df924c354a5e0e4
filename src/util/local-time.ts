import { tzOffset } from "@date-fns/tz";

/** The UTC readings of one offset-less local wall time in a zone. */
export interface LocalCandidates {
  /** UTC epoch ms of each occurrence, earliest first: 1 normally, 2 in a repeated hour, 0 in a skipped hour. */
  utcMs: number[];
}

/**
 * Finds every UTC instant at which the wall clock of `timeZone` read
 * `wallMs` (the local date-time written as if it were UTC, epoch ms).
 * Two instants when the local clock was set back over it (the end of
 * daylight saving time), none when it was skipped (its start).
 * Uses `@date-fns/tz`'s `tzOffset` for the zone rules (SOURCES.md: cells.json
 * `janitor_tz`).
 *
 * @throws RangeError when `timeZone` is not a known zone.
 */
export function localToUtcCandidates(wallMs: number, timeZone: string): LocalCandidates {
  const offsets = new Set<number>();
  for (const probeH of [-36, -12, 0, 12, 36]) {
    const off = tzOffset(timeZone, new Date(wallMs + probeH * 3_600_000));
    if (Number.isNaN(off)) throw new RangeError(`unknown time zone ${timeZone}`);
    offsets.add(off);
  }
  const found = new Set<number>();
  for (const off of offsets) {
    const utc = wallMs - off * 60_000;
    if (tzOffset(timeZone, new Date(utc)) === off) found.add(utc);
  }
  return { utcMs: [...found].sort((a, b) => a - b) };
}

/**
 * Picks the occurrence of a local time that keeps a log's clock monotonic
 * (SOURCES.md: janitor, "the lines around it tell which occurrence it is"):
 * the earliest candidate not before `previousUtcMs`; when every candidate is
 * earlier (the log went backwards), the latest one.
 *
 * @returns the chosen UTC ms and a note naming the rule used, or null when
 *   there is no candidate (a time in a skipped hour).
 */
export function pickMonotonic(
  candidates: LocalCandidates,
  previousUtcMs: number | null,
  timeZone: string,
): { utcMs: number; note: string } | null {
  const list = candidates.utcMs;
  if (list.length === 0) return null;
  if (list.length === 1) return { utcMs: list[0]!, note: `local time in ${timeZone}` };
  const later = list.find((t) => previousUtcMs === null || t >= previousUtcMs);
  if (later !== undefined) {
    const which = later === list[0] ? "first" : "second";
    return {
      utcMs: later,
      note: `local time in ${timeZone}, repeated hour: ${which} occurrence (earliest not before the previous line${previousUtcMs === null ? "; no previous line" : ` at ${new Date(previousUtcMs).toISOString()}`})`,
    };
  }
  return {
    utcMs: list[list.length - 1]!,
    note: `local time in ${timeZone}, repeated hour: second occurrence (log clock went backwards)`,
  };
}
