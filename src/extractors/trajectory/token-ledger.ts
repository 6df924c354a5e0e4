/**
 * The cumulative token totals of a reading's calls (TRAJECTORIES.md, "The
 * quantity": tokens(t) = the tokens of every call completed at or before t),
 * and the order calls come in.
 */
import { cmpStr } from "../../util/values.js";
import type { TokenCall, TokenTotals } from "./types.js";

/** Order of calls: by time (null last), then file, then line. */
export function compareCalls(a: TokenCall, b: TokenCall): number {
  if (a.timeMs !== b.timeMs) {
    if (a.timeMs === null) return 1;
    if (b.timeMs === null) return -1;
    return a.timeMs - b.timeMs;
  }
  return cmpStr(a.file, b.file) || a.line - b.line;
}

/**
 * Cumulative token totals over a reading's calls (TRAJECTORIES.md, "The
 * quantity": tokens(t) = the tokens of every call completed at or before t).
 *
 * Built once in O(n log n); `at()` answers in O(log n) from prefix sums.
 */
export class TokenLedger {
  /** The placed calls' times, in order. */
  private readonly times: Float64Array;
  /** The placed calls, in time order. */
  protected readonly placed: TokenCall[];
  /**
   * The sums of the first i placed calls at [4i, 4i + 4), parts in the order uncached, cache
   * read, cache write, output (typed: no object per call; sums of integers stay exact below 2^53).
   */
  private readonly prefix: Float64Array;
  private readonly all: TokenTotals;

  /** @param calls counted calls in any order; calls with a null time count only in {@link totals}. */
  constructor(calls: readonly TokenCall[]) {
    // One pass over the calls when they come in order, placed ones first (readTrajectory's do): at a
    // run's size every pass over the call objects costs its memory reads.
    const times = new Float64Array(calls.length);
    const prefix = new Float64Array(4 * (calls.length + 1));
    const sum: [number, number, number, number] = [0, 0, 0, 0];
    let n = 0;
    let inOrder = true;
    let unplaced = false;
    let prev: TokenCall | null = null;
    for (const c of calls) {
      sum[0] += c.uncachedInput;
      sum[1] += c.cacheRead;
      sum[2] += c.cacheWrite;
      sum[3] += c.output;
      if (c.timeMs === null) {
        unplaced = true;
        continue;
      }
      if (unplaced || (prev !== null && compareCalls(prev, c) > 0)) inOrder = false;
      prev = c;
      if (inOrder) addPrefix(prefix, times, n, c);
      n += 1;
    }
    let placed: TokenCall[];
    if (inOrder) placed = calls.slice(0, n);
    else {
      placed = calls.filter((c) => c.timeMs !== null).sort(compareCalls);
      for (let i = 0; i < n; i += 1) addPrefix(prefix, times, i, placed[i]!);
    }
    this.placed = placed;
    this.times = times.subarray(0, n);
    this.prefix = prefix;
    this.all = totalsOf(sum, calls.length, n > 0 ? times[n - 1]! : null);
  }

  /** The number of calls placed in time (those {@link at} can count). */
  placedCalls(): number {
    return this.times.length;
  }

  /** Totals of every call, placed in time or not; `lastCallTimeMs` is the latest placed call's time. */
  totals(): TokenTotals {
    return { ...this.all };
  }

  /**
   * The placed calls nearest to `tMs`: up to `before` completed at or before
   * it and up to `after` completed after it, in time order (for `explain`).
   */
  around(tMs: number, before = 3, after = 2): TokenCall[] {
    const hi = upperBound(this.times, tMs);
    return this.placed.slice(Math.max(0, hi - before), Math.min(this.placed.length, hi + after));
  }

  /**
   * Totals of the calls with `fromMs ≤ timeMs ≤ tMs` (epoch ms; `fromMs`
   * defaults to −∞). Calls with no time are never included.
   */
  at(tMs: number, fromMs: number = Number.NEGATIVE_INFINITY): TokenTotals {
    const hi = upperBound(this.times, tMs);
    const lo = Math.min(hi, lowerBound(this.times, fromMs));
    const p = this.prefix;
    const a = 4 * lo;
    const b = 4 * hi;
    return totalsOf(
      [p[b]! - p[a]!, p[b + 1]! - p[a + 1]!, p[b + 2]! - p[a + 2]!, p[b + 3]! - p[a + 3]!],
      hi - lo,
      hi > lo ? this.times[hi - 1]! : null,
    );
  }
}

/**
 * The totals of `calls` (any order) without building a {@link TokenLedger}:
 * what `new TokenLedger(calls).totals()` gives — every call counted, placed
 * in time or not, and `lastCallTimeMs` the latest placed call's time (null
 * when none is placed) — in one pass and no memory per call (`tokens` with
 * no time window; TRAJECTORIES.md, "The quantity").
 */
export function callTotals(calls: readonly TokenCall[]): TokenTotals {
  let uncached = 0;
  let read = 0;
  let write = 0;
  let output = 0;
  let last = Number.NEGATIVE_INFINITY;
  for (const c of calls) {
    uncached += c.uncachedInput;
    read += c.cacheRead;
    write += c.cacheWrite;
    output += c.output;
    if (c.timeMs !== null && c.timeMs > last) last = c.timeMs;
  }
  return totalsOf([uncached, read, write, output], calls.length, last === Number.NEGATIVE_INFINITY ? null : last);
}

function totalsOf(p: [number, number, number, number], calls: number, lastCallTimeMs: number | null): TokenTotals {
  return {
    uncachedInput: p[0],
    cacheRead: p[1],
    cacheWrite: p[2],
    output: p[3],
    total: p[0] + p[1] + p[2] + p[3],
    calls,
    lastCallTimeMs,
  };
}

/** Sets the i-th placed call `c` of a {@link TokenLedger}: its time, and the prefix sums after it from those before. */
function addPrefix(prefix: Float64Array, times: Float64Array, i: number, c: TokenCall): void {
  const o = 4 * i;
  prefix[o + 4] = prefix[o]! + c.uncachedInput;
  prefix[o + 5] = prefix[o + 1]! + c.cacheRead;
  prefix[o + 6] = prefix[o + 2]! + c.cacheWrite;
  prefix[o + 7] = prefix[o + 3]! + c.output;
  times[i] = c.timeMs!;
}

/** Number of elements ≤ x in sorted `a`. */
function upperBound(a: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Number of elements < x in sorted `a`. */
function lowerBound(a: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
