/**
 * The trajectory readers' line scanner (DESIGN.md, performance): one
 * synchronous loop per buffer-full over a reused large buffer, handing the
 * caller, by offsets into that buffer, only the lines that can matter to it.
 * Nothing is decoded here; the caller decodes or parses what it needs.
 */
import { chunkFor, openSource } from "./lines.js";
import type { Filler } from "./file-reads.js";
import { MarkerSearch } from "./marker-scan.js";
import { releaseReadBuffer, takeReadBuffer } from "./read-buffers.js";
import type { LineScanOptions, LineVisitor } from "./line-scan-options.js";
import { allLines, hand } from "./line-steps.js";
import { markerEvents, markerLines, type MarkerState } from "./line-steps-marker.js";
import { classifiedLines, type Glue } from "./line-steps-classify.js";

export {
  LINE_SKIP,
  LINE_TAKE,
  LINE_UNKNOWN,
  type LineClass,
  type LineScanOptions,
  type LineVisitor,
} from "./line-scan-options.js";

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

let useWasm = true;

/**
 * Chooses the marker search (for the tests, which compare both): the
 * WebAssembly SIMD search when it is built and `on` (the default), else
 * `Buffer.indexOf`. Both hand over the same lines.
 */
export function setWasmMarkerSearch(on: boolean): void {
  useWasm = on;
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
  // one while the lines of the other are scanned. With the WebAssembly on they are the search's own
  // memory, searched where they are read, and where the readers' JSON check of a line's values
  // (json-skip.ts) runs without a copy, also in classify mode without the search (codex: a forked
  // file's every line is checked, 2.3 times as fast there as in JavaScript).
  const region = search || (useWasm && opts.classify !== undefined) ? MarkerSearch.takeRegion(chunk) : null;
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
