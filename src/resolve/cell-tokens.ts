/**
 * A cell's driver tokens exactly as the build counts them (MANIFEST.md,
 * `driver_tokens_at_hour`; TRAJECTORIES.md, "The quantity"): the cell's
 * trajectory folder read in its `trajectory_format`, the calls from the
 * supervisor's `run_start` up to a moment, and null when the folder gives no
 * call that can be placed in time. `build` and `tokens --sources --cell` both
 * count through here, so one reproduces the other.
 */
import { stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Warning } from "../diagnostics.js";
import { InputError } from "../errors.js";
import type { Cell, CellsFile } from "../schema.js";
import type { FileCache } from "../util/file-cache.js";
import {
  incompleteReading,
  readTrajectory,
  type TokenLedger,
  type TokenTotals,
  type TrajectoryReading,
  unplaceImplausibleTimes,
} from "../extractors/trajectory/index.js";
import { orOnFsError, statIfPresent, unreadableError } from "../util/fs-errors.js";
import { BudgetClock } from "./clock.js";
import { coverageWarnings, CoveredTokenLedger } from "./token-coverage.js";

/** Hours a call may lie before `run_start`, or after the run's 100 budget hours, and still be dated right (a driver set up early, or stopped late). */
const CALL_OUTSIDE_RUN_SLACK_H = 24;

/** What {@link countCellTokens} gives. */
export interface CellTokenCount {
  /** The trajectory's calls and warnings (files named `<cell>/trajectory/...`, wherever the folder is). */
  reading: TrajectoryReading;
  /**
   * The cumulative token ledger, or null when no counted call has a time at
   * or after `run_start` (no session file, none with a call of the format,
   * none placeable in time, or every call before the run): the cell's tokens
   * are then unknown, never 0 (MANIFEST.md). It knows where the logs end:
   * a moment too long after the last call has unknown tokens ({@link cellTokensAt}).
   */
  ledger: CoveredTokenLedger | null;
  /** The folder read (absolute). */
  dir: string;
}

/** Options of {@link countCellTokens}. */
export interface CellTokenOptions {
  /** The folder to read instead of `<sources>/<cell>/trajectory` (`build --trajectory CELL=DIR`). */
  dir?: string;
  cache?: FileCache;
  onBytes?: (bytes: number) => void;
  /** The cell's budget clock (run_start and pauses), by which the logs' coverage is measured; default: no pauses. */
  clock?: BudgetClock;
  /** Told the session files found, as `<cell>/trajectory/<path inside>` (`readTrajectory`'s `onListed`). */
  onListed?: (files: string[]) => void;
  /** Told the scan's thread count (`readTrajectory`'s `onThreads`). */
  onThreads?: (threads: number, sampled: boolean) => void;
  /** `readTrajectory`'s `warnUnread` (default: for `dir` only; the build checks every file of the sources itself). */
  warnUnread?: boolean;
}

/**
 * Reads a cell's trajectory as the build does: `<sourcesDir>/<cell>/trajectory`
 * (or `opts.dir`), its files shown as `<cell>/trajectory/<path inside>` in
 * both cases, so a folder given from another disk gives the same result as
 * the same files inside the sources. `runStartMs` is the supervisor's
 * `run_start` (epoch ms): a trajectory whose every call is before it is not
 * this run's (warning `TRAJECTORY_NO_CALLS_IN_RUN`, ledger null).
 *
 * A session file or folder that cannot be read (`TRAJECTORY_READ_ERROR`)
 * makes the ledger null too: the counts may be short.
 *
 * @throws InputError `TRAJECTORY_MISSING` when the folder (in the sources) is
 *   absent, `SOURCES_UNREADABLE` when it cannot be looked at, `TRAJECTORY_DIR_MISSING` when `opts.dir` is not a readable folder,
 *   and the errors of `readTrajectory`.
 */
export async function countCellTokens(
  sourcesDir: string,
  cell: Cell,
  runStartMs: number,
  opts: CellTokenOptions = {},
): Promise<CellTokenCount> {
  const prefix = `${cell.cell}/trajectory`;
  const dir = opts.dir !== undefined ? resolve(opts.dir) : join(resolve(sourcesDir), cell.cell, "trajectory");
  // A sources folder that cannot be looked into is SOURCES_UNREADABLE, not "no trajectory/ folder".
  const inSources = opts.dir === undefined ? await isDirOrUnreadable(dir, prefix) : await isDir(dir);
  if (!inSources) {
    if (opts.dir !== undefined) {
      throw new InputError(
        "TRAJECTORY_DIR_MISSING",
        `--trajectory ${cell.cell}=${opts.dir}: not a readable folder`,
        opts.dir,
      );
    }
    throw new InputError(
      "TRAJECTORY_MISSING",
      `cell "${cell.cell}" has no trajectory/ folder: driver tokens cannot be counted`,
      prefix,
    );
  }
  let reading = await readTrajectory(cell.trajectory_format, [dir], {
    displayRoot: dir,
    displayPrefix: prefix,
    cache: opts.cache,
    onBytes: opts.onBytes,
    onListed: opts.onListed,
    // A live folder (build --trajectory CELL=DIR) lies outside the sources, where the build checks every file itself.
    warnUnread: opts.warnUnread ?? opts.dir !== undefined,
    onThreads: opts.onThreads,
  });
  // A session file or folder that could not be read: every count of the cell may be short, so none is written.
  if (incompleteReading(reading) !== null) return { reading, ledger: null, dir };
  let placed = 0;
  let last = Number.NEGATIVE_INFINITY;
  for (const c of reading.calls) {
    if (c.timeMs === null) continue;
    placed += 1;
    if (c.timeMs > last) last = c.timeMs;
  }
  if (placed === 0) return { reading, ledger: null, dir };
  if (last < runStartMs) {
    const warning: Warning = {
      code: "TRAJECTORY_NO_CALLS_IN_RUN",
      message:
        `all ${placed} placed call(s) of the ${cell.trajectory_format} trajectory are before run_start ` +
        `${new Date(runStartMs).toISOString()} (the last at ${new Date(last).toISOString()}): is it this cell's trajectory? the tokens are unknown (null), not 0`,
      file: prefix,
      line: null,
    };
    return { reading: { calls: reading.calls, warnings: [...reading.warnings, warning] }, ledger: null, dir };
  }
  // A call dated far from the run (a wrong year on its line) would drop out of every row's count: it is
  // a call without a time (TRAJECTORY_CALL_OUTSIDE_RUN), like one in the wrong unit (readTrajectory).
  const clock = opts.clock ?? new BudgetClock(runStartMs, []);
  const slackMs = CALL_OUTSIDE_RUN_SLACK_H * 3_600_000;
  const toMs = clock.timeAt(100) + slackMs;
  const inRun = unplaceImplausibleTimes(
    reading.calls,
    runStartMs - slackMs,
    Number.isFinite(toMs) ? toMs : Number.POSITIVE_INFINITY,
    "TRAJECTORY_CALL_OUTSIDE_RUN",
    `more than ${CALL_OUTSIDE_RUN_SLACK_H} h before run_start ${new Date(runStartMs).toISOString()} or after the run's 100 budget hours, while the others are in it (a wrong date on the line?)`,
  );
  if (inRun.warning !== null) reading = { calls: [...inRun.calls], warnings: [...reading.warnings, inRun.warning] };
  if (!reading.calls.some((c) => c.timeMs !== null)) return { reading, ledger: null, dir };
  const ledger = new CoveredTokenLedger(reading.calls, clock);
  return { reading, ledger, dir };
}

/**
 * `driver_tokens_at_hour`'s totals at `tMs` (epoch ms): the calls with
 * `runStartMs ≤ time ≤ tMs`; null when the ledger is null (tokens unknown),
 * and when `tMs` is not covered by the logs (a {@link CoveredTokenLedger}: they stop early,
 * or miss a session before it; see resolve/token-coverage.ts and its warnings).
 */
export function cellTokensAt(
  ledger: Pick<TokenLedger, "at"> | null,
  tMs: number,
  runStartMs: number,
): TokenTotals | null {
  if (ledger === null) return null;
  if (ledger instanceof CoveredTokenLedger && !ledger.covers(tMs)) return null;
  return ledger.at(tMs, runStartMs);
}

/**
 * The build's coverage warnings for a cell (`TRAJECTORY_GAP_BEFORE_CHECKPOINT`,
 * `TRAJECTORY_ENDS_BEFORE_CHECKPOINT`; resolve/token-coverage.ts): its rows'
 * write times (epoch ms; null for rows with no hour) against its ledger's
 * coverage; none when every row is covered or the ledger is null.
 */
export function cellCoverageWarnings(ledger: TokenLedger | null, writeTimesMs: readonly (number | null)[]): Warning[] {
  if (!(ledger instanceof CoveredTokenLedger)) return [];
  return coverageWarnings(
    ledger,
    writeTimesMs.filter((t): t is number => t !== null),
  );
}

/**
 * `tokens --sources --cell` at a moment, as the build counts a row there:
 * `atMs` null is the whole run (no coverage check); else {@link cellTokensAt},
 * with the coverage warning when the moment is not covered.
 */
export function cellTokensAtMoment(
  ledger: TokenLedger | null,
  atMs: number | null,
  sinceMs: number,
): { totals: TokenTotals | null; warning: Warning | null } {
  if (ledger === null) return { totals: null, warning: null };
  if (atMs === null) return { totals: ledger.at(Number.POSITIVE_INFINITY, sinceMs), warning: null };
  const warning =
    ledger instanceof CoveredTokenLedger ? (coverageWarnings(ledger, [atMs], "moment(s) asked")[0] ?? null) : null;
  return { totals: cellTokensAt(ledger, atMs, sinceMs), warning };
}

/**
 * Checks `build --trajectory CELL=DIR` keys against `cells.json`.
 *
 * @throws InputError `TRAJECTORY_UNKNOWN_CELL` for a cell that is not in
 *   `cells.json`, or is excluded (its trajectory is never read).
 */
export function checkTrajectoryCells(registry: CellsFile, dirs: Record<string, string>): void {
  for (const [cell, dir] of Object.entries(dirs)) {
    const c = registry.cells.find((x) => x.cell === cell);
    if (!c || c.excluded) {
      throw new InputError(
        "TRAJECTORY_UNKNOWN_CELL",
        `--trajectory ${cell}=${dir}: ${c ? "the cell is excluded, its trajectory is never read" : `no such cell in cells.json (cells: ${registry.cells.map((x) => x.cell).join(", ")})`}`,
        "cells.json",
      );
    }
  }
}

/** True when `path` is a folder, false when nothing is there; `SOURCES_UNREADABLE` (naming `rel`) when it cannot be looked at. */
async function isDirOrUnreadable(path: string, rel: string): Promise<boolean> {
  return orOnFsError(
    async () => (await statIfPresent(path))?.isDirectory() ?? false,
    (err) => {
      throw unreadableError("SOURCES_UNREADABLE", rel, err);
    },
  );
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
