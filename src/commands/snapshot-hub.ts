import type { Command } from "commander";
import { warningLine } from "../diagnostics.js";
import { type CommandIo, outPathOption, parseCount } from "../options.js";
import { runSnapshotHub } from "../pipeline/snapshot-hub.js";

/** Registers `ptb-manifest snapshot-hub`. */
export function register(program: Command, io: CommandIo): void {
  program
    .command("snapshot-hub")
    .description(
      "Write the Hub's published repos, spare repos and baseline as a hub/ snapshot folder (small files only).",
    )
    .requiredOption(
      "--out <dir>",
      "the hub/ folder to write (replaced whole, only if ptb-manifest wrote every file in it), e.g. sources/hub",
      outPathOption,
    )
    .option("--force", "replace --out even if it holds files ptb-manifest did not write (else OUT_FOREIGN_FILE)", false)
    .option("--sources <dir>", "the sources folder whose cells.json names the org, spare owner and baseline", "sources")
    .option("--hub-url <url>", "the Hub's URL (default: HF_ENDPOINT, else https://huggingface.co)")
    .option("--cache-dir <dir>", "cache of small files by repo and commit (default: $XDG_CACHE_HOME/ptb-manifest)")
    .option("--concurrency <n>", "repos fetched at once", parseCount, 8)
    .option("-q, --quiet", "no progress messages on stderr", false)
    .addHelpText(
      "after",
      "\nThe Hub token (HF_TOKEN, else the file at HF_TOKEN_PATH, else $HF_HOME/token), when there is one, is sent to the Hub (never printed or stored).",
    )
    .addHelpText(
      "after",
      "\nExample (needs the Hub; the embedded sources/hub/ was written so):\n  ptb-manifest snapshot-hub --sources sources --out sources/hub",
    )
    .action(
      async (o: {
        out: string;
        sources: string;
        hubUrl?: string;
        cacheDir?: string;
        concurrency: number;
        quiet: boolean;
        force: boolean;
      }) => {
        const { repos, files, diag } = await runSnapshotHub({ ...o, env: io.env, stderr: io.stderr });
        for (const w of diag.warnings) io.stderr.write(warningLine(w, io.style.stderr.warning));
        io.stdout.write(`wrote ${o.out}: ${repos} repos, ${files} files\n`);
      },
    );
}
