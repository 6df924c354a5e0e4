import type { Command } from "commander";
import { resolve } from "node:path";
import { Diagnostics, warningLine } from "../diagnostics.js";
import { EXIT, ExitCodeError } from "../errors.js";
import { PVC_BAD_NAME, readPvcTree, unlistableName } from "../extractors/pvc-live.js";
import type { CliIo } from "../options.js";

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
 * live tree (SOURCES.md: pvc/; issue 4: snapshot-pvc), so a snapshot can be
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
async function withStdout(
  stdout: NodeJS.WriteStream,
  body: (write: (chunk: string) => void | Promise<void>) => Promise<void>,
): Promise<void> {
  let closed = false;
  const onError = (err: NodeJS.ErrnoException): void => {
    if (err.code !== "EPIPE") throw err;
    closed = true;
    stdout.emit("drain"); // release a writer waiting for it
  };
  stdout.on("error", onError);
  const write = (chunk: string): void | Promise<void> => {
    if (closed) throw new StdoutClosed();
    if (stdout.write(chunk)) return;
    return new Promise((done) => stdout.once("drain", () => done()));
  };
  try {
    await body(write);
  } catch (err) {
    if (!(err instanceof StdoutClosed)) throw err;
  } finally {
    if (!closed) stdout.off("error", onError); // once closed, later EPIPEs stay handled
  }
}

/** Registers `ptb-manifest snapshot-pvc`. */
export function register(program: Command, io: CliIo): void {
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
      await withStdout(io.stdout, async (write) => {
        diag = (await runSnapshotPvc({ dir, as: o.as, write })).diag;
      });
      const warnings = (diag as Diagnostics | null)?.warnings ?? [];
      if (warnings.length === 0) return;
      for (const w of diag!.warnings) io.stderr.write(warningLine(w));
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
}
