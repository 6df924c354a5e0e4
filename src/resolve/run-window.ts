/**
 * The run's window on the budget clock as the resolver uses it (SOURCES.md:
 * supervisor; MANIFEST.md: hour): run start, run end and where the clock is
 * unknown.
 */
import type { SupervisorHistory } from "../extractors/supervisor.js";
import { isTimeMs } from "../util/values.js";
import { BudgetClock } from "./clock.js";

/** The run's clock and window, and the validation tolerance (hours). */
export interface RunWindow {
  clock: BudgetClock;
  runStartMs: number;
  runEndMs: number;
  runEndFrom: "run_end" | "100 budget hours" | "a pause never resumed";
  /** Start of a pause never resumed before run_end (UTC epoch ms): after it the budget clock is unknown. */
  unknownFromMs: number | null;
  toleranceH: number;
}

/**
 * The window of a supervisor history: without run_end, the run ends at 100
 * budget hours, or where a pause that never ended stopped the clock. A pause
 * never resumed before run_end: how much budget time passed between the two is
 * unknown (the resume is missing), so a write time inside it has no hour.
 */
export function runWindow(supervisor: SupervisorHistory, toleranceH: number): RunWindow {
  const clock = new BudgetClock(supervisor.runStartMs, supervisor.pauses);
  const { ms: runEndMs, from: runEndFrom } = clock.runEnd(supervisor.runEndMs);
  const stoppedMs = clock.stoppedAtMs();
  const unknownFromMs =
    supervisor.runEndMs !== null && stoppedMs !== null && stoppedMs < supervisor.runEndMs ? stoppedMs : null;
  return { clock, runStartMs: supervisor.runStartMs, runEndMs, runEndFrom, unknownFromMs, toleranceH };
}

/** True when `t` (UTC epoch ms) lies within the run: from run_start to the run's end, both included (SOURCES.md: "Where a checkpoint's hour comes from"). */
export function withinRun(t: number, w: RunWindow): boolean {
  return t >= w.runStartMs && t <= w.runEndMs;
}

/** True when the budget clock is unknown at `t` (UTC epoch ms): after the start of an unresumed pause. */
export function clockUnknownAt(w: RunWindow, t: number): boolean {
  return w.unknownFromMs !== null && t > w.unknownFromMs;
}

/** ISO text of a time; a time no Date can hold (a trajectory's far-future epoch) shows as null rather than crash the build. */
export const iso = (ms: number | null): string | null =>
  ms === null || !isTimeMs(ms) ? null : new Date(ms).toISOString();
