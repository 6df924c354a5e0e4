/**
 * `ptb-manifest tokens`: counts a driver trajectory's tokens (TRAJECTORIES.md),
 * in total or cumulatively up to a moment.
 */
import { Command, Option } from "commander";
import { where, type Warning } from "../diagnostics.js";
import { byteProgress } from "../util/progress.js";
import { parseIsoTime } from "../util/values.js";
import {
  readTrajectory,
  TokenLedger,
  trajectoryBytes,
  TRAJECTORY_FORMATS,
  type TokenTotals,
  type TrajectoryFormat,
} from "../extractors/trajectory/index.js";

/** The JSON object printed by `tokens --json`. Times are ISO 8601 UTC with ms. */
export interface TokensReport {
  uncached_input: number;
  cache_read: number;
  cache_write: number;
  output: number;
  total: number;
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

/** Builds the `--json` report from totals and warnings. */
export function tokensReport(t: TokenTotals, warnings: Warning[]): TokensReport {
  return {
    uncached_input: t.uncachedInput,
    cache_read: t.cacheRead,
    cache_write: t.cacheWrite,
    output: t.output,
    total: t.total,
    calls: t.calls,
    last_call_time: isoOrNull(t.lastCallTimeMs),
    warnings,
  };
}

function human(report: TokensReport, format: TrajectoryFormat, atIso: string | null): string {
  const n = (x: number): string => x.toLocaleString("en-US");
  const rows: [string, string][] = [
    ["format", format],
    ["scope", atIso === null ? "all calls" : `calls completed at or before ${atIso}`],
    ["uncached input", n(report.uncached_input)],
    ["cache read", n(report.cache_read)],
    ["cache write", n(report.cache_write)],
    ["output", n(report.output)],
    ["total", n(report.total)],
    ["calls", n(report.calls)],
    ["last call time", report.last_call_time ?? "-"],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join("\n") + "\n";
}

/**
 * Registers `tokens --format FMT PATH... [--at ISO_TIME] [--json] [--quiet]` on `program`.
 *
 * Prints the four parts (uncached input, cache read, cache write, output), their
 * total, the number of calls and the time of the last counted call, for every
 * call of the run, or with `--at` for the calls completed at or before that
 * moment (tokens(t), TRAJECTORIES.md "The quantity"). Warnings go to stderr, or
 * into the JSON object with `--json` (then stdout holds exactly that object).
 *
 * Errors: an unknown `--format` or an unparseable `--at` is a usage error
 * (commander error, exit 64); a PATH that does not exist is an `InputError`
 * `TRAJECTORY_PATH_MISSING` (exit 1).
 */
export function registerTokens(program: Command): void {
  program
    .command("tokens")
    .summary("count a driver trajectory's tokens (TRAJECTORIES.md)")
    .description(
      "Counts the tokens of every model call in a driver's session logs by the rules of TRAJECTORIES.md: " +
        "uncached input + cache read + cache write + output (reasoning is part of output). " +
        "All PATHs together form one run; folders are searched recursively for the format's session files. " +
        "Without --at, every call counts; with --at, only the calls completed at or before that moment.",
    )
    .addOption(
      new Option("--format <format>", "the trajectory format (cells.json trajectory_format)")
        .choices([...TRAJECTORY_FORMATS])
        .makeOptionMandatory(),
    )
    .argument("<path...>", "session files or folders of one run")
    .option(
      "--at <iso-time>",
      "cumulative totals of the calls completed at or before this moment: ISO 8601 with Z or an offset, e.g. 2026-02-23T11:43:08.301Z",
    )
    .option("--json", "print exactly one JSON object: uncached_input, cache_read, cache_write, output, total, calls, last_call_time, warnings")
    .option("-q, --quiet", "no progress bar on stderr (there is none when stdout or stderr is not a terminal)")
    .addHelpText(
      "after",
      `\nFormats: ${TRAJECTORY_FORMATS.join(", ")}.\n` +
        "Times are UTC. Calls that cannot be placed in time count in the totals but not with --at.\n\n" +
        "Example:\n  ptb-manifest tokens --format codex trajectory/ --at 2026-02-23T11:43:08.301Z --json\n",
    )
    .action(async (paths: string[], opts: { format: TrajectoryFormat; at?: string; json?: boolean; quiet?: boolean }, command: Command) => {
      let atMs: number | null = null;
      if (opts.at !== undefined) {
        atMs = parseAtTime(opts.at);
        if (atMs === null) {
          command.error(
            `error: option '--at <iso-time>' argument '${opts.at}' is not a time. ` +
              "Accepted: ISO 8601 with Z or an offset, e.g. 2026-02-23T11:43:08.301Z or 2026-02-23T12:43:08+01:00",
            { exitCode: 64, code: "ptb.invalidAt" },
          );
        }
      }
      const progress = byteProgress({ quiet: opts.quiet });
      let reading;
      try {
        if (progress.active) progress.stage("reading", await trajectoryBytes(opts.format, paths));
        reading = await readTrajectory(opts.format, paths, { onBytes: progress.active ? (n) => progress.add(n) : undefined });
      } finally {
        progress.stop();
      }
      const ledger = new TokenLedger(reading.calls);
      const totals = atMs === null ? ledger.totals() : ledger.at(atMs);
      const report = tokensReport(totals, reading.warnings);
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        return;
      }
      process.stdout.write(human(report, opts.format, atMs === null ? null : isoOrNull(atMs)));
      for (const w of reading.warnings) {
        const at = where(w.file, w.line);
        process.stderr.write(`warning ${w.code}${at ? ` at ${at}` : ""}: ${w.message}\n`);
      }
    });
}
