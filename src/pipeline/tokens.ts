/**
 * `ptb-manifest tokens` as a library: counts a driver trajectory's tokens
 * (TRAJECTORIES.md), in total or cumulatively up to a moment, of given
 * session files or of one cell as the build counts it.
 */
import { resolve } from "node:path";
import { Diagnostics, type Warning } from "../diagnostics.js";
import { InputError } from "../errors.js";
import {
  incompleteReading,
  readTrajectory,
  callTotals,
  TokenLedger,
  type TokenTotals,
  type TrajectoryFormat,
  trajectoryBytes,
} from "../extractors/trajectory/index.js";
import type { ByteProgress } from "../util/progress.js";
import { parseIsoTime } from "../util/values.js";

/**
 * The JSON object printed by `tokens --json`. Times are ISO 8601 UTC with ms.
 * The counts (and `calls`) are null when the tokens are unknown (no call to
 * count, a session file not read to its end; with `--cell`, exactly when the
 * build writes null). `cell`, `format`, `since`
 * and `at` are there with `--cell` or `--since` (the scope counted).
 */
interface TokensReport {
  cell?: string;
  format?: TrajectoryFormat;
  since?: string | null;
  at?: string | null;
  uncached_input: number | null;
  cache_read: number | null;
  cache_write: number | null;
  output: number | null;
  total: number | null;
  calls: number | null;
  last_call_time: string | null;
  warnings: Warning[];
}

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * Parses `--at`: an ISO 8601 time with `Z` or an explicit offset. Returns epoch
 * ms, or null when the value is not such a time (a time without an offset is
 * refused: its zone would be a guess).
 */
function parseAtTime(value: string): number | null {
  const s = value.trim();
  if (!ISO_WITH_ZONE.test(s)) return null;
  const ms = parseIsoTime(s); // strict: 2026-02-30 is refused, not rolled over
  return Number.isFinite(ms) ? Math.floor(ms) : null;
}

/** Formats epoch ms as ISO 8601 UTC with milliseconds (`2026-02-23T11:46:43.614Z`), or null. */
function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** Builds the `--json` report from totals (null: the tokens are unknown) and warnings. */
function tokensReport(t: TokenTotals | null, warnings: Warning[]): TokensReport {
  return {
    uncached_input: t === null ? null : t.uncachedInput,
    cache_read: t === null ? null : t.cacheRead,
    cache_write: t === null ? null : t.cacheWrite,
    output: t === null ? null : t.output,
    total: t === null ? null : t.total,
    calls: t === null ? null : t.calls,
    last_call_time: t === null ? null : isoOrNull(t.lastCallTimeMs),
    warnings,
  };
}

/** The text `tokens` prints without `--json`: one aligned `name  value` line per part. */
function renderTokens(
  report: TokensReport,
  format: TrajectoryFormat,
  atIso: string | null,
  sinceIso: string | null,
): string {
  const n = (x: number | null): string => (x === null ? "null (unknown)" : x.toLocaleString("en-US"));
  const scope = [sinceIso === null ? null : `from ${sinceIso}`, atIso === null ? null : `at or before ${atIso}`].filter(
    (x) => x !== null,
  );
  const rows: [string, string][] = [
    ...(report.cell !== undefined ? ([["cell", report.cell]] as [string, string][]) : []),
    ["format", format],
    ["scope", scope.length === 0 ? "all calls" : `calls completed ${scope.join(", ")}`],
    ["uncached input", n(report.uncached_input)],
    ["cache read", n(report.cache_read)],
    ["cache write", n(report.cache_write)],
    ["output", n(report.output)],
    ["total", n(report.total)],
    ["calls", n(report.calls)],
    ["last call time", report.last_call_time ?? "-"],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return `${rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join("\n")}\n`;
}

/** Options of the `tokens` command (commander's parse). */
export interface TokensOptions {
  format?: TrajectoryFormat;
  at?: string;
  since?: string;
  hour?: string;
  sources?: string;
  cell?: string;
  trajectory?: string;
  json?: boolean;
  quiet?: boolean;
}

/** What {@link countTokens} counted: the format read, the warnings, the totals (null: unknown) and the window. */
export interface CountedTokens {
  format: TrajectoryFormat;
  warnings: Warning[];
  totals: TokenTotals | null;
  /** With `--cell`: the cell counted. */
  cellName?: string;
  atMs: number | null;
  sinceMs: number | null;
}

/**
 * Counts the tokens `tokens` prints: of `paths` in `opts.format`, or of
 * `opts.cell` of `opts.sources` exactly as the build counts it (its format,
 * its trajectory folder, calls from its `run_start`; `hour` read on its
 * budget clock), within `[sinceMs, atMs]`. Reads are reported on `progress`.
 *
 * @param usage raises a usage error (exit 64): a `--hour` the clock never
 *   reads or after the run's end, a `--since` after the moment of `--hour`,
 *   an `--at` before the cell's `run_start` without `--since`.
 * @param onThreads told how many threads scan the files (`readTrajectory`'s `onThreads`).
 * @throws InputError `TRAJECTORY_UNKNOWN_CELL`, and the errors of reading
 *   `cells.json`, the supervisor history and the trajectories.
 */
export async function countTokens(
  opts: TokensOptions,
  paths: string[],
  window: TokensWindow,
  progress: ByteProgress,
  usage: (message: string) => never,
  onThreads?: (threads: number, sampled: boolean) => void,
): Promise<CountedTokens> {
  let { atMs, sinceMs } = window;
  const { hour } = window;
  let format: TrajectoryFormat;
  let warnings: Warning[];
  let totals: TokenTotals | null;
  let cellName: string | undefined;
  if (opts.cell !== undefined) {
    // One cell, counted through the build's own code (resolve/cell-tokens.ts), loaded only for --cell:
    // the registry's schemas and the supervisor reader are a start-up cost that counting files does not pay.
    const [{ loadCells }, { readSupervisor }, { cellTokensAtMoment, countCellTokens }, { BudgetClock }] =
      await Promise.all([
        import("../sources/cells.js"),
        import("./read-supervisor.js"),
        import("../resolve/cell-tokens.js"),
        import("../resolve/clock.js"),
      ]);
    const sourcesDir = resolve(opts.sources ?? "sources");
    const registry = await loadCells(sourcesDir);
    const cell = registry.cells.find((c) => c.cell === opts.cell);
    if (!cell) {
      throw new InputError(
        "TRAJECTORY_UNKNOWN_CELL",
        `--cell ${opts.cell}: no such cell in cells.json (cells: ${registry.cells.map((c) => c.cell).join(", ")})`,
        "cells.json",
      );
    }
    const diag = new Diagnostics();
    const supervisor = await readSupervisor(sourcesDir, cell, diag);
    if (hour !== null) {
      const clock = new BudgetClock(supervisor.runStartMs, supervisor.pauses);
      atMs = clock.timeAt(hour);
      if (!Number.isFinite(atMs))
        usage(`the budget clock of ${cell.cell} never reads ${opts.hour} h (a pause that never ended stopped it)`);
      // The run's end as the build takes it (resolve/resolve-cell.ts): run_end, else 100 budget hours or a pause never resumed.
      const runEndMs = clock.runEnd(supervisor.runEndMs).ms;
      if (atMs > runEndMs) {
        const endHour = clock.hourAt(runEndMs);
        usage(
          `--hour ${opts.hour} is after the end of ${cell.cell}'s run (${new Date(runEndMs).toISOString()}, budget hour ${Math.round(endHour * 100) / 100}${supervisor.runEndMs !== null ? ", its run_end" : ""}): no row can be at that hour`,
        );
      }
    }
    if (atMs !== null && sinceMs !== null && sinceMs > atMs)
      usage(
        `--since ${opts.since} is after the moment of --hour ${opts.hour} (${new Date(atMs).toISOString()}): no call can be completed in that window`,
      );
    // Without --since the cell counts from its run_start (as the build does): an --at before it holds no call.
    if (sinceMs === null && atMs !== null && atMs < supervisor.runStartMs)
      usage(
        `--at ${opts.at} is before ${cell.cell}'s run_start (${new Date(supervisor.runStartMs).toISOString()}): ` +
          "no call of the run can be completed by then (give --since to count calls before run_start)",
      );
    // Without a moment or --since: the whole run's totals, every call of its logs (those without a time too).
    const wholeRun = atMs === null && sinceMs === null;
    if (!wholeRun) sinceMs ??= supervisor.runStartMs;
    format = cell.trajectory_format;
    cellName = cell.cell;
    const counted = await countCellTokens(sourcesDir, cell, supervisor.runStartMs, {
      dir: opts.trajectory,
      onBytes: progress.active ? (n) => progress.add(n) : undefined,
      clock: new BudgetClock(supervisor.runStartMs, supervisor.pauses),
      onThreads,
      warnUnread: true,
    });
    warnings = [...diag.warnings, ...counted.reading.warnings];
    if (wholeRun) totals = counted.ledger?.totals() ?? null;
    else {
      // As the build counts a row at that moment: null past the logs' end (resolve/token-coverage.ts).
      const at = cellTokensAtMoment(counted.ledger, atMs, sinceMs!);
      totals = at.totals;
      if (at.warning) warnings.push(at.warning);
    }
  } else {
    format = opts.format!;
    if (progress.active) progress.stage("reading", await trajectoryBytes(format, paths));
    const reading = await readTrajectory(format, paths, {
      onBytes: progress.active ? (n) => progress.add(n) : undefined,
      onThreads,
      warnUnread: true,
    });
    warnings = reading.warnings;
    // No call to count (no session file, none of the format, none placed in time for --at/--since): unknown, null.
    // A file not read to its end (or a codex rollout of unknown kind) leaves the run's count unknown too: the
    // files read give a floor, which would read as the run's total (as the build: null, never a smaller count).
    // The ledger (prefix sums in time order) only for a window; the totals of all calls need one pass.
    if (incompleteReading(reading) !== null) totals = null;
    else if (atMs !== null || sinceMs !== null) {
      const ledger = new TokenLedger(reading.calls);
      const outside = ledger.placedCalls() === 0 ? null : windowOutsideLogs(ledger, atMs, sinceMs);
      if (outside !== null) warnings = [...warnings, outside];
      totals =
        ledger.placedCalls() === 0 || outside !== null
          ? null
          : ledger.at(atMs ?? Number.POSITIVE_INFINITY, sinceMs ?? Number.NEGATIVE_INFINITY);
    } else totals = reading.calls.length === 0 ? null : callTotals(reading.calls);
  }
  return { format, warnings, totals, cellName, atMs, sinceMs };
}

/**
 * `TRAJECTORY_WINDOW_OUTSIDE_LOGS` when the window of `tokens --format --at/--since` lies outside the
 * logs (`--at` before their first placed call, `--since` after their last): the logs do not reach it,
 * so its count is unknown, not 0 (DESIGN.md: Trust); null when the window meets the logs (a quiet stretch
 * inside them counts 0 truly).
 */
function windowOutsideLogs(ledger: TokenLedger, atMs: number | null, sinceMs: number | null): Warning | null {
  const first = ledger.around(Number.NEGATIVE_INFINITY, 0, 1)[0]!;
  const last = ledger.around(Number.POSITIVE_INFINITY, 1, 0)[0]!;
  const iso = (t: number) => new Date(t).toISOString();
  const outside = (side: string, call: typeof first): Warning => ({
    code: "TRAJECTORY_WINDOW_OUTSIDE_LOGS",
    message: `${side} (${iso(call.timeMs!)}): the logs do not reach the window asked, so its tokens are unknown (null), not 0`,
    file: call.file,
    line: call.line,
  });
  if (atMs !== null && atMs < first.timeMs!)
    return outside(`--at ${iso(atMs)} is before the logs' first placed call`, first);
  if (sinceMs !== null && sinceMs > last.timeMs!)
    return outside(`--since ${iso(sinceMs)} is after the logs' last placed call`, last);
  return null;
}

/** The window `tokens` counts in, from its options: epoch ms (null: unbounded) and budget hours (null: no `--hour`). */
export interface TokensWindow {
  atMs: number | null;
  sinceMs: number | null;
  hour: number | null;
}

/**
 * Checks the options of `tokens` and reads its window: `--at` and `--since`
 * as epoch ms ({@link parseAtTime}), `--hour` as budget hours. The checks, in
 * this order: an unparseable `--at`/`--since` (code `ptb.invalidAt`); then
 * (code `ptb.tokensUsage`) `--since` after `--at`; a negative or non-numeric
 * `--hour`, `--hour` without `--cell`, `--hour` with `--at`; without
 * `--cell`: `--sources`/`--trajectory`, a missing `--format`, no PATH; with
 * `--cell`: `--format`, PATHs.
 *
 * @param usage raises the usage error (exit 64) with its message (without
 *   the `error: ` prefix) and its commander code.
 */
export function tokensWindow(
  paths: string[],
  opts: TokensOptions,
  usage: (message: string, code?: string) => never,
): TokensWindow {
  const time = (flag: string, value: string | undefined): number | null => {
    if (value === undefined) return null;
    const t = parseAtTime(value);
    if (t === null) {
      usage(
        `option '${flag} <iso-time>' argument '${value}' is not a time. ` +
          "Accepted: ISO 8601 with Z or an offset, e.g. 2026-02-23T11:43:08.301Z or 2026-02-23T12:43:08+01:00",
        "ptb.invalidAt",
      );
    }
    return t;
  };
  const atMs = time("--at", opts.at);
  const sinceMs = time("--since", opts.since);
  // An empty window counts nothing: a total of 0 for it would be a plausible number, not an answer.
  if (atMs !== null && sinceMs !== null && sinceMs > atMs)
    usage(`--since ${opts.since} is after --at ${opts.at}: no call can be completed in that window`);
  let hour: number | null = null;
  if (opts.hour !== undefined) {
    hour = /^[0-9]+(\.[0-9]+)?$/.test(opts.hour.trim()) ? Number(opts.hour) : Number.NaN;
    if (/^\s*-/.test(opts.hour))
      usage(`option '--hour <h>' argument '${opts.hour}' is before the run's start: budget hours start at 0`);
    if (!Number.isFinite(hour))
      usage(`option '--hour <h>' argument '${opts.hour}' is not a number of hours (e.g. 20.75)`);
    if (opts.cell === undefined) usage("--hour needs --cell (the budget clock is the cell's)");
    if (atMs !== null) usage("give --at or --hour, not both");
  }
  if (opts.cell === undefined) {
    if (opts.sources !== undefined || opts.trajectory !== undefined)
      usage(`${opts.sources !== undefined ? "--sources" : "--trajectory"} needs --cell`);
    if (opts.format === undefined)
      usage("required option '--format <format>' not specified (or give --sources DIR --cell CELL)");
    if (paths.length === 0) usage("missing required argument 'path' (or give --sources DIR --cell CELL)");
  } else {
    if (opts.format !== undefined) usage("--cell takes the format from cells.json: do not give --format");
    if (paths.length > 0) usage("--cell reads the cell's trajectory/ folder: do not give PATHs");
  }
  return { atMs, sinceMs, hour };
}

/**
 * What `tokens` prints on stdout for what {@link countTokens} counted: with
 * `json`, the {@link TokensReport} as indented JSON (`cell`, `format`,
 * `since`, `at` when a cell, `--since` or a moment scoped it); otherwise the aligned
 * text of {@link renderTokens}. Ends with a newline.
 */
export function renderTokensOutput(counted: CountedTokens, json: boolean): string {
  const { format, warnings, totals, cellName, atMs, sinceMs } = counted;
  const scoped = cellName !== undefined || sinceMs !== null || atMs !== null;
  const report: TokensReport = {
    ...(scoped
      ? {
          ...(cellName !== undefined ? { cell: cellName, format } : {}),
          since: isoOrNull(sinceMs),
          at: isoOrNull(atMs),
        }
      : {}),
    ...tokensReport(totals, warnings),
  };
  if (json) return `${JSON.stringify(report, null, 2)}\n`;
  return renderTokens(report, format, isoOrNull(atMs), isoOrNull(sinceMs));
}
