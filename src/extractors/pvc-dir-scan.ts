/**
 * One directory of a live PVC tree read as `find` lists it (SOURCES.md: pvc/;
 * README: Live sources): its names (`readdir`, in the order the file system
 * gives them), each `lstat`ed with nanosecond mtimes, turned into
 * {@link PvcEntry} values, with the walk's rules for names a listing cannot
 * hold and for entries that cannot be read. The one rule for the walk in
 * this thread, in its worker thread (`pvc-walk-worker.ts`) and for test
 * replacements of `readdir`/`lstat`.
 */
import { type BigIntStats, lstatSync, readdirSync } from "node:fs";
import { epochToMs } from "./epoch-ms.js";
import type { PvcEntry } from "./pvc-listing.js";

/** Warning code of a directory (or an entry of one) that could not be read: its entries are missing. */
const PVC_UNREADABLE_DIR = "PVC_UNREADABLE_DIR";

/** Warning code of a name a listing line cannot hold ({@link unlistableName}): not listed, nor anything below it. */
export const PVC_BAD_NAME = "PVC_BAD_NAME";

/**
 * Why a file name cannot be a part of a `listing.tsv` path that reads back
 * as the same entry (SOURCES.md: pvc/), or null when it can. The one rule
 * for `snapshot-pvc` and the live walk (`build --pvc`), matching what the
 * listing reader refuses (src/extractors/pvc-listing.ts: `listingTsvEntry`
 * splits fields on tabs and lines on line ends, `observePvcEntry` skips a
 * path with a tab or U+FFFD as `PVC_BAD_LINE`):
 * - a line break (`\n`, `\r`; U+2028, U+2029, which JavaScript's `.` does
 *   not match either): it would end the line;
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

/** Any character {@link unlistableName} refuses: the quick test before asking it why. */
const UNLISTABLE = /[\t\n\r\u2028\u2029\ufffd]/;

/** A warning of a directory's scan, given to `Diagnostics.warn` (file = a PVC path, no line). */
export interface ScanWarning {
  code: typeof PVC_UNREADABLE_DIR | typeof PVC_BAD_NAME;
  message: string;
  file: string;
}

/** What one directory gave: its entries (in `readdir` order) and its warnings (in the order they are given). */
export interface DirScan {
  entries: PvcEntry[];
  warnings: ScanWarning[];
}

/**
 * The file system calls of a scan: `readdir` of a directory (names, or the
 * error) and `lstat` of an entry (bigint stats, or the error). Errors are
 * returned, not thrown, so a replacement can be answered from a table.
 */
export interface ScanFs {
  readdir(path: string): string[] | NodeJS.ErrnoException;
  lstat(path: string): BigIntStats | NodeJS.ErrnoException;
}

/** The real file system, synchronously: `readdirSync` and `lstatSync(path, { bigint: true })`. */
export const SYNC_FS: ScanFs = {
  readdir(path) {
    try {
      return readdirSync(path);
    } catch (err) {
      return err as NodeJS.ErrnoException;
    }
  },
  lstat(path) {
    try {
      return lstatSync(path, { bigint: true });
    } catch (err) {
      return err as NodeJS.ErrnoException;
    }
  },
};

/**
 * Reads one directory of the walk: `readdir`, then `lstat` of each name
 * (links are listed, never followed). `local` is its path on this machine,
 * `pvc` its PVC path (entries get `pvc + "/" + name`, or `"/" + name` when
 * `pvc` is `/`).
 *
 * - A name a listing line cannot hold ({@link unlistableName}) is left out
 *   (and so is everything below it: it is never read) with a
 *   `PVC_BAD_NAME` warning (file = `pvc`, the name JSON-quoted, with
 *   U+2028, U+2029 and U+FFFD escaped), before it is `lstat`ed (a name that
 *   is not UTF-8 could not be).
 * - `readdir` failing (e.g. `EACCES`): no entries, one `PVC_UNREADABLE_DIR`
 *   ("cannot read directory …: its entries are not listed").
 * - An entry that cannot be `lstat`ed (gone mid-walk): none of the
 *   directory's entries, one `PVC_UNREADABLE_DIR` naming the first such
 *   entry ("cannot lstat …: the entries of … are not read"), given before
 *   the directory's `PVC_BAD_NAME` warnings.
 */
export function scanDir(local: string, pvc: string, fs: ScanFs = SYNC_FS): DirScan {
  const names = fs.readdir(local);
  const base = pvc === "/" ? "" : pvc;
  if (!Array.isArray(names))
    return {
      entries: [],
      warnings: [
        {
          code: PVC_UNREADABLE_DIR,
          message: `cannot read directory ${pvc} (${errCode(names)}): its entries are not listed`,
          file: pvc,
        },
      ],
    };
  const entries: PvcEntry[] = [];
  let bad: ScanWarning[] | null = null;
  let failed: ScanWarning | null = null;
  for (let i = 0; i < names.length; i += 1) {
    const name = names[i]!;
    if (UNLISTABLE.test(name)) {
      bad ??= [];
      bad.push(badName(local, pvc, name, fs));
      continue;
    }
    if (failed !== null) continue;
    const st = fs.lstat(`${local}/${name}`);
    if (!("mtimeNs" in st)) {
      failed = {
        code: PVC_UNREADABLE_DIR,
        message: `cannot lstat ${base}/${name} (${errCode(st)}): the entries of ${pvc} are not read`,
        file: pvc,
      };
      continue;
    }
    entries.push(entryOf(`${base}/${name}`, st));
  }
  if (failed !== null) return { entries: [], warnings: bad ? [failed, ...bad] : [failed] };
  return { entries, warnings: bad ?? [] };
}

/** The `PVC_BAD_NAME` warning of `name` in the directory `local` (PVC path `pvc`). */
function badName(local: string, pvc: string, name: string, fs: ScanFs): ScanWarning {
  const why = unlistableName(name)!;
  const st = fs.lstat(`${local}/${name}`);
  const what = "mtimeNs" in st && st.isDirectory() ? "the directory" : "the entry";
  const quoted = JSON.stringify(name)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029")
    .replace(/\ufffd/g, "\\ufffd");
  return {
    code: PVC_BAD_NAME,
    message: `${what} ${quoted} in ${pvc} ${why}: it is not listed${what === "the directory" ? ", nor anything below it" : ""}`,
    file: pvc,
  };
}

/**
 * The {@link PvcEntry} of a PVC path and its `lstat`: mtime from the
 * nanosecond `mtimeNs` through the listing reader's own `epochToMs` (so a
 * tree and its `snapshot-pvc` listing give the same `mtimeMs` to the bit),
 * `find %y` type letter, size (of a link: its target's length, as
 * `find %s`), `origin.raw` the `find -printf '%T@\t%y\t%s\t%p'` line.
 */
export function entryOf(path: string, st: BigIntStats): PvcEntry {
  const epoch = epochOf(st.mtimeNs);
  const type = typeLetter(Number(st.mode));
  const sizeBytes = Number(st.size);
  return {
    mtimeMs: epochToMs(epoch),
    type,
    sizeBytes,
    path,
    origin: { file: path, line: null, offset: null, raw: `${epoch}\t${type}\t${sizeBytes}\t${path}` },
  };
}

/** {@link nsToEpoch} by slicing the decimal digits (no bigint division) for the usual times (≥ 1 s after the epoch). */
function epochOf(ns: bigint): string {
  if (ns < 1_000_000_000n) return nsToEpoch(ns);
  const t = ns.toString();
  return `${t.slice(0, -9)}.${t.slice(-9)}0`;
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

/** `find %y` of a `st_mode`: `f`, `d`, `l`, `p`, `s`, `c`, `b` (or `U` for an unknown type). */
function typeLetter(mode: number): string {
  switch (mode & 0o170000) {
    case 0o100000:
      return "f";
    case 0o040000:
      return "d";
    case 0o120000:
      return "l";
    case 0o010000:
      return "p";
    case 0o140000:
      return "s";
    case 0o020000:
      return "c";
    case 0o060000:
      return "b";
    default:
      return "U";
  }
}

/** The `code` of a file system error (else its message). */
export function errCode(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code ?? e?.message ?? String(err);
}
