/**
 * `ptb-manifest tokens` as a library: counts a driver trajectory's tokens
 * (TRAJECTORIES.md), in total or cumulatively up to a moment, of given
 * session files or of one cell as the build counts it.
 */
import { resolve } from "node:path";
import { Diagnostics, type Warning } from "../diagnostics.js";
import { InputError } from "../errors.js";
import {
  readTrajectory,
  TokenLedger,
  type TokenTotals,
  type TrajectoryFormat,
  trajectoryBytes,
} from "../extractors/trajectory/index.js";
import { readSupervisor } from "./read-supervisor.js";
import { cellTokensAtMoment, countCellTokens } from "../resolve/cell-tokens.js";
import { BudgetClock } from "../resolve/clock.js";
import { loadCells } from "../sources/cells.js";
import type { ByteProgress } from "../util/progress.js";
import { parseIsoTime } from "../util/values.js";

/**
 * The JSON object printed by `tokens --json`. Times are ISO 8601 UTC with ms.
 * The counts are null when the tokens are unknown (no call to count; with
 * `--cell`, exactly when the build writes null). `cell`, `format`, `since`
 * and `at` are there with `--cell` or `--since` (the scope counted).
 */
export interface TokensReport {
  cell?: string;
  format?: TrajectoryFormat;
  since?: string | null;
  at?: string | null;
  uncached_input: number | null;
  cache_read: number | null;
  cache_write: number | null;
  output: number | null;
  total: number | null;
  calls: number;
  last_call_time: string | null;
  warnings: Warning[];
}

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * Parses `--at`: an ISO 8601 time with `Z` or an explicit offset. Returns epoch
 * ms, or null when the value is not such a time (a time without an offset is
 * refused: its zone would be a guess).
 */
export function parseAtTime(value: string): number | null {
  const s = value.trim();
  if (!ISO_WITH_ZONE.test(s)) return null;
  const ms = parseIsoTime(s); // strict: 2026-02-30 is refused, not rolled over
  return Number.isFinite(ms) ? Math.floor(ms) : null;
}

/** Formats epoch ms as ISO 8601 UTC with milliseconds (`2026-02-23T11:46:43.614Z`), or null. */
export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** Builds the `--json` report from totals (null: the tokens are unknown) and warnings. */
export function tokensReport(t: TokenTotals | null, warnings: Warning[]): TokensReport {
  return {
    uncached_input: t === null ? null : t.uncachedInput,
    cache_read: t === null ? null : t.cacheRead,
    cache_write: t === null ? null : t.cacheWrite,
    output: t === null ? null : t.output,
    total: t === null ? null : t.total,
    calls: t === null ? 0 : t.calls,
    last_call_time: t === null ? null : isoOrNull(t.lastCallTimeMs),
    warnings,
  };
}

/** The text `tokens` prints without `--json`: one aligned `name  value` line per part. */
export function renderTokens(
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
 *   reads or after the run's end, a `--since` after the moment of `--hour`.
 * @throws InputError `TRAJECTORY_UNKNOWN_CELL`, and the errors of reading
 *   `cells.json`, the supervisor history and the trajectories.
 */
export async function countTokens(
  opts: TokensOptions,
  paths: string[],
  window: { atMs: number | null; sinceMs: number | null; hour: number | null },
  progress: ByteProgress,
  usage: (message: string) => never,
): Promise<CountedTokens> {
  let { atMs, sinceMs } = window;
  const { hour } = window;
  let format: TrajectoryFormat;
  let warnings: Warning[];
  let totals: TokenTotals | null;
  let cellName: string | undefined;
  if (opts.cell !== undefined) {
    // One cell, counted through the build's own code (resolve/cell-tokens.ts).
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
    sinceMs ??= supervisor.runStartMs;
    format = cell.trajectory_format;
    cellName = cell.cell;
    const counted = await countCellTokens(sourcesDir, cell, supervisor.runStartMs, {
      dir: opts.trajectory,
      onBytes: progress.active ? (n) => progress.add(n) : undefined,
      clock: new BudgetClock(supervisor.runStartMs, supervisor.pauses),
    });
    warnings = [...diag.warnings, ...counted.reading.warnings];
    // As the build counts a row at that moment: null past the logs' end (resolve/token-coverage.ts).
    const at = cellTokensAtMoment(counted.ledger, atMs, sinceMs);
    totals = at.totals;
    if (at.warning) warnings.push(at.warning);
  } else {
    format = opts.format!;
    if (progress.active) progress.stage("reading", await trajectoryBytes(format, paths));
    const reading = await readTrajectory(format, paths, {
      onBytes: progress.active ? (n) => progress.add(n) : undefined,
    });
    warnings = reading.warnings;
    const ledger = new TokenLedger(reading.calls);
    // No call to count (no session file, none of the format, none placed in time for --at/--since): unknown, null.
    const timed = atMs !== null || sinceMs !== null;
    if (timed)
      totals =
        ledger.placedCalls() === 0
          ? null
          : ledger.at(atMs ?? Number.POSITIVE_INFINITY, sinceMs ?? Number.NEGATIVE_INFINITY);
    else totals = reading.calls.length === 0 ? null : ledger.totals();
  }
  return { format, warnings, totals, cellName, atMs, sinceMs };
}
