import { resolve } from "node:path";
import { Diagnostics } from "../diagnostics.js";
import { PVC_BAD_NAME, readPvcTreeBatches, unlistableName } from "../extractors/pvc-live.js";

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
    await readPvcTreeBatches(opts.dir, { pvcRoot, diag }).next(); // PVC_DIR_MISSING first, as for any other root
    diag.warn(
      PVC_BAD_NAME,
      `the root path ${JSON.stringify(pvcRoot)} ${rootWhy.replace(/ in its name/, "")}: nothing is listed`,
      pvcRoot,
      null,
    );
    return { lines, diag };
  }
  // The walk itself leaves out (and warns PVC_BAD_NAME about) every name a listing line cannot hold.
  for await (const batch of readPvcTreeBatches(opts.dir, { pvcRoot, diag })) {
    for (const entry of batch) chunk += `${entry.origin.raw}\n`;
    lines += batch.length;
    if (chunk.length >= 65536) {
      await opts.write(chunk);
      chunk = "";
    }
  }
  if (chunk) await opts.write(chunk);
  return { lines, diag };
}
