/**
 * The live PVC reader (README: Live sources; SOURCES.md: "A live run reads the same things
 * from their live places"): a mounted checkpoint tree walked with
 * `readdirSync` and `lstatSync` (`pvc-dir-scan.ts`), on a second thread too
 * when a core is free (`pvc-walk-threads.ts`), turned into the same
 * {@link PvcEntry} stream as the listing readers of `pvc-listing.ts`, so
 * that `observePvcEntry` applies the same rules (STABLE, `checkpoints/` and
 * `rollouts/` ignored, nested families).
 */
import { lstat as lstatCb, readdir as readdirCb, type BigIntStats } from "node:fs";
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { Diagnostics } from "../diagnostics.js";
import { InputError } from "../errors.js";
import type { PvcEntry } from "./pvc-listing.js";
import { type DirScan, entryOf, errCode, type ScanFs, SYNC_FS, scanDir, unlistableName } from "./pvc-dir-scan.js";
import { defaultWalkThreads, WalkHelper } from "./pvc-walk-threads.js";

export { nsToEpoch, PVC_BAD_NAME, unlistableName } from "./pvc-dir-scan.js";

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
   * Replacements for the callback `lstat` and `readdir` (tests use them to
   * make a directory unreadable, which chmod cannot do for root); their
   * errors are warned like the real ones. `readdir` is called as
   * `readdir(path, cb)` and answers names; `lstat` is called as
   * `lstat(path, { bigint: true }, cb)` and must answer `BigIntStats`
   * (nanosecond mtimes). With either, the walk reads one directory at a
   * time in this thread.
   */
  fs?: { lstat?: typeof lstatCb; readdir?: typeof readdirCb };
  /**
   * Threads that walk (1 = this thread alone, 2 = a worker thread reads
   * part of the tree too); default: `walkThreads` (`PTB_MANIFEST_THREADS`,
   * else 2 when a core is free). The entries and their order do not depend
   * on it.
   */
  concurrency?: number;
  /** Entries walked before the worker thread is started (default 8192: a small tree does not pay for it; tests use 0). */
  workerAfter?: number;
  /** Filled in as the walk goes: directories read by the worker thread (tests check that it took part). */
  tally?: { workerDirs: number };
}

/** Entries a batch of {@link readPvcTreeBatches} gathers before it is given out. */
const BATCH = 1024;
/** Directories in a chunk given to the worker thread, and read in this thread between two such chunks. */
const WORKER_CHUNK = 32;
const OWN_RUN = 32;
/**
 * Chunks sent to the worker thread and not yet given out: enough that it always has one to read while
 * this thread reads its own directories and gives out entries. Measured on a 2-core machine (README:
 * Performance), a 500k-entry tree: 2 ahead left the worker idle 20 % of the walk; 4 walked it 7 % faster
 * (8 no faster than 4).
 */
const WORKER_CHUNKS_AHEAD = 4;
/** Entries walked before the worker thread is started (a small tree does not pay for it). */
const WORKER_AFTER_ENTRIES = 8192;

/**
 * Walks a mounted PVC directory and streams one {@link PvcEntry} per entry,
 * the directory itself first, as `find DIR -printf '%T@\t%y\t%s\t%p\n'`
 * would list them (SOURCES.md: pvc/), in batches ({@link readPvcTree} gives
 * them one at a time).
 *
 * - Order: breadth first, as a queue of directories — a directory's entries
 *   in the order `readdir` gives them (not sorted by the walk), then the
 *   entries of the directories found before it, and so on: the order of the
 *   fast-glob walk this replaces. The same with one thread or two: the
 *   worker thread reads chunks of the queue ahead of this thread, and their
 *   entries are given out when the walk reaches them.
 * - Times are `lstat` mtimes read with nanosecond precision (`bigint`
 *   stats) and converted with the listing reader's own `epochToMs`, so a
 *   tree and its `snapshot-pvc` listing give the same `mtimeMs` to the bit.
 * - Symbolic links are listed (type `l`, size = length of the target, as
 *   `find %s`) and never followed, so a link loop cannot loop the walk. The
 *   directory argument itself is followed when it is a link (`find -H`).
 * - Streams: what is kept is the queue of directories still to read (their
 *   relative paths) and up to a batch of entries.
 * - `entry.origin`: `file` is the entry's PVC path, `line` and `offset` are
 *   null, `raw` is the entry as a `find` listing line.
 *
 * Warnings (`scanDir`, src/extractors/pvc-dir-scan.ts): `PVC_UNREADABLE_DIR`
 * for a directory whose entries could not be read (`readdir` failed, e.g.
 * `EACCES`; or an entry of it could not be `lstat`ed: then none of its
 * entries is given); `PVC_BAD_NAME` for each name a listing line cannot
 * hold (`unlistableName`: a line break, a tab, not UTF-8), which is not
 * listed (nor, for a directory, anything below it), so the live walk and its
 * `snapshot-pvc` listing give the same entries (file = the PVC path of its
 * directory, the name JSON-quoted in the message). The walk goes on with the
 * rest of the tree. A directory's warnings are given before its entries.
 *
 * @param dir the local directory (relative to the working directory or absolute).
 * @throws InputError `PVC_DIR_MISSING` when `dir` is not a readable directory.
 */
export async function* readPvcTreeBatches(dir: string, opts: PvcTreeOptions): AsyncGenerator<PvcEntry[]> {
  const absDir = resolve(dir);
  const root = opts.pvcRoot.replace(/\/+$/, "") || "/";
  let rootStats: BigIntStats;
  try {
    rootStats = await stat(absDir, { bigint: true });
  } catch (err) {
    throw new InputError("PVC_DIR_MISSING", `cannot read the PVC directory ${absDir}: ${errCode(err)}`, absDir);
  }
  if (!rootStats.isDirectory()) throw new InputError("PVC_DIR_MISSING", `${absDir} is not a directory`, absDir);

  const localBase = absDir === "/" ? "" : absDir;
  const prefix = root === "/" ? "/" : `${root}/`;
  const localOf = (rel: string): string => (rel === "" ? absDir : `${localBase}/${rel}`);
  const pvcOf = (rel: string): string => (rel === "" ? root : `${prefix}${rel}`);
  // The walk's queue: directories (relative paths, "" = the tree) in walk order; `h` is the next to give out.
  let q: string[] = [""];
  let h = 0;
  let batch: PvcEntry[] = [entryOf(root, rootStats)];
  let walked = 0;
  const add = (scan: DirScan): void => {
    for (const w of scan.warnings) opts.diag.warn(w.code, w.message, w.file, null);
    const entries = scan.entries;
    for (let i = 0; i < entries.length; i += 1) {
      const e = entries[i]!;
      batch.push(e);
      if (e.type === "d") q.push(e.path.slice(prefix.length));
    }
    walked += entries.length;
  };
  const compact = (): void => {
    if (h < 65536) return;
    for (const c of chunks) {
      c.start -= h;
      c.end -= h;
    }
    lastEnd -= h;
    q = q.slice(h);
    h = 0;
  };
  // Chunks of the queue given to the worker thread, in queue order.
  const chunks: { start: number; end: number; id: number }[] = [];
  let lastEnd = 0;

  if (opts.fs) {
    // Replaced file system calls (callbacks): one directory at a time, each given out as it is read.
    for (; h < q.length; h += 1) {
      add(await scanDirWith(localOf(q[h]!), pvcOf(q[h]!), opts.fs));
      yield batch;
      batch = [];
      compact();
    }
    return;
  }
  const threads =
    opts.concurrency !== undefined ? Math.min(2, Math.max(1, opts.concurrency)) : await defaultWalkThreads();
  const workerAfter = opts.workerAfter ?? WORKER_AFTER_ENTRIES;
  let helper: WalkHelper | null = null;
  try {
    while (h < q.length) {
      const c = chunks[0];
      if (c !== undefined && c.start === h) {
        chunks.shift();
        const scans =
          helper!.take(c.id) ??
          (await helper!.wait(c.id)) ??
          q.slice(c.start, c.end).map((rel) => scanDir(localOf(rel), pvcOf(rel)));
        if (opts.tally && !helper!.failed) opts.tally.workerDirs += scans.length;
        for (const s of scans) add(s);
        h = c.end;
      } else {
        const rel = q[h]!;
        add(scanDir(localOf(rel), pvcOf(rel)));
        h += 1;
      }
      if (threads === 2) {
        if (helper === null && walked >= workerAfter && q.length - h > OWN_RUN + WORKER_CHUNK) {
          helper = new WalkHelper(absDir, root);
          lastEnd = h;
        }
        while (helper !== null && !helper.failed && chunks.length < WORKER_CHUNKS_AHEAD) {
          const start = Math.max(lastEnd + OWN_RUN, h + 1);
          const end = start + WORKER_CHUNK;
          if (end > q.length) break;
          chunks.push({ start, end, id: helper.send(q.slice(start, end)) });
          lastEnd = end;
        }
      }
      if (batch.length >= BATCH) {
        yield batch;
        batch = [];
      }
      compact();
    }
    if (batch.length > 0) yield batch;
  } finally {
    await helper?.close();
  }
}

/**
 * {@link readPvcTreeBatches} one entry at a time.
 *
 * @throws InputError `PVC_DIR_MISSING` when `dir` is not a readable directory.
 */
export async function* readPvcTree(dir: string, opts: PvcTreeOptions): AsyncGenerator<PvcEntry> {
  for await (const batch of readPvcTreeBatches(dir, opts)) yield* batch;
}

/** `scanDir` of a directory through callback replacements of `readdir` and `lstat` ({@link PvcTreeOptions.fs}). */
async function scanDirWith(local: string, pvc: string, fs: NonNullable<PvcTreeOptions["fs"]>): Promise<DirScan> {
  const readdir = (fs.readdir ?? readdirCb) as (
    p: string,
    cb: (e: NodeJS.ErrnoException | null, n: string[]) => void,
  ) => void;
  const lstat = (fs.lstat ?? lstatCb) as (
    p: string,
    o: { bigint: true },
    cb: (e: NodeJS.ErrnoException | null, st: BigIntStats) => void,
  ) => void;
  const names = await new Promise<string[] | NodeJS.ErrnoException>((done) =>
    readdir(local, (err, n) => done(err ?? n)),
  );
  const stats = new Map<string, BigIntStats | NodeJS.ErrnoException>();
  if (Array.isArray(names))
    await Promise.all(
      names
        .filter((n) => unlistableName(n) === null)
        .map(
          (n) =>
            new Promise<void>((done) =>
              lstat(`${local}/${n}`, { bigint: true }, (err, st) => {
                stats.set(n, err ?? st);
                done();
              }),
            ),
        ),
    );
  const table: ScanFs = {
    readdir: () => names,
    lstat: (path) => stats.get(path.slice(local.length + 1)) ?? SYNC_FS.lstat(path),
  };
  return scanDir(local, pvc, table);
}
