/**
 * A map keyed by four counts (a usage vector, a set of call parts), for the
 * cross-file rules of TRAJECTORIES.md (forks, resumes, copies are told by
 * equal counts): no key string and no object is built per lookup. The counts
 * are kept in number arrays, found through a {@link HashIndex}.
 */
import { HashIndex, hashNumber } from "./hash-index.js";

/** The hash of four counts (equal counts, compared with `===`, hash alike), folded into `seed` (a hash of other key fields). */
export function hashCounts(seed: number, a: number, b: number, c: number, d: number): number {
  return hashNumber(hashNumber(hashNumber(hashNumber(seed, a), b), c), d);
}

/** A map from four numbers `(a, b, c, d)` (compared with `===`) to a value; insertion order is not kept. */
export class CountsMap<V> {
  private readonly index: HashIndex;
  private readonly a: number[];
  private readonly b: number[];
  private readonly c: number[];
  private readonly d: number[];
  private readonly values: V[];
  private size = 0;

  /** @param expected entries expected (room is made for them at once; the map grows past it as needed). */
  constructor(expected = 8) {
    this.index = new HashIndex(expected);
    this.a = new Array(expected);
    this.b = new Array(expected);
    this.c = new Array(expected);
    this.d = new Array(expected);
    this.values = new Array(expected);
  }

  /** The entry number of `(a, b, c, d)` under hash `h`, or -1. */
  private find(h: number, a: number, b: number, c: number, d: number): number {
    for (let e = this.index.first(h); e !== -1; e = this.index.next())
      if (this.a[e] === a && this.b[e] === b && this.c[e] === c && this.d[e] === d) return e;
    return -1;
  }

  /** The value stored for `(a, b, c, d)`, or undefined. */
  get(a: number, b: number, c: number, d: number): V | undefined {
    const e = this.find(hashCounts(0x2545f491, a, b, c, d), a, b, c, d);
    return e === -1 ? undefined : this.values[e];
  }

  /** Stores `value` for `(a, b, c, d)`, replacing any value stored for them. */
  set(a: number, b: number, c: number, d: number, value: V): void {
    const h = hashCounts(0x2545f491, a, b, c, d);
    const e = this.find(h, a, b, c, d);
    if (e !== -1) {
      this.values[e] = value;
      return;
    }
    const n = this.size++;
    this.index.add(h, n);
    this.a[n] = a;
    this.b[n] = b;
    this.c[n] = c;
    this.d[n] = d;
    this.values[n] = value;
  }
}
