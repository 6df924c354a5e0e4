import { posix } from "node:path";
import type { Cell } from "../schema.js";
import type { Diagnostics } from "../diagnostics.js";
import type { Observation, Origin } from "../observations.js";
import { familyIdOf } from "../sources/cells.js";
import { readLineBatches, type Line } from "../util/lines.js";
import { clip, isTimeMs, parseStep } from "../util/values.js";
import { parseCheckpointPath } from "./checkpoint-path.js";
import { epochToMs } from "./epoch-ms.js";

export { epochToMs };

/** One entry of a PVC listing, whatever its format. */
export interface PvcEntry {
  /** mtime, UTC epoch milliseconds (fractional: listings give nanoseconds). */
  mtimeMs: number;
  /** `f` file, `d` directory, `l` link, or another `find %y` letter. */
  type: string;
  sizeBytes: number;
  /** Absolute path on the PVC. */
  path: string;
  origin: Origin;
}

/** A `.` or `..` path part. */
const DOT_PART_RE = /(?:^|\/)\.\.?(?:\/|$)/;
let rootMemo: { raw: string; root: string; prefix: string } = { raw: "", root: "", prefix: "/" };

/** `pvc_root` without trailing slashes, and it plus `/` (memoised: called once per listing line). */
function rootOf(pvcRoot: string): { root: string; prefix: string } {
  if (rootMemo.raw !== pvcRoot) {
    const root = pvcRoot.replace(/\/+$/, "");
    rootMemo = { raw: pvcRoot, root, prefix: `${root}/` };
  }
  return rootMemo;
}

/**
 * Turns PVC entries into observations (SOURCES.md: pvc/). Only
 * `<family dir>/weights/step_<N>` and its direct children matter: `STABLE`
 * (write time), `*.safetensors` (the weights survive) and the directory itself
 * (its mtime is kept for `explain`, never used as a write time). The family is
 * the name of the directory that holds `weights/` (nested `runs/<family>/`
 * included), mapped through `family_aliases`. Everything under `checkpoints/`,
 * `rollouts/` and `logs/` is ignored.
 *
 * Warnings: `PVC_OUTSIDE_ROOT` (a path not under `pvc_root`, or with `..`),
 * `PVC_BAD_STEP` (a `weights/step_<N>/STABLE` whose `<N>` is not a step
 * number: the checkpoint cannot be keyed, so it is skipped).
 */
export function observePvcEntry(
  cell: Cell,
  entry: PvcEntry,
  seq: number,
  diag: Diagnostics,
  extractor: string,
): Observation | null {
  const { root, prefix } = rootOf(cell.pvc_root);
  let { path } = entry;
  // Shapes `find` and `ls` never print: two records run together (a tab in the path), a trailing
  // slash, bytes that are not UTF-8. Skipped with the line named, never read as another checkpoint.
  // (`find <pvc_root>/` prints its starting point with the slash it was given: that one is fine.)
  if (path.includes("\t") || (path.endsWith("/") && path !== "/" && path !== `${root}/`) || path.includes("\ufffd")) {
    const why = path.includes("\t")
      ? "holds a tab (two lines run together?)"
      : path.endsWith("/")
        ? "ends with /"
        : "is not valid UTF-8";
    diag.warn("PVC_BAD_LINE", `path ${JSON.stringify(path)} ${why}; skipped`, entry.origin.file, entry.origin.line);
    return null;
  }
  if (path.includes("//")) path = path.replace(/\/{2,}/g, "/"); // the same directory on POSIX
  if (root.startsWith(path) && path !== root) {
    diag.warn(
      "PVC_CUT_LINE",
      `path ${JSON.stringify(path)} is cut short (a prefix of pvc_root); skipped`,
      entry.origin.file,
      entry.origin.line,
    );
    return null;
  }
  if (path !== root && !path.startsWith(prefix)) {
    diag.warn(
      "PVC_OUTSIDE_ROOT",
      `path ${JSON.stringify(path)} is not under pvc_root ${root}`,
      entry.origin.file,
      entry.origin.line,
    );
    return null;
  }
  const rel = path.slice(root.length + 1);
  if ((rel.charCodeAt(0) === 46 || rel.includes("/.")) && DOT_PART_RE.test(rel)) {
    diag.warn(
      "PVC_OUTSIDE_ROOT",
      `path ${JSON.stringify(path)} has a "." or ".." part`,
      entry.origin.file,
      entry.origin.line,
    );
    return null;
  }
  if (!rel.includes("/weights/step_")) return null; // most entries: no regex needed
  const m = parseCheckpointPath(rel);
  if (!m || m.child === "") return null;
  const { familyDir } = m;
  const dirParts = familyDir.split("/");
  if (dirParts.some((p) => p === "checkpoints" || p === "rollouts" || p === "logs" || p === "weights")) return null;
  const step = parseStep(m.stepText);
  const child = m.child ?? undefined;
  if (step === null) {
    if (child === "STABLE")
      diag.warn(
        "PVC_BAD_STEP",
        `step_${m.stepText} in ${JSON.stringify(path)} is not a step number; skipped`,
        entry.origin.file,
        entry.origin.line,
      );
    return null;
  }
  let kind: Observation["kind"];
  if (child === undefined) {
    if (entry.type !== "d") return null;
    kind = "pvc_dir";
  } else if (child === "STABLE") {
    if (entry.type !== "f") {
      // The marker is an empty file; anything else named STABLE is not the marker.
      diag.warn(
        "PVC_BAD_LINE",
        `STABLE in ${JSON.stringify(path)} is of type "${entry.type}", not a file; not taken as the marker`,
        entry.origin.file,
        entry.origin.line,
      );
      return null;
    }
    kind = "pvc_stable";
  } else if (child.endsWith(".safetensors") && entry.type === "f") {
    kind = "pvc_weights";
  } else {
    return null;
  }
  const dirName = posix.basename(familyDir);
  return {
    cell: cell.cell,
    family: familyIdOf(cell, dirName),
    step,
    kind,
    familyDir,
    utcMs: entry.mtimeMs,
    timeNote: kind === "pvc_stable" ? "STABLE mtime" : kind === "pvc_dir" ? "directory mtime" : "file mtime",
    origin: entry.origin,
    extractor,
    detail: { path, size: entry.sizeBytes, type: entry.type },
    seq,
  };
}

const _TSV_EPOCH_RE = /^\d+(?:\.\d+)?$/;

/**
 * Streams `pvc/listing.tsv`, captured with `find <pvc_root> -printf
 * '%T@\t%y\t%s\t%p\n'` (SOURCES.md: pvc/). Paths may contain spaces (and
 * tabs: everything after the third tab is the path).
 *
 * Warnings: `PVC_BAD_LINE` (too few fields, a bad epoch, type or size) and
 * `PVC_CUT_LINE` (a last line with no line end: the capture was
 * interrupted, so even a well-formed prefix is not trusted),
 * `PVC_LISTING_EMPTY` (no line at all).
 */
export function readListingTsv(absPath: string, file: string, diag: Diagnostics): AsyncGenerator<PvcEntry> {
  return readEntries(parseListingTsvBatches, absPath, file, diag);
}

/**
 * The entries of the listing file at `absPath` (`file` names it), one at a
 * time, as `parse` makes them from its lines read a buffer-full at a time
 * (the build's path parses the batches itself: millions of lines without one
 * `await` each). Warnings and errors are `parse`'s.
 */
export async function* readEntries(
  parse: (batches: AsyncIterable<Line[]>, file: string, diag: Diagnostics) => AsyncGenerator<PvcEntry[]>,
  absPath: string,
  file: string,
  diag: Diagnostics,
): AsyncGenerator<PvcEntry> {
  for await (const batch of parse(readLineBatches(absPath), file, diag)) yield* batch;
}

/**
 * Parses the lines of a `listing.tsv` (`file` names it), a buffer-full at a
 * time, into entries: the rules and warnings of {@link readListingTsv}, no
 * file system (an error thrown by `batches` passes through).
 */
export async function* parseListingTsvBatches(
  batches: AsyncIterable<Line[]> | Iterable<Line[]>,
  file: string,
  diag: Diagnostics,
): AsyncGenerator<PvcEntry[]> {
  let seen = false;
  for await (const lines of batches) {
    const batch: PvcEntry[] = [];
    for (const line of lines) {
      if (line.text === "") continue;
      seen = true;
      const entry = listingTsvEntry(line, file, diag);
      if (entry) batch.push(entry);
    }
    if (batch.length > 0) yield batch;
  }
  if (!seen)
    diag.warn("PVC_LISTING_EMPTY", "the listing has no entries: no checkpoint on the PVC can be seen", file, null);
}

const isDigits = (s: string): boolean => {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
};

/**
 * Warns `PVC_CUT_LINE` for a listing's last line that has no line end (the
 * capture was interrupted; SOURCES.md: pvc/): the caller skips the line.
 */
export function warnCutLine(line: Line, file: string, diag: Diagnostics): void {
  diag.warn(
    "PVC_CUT_LINE",
    `last line has no line end (capture interrupted); skipped: ${clip(line.text)}`,
    file,
    line.lineNo,
  );
}

/** One non-empty `listing.tsv` line as an entry, or null (with a warning). */
function listingTsvEntry(line: Line, file: string, diag: Diagnostics): PvcEntry | null {
  const text = line.text;
  if (line.unterminated) {
    warnCutLine(line, file, diag);
    return null;
  }
  const t1 = text.indexOf("\t");
  const t2 = t1 < 0 ? -1 : text.indexOf("\t", t1 + 1);
  const t3 = t2 < 0 ? -1 : text.indexOf("\t", t2 + 1);
  if (t3 < 0) {
    diag.warn(
      "PVC_BAD_LINE",
      `expected 4 tab-separated fields, found ${text.split("\t").length}: ${clip(text)}`,
      file,
      line.lineNo,
    );
    return null;
  }
  const mtimeMs = epochMsAt(text, 0, t1);
  const type = text.slice(t1 + 1, t2);
  const size = text.slice(t2 + 1, t3);
  const path = text.slice(t3 + 1);
  if (
    Number.isNaN(mtimeMs) ||
    type.length !== 1 ||
    !"fdlpscbD".includes(type) ||
    !isDigits(size) ||
    !path.startsWith("/") ||
    !isTimeMs(mtimeMs)
  ) {
    diag.warn("PVC_BAD_LINE", `unreadable fields: ${clip(text)}`, file, line.lineNo);
    return null;
  }
  return {
    mtimeMs,
    type,
    sizeBytes: Number(size),
    path,
    origin: { file, line: line.lineNo, offset: line.offset, raw: text },
  };
}

const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/**
 * {@link epochToMs} of `text[start, end)` when it is `\d+(\.\d+)?`, else NaN,
 * without making strings. The same double as `epochToMs`: an integer of at
 * most 15 digits divided by a power of ten is the correctly rounded value of
 * that decimal, which is what `Number("0.<digits>")` gives; longer fields go
 * through `epochToMs`.
 */
export function epochMsAt(text: string, start: number, end: number): number {
  let whole = 0;
  let i = start;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === 46) break;
    if (c < 48 || c > 57) return Number.NaN;
    whole = whole * 10 + (c - 48);
    i += 1;
  }
  const wholeDigits = i - start;
  if (wholeDigits === 0) return Number.NaN;
  let frac = 0;
  let fracDigits = 0;
  if (i < end) {
    for (i += 1; i < end; i += 1) {
      const c = text.charCodeAt(i);
      if (c < 48 || c > 57) return Number.NaN;
      frac = frac * 10 + (c - 48);
      fracDigits += 1;
    }
    if (fracDigits === 0) return Number.NaN;
  }
  if (wholeDigits > 15 || fracDigits > 15) return epochToMs(text.slice(start, end));
  return whole * 1000 + (fracDigits === 0 ? 0 : frac / POW10[fracDigits]!) * 1000;
}
