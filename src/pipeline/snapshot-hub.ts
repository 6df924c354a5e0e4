import { join, resolve } from "node:path";
import { Diagnostics } from "../diagnostics.js";
import { hubOptionsFrom, type LiveHubStats, snapshotHub } from "../hub/live-hub.js";
import { loadCells } from "../sources/cells.js";
import { checkNotInputs } from "../util/out-not-input.js";
import { cacheFolderProblem } from "../util/out-folder.js";

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
 * Writes the live Hub's repos as a `hub/` snapshot folder (README: Live sources,
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
  const hubOpts = hubOptionsFrom(
    { hubUrl: opts.hubUrl, cacheDir: opts.cacheDir, concurrency: opts.concurrency },
    opts.env,
  );
  // The Hub's files go through the cache: a cache folder the user named that takes none is refused now.
  const problem = await cacheFolderProblem(resolve(hubOpts.cacheDir), opts.cacheDir, opts.sources);
  if (problem) throw problem;
  const diag = new Diagnostics();
  const stderr = opts.stderr ?? process.stderr;
  const log = opts.quiet ? undefined : (m: string) => stderr.write(`${m}\n`);
  const hub = { ...hubOpts, log };
  const done = await snapshotHub(registry, hub, opts.out, diag, opts.force);
  return { ...done, diag };
}
