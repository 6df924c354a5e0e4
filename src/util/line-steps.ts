/**
 * What the line scanner's steps share: handing a line over, a line's shape.
 *
 * Used by line-scan.ts, line-steps-marker.ts and line-steps-classify.ts
 * (with the WebAssembly search or without it). Each step scans one view of whole lines (it ends right
 * after a line end), `lineNo` lines coming before it, and returns the line
 * count at its end.
 */
import type { LineVisitor } from "./line-scan-options.js";

/** JSON's blanks and the other ASCII white space a line may be padded with (not the line end). */
export function isBlank(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0b || b === 0x0c;
}

/** True when `buf[s, e)` holds only blanks ({@link isBlank}): a blank line. */
export function isBlankLine(buf: Buffer, s: number, e: number): boolean {
  while (s < e && isBlank(buf[s]!)) s += 1;
  return s === e;
}

/** True when the first and last non-blank bytes of `buf[s, e)` are `{` and `}`. */
export function wellShaped(buf: Buffer, s: number, e: number): boolean {
  while (s < e && isBlank(buf[s]!)) s += 1;
  while (e > s && isBlank(buf[e - 1]!)) e -= 1;
  return e - s >= 2 && buf[s] === 0x7b && buf[e - 1] === 0x7d;
}

/** Hands `buf[s, e)` to `visit` without its `\r` and, on line 1, its BOM. */
export function hand(
  buf: Buffer,
  s: number,
  e: number,
  lineNo: number,
  unterminated: boolean,
  visit: LineVisitor,
): void {
  if (lineNo === 1 && e - s >= 3 && buf[s] === 0xef && buf[s + 1] === 0xbb && buf[s + 2] === 0xbf) s += 3;
  if (e > s && buf[e - 1] === 0x0d) e -= 1;
  visit(buf, s, e, lineNo, unterminated);
}

/** Every line, handed over (the slow path). */
export function allLines(view: Buffer, lineNo: number, visit: LineVisitor): number {
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
export function nextHit(view: Buffer, needles: readonly Buffer[], hits: number[], from: number): number {
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
