/**
 * The trajectory readers' line scanner (DESIGN.md, performance): one
 * synchronous loop per buffer-full over a reused large buffer, handing the
 * caller, by offsets into that buffer, only the lines that can matter to it.
 * Nothing is decoded here; the caller decodes or parses what it needs.
 */
import { chunkFor, openSource, type Filler } from "./lines.js";
import { MarkerSearch } from "./marker-scan.js";
import { releaseReadBuffer, takeReadBuffer } from "./read-buffers.js";

/** What {@link LineScanOptions.classify} says of a line. */
export type LineClass = 0 | 1 | 2;
/** The line cannot matter to the caller. */
export const LINE_SKIP: LineClass = 0;
/** The line must be handed over. */
export const LINE_TAKE: LineClass = 1;
/** Let the needles decide. */
export const LINE_UNKNOWN: LineClass = 2;

/**
 * Which lines {@link scanLines} hands over. With neither `markers` nor
 * `classify`, every line is (the slow path). With one of them (the fast
 * path), a line is handed over when:
 * - `wantAll()` returns true before it (e.g. until a header line was read);
 * - marker mode: it holds one of `markers` (found by a search over the whole
 *   buffer-full, not line by line);
 * - classify mode: `classify` says `LINE_TAKE`, or `LINE_UNKNOWN` and it holds
 *   one of `needles`;
 * - in both modes: it is not well-shaped (its first and last non-blank bytes
 *   are not `{` and `}`), it holds a NUL byte (zero-filled blocks after a
 *   crash), or it is the file's cut-off last line (no line end);
 * - with `detectGlued` (classify mode only): it looks glued (see below).
 * Every other line is skipped unread, but counted in line numbers.
 */
export interface LineScanOptions {
  /**
   * Marker mode: byte strings one of which every line that can matter holds
   * (a key or type name as written without `\u` escapes, e.g. `"usage"`).
   */
  markers?: readonly Buffer[];
  /** Classify mode: a first look at each line from its leading bytes (e.g. `LeadingScalarReader`). */
  classify?: (buf: Buffer, start: number, end: number) => LineClass;
  /** Classify mode: what decides a `LINE_UNKNOWN` line (as `markers`). */
  needles?: readonly Buffer[];
  /**
   * Classify mode: a skipped line is handed over after all when the file's
   * record start `{"<first key>":` (learnt from the file's first line that
   * begins with `{"`) appears inside it after a byte that cannot precede an
   * object in JSON (not `:`, `[` or `,`, blanks between allowed): a line cut
   * off (also right after a blank) and continued by the next record of an
   * appending writer. Default false.
   */
  detectGlued?: boolean;
  /**
   * Classify mode with `detectGlued`: find the line ends and the record
   * starts inside lines with the WebAssembly search instead of
   * `Buffer.indexOf` (same lines handed over). It pays where lines hold many
   * nested objects that start like a record (kimi-code's `{"type":…`
   * content parts: 1 GB in 0.87 of the time); where they hold few, the
   * native searches are faster per byte (codex: 1.05 of the time). Default false.
   */
  searchLines?: boolean;
  /**
   * Asked before each line in the fast path: true means "hand this line over
   * whatever it holds". In marker mode it is asked only until it first
   * returns false (e.g. "until the header was read").
   */
  wantAll?: () => boolean;
  /** Called with the number of raw bytes read from disk (compressed bytes for `.gz`) as reading goes. */
  onBytes?: (bytes: number) => void;
  /** Size of the read buffer in bytes (default 2 MiB); it grows for a longer line. */
  chunkBytes?: number;
}

/**
 * Called for each line handed over, synchronously, while `buf` holds it:
 * `buf[start, end)` is the line without its line end (`\n`, `\r\n`) and, on
 * the first line, without a UTF-8 BOM. `lineNo` is 1-based; `unterminated`
 * marks a last line without a line end. The bytes are only valid during the
 * call (the buffer is reused).
 */
export type LineVisitor = (buf: Buffer, start: number, end: number, lineNo: number, unterminated: boolean) => void;

/** Filled in as {@link scanLines} goes: the number of complete lines seen (handed over or not). */
export interface ScanProgress {
  lines: number;
}

/**
 * The read buffer's default size. Each scan thread keeps two (one filling while the other is
 * scanned; with the WebAssembly search, in its memory): on the benchmark's machine a fresh memory page
 * costs 15 µs, and 2 MiB scanned a cell's 200 MB 5–7 % faster than 4 MiB (1 MiB: about the same
 * as 2; at 1 GB the three were within the noise).
 */
const DEFAULT_CHUNK = 2 << 20;

function isBlank(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0b || b === 0x0c;
}

/** True when the first and last non-blank bytes of `buf[s, e)` are `{` and `}`. */
function wellShaped(buf: Buffer, s: number, e: number): boolean {
  while (s < e && isBlank(buf[s]!)) s += 1;
  while (e > s && isBlank(buf[e - 1]!)) e -= 1;
  return e - s >= 2 && buf[s] === 0x7b && buf[e - 1] === 0x7d;
}

/**
 * Reads `path` (gunzipped when its name ends in `.gz`) into one reused buffer
 * (2 MiB, or the file's size for a small file; grown only for a longer line)
 * and calls `visit` for each line that `opts` says can matter (see
 * {@link LineScanOptions}), in order, synchronously within each buffer-full:
 * no stream and no promise per line. Memory stays flat whatever the size.
 *
 * Resolves to the number of lines in the file (the cut-off last line
 * included).
 *
 * @throws the read error (ENOENT, or a zlib error for a corrupt `.gz`),
 *   after visiting every line read before it; `progress.lines` then says how
 *   many complete lines were read.
 */
export async function scanLines(
  path: string,
  opts: LineScanOptions,
  visit: LineVisitor,
  progress: ScanProgress = { lines: 0 },
): Promise<number> {
  const source = openSource(path, opts.onBytes);
  try {
    const chunk = await chunkFor(path, opts.chunkBytes ?? DEFAULT_CHUNK);
    return await scan(source.fill, chunk, opts, visit, progress);
  } finally {
    await source.close();
  }
}

async function scan(
  fill: Filler,
  chunk: number,
  opts: LineScanOptions,
  visit: LineVisitor,
  progress: ScanProgress,
): Promise<number> {
  // Classify mode uses the search for its line ends and record starts (the glued-line check).
  const wasm = opts.markers
    ? MarkerSearch.fits(opts.markers)
    : opts.classify !== undefined && opts.detectGlued === true && opts.searchLines === true;
  const search = useWasm && wasm ? MarkerSearch.load() : null;
  // Two buffers, kept across files (a fresh one page-faults on its first fill): the next read fills
  // one while the lines of the other are scanned. With the WebAssembly search they are its own
  // memory, searched where they are read.
  const region = search ? MarkerSearch.takeRegion(chunk) : null;
  let buf = region ? region.a : takeReadBuffer(chunk);
  let other = region ? region.b : takeReadBuffer(chunk);
  let lineNo = 0;
  const glue: Glue = { learnt: opts.detectGlued !== true, signature: null, needle: null };
  const state: MarkerState = { wantAll: opts.wantAll };
  let pending: Promise<number> | null = null;
  try {
    let got = await fill(buf, 0);
    let end = got;
    while (got > 0) {
      // buf[0, cut) holds whole lines; the partial last line starts the other buffer, whose read
      // is started before the scan (a line longer than a buffer grows it).
      const cut = buf.lastIndexOf(0x0a, end - 1) + 1;
      const tail = end - cut;
      if (tail >= other.length) {
        releaseReadBuffer(other); // a buffer of the search's memory is not kept: the search keeps it
        other = takeReadBuffer(Math.max(other.length, tail) * 2);
      }
      buf.copy(other, 0, cut, end);
      const next = fill(other, tail);
      pending = next;
      next.catch(() => undefined); // awaited below; handled now in case a visitor throws first
      if (cut > 0) {
        const view = buf.subarray(0, cut);
        // A view of the region's buffers is searched in place; a longer line's plain buffer by the shared search.
        const viewSearch = search && (region?.search.owns(view) ? region.search : search);
        lineNo = opts.markers
          ? viewSearch
            ? markerEvents(view, lineNo, opts.markers, visit, viewSearch, state)
            : markerLines(view, lineNo, opts, visit, state)
          : opts.classify
            ? classifiedLines(view, lineNo, opts, visit, glue, viewSearch)
            : allLines(view, lineNo, visit);
        progress.lines = lineNo;
      }
      got = await next;
      pending = null;
      end = tail + got;
      [buf, other] = [other, buf];
    }
    if (end > 0) {
      lineNo += 1;
      hand(buf, 0, end, lineNo, true, visit);
    }
    return lineNo;
  } finally {
    // A read still filling a buffer (a visitor threw) must end before its memory serves another file.
    if (pending !== null) await pending.catch(() => 0);
    releaseReadBuffer(buf);
    releaseReadBuffer(other);
    if (region) MarkerSearch.releaseRegion(region.search);
  }
}

/** Hands `buf[s, e)` to `visit` without its `\r` and, on line 1, its BOM. */
function hand(buf: Buffer, s: number, e: number, lineNo: number, unterminated: boolean, visit: LineVisitor): void {
  if (lineNo === 1 && e - s >= 3 && buf[s] === 0xef && buf[s + 1] === 0xbb && buf[s + 2] === 0xbf) s += 3;
  if (e > s && buf[e - 1] === 0x0d) e -= 1;
  visit(buf, s, e, lineNo, unterminated);
}

// The steps below each scan one view of whole lines (it ends right after a line end), `lineNo` lines
// coming before it, and return the line count at its end.

function allLines(view: Buffer, lineNo: number, visit: LineVisitor): number {
  let p = 0;
  for (;;) {
    const nl = view.indexOf(0x0a, p);
    if (nl === -1) break;
    lineNo += 1;
    hand(view, p, nl, lineNo, false, visit);
    p = nl + 1;
  }
  return lineNo;
}

/** The next position at or after `from` of any of `needles` in `view`, or Infinity. */
function nextHit(view: Buffer, needles: readonly Buffer[], hits: number[], from: number): number {
  let best = Infinity;
  for (let i = 0; i < needles.length; i += 1) {
    let h = hits[i]!;
    if (h < from) {
      h = view.indexOf(needles[i]!, from);
      hits[i] = h = h === -1 ? Infinity : h;
    }
    if (h < best) best = h;
  }
  return best;
}

let useWasm = true;

/**
 * Chooses the marker search (for the tests, which compare both): the
 * WebAssembly SIMD search when it is built and `on` (the default), else
 * `Buffer.indexOf`. Both hand over the same lines.
 */
export function setWasmMarkerSearch(on: boolean): void {
  useWasm = on;
}

/** Marker mode's state across the buffer-fulls of one file: `wantAll` until it first says false. */
interface MarkerState {
  wantAll: (() => boolean) | undefined;
}

/** Marker mode with `Buffer.indexOf`, line by line. */
function markerLines(
  view: Buffer,
  lineNo: number,
  opts: LineScanOptions,
  visit: LineVisitor,
  state: MarkerState,
): number {
  const markers = opts.markers!;
  const hits = markers.map(() => -1);
  let nul = view.indexOf(0);
  if (nul === -1) nul = Infinity;
  let hit = nextHit(view, markers, hits, 0);
  let p = 0;
  for (;;) {
    const nl = view.indexOf(0x0a, p);
    if (nl === -1) break;
    lineNo += 1;
    let take = hit < nl || nul < nl;
    if (state.wantAll !== undefined) {
      if (state.wantAll()) take = true;
      else state.wantAll = undefined;
    }
    if (!take) {
      // Well-shaped `{…}` (the common case, read first without the blank skipping).
      const last = view[nl - 1 > p && view[nl - 1] === 0x0d ? nl - 2 : nl - 1];
      take = !(view[p] === 0x7b && last === 0x7d) && !wellShaped(view, p, nl);
    }
    if (take) hand(view, p, nl, lineNo, false, visit);
    p = nl + 1;
    if (hit < p) hit = nextHit(view, markers, hits, p);
    if (nul < p) {
      nul = view.indexOf(0, p);
      if (nul === -1) nul = Infinity;
    }
  }
  return lineNo;
}

/**
 * Marker mode with the WebAssembly search: only the lines at its events (a
 * marker, a NUL byte, a line end whose line may not be `{…}`) are looked at;
 * the same lines as {@link markerLines} are handed over.
 */
function markerEvents(
  view: Buffer,
  lineNo: number,
  markers: readonly Buffer[],
  visit: LineVisitor,
  search: MarkerSearch,
  state: MarkerState,
): number {
  let p = 0;
  while (state.wantAll !== undefined) {
    const nl = view.indexOf(0x0a, p);
    if (nl === -1) return lineNo;
    if (!state.wantAll()) {
      state.wantAll = undefined;
      break;
    }
    lineNo += 1;
    hand(view, p, nl, lineNo, false, visit);
    p = nl + 1;
  }
  const last = view.lastIndexOf(0x0a);
  if (last < p) return lineNo;
  const base = lineNo; // lines before p
  let handed = lineNo; // the last line handed over
  if (view[p] !== 0x7b) {
    // The first line's start (its end is an event like any line end's).
    const e = view.indexOf(0x0a, p);
    if (!wellShaped(view, p, e)) {
      handed = base + 1;
      hand(view, p, e, handed, false, visit);
    }
  }
  search.begin(view, p, last + 1, markers);
  while (search.next()) {
    for (let k = 0; k < search.count; k += 1) {
      const pos = search.pos(k);
      const line = base + search.nl(k) + 1; // the line holding pos (or ended by it)
      if (view[pos] === 0x0a) {
        if (line > handed) {
          const s = pos === p ? p : view.lastIndexOf(0x0a, pos - 1) + 1;
          if (!wellShaped(view, s, pos)) {
            handed = line;
            hand(view, s, pos, line, false, visit);
          }
        }
        if (pos < last && line + 1 > handed) {
          const e = view.indexOf(0x0a, pos + 1);
          if (!wellShaped(view, pos + 1, e)) {
            handed = line + 1;
            hand(view, pos + 1, e, line + 1, false, visit);
          }
        }
      } else if (line > handed) {
        const s = pos === p ? p : view.lastIndexOf(0x0a, pos - 1) + 1;
        handed = line;
        hand(view, Math.max(s, p), view.indexOf(0x0a, pos), line, false, visit);
      }
    }
  }
  return base + search.newlines;
}

/**
 * Classify mode: every line is classified from its leading bytes (`LINE_UNKNOWN`:
 * by the needles); a line holding a NUL byte, not `{…}`, or a record start
 * inside it (glued) is handed over too. With `search`, once the record start
 * is learnt, the lines from there on are read from its events
 * ({@link classifiedEvents}): the same lines are handed over.
 */
function classifiedLines(
  view: Buffer,
  lineNo: number,
  opts: LineScanOptions,
  visit: LineVisitor,
  glue: Glue,
  search: MarkerSearch | null,
): number {
  const classify = opts.classify!;
  const needles = opts.needles ?? [];
  const wantAll = opts.wantAll;
  const hits = needles.map(() => -1);
  let nul = view.indexOf(0);
  if (nul === -1) nul = Infinity;
  let p = 0;
  for (;;) {
    if (search !== null && glue.learnt && glue.needle !== null && p < view.length)
      return classifiedEvents(view, p, lineNo, opts, visit, glue.needle, search);
    const nl = view.indexOf(0x0a, p);
    if (nl === -1) break;
    lineNo += 1;
    if (!glue.learnt && view[p] === 0x7b && view[p + 1] === 0x22) learnSignature(view, p, nl, glue);
    let take = nul < nl || (wantAll !== undefined && wantAll());
    if (!take) {
      const cls = classify(view, p, nl);
      take = cls === LINE_TAKE || (cls === LINE_UNKNOWN && nextHit(view, needles, hits, p) < nl);
    }
    if (!take) take = !wellShaped(view, p, nl);
    if (!take && glue.signature !== null) take = looksGlued(view, p, nl, glue.signature);
    if (take) hand(view, p, nl, lineNo, false, visit);
    p = nl + 1;
    if (nul < p) {
      nul = view.indexOf(0, p);
      if (nul === -1) nul = Infinity;
    }
  }
  return lineNo;
}

/** The glued-line check's record start, learnt once per file (`learnt` is true from the start without `detectGlued`). */
interface Glue {
  learnt: boolean;
  signature: Buffer | null;
  /** The signature without its `{`, when the WebAssembly search can look for it ({@link MarkerSearch.fits}). */
  needle: Buffer | null;
}

function learnSignature(view: Buffer, p: number, nl: number, glue: Glue): void {
  // The record start: `{"` + the first key + `":`.
  const colon = view.indexOf('":', p + 2);
  if (colon !== -1 && colon < nl && colon - p <= 40) {
    glue.signature = Buffer.from(view.subarray(p, colon + 2));
    const needle = glue.signature.subarray(1);
    glue.needle = MarkerSearch.fits([needle]) ? needle : null;
  }
  glue.learnt = true;
}

/**
 * Classify mode from `view[p]` on, with the WebAssembly search: its events
 * are every line end, every NUL byte and every record start without its `{`
 * (`needle`); each line is then judged as {@link classifiedLines} judges it,
 * and a record start inside a line (not after `:`, `[` or `,`) is a glued
 * line, as {@link looksGlued} finds it.
 */
function classifiedEvents(
  view: Buffer,
  p: number,
  lineNo: number,
  opts: LineScanOptions,
  visit: LineVisitor,
  needle: Buffer,
  search: MarkerSearch,
): number {
  const classify = opts.classify!;
  const needles = opts.needles ?? [];
  const wantAll = opts.wantAll;
  const hits = needles.map(() => -1);
  const last = view.lastIndexOf(0x0a);
  if (last < p) return lineNo;
  let nul = false;
  let glued = false;
  search.begin(view, p, last + 1, [needle], true);
  while (search.next()) {
    for (let k = 0; k < search.count; k += 1) {
      const pos = search.pos(k);
      const c = view[pos];
      if (c === 0x0a) {
        lineNo += 1;
        let take = nul || (wantAll !== undefined && wantAll());
        if (!take) {
          const cls = classify(view, p, pos);
          take = cls === LINE_TAKE || (cls === LINE_UNKNOWN && nextHit(view, needles, hits, p) < pos);
        }
        if (!take) take = !wellShaped(view, p, pos) || glued;
        if (take) hand(view, p, pos, lineNo, false, visit);
        p = pos + 1;
        nul = false;
        glued = false;
      } else if (c === 0) nul = true;
      else if (pos - 1 > p && view[pos - 1] === 0x7b && !glued) glued = !afterValueStart(view, p, pos - 1);
    }
  }
  return lineNo;
}

function looksGlued(view: Buffer, p: number, nl: number, signature: Buffer): boolean {
  // Every record start inside the line must follow `:`, `[` or `,`, blanks between allowed (the signature
  // holds an unescaped `"`, so it is never inside a string of a whole line).
  let at = view.indexOf(signature, p + 1);
  while (at !== -1 && at < nl) {
    if (!afterValueStart(view, p, at)) return true;
    at = view.indexOf(signature, at + 1);
  }
  return false;
}

/** Whether the record start at `view[at]`, inside the line from `p`, follows `:`, `[` or `,` (blanks between allowed): a value, not a glued record. */
function afterValueStart(view: Buffer, p: number, at: number): boolean {
  let b = at - 1;
  while (b > p && isBlank(view[b]!)) b -= 1;
  const before = view[b]!;
  return before === 0x3a || before === 0x5b || before === 0x2c;
}
