/**
 * How far a cell's driver logs reach (MANIFEST.md, `driver_tokens_at_hour`;
 * TRAJECTORIES.md, "What cannot be recovered"): a driver that is running calls
 * its model every few minutes, so a checkpoint written long after the last
 * call the logs hold means the logs stop early (a session file missing, a
 * capture cut short), and the count at that moment is a floor, not a count.
 * Such a moment's tokens are unknown (null), with one warning per cell.
 *
 * The tolerance is measured in budget hours (paused time does not count: a
 * paused driver makes no calls). On the embedded sources the longest quiet
 * stretch between two calls of any cell is 0.79 budget hours (sol-max-v2;
 * every other cell ≤ 0.75), and every row is written before its cell's last
 * call; so 1 budget hour leaves every real row alone and catches logs that
 * stop more than an hour before a checkpoint.
 */
import type { Warning } from "../diagnostics.js";
import { TokenLedger, type TokenCall } from "../extractors/trajectory/index.js";
import { type BudgetClock, round2 } from "./clock.js";

/** Budget hours a moment may lie after the cell's last placed call and still have its tokens counted. */
export const TOKEN_COVERAGE_TOLERANCE_H = 1;

/**
 * A cell's token ledger that knows where its logs end: {@link covers} says
 * whether a moment's count can be stood behind. `build` and
 * `tokens --sources --cell` both get one from `countCellTokens`.
 */
export class CoveredTokenLedger extends TokenLedger {
  /** The last placed call (time, file, line). */
  readonly lastCall: TokenCall;
  /** Budget hour of the last placed call. */
  readonly lastCallHour: number;

  /**
   * @param calls the cell's counted calls (at least one placed in time)
   * @param clock the cell's budget clock (run_start and pauses)
   * @param toleranceH budget hours a moment may follow the last call ({@link TOKEN_COVERAGE_TOLERANCE_H})
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
  }

  /** Budget hours from the last placed call to `tMs` (epoch ms); negative before it. */
  hoursAfterLastCall(tMs: number): number {
    return this.clock.hourAt(tMs) - this.lastCallHour;
  }

  /** True when `tMs` (epoch ms) is at most `toleranceH` budget hours after the last placed call. */
  covers(tMs: number): boolean {
    return this.hoursAfterLastCall(tMs) <= this.toleranceH;
  }
}

/**
 * The `TRAJECTORY_ENDS_BEFORE_CHECKPOINT` warning of a cell whose moments
 * `momentsMs` (row write times, or a `tokens --at`; epoch ms) include some
 * beyond the ledger's coverage, or null when every moment is covered. It
 * names the last call (time, file, line), how many moments are affected and
 * the budget hour of the latest; located at the last call's file and line.
 *
 * @param what the moments' name in the message ("row(s)" for the build, "moment(s) asked" for `tokens`)
 */
export function coverageWarning(
  ledger: CoveredTokenLedger,
  momentsMs: readonly number[],
  what = "row(s)",
): Warning | null {
  const beyond = momentsMs.filter((t) => !ledger.covers(t));
  if (beyond.length === 0) return null;
  const latest = Math.max(...beyond);
  const last = ledger.lastCall;
  return {
    code: "TRAJECTORY_ENDS_BEFORE_CHECKPOINT",
    message:
      `the trajectory's last placed call is at ${new Date(last.timeMs!).toISOString()} (budget hour ${round2(ledger.lastCallHour).toFixed(2)}), ` +
      `but ${beyond.length} ${what} lie more than ${ledger.toleranceH} budget hour(s) after it ` +
      `(the latest at budget hour ${round2(ledger.clock.hourAt(latest)).toFixed(2)}): the logs probably stop early (a missing session file?), ` +
      `so the driver tokens there are unknown (null), not the count of the calls logged`,
    file: last.file,
    line: last.line,
  };
}
