/**
 * The janitor zone check (SOURCES.md: cells.json `janitor_tz`, janitor/):
 * a v1 archive time carries no offset and is read in the cell's
 * `janitor_tz`. Two independent witnesses of that zone:
 * - the v1 janitor's startup line states the zone it writes in
 *   (`... starting (watch=..., every 600s, tz=America/Los_Angeles)`);
 * - the janitor runs every 10 minutes and acts minutes after a write, so on
 *   the checkpoints that have both a STABLE mtime within the run and a v1
 *   archive, the archive comes minutes after the mtime.
 * When the stated zone's offset differs from `janitor_tz`'s at a v1 line, or
 * the archives come hours after (or before) the mtimes on most checkpoints,
 * the v1 times are off as a whole (a wrong `janitor_tz`, or a janitor clock
 * set wrong), and every v1 time of the cell would move its checkpoint by that
 * much: none of them is used.
 */
import { tzOffset } from "@date-fns/tz";
import type { Diagnostics } from "../diagnostics.js";
import type { Observation } from "../observations.js";
import { median } from "../util/arrays.js";
import type { Candidate } from "./decision.js";
import type { RunWindow } from "./run-window.js";
import { firstStableWithinRun, stableMtimes } from "./stable-mtime.js";

/** Fewest checkpoints with both times for a verdict: one or two lags may be a janitor that fell behind. */
const ZONE_CHECK_MIN_PAIRS = 3;
/** The median lag (v1 archive − STABLE mtime) a right zone gives, minutes: a janitor acts within minutes, never before the write (a small clock skew allowed). */
const ZONE_LAG_BAND_MIN: readonly [number, number] = [-15, 45];

/** The cell's v1 times when they are in doubt: the median lag (hours, positive: after the write; null when too few checkpoints have both times), how many checkpoints showed it, and the sentence provenance gives for each v1 time set aside. */
export interface ZoneDoubt {
  medianLagH: number | null;
  pairs: number;
  why: string;
}

const MINUTE = 60_000;

/** The first v1 archive of a checkpoint in log order, whatever its time (a wrong zone can push it outside the run). */
function firstV1(c: Candidate): Observation | undefined {
  return c.obs
    .filter((o) => o.kind === "janitor_archive" && o.detail.version === "v1" && o.utcMs !== null)
    .sort((a, b) => a.seq - b.seq)[0];
}

/** The first v1 archive in log order whose janitor's startup line states a zone that reads its time at another offset than `janitorTz`, with the two offsets (minutes east of UTC). */
function statedZoneConflict(
  janitorTz: string,
  cands: readonly Candidate[],
): { o: Observation; tz: string; stated: number; given: number } | null {
  let found: { o: Observation; tz: string; stated: number; given: number } | null = null;
  for (const c of cands) {
    for (const o of c.obs) {
      const tz = o.detail.statedTz;
      if (o.kind !== "janitor_archive" || typeof tz !== "string" || o.utcMs === null) continue;
      if (found && found.o.seq <= o.seq) continue;
      const at = new Date(o.utcMs);
      const stated = tzOffset(tz, at);
      const given = tzOffset(janitorTz, at);
      // A zone the time zone database does not know cannot be compared: the lag check still runs.
      if (!Number.isNaN(stated) && stated !== given) found = { o, tz, stated, given };
    }
  }
  return found;
}

/**
 * Checks a cell's v1 janitor times against the zone its janitor states and
 * against its STABLE mtimes: no v1 janitor startup line may state a zone
 * whose offset differs from `janitorTz`'s at the lines after it, and the
 * median of (first v1 archive − first STABLE mtime within the run), in
 * minutes, over the checkpoints `cands` that have both, must lie in
 * {@link ZONE_LAG_BAND_MIN} when there are at least
 * {@link ZONE_CHECK_MIN_PAIRS} of them.
 *
 * @returns null when the v1 times stand (or nothing can tell); otherwise the
 *   doubt, after warning `JANITOR_ZONE_MISMATCH` once for the cell (at the
 *   startup line that states another zone, else at the first checkpoint's
 *   archive line): the stated zone, the lag and the zone offset it suggests
 *   (positive: the janitor's zone lies east of `janitor_tz`), and how many
 *   checkpoints only a v1 time dates.
 */
export function janitorZoneDoubt(
  cellName: string,
  janitorTz: string,
  cands: readonly Candidate[],
  w: RunWindow,
  diag: Diagnostics,
): ZoneDoubt | null {
  const lags: number[] = [];
  let first: Observation | undefined;
  let onlyV1 = 0;
  for (const c of cands) {
    const v1 = firstV1(c);
    if (!v1) continue;
    const stable = firstStableWithinRun(stableMtimes(c), w);
    if (!stable) {
      onlyV1++;
      continue;
    }
    lags.push((v1.utcMs! - stable.utcMs!) / MINUTE);
    if (!first || v1.seq < first.seq) first = v1;
  }
  const hours = (h: number) => `${Math.abs(h).toFixed(2)} h`;
  const reasons: string[] = [];
  let at: { file: string; line: number | null } | null = null;
  const conflict = statedZoneConflict(janitorTz, cands);
  if (conflict) {
    const where = String(conflict.o.detail.statedTzAt);
    const diffH = (conflict.stated - conflict.given) / 60;
    reasons.push(
      `the janitor's startup line (${where}) says it writes in tz=${conflict.tz}, ${hours(diffH)} ${diffH > 0 ? "east" : "west"} of janitor_tz ${janitorTz}`,
    );
    const colon = where.lastIndexOf(":");
    at = { file: where.slice(0, colon), line: Number(where.slice(colon + 1)) };
  }
  const medianMin = lags.length >= ZONE_CHECK_MIN_PAIRS ? median(lags) : null;
  const lagOff = medianMin !== null && (medianMin < ZONE_LAG_BAND_MIN[0] || medianMin > ZONE_LAG_BAND_MIN[1]);
  if (lagOff) {
    const lagH = medianMin / 60;
    const offsetH = Math.round(lagH * 4) / 4;
    reasons.push(
      `v1 archive times read in janitor_tz ${janitorTz} come a median ${hours(lagH)} ${lagH > 0 ? "after" : "before"} the STABLE mtimes of the same checkpoints (${lags.length} checkpoints with both; the janitor acts minutes after a write), as if its zone lay about ${hours(offsetH)} ${offsetH > 0 ? "east" : "west"} of it`,
    );
    at ??= first!.origin;
  }
  if (!at) return null;
  const because = reasons.join("; and ");
  diag.warn(
    "JANITOR_ZONE_MISMATCH",
    `cell "${cellName}": ${because}: janitor_tz is probably wrong (or the janitor's clock was off); none of the cell's v1 times is used (${onlyV1} checkpoint(s) only a v1 time dates lose that hour)`,
    at.file,
    at.line,
  );
  return {
    medianLagH: medianMin === null ? null : medianMin / 60,
    pairs: lags.length,
    why: `the cell's janitor_tz is in doubt (JANITOR_ZONE_MISMATCH): ${because}`,
  };
}
