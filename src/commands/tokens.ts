import { type Command, Option } from "commander";
import { warningLine } from "../diagnostics.js";
import { byteProgress } from "../util/progress.js";
import type { CommandIo } from "../options.js";
import {
  type CountedTokens,
  countTokens,
  renderTokensOutput,
  type TokensOptions,
  tokensWindow,
} from "../pipeline/tokens.js";
import { TRAJECTORY_FORMATS } from "../extractors/trajectory/index.js";

/**
 * Registers `tokens` on `program`: `tokens --format FMT PATH... [--since ISO]
 * [--at ISO] [--json] [--quiet]`, or `tokens --sources DIR --cell C [--trajectory DIR] [--at ISO
 * | --hour H] [--json]` (one cell, counted exactly as `build` counts its
 * `driver_tokens_at_hour`; TRAJECTORIES.md "The quantity"). The counting and
 * the text are in pipeline/tokens.ts; warnings go to stderr, or into the JSON
 * object with `--json`.
 *
 * Errors: the usage errors of `tokensWindow` and `countTokens` (exit 64);
 * `TRAJECTORY_PATH_MISSING`, `TRAJECTORY_UNKNOWN_CELL` and the errors of
 * reading `cells.json` and the supervisor history (exit 1).
 */
export function register(program: Command, io: CommandIo): void {
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
      "-j, --json",
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
      const usage = (message: string, code = "ptb.tokensUsage"): never =>
        command.error(`error: ${message}`, { exitCode: 64, code });
      const window = tokensWindow(paths, opts, usage);
      const progress = byteProgress({ quiet: opts.quiet, stdout: io.stdout, stderr: io.stderr });
      // PTB_MANIFEST_DEBUG: how many threads scanned, and whether free cores were sampled for it (the
      // benchmark compares runs by it).
      const onThreads = io.env.PTB_MANIFEST_DEBUG
        ? (n: number, sampled: boolean): void =>
            void io.stderr.write(`ptb-manifest: debug: scan threads ${n}${sampled ? " (free cores sampled)" : ""}\n`)
        : undefined;
      let counted: CountedTokens;
      try {
        counted = await countTokens(opts, paths, window, progress, usage, onThreads);
      } finally {
        progress.stop();
      }
      io.stdout.write(renderTokensOutput(counted, opts.json === true));
      if (!opts.json) for (const w of counted.warnings) io.stderr.write(warningLine(w, io.style.stderr.warning));
    });
}
