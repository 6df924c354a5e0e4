import { type Command, Option } from "commander";
import { warningLine } from "../diagnostics.js";
import { byteProgress } from "../util/progress.js";
import type { CliIo } from "../options.js";
import {
  type CountedTokens,
  countTokens,
  isoOrNull,
  parseAtTime,
  renderTokens,
  type TokensOptions,
  type TokensReport,
  tokensReport,
} from "../pipeline/tokens.js";
import { TRAJECTORY_FORMATS } from "../extractors/trajectory/index.js";

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
      let counted: CountedTokens;
      try {
        counted = await countTokens(opts, paths, { atMs, sinceMs, hour }, progress, usage);
      } finally {
        progress.stop();
      }
      const { format, warnings, totals, cellName } = counted;
      ({ atMs, sinceMs } = counted);
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
      io.stdout.write(renderTokens(report, format, isoOrNull(atMs), isoOrNull(sinceMs)));
      for (const w of warnings) io.stderr.write(warningLine(w));
    });
}
