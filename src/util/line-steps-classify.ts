/**
 * The line scanner's classify mode: each line judged from its leading bytes.
 *
 * A line line-scan.ts reads this way is handed over when its classifier (or,
 * undecided, its needles) says so, and when it holds a NUL byte, is not
 * `{…}`, or is glued (a record start inside it).
 */
import { LINE_TAKE, LINE_UNKNOWN, type LineScanOptions, type LineVisitor } from "./line-scan-options.js";
import { MarkerSearch } from "./marker-scan.js";
import { hand, isBlank, nextHit, wellShaped } from "./line-steps.js";

/**
 * Classify mode: every line is classified from its leading bytes (`LINE_UNKNOWN`:
 * by the needles); a line holding a NUL byte, not `{…}`, or a record start
 * inside it (glued) is handed over too. With `search`, once the record start
 * is learnt, the lines from there on are read from its events
 * ({@link classifiedEvents}): the same lines are handed over.
 */
export function classifiedLines(
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
export interface Glue {
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
 * (`needle`), except one right after a line end and `{` (a line's own
 * start, never glued); each line is then judged as {@link classifiedLines} judges it,
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
