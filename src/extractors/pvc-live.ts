/**
 * The live PVC reader (README: Live sources; SOURCES.md: "A live run reads the same things
 * from their live places"): a mounted checkpoint tree walked with fast-glob,
 * turned into the same {@link PvcEntry} stream as the listing readers of
 * `pvc-listing.ts`, so that `observePvcEntry` applies the same rules
 * (STABLE, `checkpoints/` and `rollouts/` ignored, nested families).
 */
import { lstat as lstatCb, lstatSync, readdir as readdirCb, type BigIntStats, type Stats } from "node:fs";
import { stat } from "node:fs/promises";
import { posix, resolve } from "node:path";
import fg from "fast-glob";
import type { Diagnostics } from "../diagnostics.js";
import { InputError } from "../errors.js";
import { epochToMs, type PvcEntry } from "./pvc-listing.js";

/** Warning code of a directory (or an entry of one) that could not be read: its entries are missing. */
const PVC_UNREADABLE_DIR = "PVC_UNREADABLE_DIR";

/** Warning code of a name a listing line cannot hold ({@link unlistableName}): not listed, nor anything below it. */
export const PVC_BAD_NAME = "PVC_BAD_NAME";

/** Any character {@link unlistableName} refuses (the path of an entry below a refused name holds one too). */
const UNLISTABLE = /[\t\n\r\u2028\u2029\ufffd]/;

/**
 * Why a file name cannot be a part of a `listing.tsv` path that reads back
 * as the same entry (SOURCES.md: pvc/), or null when it can. The one rule
 * for `snapshot-pvc` and the live walk (`build --pvc`), matching what the
 * listing reader refuses (src/extractors/pvc-listing.ts: `listingTsvEntry`
 * splits fields on tabs and lines on line ends, `observePvcEntry` skips a
 * path with a tab or U+FFFD as `PVC_BAD_LINE`):
 * - a line break (`\n`, `\r`; U+2028, U+2029, which JavaScript's `.` in the
 *   walk's glob matcher does not match either): it would end the line;
 * - a tab: it would add a field;
 * - U+FFFD: bytes that are not UTF-8 (Node decodes them so; the name cannot
 *   even be opened again), or that character itself.
 */
export function unlistableName(name: string): string | null {
  if (/[\n\r\u2028\u2029]/.test(name)) return "has a line break in its name, which a listing line cannot hold";
  if (name.includes("\t")) return "has a tab in its name, which a listing line cannot hold (it separates the fields)";
  if (name.includes("\ufffd"))
    return "has a name that is not valid UTF-8 (or holds U+FFFD), which a listing cannot name";
  return null;
}

/** Options of {@link readPvcTree}. */
export interface PvcTreeOptions {
  /**
   * The PVC path the directory stands for (a cell's `pvc_root`, e.g.
   * `/pvc/ptb/kimi`): every entry's `path` is this plus the entry's path
   * relative to the directory, as `find <pvc_root>` would print it.
   */
  pvcRoot: string;
  /** Receives `PVC_UNREADABLE_DIR` warnings (file = the PVC path of the directory). */
  diag: Diagnostics;
  /**
   * Replacements for the callback `lstat` and `readdir` that fast-glob
   * calls (tests use them to make a directory unreadable, which chmod cannot
   * do for root); their errors are warned like the real ones. `lstat` is
   * called as `lstat(path, { bigint: true }, cb)` and must answer
   * `BigIntStats` (nanosecond mtimes).
   */
  fs?: { lstat?: typeof lstatCb; readdir?: typeof readdirCb };
  /** Directories read at once (fast-glob `concurrency`); default: fast-glob's (one per CPU). */
  concurrency?: number;
}

/**
 * Walks a mounted PVC directory and streams one {@link PvcEntry} per entry,
 * the directory itself first, as `find DIR -printf '%T@\t%y\t%s\t%p\n'`
 * would list them (SOURCES.md: pvc/), in the order the file system returns
 * them (like `find`, not sorted).
 *
 * - Times are `lstat` mtimes read with nanosecond precision (`bigint`
 *   stats) and converted with the listing reader's own `epochToMs`, so a
 *   tree and its `snapshot-pvc` listing give the same `mtimeMs` to the bit.
 * - Symbolic links are listed (type `l`, size = length of the target, as
 *   `find %s`) and never followed, so a link loop cannot loop the walk. The
 *   directory argument itself is followed when it is a link (`find -H`).
 * - Streams: fast-glob's stream API with `unique: false` (no set of seen
 *   paths); nothing holds the tree. fast-glob's stream has no backpressure,
 *   so a consumer much slower than the walk lets its buffer grow; the build's
 *   consumer is synchronous per entry and keeps up.
 * - `entry.origin`: `file` is the entry's PVC path, `line` and `offset` are
 *   null, `raw` is the entry as a `find` listing line ({@link findLine}).
 *
 * Warnings: `PVC_UNREADABLE_DIR` for a directory whose entries could not be
 * read (`readdir` failed, e.g. `EACCES`; or an entry of it could not be
 * `lstat`ed, which makes fast-glob skip the whole directory);
 * `PVC_BAD_NAME` for each name a listing line cannot hold
 * ({@link unlistableName}: a line break, a tab, not UTF-8), which is not
 * listed (nor, for a directory, anything below it), so the live walk and its
 * `snapshot-pvc` listing give the same entries (file = the PVC path of its
 * directory, the name JSON-quoted in the message). The walk goes on with the rest of the tree.
 *
 * @param dir the local directory (relative to the working directory or absolute).
 * @throws InputError `PVC_DIR_MISSING` when `dir` is not a readable directory.
 */
export async function* readPvcTree(dir: string, opts: PvcTreeOptions): AsyncGenerator<PvcEntry> {
  const absDir = resolve(dir);
  const root = opts.pvcRoot.replace(/\/+$/, "") || "/";
  let rootStats: BigIntStats;
  try {
    rootStats = await stat(absDir, { bigint: true });
  } catch (err) {
    throw new InputError("PVC_DIR_MISSING", `cannot read the PVC directory ${absDir}: ${errCode(err)}`, absDir);
  }
  if (!rootStats.isDirectory()) throw new InputError("PVC_DIR_MISSING", `${absDir} is not a directory`, absDir);
  yield entryOf(root, rootStats);

  // Errors seen by the walk, reported as warnings as the entries stream out.
  const failures: { dir: string; message: string }[] = [];
  const badNames: { dir: string; message: string }[] = [];
  const warned = new Set<string>();
  const flush = (): void => {
    for (const f of failures.splice(0)) {
      if (warned.has(f.dir)) continue;
      warned.add(f.dir);
      opts.diag.warn(PVC_UNREADABLE_DIR, f.message, f.dir, null);
    }
    for (const b of badNames.splice(0)) opts.diag.warn(PVC_BAD_NAME, b.message, b.dir, null);
  };
  const pvcPathOf = (localPath: string): string => {
    const rel = posix.relative(absDir, localPath.split("\\").join("/"));
    return rel === "" ? root : `${root === "/" ? "" : root}/${rel}`;
  };
  const lstatBase = opts.fs?.lstat ?? lstatCb;
  const readdirBase = opts.fs?.readdir ?? readdirCb;
  const adapter: Partial<fg.FileSystemAdapter> = {
    lstat: ((path: string, cb: (err: NodeJS.ErrnoException | null, st: BigIntStats) => void) =>
      lstatBase(path, { bigint: true }, (err, st) => {
        if (err) {
          const parent = pvcPathOf(posix.dirname(path));
          failures.push({
            dir: parent,
            message: `cannot lstat ${pvcPathOf(path)} (${errCode(err)}): the entries of ${parent} are not read`,
          });
        }
        cb(err, st);
      })) as unknown as fg.FileSystemAdapter["lstat"],
    readdir: ((path: string, ...rest: unknown[]) => {
      const cb = rest.pop() as (err: NodeJS.ErrnoException | null, names: unknown) => void;
      const wrapped = (err: NodeJS.ErrnoException | null, names: unknown): void => {
        if (err)
          failures.push({
            dir: pvcPathOf(path),
            message: `cannot read directory ${pvcPathOf(path)} (${errCode(err)}): its entries are not listed`,
          });
        else if (Array.isArray(names)) {
          // Names a listing cannot hold are taken out of the walk here (so fast-glob never lstats nor descends into
          // them: a name that is not UTF-8 cannot even be lstat'ed, which would lose its whole directory) and warned.
          const kept: unknown[] = [];
          for (const n of names as (string | { name: string; isDirectory?: () => boolean })[]) {
            const name = typeof n === "string" ? n : n.name;
            const why = unlistableName(name);
            if (why === null) {
              kept.push(n);
              continue;
            }
            const isDir =
              typeof n !== "string" && n.isDirectory
                ? n.isDirectory()
                : lstatSyncOrNull(posix.join(path, name))?.isDirectory();
            const what = isDir ? "the directory" : "the entry";
            const quoted = JSON.stringify(name)
              .replace(/\u2028/g, "\\u2028")
              .replace(/\u2029/g, "\\u2029")
              .replace(/\ufffd/g, "\\ufffd");
            badNames.push({
              dir: pvcPathOf(path),
              message: `${what} ${quoted} in ${pvcPathOf(path)} ${why}: it is not listed${what === "the directory" ? ", nor anything below it" : ""}`,
            });
          }
          if (kept.length !== names.length) names = kept;
        }
        cb(err, names);
      };
      if (rest.length > 0) (readdirBase as (p: string, o: unknown, c: typeof wrapped) => void)(path, rest[0], wrapped);
      else (readdirBase as (p: string, c: typeof wrapped) => void)(path, wrapped);
    }) as unknown as fg.FileSystemAdapter["readdir"],
  };
  const stream = fg.stream("**", {
    cwd: absDir,
    dot: true,
    onlyFiles: false,
    followSymbolicLinks: false,
    throwErrorOnBrokenSymbolicLink: false,
    suppressErrors: true, // every error is seen (and warned) by the adapter above; the walk goes on
    unique: false, // fast-glob's uniqueness check keeps every path in a Set: not for millions of entries
    stats: true,
    fs: adapter,
    ...(opts.concurrency ? { concurrency: opts.concurrency } : {}),
  });
  for await (const item of stream as AsyncIterable<fg.Entry>) {
    flush();
    const rel = item.path;
    if (UNLISTABLE.test(rel)) continue; // a name warned as PVC_BAD_NAME above, or an entry below one (fast-glob yields tabs, not line breaks)
    yield entryOf(`${root === "/" ? "" : root}/${rel}`, item.stats as unknown as BigIntStats);
  }
  flush();
}

/** `lstat` of a (rare) name with a line break, to say whether it is a directory; null when it cannot be read. */
function lstatSyncOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

function entryOf(path: string, st: BigIntStats): PvcEntry {
  const epoch = nsToEpoch(st.mtimeNs);
  const type = typeLetter(st);
  const sizeBytes = Number(st.size);
  return {
    mtimeMs: epochToMs(epoch),
    type,
    sizeBytes,
    path,
    origin: { file: path, line: null, offset: null, raw: findLine(epoch, type, sizeBytes, path) },
  };
}

/**
 * Formats nanoseconds since the epoch as `find %T@` does: seconds, a dot and
 * 10 fraction digits (the last always 0), e.g. `1790003123.4567891230`.
 */
export function nsToEpoch(ns: bigint): string {
  const neg = ns < 0n;
  const abs = neg ? -ns : ns;
  return `${neg ? "-" : ""}${abs / 1_000_000_000n}.${String(abs % 1_000_000_000n).padStart(9, "0")}0`;
}

/** `find %y`: `f`, `d`, `l`, `p`, `s`, `c`, `b` (or `U` for an unknown type). */
function typeLetter(st: BigIntStats): string {
  if (st.isFile()) return "f";
  if (st.isDirectory()) return "d";
  if (st.isSymbolicLink()) return "l";
  if (st.isFIFO()) return "p";
  if (st.isSocket()) return "s";
  if (st.isCharacterDevice()) return "c";
  if (st.isBlockDevice()) return "b";
  return "U";
}

/** One line of `find -printf '%T@\t%y\t%s\t%p'`, without its line end (SOURCES.md: pvc/). */
function findLine(epoch: string, type: string, sizeBytes: number, path: string): string {
  return `${epoch}\t${type}\t${sizeBytes}\t${path}`;
}

function errCode(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code ?? e?.message ?? String(err);
}
