/**
 * Validates one JSON line as a whole and finds a few members in it without
 * building the value: the trajectory readers read the usage numbers and the
 * keys their rules need from a usage line this way, and `JSON.parse` only the
 * small objects they need (DESIGN.md, performance).
 */

enum Ch {
  Tab = 0x09,
  Lf = 0x0a,
  Cr = 0x0d,
  Space = 0x20,
  Quote = 0x22,
  Plus = 0x2b,
  Comma = 0x2c,
  Minus = 0x2d,
  Dot = 0x2e,
  Zero = 0x30,
  Nine = 0x39,
  Colon = 0x3a,
  OpenSquare = 0x5b,
  Backslash = 0x5c,
  CloseSquare = 0x5d,
  OpenCurly = 0x7b,
  CloseCurly = 0x7d,
}

interface PathNode {
  /** Slot of the member at this path, or -1 when only a prefix of wanted paths. */
  slot: number;
  children: { name: Buffer; node: PathNode }[];
}

/**
 * A compiled set of member paths (`type`, `message.usage`,
 * `message.payload.token_usage`). {@link read} validates a line and records,
 * for each path, where its value is in the line.
 */
export class JsonMembers {
  private readonly root: PathNode = { slot: -1, children: [] };
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  /** Slots of the wanted paths are 0 … paths.length - 1. */
  private buf: Buffer = Buffer.alloc(0);
  private end = 0;
  private i = 0;
  /** Whether the last string read held a `\` escape. */
  private escaped = false;

  /** @param paths member paths, dot-separated (member names without dots). */
  constructor(readonly paths: readonly string[]) {
    let hidden = paths.length;
    paths.forEach((p, slot) => {
      let node = this.root;
      for (const part of p.split(".")) {
        const name = Buffer.from(part);
        let next = node.children.find((c) => c.name.equals(name))?.node;
        if (!next) {
          next = { slot: -1, children: [] };
          node.children.push({ name, node: next });
        }
        node = next;
      }
      node.slot = slot;
    });
    // Prefixes that are not wanted paths get slots too (after the wanted ones): a member seen twice is noticed.
    const number = (node: PathNode): void => {
      for (const c of node.children) {
        if (c.node.slot < 0) c.node.slot = hidden++;
        number(c.node);
      }
    };
    number(this.root);
    this.starts = new Int32Array(hidden);
    this.ends = new Int32Array(hidden);
  }

  /**
   * Reads `buf[start, end)`: true when it is one JSON object (JSON blanks
   * around it allowed) that `JSON.parse` accepts, with no `\` escape in a
   * member name on a wanted path and no wanted path (or prefix) written twice
   * (such lines are left to `JSON.parse`). Then
   * {@link has}, {@link first}, {@link text}, {@link string} and
   * {@link json} tell each path's value, as `JSON.parse` would have it (a
   * member written twice: the last). False otherwise: the caller parses the
   * line whole (which also reports a line that is not JSON).
   */
  read(buf: Buffer, start: number, end: number): boolean {
    this.buf = buf;
    this.end = end;
    this.starts.fill(-1);
    this.i = start;
    try {
      this.blanks();
      if (this.at(this.i) !== Ch.OpenCurly) return false;
      if (!this.value(this.root)) return false;
      this.blanks();
      return this.i === end;
    } catch {
      return false; // nested too deep for the stack: let JSON.parse decide
    }
  }

  /** Whether the member at path `slot` is in the line. */
  has(slot: number): boolean {
    return this.starts[slot]! >= 0;
  }

  /** The first byte of the value at `slot` (`"`, `{`, `[`, `t`, `f`, `n`, a digit or `-`), or -1 when absent. */
  first(slot: number): number {
    const s = this.starts[slot]!;
    return s < 0 ? -1 : this.buf[s]!;
  }

  /** The value's JSON text at `slot` (latin1; for numbers and literals), or undefined when absent. */
  text(slot: number): string | undefined {
    const s = this.starts[slot]!;
    return s < 0 ? undefined : this.buf.toString("latin1", s, this.ends[slot]!);
  }

  /** The string value at `slot`, or undefined when absent or not a string. */
  string(slot: number): string | undefined {
    const s = this.starts[slot]!;
    if (s < 0 || this.buf[s] !== Ch.Quote) return undefined;
    const e = this.ends[slot]!;
    const b = this.buf;
    for (let k = s + 1; k < e - 1; k += 1) if (b[k] === Ch.Backslash) return JSON.parse(this.utf8(s, e)) as string;
    return this.utf8(s + 1, e - 1);
  }

  /** The value at `slot` as `JSON.parse` gives it, or undefined when absent. */
  json(slot: number): unknown {
    const s = this.starts[slot]!;
    return s < 0 ? undefined : JSON.parse(this.utf8(s, this.ends[slot]!));
  }

  /** True when the value at `slot` is the bytes of `literal` (e.g. `true`). */
  is(slot: number, literal: Buffer): boolean {
    const s = this.starts[slot]!;
    if (s < 0 || this.ends[slot]! - s !== literal.length) return false;
    for (let k = 0; k < literal.length; k += 1) if (this.buf[s + k] !== literal[k]) return false;
    return true;
  }

  private utf8(s: number, e: number): string {
    return this.buf.toString("utf8", s, e);
  }

  /** The byte at `i`, or -1 past the line's end (the buffer goes on with other bytes). */
  private at(i: number): number {
    return i < this.end ? this.buf[i]! : -1;
  }

  private blanks(): void {
    const b = this.buf;
    let i = this.i;
    if (BLANK[b[i]!] !== 1) return; // most often none (and past the buffer: undefined)
    while (i < this.end) {
      const c = b[i]!;
      if (c !== Ch.Space && c !== Ch.Tab && c !== Ch.Cr && c !== Ch.Lf) break;
      i += 1;
    }
    this.i = i;
  }

  /** One value at this.i; `node`: the wanted paths below it (null: none). */
  private value(node: PathNode | null): boolean {
    const c = this.at(this.i);
    if (c === Ch.Quote) return this.str();
    if (c === Ch.OpenCurly) return this.object(node);
    if (c === Ch.OpenSquare) return this.array();
    if (c === 0x74) return this.word("true");
    if (c === 0x66) return this.word("false");
    if (c === 0x6e) return this.word("null");
    return this.number();
  }

  private object(node: PathNode | null): boolean {
    this.i += 1; // {
    this.blanks();
    if (this.at(this.i) === Ch.CloseCurly) {
      this.i += 1;
      return true;
    }
    for (;;) {
      if (this.at(this.i) !== Ch.Quote) return false;
      const k0 = this.i + 1;
      if (!this.str()) return false;
      const k1 = this.i - 1;
      let child: PathNode | null = null;
      if (node !== null) {
        const children = node.children;
        for (let c = 0; c < children.length; c += 1) {
          if (this.sameName(k0, k1, children[c]!.name)) {
            child = children[c]!.node;
            break;
          }
        }
        if (child === null && this.escaped) return false; // an escaped name may be a wanted one: JSON.parse decides
      }
      this.blanks();
      if (this.at(this.i) !== Ch.Colon) return false;
      this.i += 1;
      this.blanks();
      if (this.i >= this.end) return false;
      const v0 = this.i;
      if (!this.value(child !== null && child.children.length > 0 ? child : null)) return false;
      if (child !== null) {
        if (this.starts[child.slot]! >= 0) return false; // written twice: JSON.parse keeps the last
        this.starts[child.slot] = v0;
        this.ends[child.slot] = this.i;
      }
      const next = this.after(Ch.CloseCurly);
      if (next !== 1) return next === 0;
    }
  }

  private array(): boolean {
    this.i += 1; // [
    this.blanks();
    if (this.at(this.i) === Ch.CloseSquare) {
      this.i += 1;
      return true;
    }
    for (;;) {
      if (!this.value(null)) return false;
      const next = this.after(Ch.CloseSquare);
      if (next !== 1) return next === 0;
    }
  }

  /**
   * After a member or an element: a `,` (blanks skipped after it) gives 1, go
   * on; `close` gives 0, done, with this.i after it; anything else -1, not JSON.
   */
  private after(close: number): number {
    this.blanks();
    const d = this.at(this.i);
    if (d === Ch.Comma) {
      this.i += 1;
      this.blanks();
      return 1;
    }
    if (d === close) {
      this.i += 1;
      return 0;
    }
    return -1;
  }

  /** A string at this.i (its `"`): no raw control byte, only JSON's escapes. */
  private str(): boolean {
    const b = this.buf;
    const end = this.end;
    let i = this.i + 1;
    this.escaped = false;
    for (;;) {
      // Plain bytes: the byte after a line (its line end, or past the buffer: undefined) stops the run too.
      while (STRING_STOP[b[i]!] === 0) i += 1;
      if (i >= end) return false;
      const c = b[i]!;
      if (c === Ch.Quote) {
        this.i = i + 1;
        return true;
      }
      if (c !== Ch.Backslash) return false; // a raw control byte
      this.escaped = true;
      const e = this.at(i + 1);
      if (e === 0x75) {
        // \uXXXX
        for (let k = 2; k < 6; k += 1) if (!isHex(this.at(i + k))) return false;
        i += 6;
      } else if (e >= 0 && ESCAPED[e] === 1) i += 2;
      else return false;
    }
  }

  private word(w: string): boolean {
    if (this.i + w.length > this.end) return false;
    for (let k = 0; k < w.length; k += 1) if (this.buf[this.i + k] !== w.charCodeAt(k)) return false;
    this.i += w.length;
    return true;
  }

  /** A number: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`. */
  private number(): boolean {
    let i = this.i;
    if (this.at(i) === Ch.Minus) i += 1;
    if (this.at(i) === Ch.Zero) i += 1;
    else if (isDigit(this.at(i))) while (isDigit(this.at(i))) i += 1;
    else return false;
    if (this.at(i) === Ch.Dot) {
      i += 1;
      if (!isDigit(this.at(i))) return false;
      while (isDigit(this.at(i))) i += 1;
    }
    const e = this.at(i);
    if (e === 0x65 || e === 0x45) {
      i += 1;
      if (this.at(i) === Ch.Plus || this.at(i) === Ch.Minus) i += 1;
      if (!isDigit(this.at(i))) return false;
      while (isDigit(this.at(i))) i += 1;
    }
    this.i = i;
    return true;
  }

  private sameName(k0: number, k1: number, name: Buffer): boolean {
    if (k1 - k0 !== name.length) return false;
    for (let k = 0; k < name.length; k += 1) if (this.buf[k0 + k] !== name[k]) return false;
    return true;
  }
}

/** 1 for the bytes that end a run of plain string bytes: `"`, backslash and the control bytes 0x00–0x1f. */
const STRING_STOP = new Uint8Array(256);
STRING_STOP.fill(1, 0, 0x20);
STRING_STOP[Ch.Quote] = 1;
STRING_STOP[Ch.Backslash] = 1;

/** 1 for JSON's blanks: space, tab, CR, LF. */
const BLANK = new Uint8Array(256);
BLANK[Ch.Space] = 1;
BLANK[Ch.Tab] = 1;
BLANK[Ch.Cr] = 1;
BLANK[Ch.Lf] = 1;

/** 1 for the bytes that may follow a backslash in a JSON string, besides `u`: `"`, backslash, `/`, `b`, `f`, `n`, `r`, `t`. */
const ESCAPED = new Uint8Array(256);
for (const c of '"\\/bfnrt') ESCAPED[c.charCodeAt(0)] = 1;

function isDigit(c: number): boolean {
  return c >= Ch.Zero && c <= Ch.Nine;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}
