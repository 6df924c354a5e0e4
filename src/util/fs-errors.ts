/**
 * File system errors on inputs, mapped to coded errors and warnings (README:
 * "Warnings and errors"; DESIGN.md: Trust). Every place that opens, stats,
 * lists, reads or hashes an input routes a failure through here, so that an
 * unreadable file or folder (EACCES, EISDIR, ELOOP, EIO, a file removed while
 * the build runs, ...) is a message naming the file and its reason, never an
 * internal error. Which code, and whether it is fatal, is the caller's
 * decision: a required input (cells.json, a supervisor history, a PVC
 * listing) is an error, a partial one (a trajectory file, a janitor part, a
 * Hub file, anchors.tsv) a warning whose consequence the caller states.
 */
import * as nodeFs from "node:fs";
import * as nodePath from "node:path";
import type { Options as GlobOptions } from "fast-glob";
import type { Diagnostics } from "../diagnostics.js";
import type { ErrorCode, WarningCode } from "../diagnostics/registry.js";
import { InputError } from "../errors.js";

/** What each errno means for a reader, in words a user can act on. */
const REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "it is a folder, not a file",
  ENOTDIR: "a part of the path is not a folder",
  ELOOP: "too many levels of symbolic links (a link loop)",
  EIO: "input/output error (a disk or network file system fault)",
  ENOENT: "no such file or folder (removed while the command ran?)",
  ESTALE: "stale network file handle",
  EMFILE: "too many open files",
  ENFILE: "too many open files in the system",
  ENAMETOOLONG: "the name is too long",
  ENXIO: "no such device",
  ENODEV: "no such device",
  EBUSY: "the file is busy",
  EAGAIN: "the file is temporarily unavailable",
  ETIMEDOUT: "timed out",
  EINVAL: "invalid argument (not a readable file?)",
};

/**
 * True when `err` is a Node.js file system error (an `Error` with an errno
 * `code` such as `EACCES`), as opposed to a bug or a format error (a corrupt
 * `.gz` stream has a `Z_...` code and is not one).
 */
export function isFsError(err: unknown): err is NodeJS.ErrnoException {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return err instanceof Error && typeof code === "string" && /^E[A-Z0-9]+$/.test(code);
}

/** The errno code of `err` (`EACCES`, ...), or null when it is no file system error. */
export function fsErrorCode(err: unknown): string | null {
  return isFsError(err) ? err.code! : null;
}

/**
 * The symbolic link that makes `path` missing: the deepest entry of `path`
 * (itself, else the nearest folder above it) that exists, when it is a link
 * whose target does not; null when there is none (the path is just absent).
 */
export function danglingLinkOn(path: string): string | null {
  for (let p = nodePath.resolve(path); ; ) {
    try {
      return nodeFs.lstatSync(p).isSymbolicLink() && !nodeFs.existsSync(p) ? p : null;
    } catch {
      const up = nodePath.dirname(p);
      if (up === p) return null;
      p = up;
    }
  }
}

/** The dangling link behind a "no such file" error `err` (see {@link danglingLinkOn}), else null. */
function danglingLinkOf(err: unknown): string | null {
  const code = fsErrorCode(err);
  const path = (err as NodeJS.ErrnoException | null)?.path;
  return (code === "ENOENT" || code === "ENOTDIR") && typeof path === "string" ? danglingLinkOn(path) : null;
}

/**
 * True when `err` says the input is absent: ENOENT (or ENOTDIR: a path part
 * is a file) with no dangling symbolic link on the way. A link whose target
 * is gone is an input that is there and cannot be read, never "no such
 * input" (README: Unreadable inputs).
 */
export function isAbsent(err: unknown): boolean {
  const code = fsErrorCode(err);
  return (code === "ENOENT" || code === "ENOTDIR") && danglingLinkOf(err) === null;
}

/**
 * A short reason for a read failure without the absolute path (the caller
 * names the file): `permission denied (EACCES)`; for any other error (a
 * corrupt `.gz`: `incorrect header check`), its message's first line.
 */
export function fsReason(err: unknown): string {
  if (danglingLinkOf(err) !== null)
    return `a symbolic link whose target does not exist (a dangling link) (${fsErrorCode(err)})`;
  if (isFsError(err)) return `${REASONS[err.code!] ?? "cannot be read"} (${err.code})`;
  return String(err instanceof Error ? err.message : err).split("\n")[0]!;
}

/**
 * The fatal error for a required input that cannot be read: `code` (e.g.
 * `CELLS_UNREADABLE`), naming `rel` (the path shown to the user, relative to
 * the sources folder where there is one) and the reason.
 */
export function unreadableError(code: ErrorCode, rel: string, err: unknown, what = "cannot read"): InputError {
  return new InputError(code, `${what} ${rel}: ${fsReason(err)}`, rel);
}

/**
 * Records a warning for a partial input that cannot be read: `code` (e.g.
 * `ANCHOR_UNREADABLE`), naming `rel` and the reason, followed by
 * `consequence` (what the build does without it, e.g. "its tokens are null").
 */
export function warnUnreadable(
  diag: Pick<Diagnostics, "warn">,
  code: WarningCode,
  rel: string,
  err: unknown,
  consequence: string,
): void {
  diag.warn(code, `cannot read ${rel}: ${fsReason(err)}; ${consequence}`, rel, null);
}

/**
 * Runs `fn`; a file system error it throws becomes `onError(err)`'s value
 * (anything else is rethrown: it is a bug, not an input fault).
 */
export async function orOnFsError<T>(
  fn: () => Promise<T>,
  onError: (err: NodeJS.ErrnoException) => T | Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isFsError(err)) return onError(err);
    throw err;
  }
}

/**
 * `stat` of a path that may be absent: the stats, or null when nothing is
 * there (ENOENT, or ENOTDIR: a path part is a file; {@link isAbsent}). Any
 * other file system error (EACCES on a folder on the way, EIO, ELOOP, a
 * dangling link) is thrown, so that "cannot be read" is never taken for
 * "absent".
 */
export async function statIfPresent(path: string): Promise<nodeFs.Stats | null> {
  try {
    return await nodeFs.promises.stat(path);
  } catch (err) {
    if (isAbsent(err)) return null;
    throw err;
  }
}

/**
 * A `fs` option for fast-glob that reports every folder it cannot list
 * (fast-glob, with `suppressErrors`, would skip it without a word):
 * `onError(absPath, err)` is called once per such folder, then the walk goes
 * on with the rest. Use with `suppressErrors: true`.
 */
export function reportingGlobFs(
  onError: (absPath: string, err: NodeJS.ErrnoException) => void,
): NonNullable<GlobOptions["fs"]> {
  type Callback = (err: NodeJS.ErrnoException | null, value?: unknown) => void;
  const wrap =
    (fn: (...args: unknown[]) => void, report: (path: string, err: NodeJS.ErrnoException) => void) =>
    (path: string, optsOrCb: unknown, cb?: Callback): void => {
      const done: Callback = typeof optsOrCb === "function" ? (optsOrCb as Callback) : cb!;
      const reporting: Callback = (err, value) => {
        if (err) report(path, err);
        done(err, value);
      };
      if (typeof optsOrCb === "function") fn(path, reporting);
      else fn(path, optsOrCb, reporting);
    };
  type Adapter = NonNullable<GlobOptions["fs"]>;
  return {
    readdir: wrap(nodeFs.readdir as (...args: unknown[]) => void, onError) as unknown as Adapter["readdir"],
  };
}
