/**
 * A map keyed by four counts (a usage vector), for the cross-file rules of
 * TRAJECTORIES.md (forks, resumes, copies are told by equal counts): no key
 * string and no object is built per lookup. A key is kept by reference (the
 * caller's object, which must not change), found through a {@link HashIndex}.
 */
import { HashIndex, hashNumber } from "./hash-index.js";
import type { TokenParts } from "./types.js";

/** The hash of four counts (equal counts, compared with `===`, hash alike), folded into `seed` (a hash of other key fields). */
export function hashCounts(seed: number, a: number, b: number, c: number, d: number): number {
  return hashNumber(hashNumber(hashNumber(hashNumber(seed, a), b), c), d);
}

/** Whether two calls have the same four parts (the usage half of the copy keys of TRAJECTORIES.md). */
export function sameParts(p: TokenParts, q: TokenParts): boolean {
  return (
    p.uncachedInput === q.uncachedInput &&
    p.cacheRead === q.cacheRead &&
    p.cacheWrite === q.cacheWrite &&
    p.output === q.output
  );
}

/** Four counts: the key of a {@link CountsMap}. */
export interface Counts {
  readonly input: number;
  readonly cached: number;
  readonly cacheWrite: number;
  readonly output: number;
}

/** A map from four counts (compared with `===`) to a value; insertion order is not kept. */
export class CountsMap<V> {
  private readonly index: HashIndex;
  private readonly keys: Counts[];
  private readonly values: V[];
  private size = 0;

  /** @param expected entries expected (room is made for them at once; the map grows past it as needed). */
  constructor(expected = 8) {
    this.index = new HashIndex(expected);
    this.keys = new Array(expected);
    this.values = new Array(expected);
  }

  /** The entry number of `k` under hash `h`, or -1. */
  private find(h: number, k: Counts): number {
    for (let e = this.index.first(h); e !== -1; e = this.index.next()) {
      const x = this.keys[e]!;
      if (x.input === k.input && x.cached === k.cached && x.cacheWrite === k.cacheWrite && x.output === k.output)
        return e;
    }
    return -1;
  }

  /** The value stored for the counts of `k`, or undefined. */
  get(k: Counts): V | undefined {
    const e = this.find(hashCounts(0x2545f491, k.input, k.cached, k.cacheWrite, k.output), k);
    return e === -1 ? undefined : this.values[e];
  }

  /** Stores `value` for the counts of `k` (kept by reference), replacing any value stored for them. */
  set(k: Counts, value: V): void {
    const h = hashCounts(0x2545f491, k.input, k.cached, k.cacheWrite, k.output);
    const e = this.find(h, k);
    if (e !== -1) {
      this.values[e] = value;
      return;
    }
    const n = this.size++;
    this.index.add(h, n);
    this.keys[n] = k;
    this.values[n] = value;
  }
}
