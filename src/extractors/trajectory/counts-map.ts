/**
 * A map keyed by four counts (a usage vector, a set of call parts), for the
 * cross-file rules of TRAJECTORIES.md (forks, resumes, copies are told by
 * equal counts): no key string is built per lookup. Keyed by the first count
 * (a running total is nearly unique by itself), then a short chain.
 */

interface Entry<V> {
  b: number;
  c: number;
  d: number;
  value: V;
  next: Entry<V> | undefined;
}

/** A map from four numbers `(a, b, c, d)` (compared with `===`) to a value; insertion order is not kept. */
export class CountsMap<V> {
  private readonly byFirst = new Map<number, Entry<V>>();

  /** The value stored for `(a, b, c, d)`, or undefined. */
  get(a: number, b: number, c: number, d: number): V | undefined {
    for (let e = this.byFirst.get(a); e !== undefined; e = e.next)
      if (e.b === b && e.c === c && e.d === d) return e.value;
    return undefined;
  }

  /** Stores `value` for `(a, b, c, d)`, replacing any value stored for them. */
  set(a: number, b: number, c: number, d: number, value: V): void {
    const head = this.byFirst.get(a);
    for (let e = head; e !== undefined; e = e.next) {
      if (e.b === b && e.c === c && e.d === d) {
        e.value = value;
        return;
      }
    }
    this.byFirst.set(a, { b, c, d, value, next: head });
  }
}
