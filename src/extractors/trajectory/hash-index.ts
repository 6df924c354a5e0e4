/**
 * An index from 32-bit hashes to entry numbers, for the cross-file rules of
 * TRAJECTORIES.md (forks, resumes, copies and sub-agents are told by equal
 * keys): the caller hashes a record's key fields ({@link hashNumber},
 * {@link hashString}), looks its hash up, and compares the fields of the
 * entries found itself. No key string and no object is built per record:
 * the table is two typed arrays (open addressing, linear probing).
 */

/** A hash of `x` (a number compared with `===`; 0 and -0 hash alike) folded into `h`. */
export function hashNumber(h: number, x: number): number {
  const lo = x | 0; // the low 32 bits of an integer below 2^53 (any number gives some int)
  const hi = (x / 4294967296) | 0;
  h = Math.imul(h ^ lo, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 15) ^ hi, 0x85ebca6b);
  return h ^ (h >>> 13);
}

/** A hash of the UTF-16 code units of `s` folded into `h` (FNV-1a). */
export function hashString(h: number, s: string): number {
  h ^= s.length;
  for (let i = 0; i < s.length; i += 1) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

/**
 * Entries (numbers ≥ 0) stored under 32-bit hashes; several entries may share
 * a hash. Look up with `first(h)`, then `next()` while it is not -1: each is
 * an entry stored under `h` (in no set order; a caller stores one entry per
 * distinct key). `add(h, e)` stores one more.
 */
export class HashIndex {
  /** Pairs (hash, entry + 1); entry + 1 = 0 marks a free slot. One array: a probe touches one cache line. */
  private table: Int32Array;
  private mask: number;
  private size = 0;
  private pos = 0;
  private want = 0;

  /** @param expected entries expected (the table grows past it as needed). */
  constructor(expected = 8) {
    let slots = 16;
    while (slots * 0.7 < expected) slots *= 2;
    this.table = new Int32Array(slots * 2);
    this.mask = slots - 1;
  }

  /** The number of entries stored. */
  get count(): number {
    return this.size;
  }

  /** The first entry stored under hash `h`, or -1. */
  first(h: number): number {
    this.want = h | 0;
    this.pos = spread(h) & this.mask;
    return this.scan();
  }

  /** The next entry stored under the hash of the last {@link first}, or -1. */
  next(): number {
    this.pos = (this.pos + 1) & this.mask;
    return this.scan();
  }

  /** Stores entry `e` (≥ 0) under hash `h`. */
  add(h: number, e: number): void {
    if (this.size + 1 > (this.mask + 1) * 0.7) this.grow();
    this.place(h | 0, e + 1);
    this.size += 1;
  }

  private scan(): number {
    const table = this.table;
    const mask = this.mask;
    const want = this.want;
    let p = this.pos;
    for (;;) {
      const e = table[2 * p + 1]!;
      if (e === 0 || table[2 * p] === want) {
        this.pos = p;
        return e - 1;
      }
      p = (p + 1) & mask;
    }
  }

  /** Puts the pair (h, stored) in the first free slot from h's place. */
  private place(h: number, stored: number): void {
    const table = this.table;
    let p = spread(h) & this.mask;
    while (table[2 * p + 1] !== 0) p = (p + 1) & this.mask;
    table[2 * p] = h;
    table[2 * p + 1] = stored;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Int32Array(old.length * 2);
    this.mask = old.length - 1;
    for (let p = 0; p < old.length; p += 2) if (old[p + 1] !== 0) this.place(old[p]!, old[p + 1]!);
  }
}

/** The bits of `h` mixed so that its low bits pick the slot. */
function spread(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  return h ^ (h >>> 16);
}
