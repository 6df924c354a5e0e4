/**
 * codex: a `token_count` line read from its bytes (TRAJECTORIES.md, "codex").
 * The reader walks the line's object and reads only what the running-total
 * rules use — the `timestamp`, `ordinal`, `payload.thread_id`, and
 * `payload.info`'s `total_token_usage` and `last_token_usage` — and checks
 * every other byte against the JSON grammar (json-bytes.ts). It gives up
 * (null: the caller parses the line with `JSON.parse`) on every line that is
 * not the usual shape, so what it returns is always what the parsed line
 * gives: a usage object with a key or value the format's rules would tally
 * or warn about, a `\` escape in what is read, a key read twice, a number
 * that is not a plain integer.
 */
import type { UsageShape } from "./usage-shape.js";
import { LINE_SKIP, LINE_TAKE, LINE_UNKNOWN, type LineClass } from "../../util/line-scan.js";
import { at, cursor, keyBytes, keyIs, readUint, skipString, skipValue, stringAt, ws, onlyWs } from "./json-bytes.js";

/**
 * A Codex usage vector (`TokenUsage`): input, cached input and output are
 * always written; `cache_write_input_tokens` only by newer versions (0 when
 * absent); `reasoning_output_tokens` (part of output) and `total_tokens`
 * (input + output) are derived and not counted. Input includes the cached
 * and cache-write parts, output the reasoning: a vector where a part exceeds
 * its whole contradicts the format (unreadable); a `total_tokens` other than
 * input + output is a mismatch (warned).
 */
export const CODEX_USAGE_SHAPE: UsageShape<
  "input_tokens" | "cached_input_tokens" | "output_tokens" | "cache_write_input_tokens"
> = {
  required: ["input_tokens", "cached_input_tokens", "output_tokens"] as const,
  optional: ["cache_write_input_tokens"] as const,
  known: ["reasoning_output_tokens", "total_tokens"],
  bounds: [
    { whole: "input_tokens", parts: ["cached_input_tokens", "cache_write_input_tokens"] },
    { whole: "output_tokens", parts: ["reasoning_output_tokens"] },
  ],
  sums: [{ total: "total_tokens", parts: ["input_tokens", "output_tokens"] }],
};

/** A Codex usage vector (`TokenUsage`), as the counter keeps it. */
export interface CodexVec {
  input: number;
  cached: number;
  cacheWrite: number;
  output: number;
}

/** What a well-shaped `token_count` line says (`usage` null: `info` is not an object, a rate-limit heartbeat). */
export interface CodexTokenCount {
  /** The top-level `timestamp` when it is a string. */
  timestamp: string | undefined;
  /** The top-level `ordinal` when it is an integer, else null. */
  ordinal: number | null;
  /** `payload.thread_id` when it is a string. */
  threadId: string | undefined;
  usage: { total: CodexVec; last: CodexVec | null } | null;
}

const K_TIMESTAMP = keyBytes("timestamp");
const K_TYPE = keyBytes("type");
const K_PAYLOAD = keyBytes("payload");
const K_ORDINAL = keyBytes("ordinal");
const K_INFO = keyBytes("info");
const K_THREAD = keyBytes("thread_id");
const K_TOTAL = keyBytes("total_token_usage");
const K_LAST = keyBytes("last_token_usage");
const V_EVENT_MSG = keyBytes("event_msg");
const V_TOKEN_COUNT = keyBytes("token_count");

const U_KEYS = [
  keyBytes("input_tokens"),
  keyBytes("cached_input_tokens"),
  keyBytes("output_tokens"),
  keyBytes("cache_write_input_tokens"),
  keyBytes("reasoning_output_tokens"),
  keyBytes("total_tokens"),
];

/** Parsed-line state shared by the walk (not re-entrant). */
let vec: CodexVec | null = null;
let str: string | undefined;

/**
 * Reads a usage object at `b[i]` (`{`) into `vec`: every member one of the
 * six keys of the Codex `TokenUsage`, once, with a plain integer value; the
 * three always written present; cached + cache write ≤ input, reasoning ≤
 * output, and `total_tokens` (when present) = input + output. Else -1: the
 * caller falls back (the parsed line's usage rules decide what it means).
 */
function readVec(b: Uint8Array, i: number, end: number): number {
  if (at(b, i, end) !== 0x7b) return -1;
  const v = [0, 0, 0, 0, 0, 0];
  let seen = 0;
  i = ws(b, i + 1, end);
  if (at(b, i, end) === 0x7d) return -1;
  for (;;) {
    if (at(b, i, end) !== 0x22) return -1;
    const k0 = i + 1;
    i = skipString(b, i, end);
    if (i < 0 || cursor.escaped) return -1;
    const k1 = i - 1;
    let slot = -1;
    for (let s = 0; s < 6; s += 1)
      if (keyIs(b, k0, k1, U_KEYS[s]!)) {
        slot = s;
        break;
      }
    if (slot < 0 || (seen & (1 << slot)) !== 0) return -1;
    seen |= 1 << slot;
    i = ws(b, i, end);
    if (at(b, i, end) !== 0x3a) return -1;
    i = readUint(b, ws(b, i + 1, end), end);
    if (i < 0) return -1;
    v[slot] = cursor.num;
    i = ws(b, i, end);
    if (at(b, i, end) === 0x2c) {
      i = ws(b, i + 1, end);
      continue;
    }
    if (at(b, i, end) !== 0x7d) return -1;
    break;
  }
  if ((seen & 7) !== 7) return -1;
  const [input, cached, output, cacheWrite, reasoning, total] = v as [number, number, number, number, number, number];
  if (cached + cacheWrite > input || reasoning > output) return -1;
  if ((seen & 32) !== 0 && total !== input + output) return -1;
  vec = { input, cached, cacheWrite, output };
  return i + 1;
}

/** Reads a string value at `b[i]` into `str` (undefined for another JSON value); -1 on an escape or bad JSON. */
function readStr(b: Buffer, i: number, end: number): number {
  if (at(b, i, end) !== 0x22) {
    str = undefined;
    return skipValue(b, i, end, 1);
  }
  const j = skipString(b, i, end);
  if (j < 0 || cursor.escaped) return -1;
  str = stringAt(b, i + 1, j - 1, cursor.high);
  return j;
}

/** True when the string value at `b[i]` is exactly `want` (sets cursor.pos after it); false otherwise (give up). */
function strIs(b: Uint8Array, i: number, end: number, want: Uint8Array): boolean {
  if (at(b, i, end) !== 0x22) return false;
  const j = skipString(b, i, end);
  if (j < 0 || cursor.escaped || !keyIs(b, i + 1, j - 1, want)) return false;
  cursor.pos = j;
  return true;
}

/**
 * Reads the `token_count` line in `b[start, end)` (without its line end):
 * `{"timestamp":…,"type":"event_msg","payload":{"type":"token_count","info":…}}`
 * with members in any order. Returns what the line gives, or null when the
 * line is not that shape or not provably valid JSON (the caller then parses
 * it whole). Only when `info` is an object is `total_token_usage` read; a
 * `last_token_usage` that is absent or not an object gives `last: null`.
 */
export function readCodexTokenCount(b: Buffer, start: number, end: number): CodexTokenCount | null {
  let i = ws(b, start, end);
  if (at(b, i, end) !== 0x7b) return null;
  let timestamp: string | undefined;
  let ordinal: number | null = null;
  let threadId: string | undefined;
  let usage: CodexTokenCount["usage"] = null;
  let seen = 0; // 1 timestamp, 2 type, 4 payload, 8 ordinal
  i = ws(b, i + 1, end);
  if (at(b, i, end) === 0x7d) return null;
  for (;;) {
    if (at(b, i, end) !== 0x22) return null;
    const k0 = i + 1;
    i = skipString(b, i, end);
    if (i < 0 || cursor.escaped) return null;
    const k1 = i - 1;
    i = ws(b, i, end);
    if (at(b, i, end) !== 0x3a) return null;
    i = ws(b, i + 1, end);
    if (keyIs(b, k0, k1, K_TIMESTAMP)) {
      if (seen & 1) return null;
      seen |= 1;
      i = readStr(b, i, end);
      if (i < 0) return null;
      timestamp = str;
    } else if (keyIs(b, k0, k1, K_TYPE)) {
      if (seen & 2 || !strIs(b, i, end, V_EVENT_MSG)) return null;
      seen |= 2;
      i = cursor.pos;
    } else if (keyIs(b, k0, k1, K_ORDINAL)) {
      if (seen & 8) return null;
      seen |= 8;
      const c = at(b, i, end);
      if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
        i = readUint(b, i, end);
        if (i < 0) return null;
        ordinal = cursor.num;
      } else {
        i = skipValue(b, i, end, 1);
        if (i < 0) return null;
      }
    } else if (keyIs(b, k0, k1, K_PAYLOAD)) {
      if (seen & 4 || at(b, i, end) !== 0x7b) return null;
      seen |= 4;
      // The payload object: type, info, thread_id; every other member checked and skipped.
      let pseen = 0; // 1 type, 2 info, 4 thread_id
      i = ws(b, i + 1, end);
      if (at(b, i, end) === 0x7d) return null;
      for (;;) {
        if (at(b, i, end) !== 0x22) return null;
        const p0 = i + 1;
        i = skipString(b, i, end);
        if (i < 0 || cursor.escaped) return null;
        const p1 = i - 1;
        i = ws(b, i, end);
        if (at(b, i, end) !== 0x3a) return null;
        i = ws(b, i + 1, end);
        if (keyIs(b, p0, p1, K_TYPE)) {
          if (pseen & 1 || !strIs(b, i, end, V_TOKEN_COUNT)) return null;
          pseen |= 1;
          i = cursor.pos;
        } else if (keyIs(b, p0, p1, K_THREAD)) {
          if (pseen & 4) return null;
          pseen |= 4;
          i = readStr(b, i, end);
          if (i < 0) return null;
          threadId = str;
        } else if (keyIs(b, p0, p1, K_INFO)) {
          if (pseen & 2) return null;
          pseen |= 2;
          if (at(b, i, end) !== 0x7b) {
            i = skipValue(b, i, end, 2); // null (a heartbeat) or another non-object: no usage
            if (i < 0) return null;
          } else {
            i = readInfo(b, i, end);
            if (i < 0) return null;
            usage = info;
          }
        } else {
          i = skipValue(b, i, end, 2);
          if (i < 0) return null;
        }
        i = ws(b, i, end);
        if (at(b, i, end) === 0x2c) {
          i = ws(b, i + 1, end);
          continue;
        }
        if (at(b, i, end) !== 0x7d) return null;
        i += 1;
        break;
      }
      if ((pseen & 1) === 0) return null;
    } else {
      i = skipValue(b, i, end, 1);
      if (i < 0) return null;
    }
    i = ws(b, i, end);
    if (at(b, i, end) === 0x2c) {
      i = ws(b, i + 1, end);
      continue;
    }
    if (at(b, i, end) !== 0x7d) return null;
    i += 1;
    break;
  }
  if ((seen & 6) !== 6 || !onlyWs(b, i, end)) return null;
  return { timestamp, ordinal, threadId, usage };
}

let info: { total: CodexVec; last: CodexVec | null } | null = null;

/** Reads `payload.info` (an object) into `info`: a readable total is required, `last` is null when absent or not an object. */
function readInfo(b: Buffer, i: number, end: number): number {
  let total: CodexVec | null = null;
  let last: CodexVec | null = null;
  let seen = 0; // 1 total, 2 last
  i = ws(b, i + 1, end);
  if (at(b, i, end) === 0x7d) return -1;
  for (;;) {
    if (at(b, i, end) !== 0x22) return -1;
    const k0 = i + 1;
    i = skipString(b, i, end);
    if (i < 0 || cursor.escaped) return -1;
    const k1 = i - 1;
    i = ws(b, i, end);
    if (at(b, i, end) !== 0x3a) return -1;
    i = ws(b, i + 1, end);
    if (keyIs(b, k0, k1, K_TOTAL)) {
      if (seen & 1) return -1;
      seen |= 1;
      i = readVec(b, i, end);
      if (i < 0) return -1;
      total = vec;
    } else if (keyIs(b, k0, k1, K_LAST)) {
      if (seen & 2) return -1;
      seen |= 2;
      if (at(b, i, end) === 0x7b) {
        i = readVec(b, i, end);
        if (i < 0) return -1;
        last = vec;
      } else {
        i = skipValue(b, i, end, 3);
        if (i < 0) return -1;
      }
    } else {
      i = skipValue(b, i, end, 3);
      if (i < 0) return -1;
    }
    i = ws(b, i, end);
    if (at(b, i, end) === 0x2c) {
      i = ws(b, i + 1, end);
      continue;
    }
    if (at(b, i, end) !== 0x7d) return -1;
    break;
  }
  if (total === null) return -1;
  info = { total, last };
  return i + 1;
}

const LEAD = keyBytes('{"timestamp":"');
const TYPE_AT = keyBytes(',"type":"');
const PAYLOAD_TYPE_AT = keyBytes(',"payload":{"type":"');
const T_EVENT_MSG = keyBytes('event_msg"');
const T_TOKEN_COUNT = keyBytes('token_count"');
const T_SESSION_META = keyBytes('session_meta"');
const T_USAGE_RECORD = keyBytes('token_usage_record"');

/** True when `b[i, i + word.length)` holds `word` (and lies before `end`). */
function bytesAt(b: Uint8Array, i: number, end: number, word: Uint8Array): boolean {
  return i + word.length <= end && keyIs(b, i, i + word.length, word);
}

/** Index after the closing quote of the plain string whose content starts at `b[i]`, or -1 (an escape, a control byte, over 64 bytes). */
function plainStringEnd(b: Uint8Array, i: number, end: number): number {
  const stop = Math.min(end, i + 64);
  for (; i < stop; i += 1) {
    const c = b[i]!;
    if (c === 0x22) return i + 1;
    if (c === 0x5c || c < 0x20) return -1;
  }
  return -1;
}

/**
 * The codex fast path's first look at a line laid out as Codex writes it,
 * `{"timestamp":"…","type":"…"` (and, for `event_msg`,
 * `,"payload":{"type":"…"`), from fixed byte positions: `LINE_TAKE` for a
 * `token_count` event, a `session_meta` or a `token_usage_record` line,
 * `LINE_SKIP` for any other type, `LINE_UNKNOWN` when the line is laid out
 * otherwise (the caller then reads its leading members). Like every fast-path
 * look, it assumes no key is written twice.
 */
export function classifyCodexLead(b: Buffer, start: number, end: number): LineClass {
  if (!bytesAt(b, start, end, LEAD)) return LINE_UNKNOWN;
  const ts = plainStringEnd(b, start + LEAD.length, end);
  if (ts < 0 || !bytesAt(b, ts, end, TYPE_AT)) return LINE_UNKNOWN;
  const t = ts + TYPE_AT.length;
  if (bytesAt(b, t, end, T_EVENT_MSG)) {
    const p = t + T_EVENT_MSG.length;
    if (!bytesAt(b, p, end, PAYLOAD_TYPE_AT)) return LINE_UNKNOWN;
    const q = p + PAYLOAD_TYPE_AT.length;
    if (bytesAt(b, q, end, T_TOKEN_COUNT)) return LINE_TAKE;
    return plainStringEnd(b, q, end) < 0 ? LINE_UNKNOWN : LINE_SKIP;
  }
  if (bytesAt(b, t, end, T_SESSION_META) || bytesAt(b, t, end, T_USAGE_RECORD)) return LINE_TAKE;
  return plainStringEnd(b, t, end) < 0 ? LINE_UNKNOWN : LINE_SKIP;
}
