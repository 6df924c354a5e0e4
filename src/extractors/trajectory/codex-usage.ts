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
import {
  at,
  cursor,
  readUintMembers,
  keyBytes,
  keyIs,
  readStr,
  RecentString,
  readUint,
  members,
  objectLine,
  skipValue,
  strIs,
} from "./json-bytes.js";

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

// What the walk read (not re-entrant): reset by readCodexTokenCount.
let rTimestamp: string | undefined;
let rOrdinal: number | null = null;
let rThread: string | undefined;
const recentThread = new RecentString();
let rUsage: CodexTokenCount["usage"] = null;
let rTotal: CodexVec | null = null;
let rLast: CodexVec | null = null;
/** The vector read by readVec / vecAsWritten. */
let vec: CodexVec | null = null;
/**
 * Checks a vector's rules and sets `vec`: cached + cache write ≤ input,
 * reasoning ≤ output, `total_tokens` (when `hasTotal`) = input + output.
 * False when one is broken (the caller gives up: the parsed line's usage
 * rules decide what it means).
 */
function setVec(
  input: number,
  cached: number,
  output: number,
  cacheWrite: number,
  reasoning: number,
  total: number,
  hasTotal: boolean,
): boolean {
  if (cached + cacheWrite > input || reasoning > output) return false;
  if (hasTotal && total !== input + output) return false;
  vec = { input, cached, cacheWrite, output };
  return true;
}

const V_IN = keyBytes('{"input_tokens":');
const V_CACHED = keyBytes(',"cached_input_tokens":');
const V_OUT = keyBytes(',"output_tokens":');
const V_REASON = keyBytes(',"reasoning_output_tokens":');
const V_TOTAL = keyBytes(',"total_tokens":');

/** A plain integer at `b[i]` (see readUint) after `word` at `b[i]`; -1 when either is not there. */
function member(b: Uint8Array, i: number, end: number, word: Uint8Array): number {
  if (i + word.length > end || !keyIs(b, i, i + word.length, word)) return -1;
  return readUint(b, i + word.length, end);
}

/**
 * A usage object at `b[i]` as Codex writes it, byte for byte:
 * `{"input_tokens":N,"cached_input_tokens":N,"output_tokens":N,"reasoning_output_tokens":N,"total_tokens":N}`;
 * sets `vec`. -1 when it is written otherwise (then {@link readVec} reads it).
 */
function vecAsWritten(b: Uint8Array, i: number, end: number): number {
  i = member(b, i, end, V_IN);
  if (i < 0) return -1;
  const input = cursor.num;
  i = member(b, i, end, V_CACHED);
  if (i < 0) return -1;
  const cached = cursor.num;
  i = member(b, i, end, V_OUT);
  if (i < 0) return -1;
  const output = cursor.num;
  i = member(b, i, end, V_REASON);
  if (i < 0) return -1;
  const reasoning = cursor.num;
  i = member(b, i, end, V_TOTAL);
  if (i < 0 || at(b, i, end) !== 0x7d) return -1;
  return setVec(input, cached, output, 0, reasoning, cursor.num, true) ? i + 1 : -1;
}

/**
 * Reads a usage object at `b[i]` (`{`) into `vec`: every member one of the
 * six keys of the Codex `TokenUsage`, once, with a plain integer value; the
 * three always written present; and the rules of {@link setVec}. Else -1.
 */
function readVec(b: Uint8Array, i: number, end: number): number {
  const fixed = vecAsWritten(b, i, end);
  if (fixed >= 0) return fixed;
  const v = [0, 0, 0, 0, 0, 0];
  i = readUintMembers(b, i, end, U_KEYS, v);
  if (i < 0) return -1;
  const seen = cursor.num;
  if ((seen & 7) !== 7) return -1;
  return setVec(v[0]!, v[1]!, v[2]!, v[3]!, v[4]!, v[5]!, (seen & 32) !== 0) ? i : -1;
}

// Which members of each object were read (a key twice: give up).
let topSeen = 0; // 1 timestamp, 2 type, 4 payload, 8 ordinal
let payloadSeen = 0; // 1 type, 2 info, 4 thread_id
let infoSeen = 0; // 1 total, 2 last

function topMember(b: Buffer, end: number, k0: number, k1: number, i: number): number {
  if (keyIs(b, k0, k1, K_TIMESTAMP)) {
    if (topSeen & 1) return -1;
    topSeen |= 1;
    i = readStr(b, i, end);
    rTimestamp = cursor.str;
    return i;
  }
  if (keyIs(b, k0, k1, K_TYPE)) {
    if (topSeen & 2) return -1;
    topSeen |= 2;
    return strIs(b, i, end, V_EVENT_MSG);
  }
  if (keyIs(b, k0, k1, K_PAYLOAD)) {
    if (topSeen & 4 || at(b, i, end) !== 0x7b) return -1;
    topSeen |= 4;
    payloadSeen = 0;
    i = members(b, i + 1, end, false, payloadMember);
    return i < 0 || (payloadSeen & 1) === 0 ? -1 : i;
  }
  if (keyIs(b, k0, k1, K_ORDINAL)) {
    if (topSeen & 8) return -1;
    topSeen |= 8;
    const c = at(b, i, end);
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      i = readUint(b, i, end);
      rOrdinal = cursor.num;
      return i;
    }
    return skipValue(b, i, end, 1); // not a number: no ordinal
  }
  return skipValue(b, i, end, 1);
}

function payloadMember(b: Buffer, end: number, k0: number, k1: number, i: number): number {
  if (keyIs(b, k0, k1, K_TYPE)) {
    if (payloadSeen & 1) return -1;
    payloadSeen |= 1;
    return strIs(b, i, end, V_TOKEN_COUNT);
  }
  if (keyIs(b, k0, k1, K_INFO)) {
    if (payloadSeen & 2) return -1;
    payloadSeen |= 2;
    if (at(b, i, end) !== 0x7b) return skipValue(b, i, end, 2); // null (a heartbeat) or another non-object: no usage
    return readInfo(b, i, end);
  }
  if (keyIs(b, k0, k1, K_THREAD)) {
    if (payloadSeen & 4) return -1;
    payloadSeen |= 4;
    i = readStr(b, i, end, recentThread);
    rThread = cursor.str;
    return i;
  }
  return skipValue(b, i, end, 2);
}

function infoMember(b: Buffer, end: number, k0: number, k1: number, i: number): number {
  if (keyIs(b, k0, k1, K_TOTAL)) {
    if (infoSeen & 1) return -1;
    infoSeen |= 1;
    i = readVec(b, i, end);
    rTotal = vec;
    return i;
  }
  if (keyIs(b, k0, k1, K_LAST)) {
    if (infoSeen & 2) return -1;
    infoSeen |= 2;
    if (at(b, i, end) !== 0x7b) return skipValue(b, i, end, 3); // absent or not an object: no last
    i = readVec(b, i, end);
    rLast = vec;
    return i;
  }
  return skipValue(b, i, end, 3);
}

const I_TOTAL = keyBytes('{"total_token_usage":');
const I_LAST = keyBytes(',"last_token_usage":');

/** Reads `payload.info` (an object at `b[i]`) into `rUsage`: a readable total is required; -1 otherwise. */
function readInfo(b: Buffer, i: number, end: number): number {
  rTotal = null;
  rLast = null;
  infoSeen = 0;
  // As Codex writes it: the total, then the last call's usage, then other members.
  let j = -1;
  if (bytesAt(b, i, end, I_TOTAL)) {
    j = readVec(b, i + I_TOTAL.length, end);
    if (j >= 0) {
      rTotal = vec;
      infoSeen = 1;
      if (bytesAt(b, j, end, I_LAST) && at(b, j + I_LAST.length, end) === 0x7b) {
        j = readVec(b, j + I_LAST.length, end);
        rLast = vec;
        infoSeen = 3;
      }
    }
  }
  if (j < 0) {
    rTotal = null;
    rLast = null;
    infoSeen = 0;
  }
  i = j >= 0 ? members(b, j, end, true, infoMember) : members(b, i + 1, end, false, infoMember);
  if (i < 0 || rTotal === null) return -1;
  rUsage = { total: rTotal, last: rLast };
  return i;
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
  rTimestamp = undefined;
  rOrdinal = null;
  rThread = undefined;
  rUsage = null;
  topSeen = 0;
  if (!objectLine(b, start, end, topMember) || (topSeen & 6) !== 6) return null;
  return { timestamp: rTimestamp, ordinal: rOrdinal, threadId: rThread, usage: rUsage };
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
