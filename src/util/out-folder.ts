/**
 * The one check of an output folder, used by every command that writes
 * files: `build --out`, `cost --html` (through {@link writeFilesAtomically})
 * and `snapshot-hub --out`. A folder that cannot take the outputs is a fatal
 * input error with a stable code before anything is written, never an
 * internal error halfway:
 *
 * - `OUT_NOT_A_FOLDER`: the path, or a folder above it, is a file, a device,
 *   a FIFO or a socket (`--out /dev/null`, `--out some-file/x`);
 * - `OUT_UNWRITABLE`: the folder (or, when it does not exist yet, the
 *   nearest folder above it) cannot be written (`--out /proc/self`, a
 *   read-only file system, no permission);
 * - `OUT_INSIDE_SOURCES`: the folder is the sources folder or inside it
 *   (`build --out sources/kimi`), compared after resolving links;
 * - `OUT_NOT_A_FILE`: a file to write whose name is taken by a folder or a
 *   special file (`cost --html /dev/null`);
 * - `OUT_FOREIGN_FILE`: a file to replace that this tool did not write
 *   (src/util/out-owner.ts, checked by `writeFilesAtomically` and
 *   `snapshotHub`).
 *
 * An empty path is a usage error (exit 64), like any other bad argument.
 *
 * @see writeFilesAtomically (src/util/atomic.ts)
 */
import { constants, type Stats } from "node:fs";
import { access, lstat, mkdir, mkdtemp, realpath, rmdir, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { InputError } from "../errors.js";
import { EXIT, ExitCodeError } from "../errors.js";
import { danglingLinkOn } from "./fs-errors.js";

/** What a non-folder is, for messages. */
function kindOf(s: Stats): string {
  if (s.isFile()) return "a file";
  if (s.isCharacterDevice()) return "a character device";
  if (s.isBlockDevice()) return "a block device";
  if (s.isFIFO()) return "a FIFO";
  if (s.isSocket()) return "a socket";
  if (s.isSymbolicLink()) return "a symbolic link";
  return "not a regular file or folder";
}

/** Error codes of the file system that mean "this place cannot be written", mapped to `OUT_UNWRITABLE`. */
const UNWRITABLE = new Set([
  "EACCES",
  "EPERM",
  "EROFS",
  "ENOENT",
  "ENOTDIR",
  "EISDIR",
  "ENOSPC",
  "EDQUOT",
  "EEXIST",
  "ELOOP",
  "ENAMETOOLONG",
  "EINVAL",
]);

/**
 * Turns a file system error met while writing under `folder` into the
 * `OUT_UNWRITABLE` input error (the folder and the system's reason), and
 * returns any other error unchanged.
 */
export function outWriteError(err: unknown, folder: string, option = "--out"): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== "string" || !UNWRITABLE.has(code)) return err;
  const msg = (err as Error).message.split("\n")[0];
  return new InputError("OUT_UNWRITABLE", `${option} ${folder} cannot be written (${msg}); nothing written`, folder);
}

/** Options of {@link checkOutFolder}. */
export interface OutFolderCheck {
  /** The option that named the folder, for messages (default `--out`). */
  option?: string;
  /** The sources folder: the output folder may not be it or inside it (`OUT_INSIDE_SOURCES`). */
  sources?: string;
  /**
   * The folder is replaced whole by a rename in its parent (`snapshot-hub`),
   * so the parent must be writable rather than the folder itself.
   */
  replaced?: boolean;
}

/** Resolves links in the longest existing part of `path`; the missing rest is appended as it is. */
async function realPathOf(path: string): Promise<string> {
  let head = path;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(await realpath(head), ...rest);
    } catch {
      const up = dirname(head);
      if (up === head) return path;
      rest.unshift(basename(head));
      head = up;
    }
  }
}

/** True when `inner` is `outer` or a path inside it. */
function within(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * Checks that `out` can be (or become) the output folder of a command,
 * before anything is read or written: not empty, a folder or a path that can
 * be created as one, writable, and, given `sources`, neither the sources
 * folder nor inside it. A folder that *contains* the sources folder passes
 * this check (its files are then guarded by the marker: only files this
 * tool wrote are replaced). Nothing is created.
 *
 * @returns the absolute path of the folder.
 * @throws ExitCodeError with exit code 64 for an empty path; InputError
 *   `OUT_NOT_A_FOLDER`, `OUT_UNWRITABLE` or `OUT_INSIDE_SOURCES`, naming the
 *   path given.
 */
export async function checkOutFolder(out: string, opts: OutFolderCheck = {}): Promise<string> {
  const option = opts.option ?? "--out";
  if (out.trim() === "")
    throw new ExitCodeError(EXIT.usage, `error: ${option} is empty: give a folder (. for the current one)`);
  const abs = resolve(out);
  // The nearest existing path: the folder itself, or the first folder above it.
  let existing = abs;
  let info: Stats;
  for (;;) {
    try {
      info = await stat(existing);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const up = dirname(existing);
      const dangling = code === "ENOENT" ? danglingLinkOn(existing) : null;
      if (dangling !== null)
        throw new InputError(
          "OUT_NOT_A_FOLDER",
          `${option} ${out}: ${dangling} is a symbolic link whose target does not exist (a dangling link), not a folder; nothing written`,
          out,
        );
      if ((code === "ENOENT" || code === "ENOTDIR") && up !== existing) {
        existing = up;
        continue;
      }
      if (code === "ELOOP")
        throw new InputError(
          "OUT_NOT_A_FOLDER",
          `${option} ${out}: ${existing} is a loop of symbolic links, not a folder; nothing written`,
          out,
        );
      throw outWriteError(err, out, option);
    }
  }
  if (!info.isDirectory()) {
    const what = existing === abs ? `is ${kindOf(info)}` : `cannot be created: ${existing} is ${kindOf(info)}`;
    throw new InputError("OUT_NOT_A_FOLDER", `${option} ${out} ${what}, not a folder; nothing written`, out);
  }
  const writable = opts.replaced && existing === abs ? dirname(abs) : existing;
  try {
    await access(writable, constants.W_OK | constants.X_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "error";
    const what = writable === abs ? "is not writable" : `cannot be created: ${writable} is not writable`;
    throw new InputError("OUT_UNWRITABLE", `${option} ${out} ${what} (${code}); nothing written`, out);
  }
  if (opts.sources !== undefined) {
    const where = await placeInSources(abs, opts.sources);
    if (where !== null)
      throw new InputError(
        "OUT_INSIDE_SOURCES",
        `${option} ${out} ${where}: the outputs would mix with the inputs (the next build would read them); give a folder outside it; nothing written`,
        out,
      );
  }
  return abs;
}

/**
 * The checks of a cache folder before any work (a command that writes a
 * cache): `dir` (absolute; `given` as `--cache-dir` named it, else undefined:
 * the default) may not be the sources folder or lie in it, and a folder the
 * user named must take files ({@link cacheFolderError}).
 *
 * @returns null, or the error of a named folder that takes no files (the
 *   caller throws it, or goes on without the cache).
 * @throws InputError `CACHE_INSIDE_SOURCES`.
 */
export async function cacheFolderProblem(
  dir: string,
  given: string | undefined,
  sources: string,
): Promise<InputError | null> {
  await checkCacheOutsideSources(dir, given, sources);
  return given !== undefined ? cacheFolderError(given) : null;
}

/**
 * The cache folder `dir` (absolute; `given` as `--cache-dir` named it, else
 * undefined: the default) may not be the sources folder or lie in it: every
 * run would write into its own inputs.
 *
 * @throws InputError `CACHE_INSIDE_SOURCES`.
 */
async function checkCacheOutsideSources(dir: string, given: string | undefined, sources: string): Promise<void> {
  const where = await placeInSources(dir, sources);
  if (where === null) return;
  const named = given !== undefined ? `--cache-dir ${given}` : `the cache folder ${dir}`;
  throw new InputError(
    "CACHE_INSIDE_SOURCES",
    `${named} ${where}: every run would write into its own inputs; give a cache folder outside it; nothing written`,
    dir,
  );
}

/**
 * Where the folder `abs` (absolute; it may not exist yet) lies in the
 * sources folder `sources`, through links too: `is the sources folder`, `is
 * inside the sources folder <sources>`, or null when it lies outside.
 */
async function placeInSources(abs: string, sources: string): Promise<string | null> {
  const src = await realPathOf(resolve(sources));
  const real = await realPathOf(abs);
  if (!within(real, src) && !within(abs, resolve(sources))) return null;
  return real === src || abs === resolve(sources) ? "is the sources folder" : `is inside the sources folder ${sources}`;
}

/**
 * Whether the cache folder `dir` given with `--cache-dir` exists (it is
 * created) and takes files, asked before any work: a cache folder that does
 * not (`/proc/self`, a file, read-only) would otherwise fail after the Hub
 * has been asked, or hang Node's recursive `mkdir`.
 *
 * @returns null when it does, else the error `OUT_NOT_A_FOLDER` or
 *   `OUT_UNWRITABLE` naming `--cache-dir` (the caller throws it, or goes on
 *   without the cache).
 */
async function cacheFolderError(dir: string): Promise<InputError | null> {
  try {
    await makeFolder(dir, "--cache-dir");
    await rmdir(await mkdtemp(join(resolve(dir), ".probe-")));
    return null;
  } catch (err) {
    const e = outWriteError(err, dir, "--cache-dir");
    if (e instanceof InputError) return e;
    throw e;
  }
}

/**
 * Creates `folder` and the missing folders above it, one `mkdir(2)` at a
 * time (Node's recursive `mkdir` never returns on some pseudo file systems,
 * e.g. under `/proc`). A folder that exists is fine.
 *
 * @returns the folders created, outermost first.
 * @throws InputError `OUT_NOT_A_FOLDER` when a path on the way is not a
 *   folder, `OUT_UNWRITABLE` when a folder cannot be created.
 */
export async function makeFolder(folder: string, option = "--out"): Promise<string[]> {
  const abs = resolve(folder);
  const missing: string[] = [];
  let p = abs;
  for (;;) {
    let s: Stats | null = null;
    try {
      s = await stat(p);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw outWriteError(err, folder, option);
    }
    if (s) {
      if (!s.isDirectory())
        throw new InputError(
          "OUT_NOT_A_FOLDER",
          `${option} ${folder} cannot be created: ${p} is ${kindOf(s)}, not a folder; nothing written`,
          folder,
        );
      break;
    }
    const up = dirname(p);
    if (up === p) break;
    missing.unshift(p);
    p = up;
  }
  const created: string[] = [];
  for (const dir of missing) {
    try {
      await mkdir(dir);
      created.push(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST" && (await stat(dir).catch(() => null))?.isDirectory())
        continue;
      throw outWriteError(err, folder, option);
    }
  }
  return created;
}

/**
 * The stats of what the symbolic link `link` leads to when that is no file (a
 * folder, a device, a pipe: `/dev/stdout`), which an output never replaces;
 * null for a link to a file or to nothing, which an output replaces (never
 * writing through it).
 */
export async function linkToNonFile(link: string): Promise<Stats | null> {
  const to = await stat(link).catch(() => null);
  return to === null || to.isFile() ? null : to;
}

/**
 * Checks that `target`, a file about to be replaced by a rename, is absent,
 * a regular file or a symbolic link to a file or to nothing (which is
 * replaced, never written through).
 *
 * @throws InputError `OUT_NOT_A_FILE` for a folder, a device, a FIFO or a socket at that name, or a link to one.
 */
export async function checkOutFile(target: string): Promise<void> {
  let s: Stats;
  try {
    s = await lstat(target);
  } catch {
    return;
  }
  if (s.isFile()) return;
  let what: string;
  if (s.isSymbolicLink()) {
    const to = await linkToNonFile(target);
    if (to === null) return;
    what = `a symbolic link to ${to.isDirectory() ? "a folder" : kindOf(to)}`;
  } else what = s.isDirectory() ? "a folder" : kindOf(s);
  throw new InputError(
    "OUT_NOT_A_FILE",
    `cannot write ${target}: the name is taken by ${what}, which an output file would replace; nothing written`,
    target,
  );
}
