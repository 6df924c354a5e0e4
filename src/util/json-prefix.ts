/**
 * Reads a few leading scalar members of a JSON object line without parsing
 * the line: the fast path of the trajectory readers uses it to tell, from a
 * line's first bytes, that the line is of a type that never carries usage.
 */

const MAX_PREFIX = 1024;

/**
 * A compiled set of member paths to look for at the start of a line: `type`
 * (a top-level member) or `payload.type` (a member of the top-level object
 * `payload`). See {@link LeadingScalarReader.read}.
 */
export class LeadingScalarReader {
  private readonly top: { name: Buffer; slot: number }[] = [];
  private readonly nested: { parent: Buffer; name: Buffer; slot: number }[] = [];
  /** The values found by the last {@link read}, by the index of their path in the constructor's list. */
  readonly values: (string | undefined)[];

  /** @param paths member paths, at most one dot deep (`type`, `payload.type`). */
  constructor(readonly paths: readonly string[]) {
    this.values = paths.map(() => undefined);
    paths.forEach((p, slot) => {
      const dot = p.indexOf(".");
      if (dot < 0) this.top.push({ name: Buffer.from(p), slot });
      else this.nested.push({ parent: Buffer.from(p.slice(0, dot)), name: Buffer.from(p.slice(dot + 1)), slot });
    });
  }

  /**
   * Reads the scalar members at the start of the JSON object in
   * `buf[start, end)`: the top level's members up to its first member whose
   * value is an object or an array; when that value is an object, its own
   * leading scalar members too; then the walk stops (only the first 1 KiB is
   * looked at), or until every wanted path is found. The string values of
   * the wanted paths are put in {@link values} (other scalars as their text);
   * paths not reached stay undefined.
   *
   * Returns false when the line does not start like a JSON object or when a
   * key or a string value holds a `\` escape (the caller must then read the
   * line properly). Assumes what every JSON writer does: no key twice in one
   * object (`JSON.parse` would keep the last).
   */
  read(buf: Buffer, start: number, end: number): boolean {
    const values = this.values;
    for (let k = 0; k < values.length; k += 1) values[k] = undefined;
    const stop = Math.min(end, start + MAX_PREFIX);
    let i = start;
    while (i < stop && blank(buf[i]!)) i += 1;
    if (buf[i] !== 0x7b) return false;
    i += 1;
    let parentStart = -1;
    let parentEnd = -1;
    let found = 0;
    for (;;) {
      while (i < stop && blank(buf[i]!)) i += 1;
      if (i >= stop || buf[i] !== 0x22) return true; // `}`, or the end of what is looked at
      const k0 = i + 1;
      let k1 = k0;
      while (k1 < stop && buf[k1] !== 0x22) {
        if (buf[k1] === 0x5c) return false;
        k1 += 1;
      }
      if (k1 >= stop) return true;
      i = k1 + 1;
      while (i < stop && blank(buf[i]!)) i += 1;
      if (buf[i] !== 0x3a) return false;
      i += 1;
      while (i < stop && blank(buf[i]!)) i += 1;
      if (i >= stop) return true;
      const c = buf[i]!;
      let v0: number;
      let v1: number;
      if (c === 0x22) {
        v0 = i + 1;
        v1 = v0;
        while (v1 < stop && buf[v1] !== 0x22) {
          if (buf[v1] === 0x5c) return false;
          v1 += 1;
        }
        if (v1 >= stop) return true;
        i = v1 + 1;
      } else if (c === 0x7b) {
        if (parentStart >= 0) return true;
        parentStart = k0;
        parentEnd = k1;
        i += 1;
        continue;
      } else if (c === 0x5b) {
        return true;
      } else {
        v0 = i;
        while (i < stop && buf[i] !== 0x2c && buf[i] !== 0x7d && !blank(buf[i]!)) i += 1;
        if (i >= stop) return true;
        v1 = i;
      }
      const slot = parentStart < 0 ? this.topSlot(buf, k0, k1) : this.nestedSlot(buf, parentStart, parentEnd, k0, k1);
      if (slot >= 0 && values[slot] === undefined) {
        values[slot] = buf.toString("utf8", v0, v1);
        found += 1;
        // Every wanted member found: the rest of the line does not matter (no key twice).
        if (found === values.length) return true;
      }
      while (i < stop && blank(buf[i]!)) i += 1;
      if (buf[i] === 0x2c) {
        i += 1;
        continue;
      }
      return true; // `}` (end of the object) or something unexpected: stop
    }
  }

  private topSlot(buf: Buffer, k0: number, k1: number): number {
    for (const t of this.top) if (same(buf, k0, k1, t.name)) return t.slot;
    return -1;
  }

  private nestedSlot(buf: Buffer, p0: number, p1: number, k0: number, k1: number): number {
    for (const n of this.nested) if (same(buf, k0, k1, n.name) && same(buf, p0, p1, n.parent)) return n.slot;
    return -1;
  }
}

function blank(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0d;
}

function same(buf: Buffer, s: number, e: number, name: Buffer): boolean {
  if (e - s !== name.length) return false;
  for (let j = 0; j < name.length; j += 1) if (buf[s + j] !== name[j]) return false;
  return true;
}
