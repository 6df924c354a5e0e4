/**
 * `ptb-manifest tokens`: counts a driver trajectory's tokens (TRAJECTORIES.md),
 * in total or cumulatively up to a moment.
 */
import { resolve } from "node:path";
import { type Command, Option } from "commander";
import { Diagnostics, warningLine, type Warning } from "../diagnostics.js";
import { InputError } from "../errors.js";
import { loadCells } from "../sources/cells.js";
import { readSupervisor } from "../extractors/supervisor.js";
import { BudgetClock } from "../resolve/clock.js";
import { cellTokensAtMoment, countCellTokens } from "../resolve/cell-tokens.js";
import { byteProgress } from "../util/progress.js";
import { parseIsoTime } from "../util/values.js";
import type { CliIo } from "../options.js";
import {
  readTrajectory,
  TokenLedger,
  trajectoryBytes,
  TRAJECTORY_FORMATS,
  type TokenTotals,
  type TrajectoryFormat,
} from "../extractors/trajectory/index.js";

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

function human(report: TokensReport, format: TrajectoryFormat, atIso: string | null, sinceIso: string | null): string {
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
interface TokensOptions {
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

/**
 * Registers `tokens` on `program`: `tokens --format FMT PATH... [--since ISO]
 * [--at ISO] [--json] [--quiet]`, or `tokens --sources DIR --cell C [--trajectory DIR] [--at ISO
 * | --hour H] [--json]` (one cell, counted exactly as `build` counts its
 * `driver_tokens_at_hour`: its `trajectory_format`, its `trajectory/` folder,
 * the calls from its supervisor's `run_start`).
 *
 * Prints the four parts (uncached input, cache read, cache write, output), their
 * total, the number of calls and the time of the last counted call, for every
 * call of the run, or with `--at` for the calls completed at or before that
 * moment (tokens(t), TRAJECTORIES.md "The quantity"), and with `--since` from
 * that moment on. Unknown tokens (no call to count) print as null. Warnings go
 * to stderr, or into the JSON object with `--json` (then stdout holds exactly
 * that object).
 *
 * Errors: an unknown `--format`, an unparseable `--at`/`--since`/`--hour`, a
 * missing PATH or `--format` without `--cell`, PATHs or `--format` with
 * `--cell`, `--hour` without `--cell` are usage errors (exit 64); a PATH that
 * does not exist is an `InputError` `TRAJECTORY_PATH_MISSING`, an unknown cell
 * `TRAJECTORY_UNKNOWN_CELL` (exit 1), and the errors of reading `cells.json`
 * and the supervisor history.
 */
export function register(program: Command, io: CliIo): void {
  program
    .command("tokens")
    .summary("count a driver trajectory's tokens (TRAJECTORIES.md), or one cell's as the build does")
    .description(
      "Counts the tokens of every model call in a driver's session logs by the rules of TRAJECTORIES.md: " +
        "uncached input + cache read + cache write + output (reasoning is part of output). " +
        "All PATHs together form one run; folders are searched recursively for the format's session files. " +
        "Without --at, every call counts; with --at, only the calls completed at or before that moment; with --since, only those from that moment on. " +
        "With --sources and --cell, counts that cell exactly as build does (its format, its trajectory/ folder, calls from its run_start): " +
        "--at at a row's write time gives that row's driver_tokens_at_hour.",
    )
    .addOption(
      new Option("--format <format>", "the trajectory format (cells.json trajectory_format); not with --cell").choices([
        ...TRAJECTORY_FORMATS,
      ]),
    )
    .argument("[path...]", "session files or folders of one run (not with --cell)")
    .option(
      "--at <iso-time>",
      "cumulative totals of the calls completed at or before this moment: ISO 8601 with Z or an offset, e.g. 2026-02-23T11:43:08.301Z",
    )
    .option(
      "--since <iso-time>",
      "count only the calls completed at or after this moment (with --cell: default the cell's run_start)",
    )
    .option("--sources <dir>", "with --cell: the sources folder (default: sources)")
    .option(
      "--cell <cell>",
      "count this cell of --sources as the build does (format, trajectory/ folder and run_start from the sources)",
    )
    .option(
      "--trajectory <dir>",
      "with --cell: the cell's trajectory folder, when the build reads it from elsewhere (build --trajectory CELL=DIR)",
    )
    .option(
      "--hour <h>",
      "with --cell, instead of --at: the moment the cell's budget clock reads H hours (pauses skipped)",
    )
    .option(
      "--json",
      "print exactly one JSON object: uncached_input, cache_read, cache_write, output, total, calls, last_call_time, warnings",
    )
    .option("-q, --quiet", "no progress bar on stderr (there is none when stdout or stderr is not a terminal)")
    .addHelpText(
      "after",
      `\nFormats: ${TRAJECTORY_FORMATS.join(", ")}.\n` +
        "Times are UTC. Calls that cannot be placed in time count in the totals but not with --at or --since. Unknown tokens print as null.\n\n" +
        "Examples:\n  ptb-manifest tokens --format codex trajectory/ --at 2026-02-23T11:43:08.301Z --json\n" +
        "  ptb-manifest tokens --sources sources --cell sol-high --at 2026-10-04T08:41:58.200Z   # a row's driver_tokens_at_hour (its provenance write_time)\n",
    )
    .action(async (paths: string[], opts: TokensOptions, command: Command) => {
      const usage = (message: string): never =>
        command.error(`error: ${message}`, { exitCode: 64, code: "ptb.tokensUsage" });
      const time = (flag: string, value: string | undefined): number | null => {
        if (value === undefined) return null;
        const t = parseAtTime(value);
        if (t === null) {
          command.error(
            `error: option '${flag} <iso-time>' argument '${value}' is not a time. ` +
              "Accepted: ISO 8601 with Z or an offset, e.g. 2026-02-23T11:43:08.301Z or 2026-02-23T12:43:08+01:00",
            { exitCode: 64, code: "ptb.invalidAt" },
          );
        }
        return t;
      };
      let atMs = time("--at", opts.at);
      let sinceMs = time("--since", opts.since);
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
      const progress = byteProgress({ quiet: opts.quiet, stdout: io.stdout, stderr: io.stderr });
      let format: TrajectoryFormat;
      let warnings: Warning[];
      let totals: TokenTotals | null;
      let cellName: string | undefined;
      try {
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
              usage(
                `the budget clock of ${cell.cell} never reads ${opts.hour} h (a pause that never ended stopped it)`,
              );
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
      } finally {
        progress.stop();
      }
      const scoped = cellName !== undefined || sinceMs !== null;
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
      if (opts.json) {
        io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        return;
      }
      io.stdout.write(human(report, format, isoOrNull(atMs), isoOrNull(sinceMs)));
      for (const w of warnings) io.stderr.write(warningLine(w));
    });
}
