import type { Pause } from "../observations.js";

const HOUR_MS = 3_600_000;

/**
 * The budget clock of one cell (SOURCES.md: supervisor/): hour 0 is
 * `run_start`; paused time does not count.
 */
export class BudgetClock {
  private readonly pauses: { startMs: number; endMs: number }[];

  /**
   * @param runStartMs UTC epoch ms of `run_start`; pauses in any order (an
   *   open pause lasts forever). Time before `run_start` is not paused time;
   *   overlapping pauses are merged, so paused time is never counted twice.
   */
  constructor(
    readonly runStartMs: number,
    pauses: Pause[],
  ) {
    const sorted = pauses
      .map((p) => ({ startMs: Math.max(p.startMs, runStartMs), endMs: p.endMs ?? Number.POSITIVE_INFINITY }))
      .filter((p) => p.endMs > p.startMs)
      .sort((a, b) => a.startMs - b.startMs);
    const merged: { startMs: number; endMs: number }[] = [];
    for (const p of sorted) {
      const last = merged[merged.length - 1];
      if (last && p.startMs <= last.endMs) last.endMs = Math.max(last.endMs, p.endMs);
      else merged.push({ ...p });
    }
    this.pauses = merged;
  }

  /**
   * Budget hours at UTC epoch ms `t`: `(t − run_start − paused time before t) / 3600 s`.
   * A moment inside a pause has the hour at which the pause began. Unrounded;
   * negative before `run_start`.
   */
  hourAt(tMs: number): number {
    let paused = 0;
    for (const p of this.pauses) {
      if (tMs <= p.startMs) break;
      paused += Math.min(tMs, p.endMs) - p.startMs;
    }
    return (tMs - this.runStartMs - paused) / HOUR_MS;
  }

  /** When a pause that never ended stopped the clock for good (UTC epoch ms), or null. */
  stoppedAtMs(): number | null {
    const last = this.pauses[this.pauses.length - 1];
    return last && last.endMs === Number.POSITIVE_INFINITY ? last.startMs : null;
  }

  /**
   * When the run ends (SOURCES.md: a run lasts 100 budget hours; no
   * checkpoint is written after `run_end`): the `run_end` event's time
   * (`runEndEventMs`, UTC epoch ms) when there is one, else 100 budget hours,
   * or earlier where a pause that never ended stopped the clock; with which
   * of the three it is. The build, `explain` and `tokens --hour` all take the
   * run's end from here.
   */
  runEnd(runEndEventMs: number | null): { ms: number; from: "run_end" | "100 budget hours" | "a pause never resumed" } {
    if (runEndEventMs !== null) return { ms: runEndEventMs, from: "run_end" };
    const at100 = this.timeAt(100);
    const stopped = this.stoppedAtMs();
    return stopped !== null && stopped < at100
      ? { ms: stopped, from: "a pause never resumed" }
      : { ms: at100, from: "100 budget hours" };
  }

  /**
   * The UTC epoch ms at which the budget clock reads `hour` (the first such
   * moment); +Infinity when it never does (stopped for good by a pause that
   * never ended, see {@link stoppedAtMs}).
   */
  timeAt(hour: number): number {
    let t = this.runStartMs + hour * HOUR_MS;
    for (const p of this.pauses) {
      if (t <= p.startMs) break;
      t += p.endMs - p.startMs;
    }
    return t;
  }
}

/** Rounds to 2 decimals, half away from zero, without binary drift (MANIFEST.md: hour). */
export function round2(x: number): number {
  const r = Math.round(Math.abs(x) * 100 + 1e-9) / 100;
  return x < 0 ? -r : r;
}
