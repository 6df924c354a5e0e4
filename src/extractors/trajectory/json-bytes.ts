/**
 * A byte-level JSON walker for the trajectory readers' usage lines
 * (TRAJECTORIES.md, "The quantity": a line that is not valid JSON is reported
 * and skipped). A reader walks the objects it needs member by member and
 * passes every other value to {@link skipValue}, which checks it against the
 * JSON grammar without building it: so a line the reader accepts is proven
 * to be one whole valid JSON object, which `JSON.parse` would also accept.
 *
 * Whatever this walker does not handle (a `\` escape in a key or value that
 * is read, a count that is not a plain integer, deep nesting) makes the
 * reader give up, and the caller parses the line with `JSON.parse` as before
 * (a reader may read another number itself, as kimi-cli's epoch-seconds
 * `timestamp`, with `Number` of its text: `JSON.parse`'s reading).
 * Synchronous and not re-entrant: {@link cursor} holds the walk's state.
 */
import { skipInMemory } from "../../util/json-skip.js";

/**
 * The walk's state after a call: `num` (the integer read), `escaped` (the string had a `\`
 * escape), `str` (the string {@link readStr} read).
 */
export const cursor = { num: 0, escaped: false, str: undefined as string | undefined };

/** Deeper than this, {@link skipValue} gives up (the caller falls back to `JSON.parse`). */
const MAX_DEPTH = 64;

/** Index of the first byte at or after `i` that is not JSON whitespace. */
function ws(b: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const c = b[i]!;
    if (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a) i += 1;
    else break;
  }
  return i;
}

function hex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/** 1 for the bytes that end a run of plain string bytes: `"`, backslash and the control bytes 0x00–0x1f. */
const STRING_STOP = new Uint8Array(256);
STRING_STOP.fill(1, 0, 0x20);
STRING_STOP[0x22] = 1;
STRING_STOP[0x5c] = 1;

/**
 * Checks the JSON string starting at `b[i]` (a `"`): returns the index after
 * its closing quote, or -1 when it is not a valid JSON string (a control
 * byte, a bad escape, no closing quote before `end`). Sets `cursor.escaped`.
 */
export function skipString(b: Uint8Array, i: number, end: number): number {
  let escaped = false;
  i += 1;
  for (;;) {
    // Plain bytes. The run stops at the latest at a line end or past the buffer (undefined); a line
    // without a line end (the file's last) may be followed by older bytes: a run past `end` is refused below.
    while (STRING_STOP[b[i]!] === 0) i += 1;
    if (i >= end) return -1;
    const c = b[i]!;
    if (c === 0x22) break;
    if (c !== 0x5c) return -1; // a raw control byte
    escaped = true;
    if (i + 1 >= end) return -1;
    const e = b[i + 1]!;
    if (e === 0x75) {
      if (i + 5 >= end || !hex(b[i + 2]!) || !hex(b[i + 3]!) || !hex(b[i + 4]!) || !hex(b[i + 5]!)) return -1;
      i += 6;
    } else if (
      e === 0x22 ||
      e === 0x5c ||
      e === 0x2f ||
      e === 0x62 ||
      e === 0x66 ||
      e === 0x6e ||
      e === 0x72 ||
      e === 0x74
    ) {
      i += 2;
    } else return -1;
  }
  cursor.escaped = escaped;
  return i + 1;
}

function digits(b: Uint8Array, i: number, end: number): number {
  while (i < end && b[i]! >= 0x30 && b[i]! <= 0x39) i += 1;
  return i;
}

/** Checks the JSON number starting at `b[i]`: the index after it, or -1. */
function skipNumber(b: Uint8Array, i: number, end: number): number {
  if (b[i] === 0x2d) i += 1;
  if (i >= end) return -1;
  if (b[i] === 0x30) i += 1;
  else if (b[i]! >= 0x31 && b[i]! <= 0x39) i = digits(b, i + 1, end);
  else return -1;
  if (i < end && b[i] === 0x2e) {
    const j = digits(b, i + 1, end);
    if (j === i + 1) return -1;
    i = j;
  }
  if (i < end && (b[i] === 0x65 || b[i] === 0x45)) {
    i += 1;
    if (i < end && (b[i] === 0x2b || b[i] === 0x2d)) i += 1;
    const j = digits(b, i, end);
    if (j === i) return -1;
    i = j;
  }
  return i;
}

function literal(b: Uint8Array, i: number, end: number, word: string): number {
  if (i + word.length > end) return -1;
  for (let k = 0; k < word.length; k += 1) if (b[i + k] !== word.charCodeAt(k)) return -1;
  return i + word.length;
}

/**
 * Checks the JSON value starting at `b[i]` (no leading whitespace): returns
 * the index after it, or -1 when it is not valid JSON within `end` (or nests
 * deeper than 64 levels: not handled here).
 */
export function skipValue(b: Uint8Array, i: number, end: number, depth = 0): number {
  if (i >= end) return -1;
  const c = b[i]!;
  if (c === 0x22) return skipString(b, i, end);
  if (c === 0x7b || c === 0x5b) {
    // Where the scanner read the line into WebAssembly memory, the same check runs there.
    const inMemory = skipInMemory(b, i, end, depth);
    if (inMemory !== undefined) return inMemory;
    if (depth >= MAX_DEPTH) return -1;
    const close = c === 0x7b ? 0x7d : 0x5d;
    i = ws(b, i + 1, end);
    if (i < end && b[i] === close) return i + 1;
    for (;;) {
      if (c === 0x7b) {
        if (i >= end || b[i] !== 0x22) return -1;
        i = skipString(b, i, end);
        if (i < 0) return -1;
        i = ws(b, i, end);
        if (i >= end || b[i] !== 0x3a) return -1;
        i = ws(b, i + 1, end);
      }
      i = skipValue(b, i, end, depth + 1);
      if (i < 0) return -1;
      i = ws(b, i, end);
      if (i >= end) return -1;
      if (b[i] === 0x2c) {
        i = ws(b, i + 1, end);
        continue;
      }
      return b[i] === close ? i + 1 : -1;
    }
  }
  if (c === 0x74) return literal(b, i, end, "true");
  if (c === 0x66) return literal(b, i, end, "false");
  if (c === 0x6e) return literal(b, i, end, "null");
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return skipNumber(b, i, end);
  return -1;
}

/**
 * Reads the plain non-negative integer at `b[i]` (`0` or `[1-9][0-9]*`, at
 * most 15 digits, so that it is exact and a safe integer) into `cursor.num`:
 * returns the index after it, or -1 when the value is not such an integer
 * (a fraction, an exponent, a sign, more digits, another type: the caller
 * falls back to `JSON.parse`).
 */
export function readUint(b: Uint8Array, i: number, end: number): number {
  let n = 0;
  const start = i;
  while (i < end) {
    const c = b[i]!;
    if (c < 0x30 || c > 0x39) break;
    n = n * 10 + (c - 0x30);
    i += 1;
  }
  const len = i - start;
  if (len === 0 || len > 15 || (len > 1 && b[start] === 0x30)) return -1;
  if (i < end && (b[i] === 0x2e || b[i] === 0x65 || b[i] === 0x45)) return -1;
  cursor.num = n;
  return i;
}

/**
 * Reads an object of plain-integer members at `b[i]` (a `{`): every key one
 * of `keys` (unescaped), each at most once, each value a plain integer (see
 * {@link readUint}) put in `out` at its key's index. Returns the index after
 * the object's `}` and sets `cursor.num` to the bit mask of the keys read
 * (bit s for `keys[s]`); -1 when the object is not that shape (an unknown key,
 * a key twice, an escape, another value), and the caller falls back to
 * `JSON.parse`. Used for the usage objects of codex, kimi-code and kimi-cli
 * and for claude-code's `cache_creation` breakdown.
 */
export function readUintMembers(
  b: Uint8Array,
  i: number,
  end: number,
  keys: readonly Uint8Array[],
  out: number[],
): number {
  if (at(b, i, end) !== 0x7b) return -1;
  let seen = 0;
  i = ws(b, i + 1, end);
  for (;;) {
    if (at(b, i, end) !== 0x22) return -1;
    const k0 = i + 1;
    i = skipString(b, i, end);
    if (i < 0 || cursor.escaped) return -1;
    const k1 = i - 1;
    const slot = keySlot(b, k0, k1, keys);
    if (slot < 0 || (seen & (1 << slot)) !== 0) return -1;
    seen |= 1 << slot;
    i = ws(b, i, end);
    if (at(b, i, end) !== 0x3a) return -1;
    i = readUint(b, ws(b, i + 1, end), end);
    if (i < 0) return -1;
    out[slot] = cursor.num;
    i = ws(b, i, end);
    if (at(b, i, end) === 0x2c) {
      i = ws(b, i + 1, end);
      continue;
    }
    if (at(b, i, end) !== 0x7d) return -1;
    break;
  }
  cursor.num = seen;
  return i + 1;
}

/** The index after the string value at `b[i]` when it is exactly `want`; -1 otherwise (give up). */
export function strIs(b: Uint8Array, i: number, end: number, want: Uint8Array): number {
  if (at(b, i, end) !== 0x22) return -1;
  const j = skipString(b, i, end);
  return j < 0 || cursor.escaped || !keyIs(b, i + 1, j - 1, want) ? -1 : j;
}

/**
 * Reads the value of the member whose key is `b[k0, k1)` (unescaped) at
 * `b[v]`, within `end`: returns the index after it, or -1 to give up.
 */
export type MemberReader = (b: Buffer, end: number, k0: number, k1: number, v: number) => number;

/**
 * The members of an object from `b[i]`: just after its `{` (`resume` false)
 * or just after a member's value (`resume` true), each read by `member`.
 * Returns the index after the object's `}`, or -1.
 */
export function members(b: Buffer, i: number, end: number, resume: boolean, member: MemberReader): number {
  if (!resume) i = ws(b, i, end);
  for (;;) {
    if (resume) {
      i = ws(b, i, end);
      const c = at(b, i, end);
      if (c === 0x7d) return i + 1;
      if (c !== 0x2c) return -1;
      i = ws(b, i + 1, end);
    }
    resume = true;
    if (at(b, i, end) !== 0x22) return -1;
    const k0 = i + 1;
    i = skipString(b, i, end);
    if (i < 0 || cursor.escaped) return -1;
    const k1 = i - 1;
    i = ws(b, i, end);
    if (at(b, i, end) !== 0x3a) return -1;
    i = member(b, end, k0, k1, ws(b, i + 1, end));
    if (i < 0) return -1;
  }
}

/**
 * Whether the line `b[start, end)` is one JSON object (blanks around it
 * allowed) whose members `member` reads to the end: what a reader accepts
 * as a whole line, so proven valid JSON.
 */
export function objectLine(b: Buffer, start: number, end: number, member: MemberReader): boolean {
  const i = ws(b, start, end);
  if (at(b, i, end) !== 0x7b) return false;
  const j = members(b, i + 1, end, false, member);
  return j >= 0 && onlyWs(b, j, end);
}

/** The index in `keys` of the key `b[k0, k1)` ({@link keyIs}), or -1. */
export function keySlot(b: Uint8Array, k0: number, k1: number, keys: readonly Uint8Array[]): number {
  for (let s = 0; s < keys.length; s += 1) if (keyIs(b, k0, k1, keys[s]!)) return s;
  return -1;
}

/** True when `b[k0, k1)` holds the bytes of `name` (ASCII). */
export function keyIs(b: Uint8Array, k0: number, k1: number, name: Uint8Array): boolean {
  if (k1 - k0 !== name.length) return false;
  for (let j = 0; j < name.length; j += 1) if (b[k0 + j] !== name[j]) return false;
  return true;
}

/** The bytes of an ASCII key, for {@link keyIs}. */
export function keyBytes(name: string): Uint8Array {
  return Uint8Array.from(name, (ch) => ch.charCodeAt(0));
}

/**
 * The last string one member read decoded, kept to be handed out again when
 * the next line holds the same bytes there (a model name, a thread id): the
 * same text without a new string, and without keeping one copy per line.
 */
export class RecentString {
  private bytes = new Uint8Array(64);
  private length = -1;
  private text = "";

  /** The text of `b[s, e)` when it is the bytes last decoded here, else undefined. */
  same(b: Uint8Array, s: number, e: number): string | undefined {
    const n = e - s;
    if (n !== this.length) return undefined;
    const kept = this.bytes;
    for (let k = 0; k < n; k += 1) if (b[s + k] !== kept[k]) return undefined;
    return this.text;
  }

  /** Keeps `text`, decoded from `b[s, e)` (strings over 64 bytes are not kept). */
  keep(b: Uint8Array, s: number, e: number, text: string): void {
    const n = e - s;
    if (n > this.bytes.length) return;
    this.bytes.set(b.subarray(s, e));
    this.length = n;
    this.text = text;
  }
}

/**
 * The text of the JSON string whose content is `b[s, e)` (no escapes: the
 * caller checked `cursor.escaped`), decoded as UTF-8 like the whole line is.
 */
function stringAt(b: Buffer, s: number, e: number, recent: RecentString | undefined): string {
  const again = recent?.same(b, s, e);
  if (again !== undefined) return again;
  let text: string | undefined;
  for (let k = s; k < e; k += 1)
    if (b[k]! >= 0x80) {
      text = b.toString("utf8", s, e);
      break;
    }
  text ??= b.toString("latin1", s, e);
  recent?.keep(b, s, e, text);
  return text;
}

/**
 * Reads the value at `b[i]`: a string without escapes into `cursor.str`
 * (another JSON value: `cursor.str` undefined, the value skipped). Returns the
 * index after the value, or -1 on an escaped string or bad JSON (give up).
 * With `recent`, a string of the same bytes as the last one read through it
 * is that same string.
 */
export function readStr(b: Buffer, i: number, end: number, recent?: RecentString): number {
  if (at(b, i, end) !== 0x22) {
    cursor.str = undefined;
    return skipValue(b, i, end, 1);
  }
  const j = skipString(b, i, end);
  if (j < 0 || cursor.escaped) return -1;
  cursor.str = stringAt(b, i + 1, j - 1, recent);
  return j;
}

/**
 * Checks that `b[i, end)` holds nothing but JSON whitespace (what may follow
 * the line's object).
 */
function onlyWs(b: Uint8Array, i: number, end: number): boolean {
  return ws(b, i, end) === end;
}

/** The byte at `b[i]`, or -1 at or past `end` (the buffer goes on with the next line). */
export function at(b: Uint8Array, i: number, end: number): number {
  return i < end ? b[i]! : -1;
}
