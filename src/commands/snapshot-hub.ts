import type { Command } from "commander";
import { join, resolve } from "node:path";
import { Diagnostics, warningLine } from "../diagnostics.js";
import { loadCells } from "../sources/cells.js";
import { hubOptionsFrom, snapshotHub, type LiveHubStats } from "../hub/live-hub.js";
import { checkNotInputs } from "../util/out-owner.js";
import { type CliIo, outPathOption, parseCount } from "../options.js";

/** Options of {@link runSnapshotHub}. */
export interface SnapshotHubCommandOptions {
  out: string;
  /** The sources folder whose `cells.json` names the org, the spare owner and the baseline. */
  sources: string;
  hubUrl?: string;
  cacheDir?: string;
  concurrency?: number;
  quiet?: boolean;
  /** Environment to read `HF_TOKEN`, `HF_ENDPOINT`, `XDG_CACHE_HOME` from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** `--force`: replace `out` even if it holds files this tool did not write. */
  force?: boolean;
  /** Where progress messages go (default `process.stderr`). */
  stderr?: NodeJS.WriteStream;
}

/**
 * Writes the live Hub's repos as a `hub/` snapshot folder (issue 4:
 * snapshot-hub; SOURCES.md: Layout) via `snapshotHub`, reading `org`,
 * `spare_owner` and `baseline` from `<sources>/cells.json`.
 *
 * @throws InputError `OUT_IS_INPUT` when `out` (replaced whole) holds the
 *   `cells.json` it reads (`--out` the sources folder, even with `--force`);
 *   from `loadCells`, `hubOptionsFrom` and `snapshotHub` (`OUT_FOREIGN_FILE`,
 *   `HUB_UNREACHABLE`, `HUB_UNAVAILABLE`, ...): nothing is written then.
 */
export async function runSnapshotHub(
  opts: SnapshotHubCommandOptions,
): Promise<{ repos: number; files: number; stats: LiveHubStats; diag: Diagnostics }> {
  const cellsJson = join(resolve(opts.sources), "cells.json");
  await checkNotInputs([opts.out], [{ path: cellsJson, option: "--sources", named: `${cellsJson} (of --sources)` }], {
    option: "--out",
    whole: true,
  });
  const registry = await loadCells(resolve(opts.sources));
  const diag = new Diagnostics();
  const stderr = opts.stderr ?? process.stderr;
  const log = opts.quiet ? undefined : (m: string) => stderr.write(`${m}\n`);
  const hub = {
    ...hubOptionsFrom({ hubUrl: opts.hubUrl, cacheDir: opts.cacheDir, concurrency: opts.concurrency }, opts.env),
    log,
  };
  const done = await snapshotHub(registry, hub, opts.out, diag, opts.force);
  return { ...done, diag };
}

/** Registers `ptb-manifest snapshot-hub`. */
export function register(program: Command, io: CliIo): void {
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
        for (const w of diag.warnings) io.stderr.write(warningLine(w));
        io.stdout.write(`wrote ${o.out}: ${repos} repos, ${files} files\n`);
      },
    );
}
