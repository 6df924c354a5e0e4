/**
 * The janitor zone check (SOURCES.md: cells.json `janitor_tz`, janitor/):
 * a v1 archive time carries no offset and is read in the cell's
 * `janitor_tz`; the janitor runs every 10 minutes and acts minutes after a
 * write. So on the checkpoints that have both a STABLE mtime within the run
 * and a v1 archive, the archive comes minutes after the mtime. When it comes
 * hours after (or before) it on most of them, the v1 times are off as a whole
 * (a wrong `janitor_tz`, or a janitor clock set wrong), and every v1 time of
 * the cell would move its checkpoint by that much: none of them is used.
 */
import type { Diagnostics } from "../diagnostics.js";
import type { Observation } from "../observations.js";
import { median } from "../util/arrays.js";
import type { Candidate } from "./decision.js";
import type { RunWindow } from "./run-window.js";

/** Fewest checkpoints with both times for a verdict: one or two lags may be a janitor that fell behind. */
export const ZONE_CHECK_MIN_PAIRS = 3;
/** The median lag (v1 archive − STABLE mtime) a right zone gives, minutes: a janitor acts within minutes, never before the write (a small clock skew allowed). */
export const ZONE_LAG_BAND_MIN: readonly [number, number] = [-15, 45];

/** The cell's v1 times when they are in doubt: the median lag (hours, positive: after the write), how many checkpoints showed it, and the sentence provenance gives for each v1 time set aside. */
export interface ZoneDoubt {
  medianLagH: number;
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

/** The first STABLE mtime within the run in listing order (the one exact-time.ts chooses). */
function firstStable(c: Candidate, w: RunWindow): Observation | undefined {
  return c.obs
    .filter((o) => o.kind === "pvc_stable" && o.utcMs !== null && o.utcMs >= w.runStartMs && o.utcMs <= w.runEndMs)
    .sort((a, b) => a.seq - b.seq)[0];
}

/**
 * Checks a cell's v1 janitor times against its STABLE mtimes: the median of
 * (first v1 archive − first STABLE mtime within the run), in minutes, over
 * the checkpoints `cands` that have both, must lie in
 * {@link ZONE_LAG_BAND_MIN} when there are at least
 * {@link ZONE_CHECK_MIN_PAIRS} of them.
 *
 * @returns null when the v1 times stand (or too few checkpoints have both to
 *   tell); otherwise the doubt, after warning `JANITOR_ZONE_MISMATCH` once for
 *   the cell at the first such checkpoint's archive line: the lag, the zone
 *   offset it suggests (positive: the janitor's zone lies east of
 *   `janitor_tz`), and how many checkpoints only a v1 time dates.
 */
export function janitorZoneDoubt(
  cellName: string,
  janitorTz: string,
  cands: readonly Candidate[],
  w: RunWindow,
  diag: Diagnostics,
): ZoneDoubt | null {
  const lags: number[] = [];
  let at: Observation | undefined;
  let onlyV1 = 0;
  for (const c of cands) {
    const v1 = firstV1(c);
    if (!v1) continue;
    const stable = firstStable(c, w);
    if (!stable) {
      onlyV1++;
      continue;
    }
    lags.push((v1.utcMs! - stable.utcMs!) / MINUTE);
    if (!at || v1.seq < at.seq) at = v1;
  }
  if (lags.length < ZONE_CHECK_MIN_PAIRS) return null;
  const medianMin = median(lags);
  if (medianMin >= ZONE_LAG_BAND_MIN[0] && medianMin <= ZONE_LAG_BAND_MIN[1]) return null;
  const medianLagH = medianMin / 60;
  const side = medianLagH > 0 ? "after" : "before";
  const offsetH = Math.round(medianLagH * 4) / 4;
  const hours = (h: number) => `${Math.abs(h).toFixed(2)} h`;
  const lag = `v1 archive times read in janitor_tz ${janitorTz} come a median ${hours(medianLagH)} ${side} the STABLE mtimes of the same checkpoints (${lags.length} checkpoints with both; the janitor acts minutes after a write)`;
  diag.warn(
    "JANITOR_ZONE_MISMATCH",
    `cell "${cellName}": ${lag}: janitor_tz is probably wrong (the times fit a zone about ${hours(offsetH)} ${offsetH > 0 ? "east" : "west"} of it) or the janitor's clock was off; none of the cell's v1 times is used (${onlyV1} checkpoint(s) only a v1 time dates lose that hour)`,
    at!.origin.file,
    at!.origin.line,
  );
  return {
    medianLagH,
    pairs: lags.length,
    why: `the cell's ${lag}: janitor_tz is in doubt (JANITOR_ZONE_MISMATCH)`,
  };
}
