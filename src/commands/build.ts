import type { Command } from "commander";
import { EXIT } from "../errors.js";
import { runBuild } from "../pipeline/run-build.js";
import { DEFAULT_OUTLIER_FLOOR_H, DEFAULT_TOLERANCE_H } from "../resolve/cadence.js";
import { type CommandIo, collectCellDirs, outPathOption, parseCount, parseHours } from "../options.js";

/** Registers `ptb-manifest build`. */
export function register(program: Command, io: CommandIo): void {
  program
    .command("build")
    .description("Build the manifest from a sources folder (SOURCES.md layout) into an output folder.")
    .option("--sources <dir>", "the sources folder to read", "sources")
    .option("--out <dir>", "the folder to write the manifest files into (not inside --sources)", outPathOption, "out")
    .option(
      "--force",
      "replace files in --out that ptb-manifest build did not write (else OUT_FOREIGN_FILE, nothing written); never a file the build reads (OUT_IS_INPUT)",
      false,
    )
    .option("--strict", "treat every warning as a failure: exit 2 and write nothing (the release gate)", false)
    .option(
      "--tolerance-h <hours>",
      "largest leave-one-out error and anchor residual for an extrapolated hour (the validation gate: it never changes which points are fitted)",
      parseHours,
      DEFAULT_TOLERANCE_H,
    )
    .option(
      "--outlier-floor-h <hours>",
      "floor of the cadence fit's outlier cut: a point is fitted when its residual from the robust line is within max(floor, 3·MAD)",
      parseHours,
      DEFAULT_OUTLIER_FLOOR_H,
    )
    .option("--verbose", "list every warning (grouped by code), not one example per code", false)
    .option("-q, --quiet", "no progress messages nor progress bar on stderr", false)
    .option(
      "--pvc <cell=dir>",
      "read CELL's checkpoint tree from the mounted directory DIR instead of its pvc/ listing (repeatable)",
      collectCellDirs("--pvc"),
    )
    .option(
      "--trajectory <cell=dir>",
      "read CELL's driver session logs from DIR (e.g. on another disk) instead of its trajectory/ folder (repeatable)",
      collectCellDirs("--trajectory"),
    )
    .option(
      "--hub",
      "read the published repos, spare repos and baseline from the Hub instead of hub/ (token: HF_TOKEN, else HF_TOKEN_PATH, else $HF_HOME/token; HF_ENDPOINT)",
      false,
    )
    .option("--hub-url <url>", "with --hub: the Hub's URL (default: HF_ENDPOINT, else https://huggingface.co)")
    .option(
      "--cache-dir <dir>",
      "cache of per-file extractor results and input hashes (warm rebuilds), and with --hub of the Hub's small files (default: $XDG_CACHE_HOME/ptb-manifest)",
    )
    .option("--no-cache", "neither read nor write the build cache (every input is read again; --strict implies it)")
    .option("--concurrency <n>", "with --hub: repos fetched at once (default 8)", parseCount)
    .addHelpText(
      "after",
      "\nExit codes: 0 written; 1 fatal input error (nothing written); 2 --strict with warnings (nothing written); 64 usage error; 70 internal error.",
    )
    .addHelpText(
      "after",
      "\nExample (the embedded sources/; then the release gate):\n  ptb-manifest build --sources sources --out out\n  ptb-manifest build --sources sources --out out --strict --verbose",
    )
    .action(
      async (
        o: {
          sources: string;
          out: string;
          strict: boolean;
          toleranceH: number;
          outlierFloorH: number;
          verbose: boolean;
          quiet: boolean;
          pvc?: Record<string, string>;
          trajectory?: Record<string, string>;
          hub: boolean;
          hubUrl?: string;
          cacheDir?: string;
          cache: boolean;
          concurrency?: number;
          force: boolean;
        },
        command: Command,
      ) => {
        if (!o.hub && (o.hubUrl !== undefined || o.concurrency !== undefined)) {
          command.error("error: --hub-url and --concurrency need --hub", {
            exitCode: EXIT.usage,
            code: "ptb.hubOptionWithoutHub",
          });
        }
        const { summary } = await runBuild({
          sources: o.sources,
          out: o.out,
          strict: o.strict,
          toleranceH: o.toleranceH,
          outlierFloorH: o.outlierFloorH,
          verbose: o.verbose,
          quiet: o.quiet,
          pvc: o.pvc,
          trajectory: o.trajectory,
          hub: o.hub,
          hubUrl: o.hubUrl,
          cacheDir: o.cacheDir,
          concurrency: o.concurrency,
          noCache: !o.cache,
          force: o.force,
          env: io.env,
          stdout: io.stdout,
          stderr: io.stderr,
          style: io.style,
        });
        io.stdout.write(`${summary}\n`);
      },
    );
}
