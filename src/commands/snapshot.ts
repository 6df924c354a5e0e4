import { InvalidArgumentError, type Command } from "commander";
import { join, resolve } from "node:path";
import { Diagnostics, warningLine } from "../diagnostics.js";
import { EXIT, ExitCodeError } from "../errors.js";
import { PVC_BAD_NAME, readPvcTree, unlistableName } from "../extractors/pvc-live.js";
import { loadCells } from "../sources/cells.js";
import { hubOptionsFrom, snapshotHub, type LiveHubStats } from "../hub/live-hub.js";
import { outPathOption } from "../util/out-folder.js";
import { checkNotInputs } from "../util/out-owner.js";

/** Options of {@link runSnapshotPvc}. */
export interface SnapshotPvcOptions {
  /** The mounted tree. */
  dir: string;
  /** The PVC path to print instead of `dir` (a cell's `pvc_root`); default: `dir`, made absolute. */
  as?: string;
  /** Receives the listing, a chunk at a time; may return a promise to hold the walk back (stdout's drain). */
  write: (chunk: string) => void | Promise<void>;
}

/**
 * Writes the `find <pvc_root> -printf '%T@\t%y\t%s\t%p\n'` listing of a
 * live tree (SOURCES.md: pvc/; README: Live sources, `snapshot-pvc`), so a snapshot can be
 * taken before a volume is released: epoch seconds with 10 fraction digits,
 * type letter, size in bytes, path under `as`; the tree's own line first,
 * entries in the file system's order; links listed, never followed.
 * `readListingTsv` reads it back to the same entries as the tree gives.
 *
 * Warnings (returned, not written): `PVC_UNREADABLE_DIR` (entries missing
 * from the listing), `PVC_BAD_NAME` (a name the format cannot hold: a line
 * break, a tab, not UTF-8; `unlistableName`, the rule the walk applies;
 * skipped, with what is below it; for the root path itself, `--as` or the
 * directory's absolute path, nothing is listed). The CLI prints them on
 * stderr with a summary line and exits 2: the listing is incomplete.
 *
 * @returns the number of lines written and the warnings.
 * @throws InputError `PVC_DIR_MISSING`.
 */
export async function runSnapshotPvc(opts: SnapshotPvcOptions): Promise<{ lines: number; diag: Diagnostics }> {
  const diag = new Diagnostics();
  const pvcRoot = opts.as ?? resolve(opts.dir);
  let chunk = "";
  let lines = 0;
  const rootWhy = unlistableName(pvcRoot);
  if (rootWhy !== null) {
    await readPvcTree(opts.dir, { pvcRoot, diag }).next(); // PVC_DIR_MISSING first, as for any other root
    diag.warn(
      PVC_BAD_NAME,
      `the root path ${JSON.stringify(pvcRoot)} ${rootWhy.replace(/ in its name/, "")}: nothing is listed`,
      pvcRoot,
      null,
    );
    return { lines, diag };
  }
  // The walk itself leaves out (and warns PVC_BAD_NAME about) every name a listing line cannot hold.
  for await (const entry of readPvcTree(opts.dir, { pvcRoot, diag })) {
    chunk += `${entry.origin.raw}\n`;
    lines += 1;
    if (chunk.length >= 65536) {
      await opts.write(chunk);
      chunk = "";
    }
  }
  if (chunk) await opts.write(chunk);
  return { lines, diag };
}

/** Raised to stop the walk when the reader of stdout has gone (`| head`): not an error, as with `find`. */
class StdoutClosed extends Error {}

/**
 * Runs `body` with a writer to stdout that waits for `drain` when the
 * buffer is full and stops the walk quietly (`StdoutClosed`) once the pipe
 * is closed (EPIPE).
 */
async function withStdout(body: (write: (chunk: string) => void | Promise<void>) => Promise<void>): Promise<void> {
  let closed = false;
  const onError = (err: NodeJS.ErrnoException): void => {
    if (err.code !== "EPIPE") throw err;
    closed = true;
    process.stdout.emit("drain"); // release a writer waiting for it
  };
  process.stdout.on("error", onError);
  const write = (chunk: string): void | Promise<void> => {
    if (closed) throw new StdoutClosed();
    if (process.stdout.write(chunk)) return;
    return new Promise((done) => process.stdout.once("drain", () => done()));
  };
  try {
    await body(write);
  } catch (err) {
    if (!(err instanceof StdoutClosed)) throw err;
  } finally {
    if (!closed) process.stdout.off("error", onError); // once closed, later EPIPEs stay handled
  }
}

function printWarnings(diag: Diagnostics): void {
  for (const w of diag.warnings) process.stderr.write(warningLine(w));
}

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
}

/**
 * Writes the live Hub's repos as a `hub/` snapshot folder (README: Live
 * sources, `snapshot-hub`; SOURCES.md: Layout) via `snapshotHub`, reading `org`,
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
  const log = opts.quiet ? undefined : (m: string) => process.stderr.write(`${m}\n`);
  const hub = {
    ...hubOptionsFrom({ hubUrl: opts.hubUrl, cacheDir: opts.cacheDir, concurrency: opts.concurrency }, opts.env),
    log,
  };
  const done = await snapshotHub(registry, hub, opts.out, diag, opts.force);
  return { ...done, diag };
}

/** Registers `ptb-manifest snapshot-pvc` and `ptb-manifest snapshot-hub`. */
export function registerSnapshot(program: Command): void {
  program
    .command("snapshot-pvc")
    .description(
      "Print the find-format listing (pvc/listing.tsv) of a mounted PVC tree, to keep before the volume is released.",
    )
    .argument("<dir>", "the mounted checkpoint tree")
    .option("--as <pvc_root>", "print paths under this PVC path (the cell's pvc_root) instead of DIR")
    .addHelpText(
      "after",
      "\nExample:\n  ptb-manifest snapshot-pvc /mnt/kimi --as /pvc/ptb/kimi > sources/kimi/pvc/listing.tsv\n" +
        "\nExit codes: 0 every entry listed; 1 DIR is not a readable directory (PVC_DIR_MISSING); 2 listing written but incomplete (PVC_BAD_NAME: a name with a line break, a tab or bytes that are not UTF-8; PVC_UNREADABLE_DIR), each warned on stderr with a summary line.\n",
    )
    .action(async (dir: string, o: { as?: string }) => {
      let diag: Diagnostics | null = null;
      await withStdout(async (write) => {
        diag = (await runSnapshotPvc({ dir, as: o.as, write })).diag;
      });
      const warnings = (diag as Diagnostics | null)?.warnings ?? [];
      if (warnings.length === 0) return;
      printWarnings(diag!);
      const counts = new Map<string, number>();
      for (const w of warnings) counts.set(w.code, (counts.get(w.code) ?? 0) + 1);
      const summary = [...counts].map(([code, n]) => `${n} ${code}`).join(", ");
      throw new ExitCodeError(
        EXIT.strictWarnings,
        `snapshot-pvc: the listing is incomplete (${summary}): the entries named above are not in it\n`.replace(
          /\n$/,
          "",
        ),
      );
    });
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
        const { repos, files, diag } = await runSnapshotHub(o);
        printWarnings(diag);
        process.stdout.write(`wrote ${o.out}: ${repos} repos, ${files} files\n`);
      },
    );
}

/** A positive integer option (`--concurrency`). */
export function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return n;
}
