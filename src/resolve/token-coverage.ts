/**
 * How far a cell's driver logs reach (MANIFEST.md, `driver_tokens_at_hour`;
 * TRAJECTORIES.md, "What cannot be recovered"): a driver that is running calls
 * its model every few minutes, so a checkpoint written long after the last
 * call the logs hold means the logs stop early (a session file missing, a
 * capture cut short), and a stretch of the run without a call longer than
 * that (from `run_start` to the first call, or between two calls) means a
 * session is missing there: every count after it misses that session's
 * calls. The count at such a moment is a floor, not a count: its tokens are
 * unknown (null), with one warning per cell.
 *
 * The tolerance is measured in budget hours (paused time does not count: a
 * paused driver makes no calls). On the embedded sources the longest quiet
 * stretch between two calls of any cell is 0.79 budget hours (sol-max-v2;
 * every other cell ≤ 0.75), every cell's first call is within it of
 * `run_start`, and every row is written before its cell's last call; so 1
 * budget hour leaves every real row alone and catches logs that miss more
 * than an hour.
 */
import type { Warning } from "../diagnostics.js";
import { TokenLedger, type TokenCall } from "../extractors/trajectory/index.js";
import { type BudgetClock, round2 } from "./clock.js";

/** Budget hours a moment may lie after the cell's last placed call and still have its tokens counted. */
export const TOKEN_COVERAGE_TOLERANCE_H = 1;

/** A stretch of the run longer than the tolerance with no placed call. */
export interface TokenLogGap {
  /** The call before it, or null when it starts at `run_start`. */
  from: TokenCall | null;
  /** Budget hour of its start (0 at `run_start`). */
  fromHour: number;
  /** The call that ends it (where the logs go on). */
  to: TokenCall;
  /** Budget hour of that call. */
  toHour: number;
}

/**
 * A cell's token ledger that knows how far its logs reach: {@link covers}
 * says whether a moment's count can be stood behind.
 *
 * - The logs reach the tolerance past their last call, and past the start
 *   of the first stretch between two calls longer than the tolerance
 *   ({@link gap}): a session is missing there, and every count after it misses
 *   that session's calls.
 * - The run's first hour of tolerance is covered. A first placed call later
 *   than that ({@link startGap}) means the logs of the run's start are
 *   missing (a deleted first session): every count from then on misses that
 *   session's calls, as after a gap between two calls, so no moment past the
 *   tolerance is covered. Only calls logged without a time can fill such a
 *   stretch (kimi-code's early `usage.record`s): with any of them the moments
 *   before the first placed call are still not covered, but the counts from
 *   it on are the calls logged, those untimed calls left out
 *   (`TRAJECTORY_UNPLACED_CALLS`).
 *
 * `build` and `tokens --sources --cell` both get one from `countCellTokens`.
 */
export class CoveredTokenLedger extends TokenLedger {
  /** The last placed call (time, file, line). */
  readonly lastCall: TokenCall;
  /** Budget hour of the last placed call. */
  readonly lastCallHour: number;
  /** From `run_start` to the first placed call of the run, when that is longer than the tolerance; else null. */
  readonly startGap: TokenLogGap | null;
  /** The first stretch between two placed calls of the run longer than the tolerance, or null. */
  readonly gap: TokenLogGap | null;
  /** The budget hour up to which moments are covered (from the first call on). */
  readonly coveredToHour: number;
  /** Whether {@link startGap} ends the coverage of every later moment (no call without a time can fill it). */
  readonly startEndsCoverage: boolean;

  /**
   * @param calls the cell's counted calls (at least one placed in time)
   * @param clock the cell's budget clock (run_start and pauses)
   * @param toleranceH the longest stretch without a call, in budget hours, that the coverage bridges ({@link TOKEN_COVERAGE_TOLERANCE_H})
   */
  constructor(
    calls: readonly TokenCall[],
    readonly clock: BudgetClock,
    readonly toleranceH: number = TOKEN_COVERAGE_TOLERANCE_H,
  ) {
    super(calls);
    const last = this.around(Number.POSITIVE_INFINITY, 1, 0)[0];
    if (last === undefined || last.timeMs === null) throw new Error("CoveredTokenLedger needs a placed call");
    this.lastCall = last;
    this.lastCallHour = clock.hourAt(last.timeMs);
    const { startGap, gap } = gapsOf(this.placed, clock, toleranceH);
    this.startGap = startGap;
    this.gap = gap;
    this.coveredToHour = (gap === null ? this.lastCallHour : gap.fromHour) + toleranceH;
    this.startEndsCoverage = startGap !== null && this.placedCalls() === calls.length;
  }

  /** True when the count at `tMs` (epoch ms) can be stood behind (see the class). */
  covers(tMs: number): boolean {
    return this.uncoveredBy(tMs) === null;
  }

  /** Why `tMs` is not covered: before the first call (`start`), after a gap (`gap`), after the logs (`end`); null when it is. */
  uncoveredBy(tMs: number): "start" | "gap" | "end" | null {
    const hour = this.clock.hourAt(tMs);
    if (this.startGap !== null && hour > this.toleranceH && (this.startEndsCoverage || hour < this.startGap.toHour))
      return "start";
    if (hour > this.coveredToHour) return this.gap === null ? "end" : "gap";
    return null;
  }
}

/** The stretches without a placed call longer than `toleranceH` budget hours: from `run_start` to the first call, and the first between two calls. */
function gapsOf(
  placed: readonly TokenCall[],
  clock: BudgetClock,
  toleranceH: number,
): { startGap: TokenLogGap | null; gap: TokenLogGap | null } {
  let startGap: TokenLogGap | null = null;
  let from: TokenCall | null = null;
  let fromHour = 0;
  for (const call of placed) {
    const hour = clock.hourAt(call.timeMs!);
    if (hour < 0) continue; // before run_start: not this run's
    if (hour - fromHour > toleranceH) {
      const gap = { from, fromHour, to: call, toHour: hour };
      if (from !== null) return { startGap, gap };
      startGap = gap;
    }
    from = call;
    fromHour = hour;
  }
  return { startGap, gap: null };
}

/**
 * The coverage warnings of a cell whose moments `momentsMs` (row write times,
 * or a `tokens --at`; epoch ms) include some its ledger does not cover (none
 * when every moment is covered), one per cause:
 * `TRAJECTORY_GAP_BEFORE_CHECKPOINT` for moments after the start of a stretch
 * without a call (from `run_start`, or between two calls; it names the
 * stretch, at the call that ends it), `TRAJECTORY_ENDS_BEFORE_CHECKPOINT` for
 * moments after the logs (it names the last call, at its file and line);
 * each says how many moments and the budget hour of the latest.
 *
 * @param what the moments' name in the message ("row(s)" for the build, "moment(s) asked" for `tokens`)
 */
export function coverageWarnings(ledger: CoveredTokenLedger, momentsMs: readonly number[], what = "row(s)"): Warning[] {
  const warnings: Warning[] = [];
  const hourOf = (t: number) => round2(ledger.clock.hourAt(t)).toFixed(2);
  const callAt = (call: TokenCall, hour: number) =>
    `the call at ${new Date(call.timeMs!).toISOString()} (budget hour ${round2(hour).toFixed(2)})`;
  // A stretch from run_start that calls without a time may fill: only the moments inside it are unknown.
  const within = (gap: TokenLogGap): boolean => gap.from === null && !ledger.startEndsCoverage;
  const gapWarning = (gap: TokenLogGap, beyond: number[]): Warning => ({
    code: "TRAJECTORY_GAP_BEFORE_CHECKPOINT",
    message:
      `the trajectory has no placed call for ${round2(gap.toHour - gap.fromHour).toFixed(2)} budget hours, ` +
      `from ${gap.from === null ? `run_start ${new Date(ledger.clock.runStartMs).toISOString()}` : callAt(gap.from, gap.fromHour)} to ${callAt(gap.to, gap.toHour)}, ` +
      `and ${beyond.length} ${what} lie ${gap.from !== null ? "after it" : within(gap) ? "in it" : "in it or after it"}, more than ${ledger.toleranceH} budget hour(s) after its start (the latest at budget hour ${hourOf(Math.max(...beyond))}): ` +
      `a running driver calls its model every few minutes, so the logs probably miss a session there (a missing session file?), ` +
      `and the driver tokens ${within(gap) ? "there" : "from then on"} are unknown (null), not the count of the calls logged`,
    file: gap.to.file,
    line: gap.to.line,
  });
  const by = (cause: "start" | "gap" | "end") => momentsMs.filter((t) => ledger.uncoveredBy(t) === cause);
  const start = by("start");
  if (start.length > 0 && ledger.startGap !== null) warnings.push(gapWarning(ledger.startGap, start));
  const gap = by("gap");
  if (gap.length > 0 && ledger.gap !== null) warnings.push(gapWarning(ledger.gap, gap));
  const end = by("end");
  if (end.length > 0) {
    const last = ledger.lastCall;
    warnings.push({
      code: "TRAJECTORY_ENDS_BEFORE_CHECKPOINT",
      message:
        `the trajectory's last placed call is at ${new Date(last.timeMs!).toISOString()} (budget hour ${round2(ledger.lastCallHour).toFixed(2)}), ` +
        `but ${end.length} ${what} lie more than ${ledger.toleranceH} budget hour(s) after it ` +
        `(the latest at budget hour ${hourOf(Math.max(...end))}): the logs probably stop early (a missing session file?), ` +
        `so the driver tokens there are unknown (null), not the count of the calls logged`,
      file: last.file,
      line: last.line,
    });
  }
  return warnings;
}
