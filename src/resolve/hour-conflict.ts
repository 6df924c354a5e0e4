/**
 * The hour conflict rule (SOURCES.md: janitor; MANIFEST.md: HOUR_CONFLICT),
 * used by the build (`HOUR_CONFLICT` warnings) and by `validate` (conflicts).
 */
import type { Observation } from "../observations.js";

/**
 * What an observation's time means: `write` (the write time), `after_write`
 * (a janitor v1 archive: when the janitor acted, after the write, so only an
 * upper bound), or null (no time, or a time that never dates the weights: a
 * directory mtime, a weight file, a supervisor event).
 */
export function timeIsOf(o: Observation): "write" | "after_write" | null {
  if (o.utcMs === null || o.kind === "pvc_dir" || o.kind === "pvc_weights" || o.kind === "supervisor_role") return null;
  return o.kind === "janitor_archive" && o.detail.version === "v1" ? "after_write" : "write";
}

/**
 * True when a time evidence `diffH` hours after the chosen write time
 * (negative: before it) contradicts it at `toleranceH` hours: a write time
 * differs by more than the tolerance either way; a time after the write (a
 * janitor v1 action time) only when it is more than the tolerance earlier.
 */
export function contradictsWrite(diffH: number, timeIs: "write" | "after_write", toleranceH: number): boolean {
  return timeIs === "after_write" ? diffH < -toleranceH : Math.abs(diffH) > toleranceH;
}
