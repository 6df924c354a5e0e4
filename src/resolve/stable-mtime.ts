/**
 * A checkpoint's STABLE mtimes (SOURCES.md: "Where a checkpoint's hour comes
 * from": a STABLE mtime within the run is the write time; one after the run's
 * end is a copy-back, one before run_start no write of this run).
 */
import type { Observation } from "../observations.js";
import type { Candidate } from "./decision.js";
import { type RunWindow, withinRun } from "./run-window.js";

/** The STABLE mtimes of `c`, in listing order. */
export function stableMtimes(c: Candidate): Observation[] {
  return c.obs.filter((o) => o.kind === "pvc_stable").sort((a, b) => a.seq - b.seq);
}

/** The first of `stables` (in listing order) within the run: the STABLE mtime that times the checkpoint, if any. */
export function firstStableWithinRun(stables: readonly Observation[], w: RunWindow): Observation | undefined {
  return stables.find((o) => o.utcMs !== null && withinRun(o.utcMs, w));
}
