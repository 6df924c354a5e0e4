/**
 * The line scanner's marker mode: the lines that hold a marker.
 *
 * A line line-scan.ts reads this way is handed over when it holds a marker,
 * is not `{…}`, holds a NUL byte, or `wantAll` asks for it.
 */
import type { LineScanOptions, LineVisitor } from "./line-scan-options.js";
import type { MarkerSearch } from "./marker-scan.js";
import { hand, nextHit, wellShaped } from "./line-steps.js";

/** Marker mode's state across the buffer-fulls of one file: `wantAll` until it first says false. */
export interface MarkerState {
  wantAll: (() => boolean) | undefined;
}

/** Marker mode with `Buffer.indexOf`, line by line. */
export function markerLines(
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
export function markerEvents(
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
