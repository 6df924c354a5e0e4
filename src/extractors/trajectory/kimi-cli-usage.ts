/**
 * kimi-cli: a `StatusUpdate` line with `token_usage`, read from its bytes
 * (TRAJECTORIES.md, "kimi-cli"). The reader walks the line's object and reads
 * only what the kimi-cli rules use — the line's `timestamp`, and its message's
 * `type` and payload's `token_usage` counts and `message_id` — and checks every
 * other byte against the JSON grammar (json-bytes.ts). It gives up (null: the
 * caller reads the line as before) on every line that is not the usual shape,
 * so what it returns is always what the parsed line gives: a forwarded
 * `SubagentEvent` or another type, a `token_usage` with a key or value the
 * usage rules would tally or warn about, a `\` escape in what is read, a key
 * read twice, a `timestamp` that is not a number or a `message_id` that is not
 * a string.
 */
import {
  at,
  cursor,
  keyBytes,
  keyIs,
  members,
  objectLine,
  readStr,
  readUintMembers,
  skipValue,
  strIs,
} from "./json-bytes.js";

/** Kimi CLI writes all four counts of every `token_usage`. */
export const KIMI_CLI_USAGE_SHAPE = {
  required: ["input_other", "output", "input_cache_read", "input_cache_creation"] as const,
  optional: [] as const,
  known: [] as const,
};

/** What a well-shaped kimi-cli usage line says. */
export interface KimiCliUsageLine {
  /** The line's `timestamp` (epoch seconds), undefined when absent. */
  timestamp: number | undefined;
  /** `message.payload.message_id`, null when absent. */
  messageId: string | null;
  input_other: number;
  output: number;
  input_cache_read: number;
  input_cache_creation: number;
}

const K_TIMESTAMP = keyBytes("timestamp");
const K_MESSAGE = keyBytes("message");
const K_TYPE = keyBytes("type");
const K_PAYLOAD = keyBytes("payload");
const K_USAGE = keyBytes("token_usage");
const K_MESSAGE_ID = keyBytes("message_id");
const V_STATUS_UPDATE = keyBytes("StatusUpdate");
/** Kimi CLI's four counts ({@link KIMI_CLI_USAGE_SHAPE}), all required. */
const U_KEYS = [
  keyBytes("input_other"),
  keyBytes("output"),
  keyBytes("input_cache_read"),
  keyBytes("input_cache_creation"),
];

// What the walk read (not re-entrant): reset by readKimiCliUsage.
let topSeen = 0; // 1 timestamp, 2 message
let messageSeen = 0; // 1 type, 2 payload
let payloadSeen = 0; // 1 token_usage, 2 message_id
let rTimestamp: number | undefined;
let rMessageId: string | null = null;
const counts = [0, 0, 0, 0];

function topMember(b: Buffer, end: number, k0: number, k1: number, i: number): number {
  if (keyIs(b, k0, k1, K_TIMESTAMP)) {
    if (topSeen & 1) return -1;
    topSeen |= 1;
    const c = at(b, i, end);
    if (c !== 0x2d && (c < 0x30 || c > 0x39)) return -1; // not a number: the rules' fallbacks decide
    const j = skipValue(b, i, end, 1);
    if (j < 0) return -1;
    rTimestamp = Number(b.toString("latin1", i, j)); // as JSON.parse reads it: the nearest double
    return j;
  }
  if (keyIs(b, k0, k1, K_MESSAGE)) {
    if (topSeen & 2 || at(b, i, end) !== 0x7b) return -1;
    topSeen |= 2;
    messageSeen = 0;
    i = members(b, i + 1, end, false, messageMember);
    return i < 0 || (messageSeen & 3) !== 3 ? -1 : i;
  }
  return skipValue(b, i, end, 1);
}

function messageMember(b: Buffer, end: number, k0: number, k1: number, i: number): number {
  if (keyIs(b, k0, k1, K_TYPE)) {
    if (messageSeen & 1) return -1;
    messageSeen |= 1;
    return strIs(b, i, end, V_STATUS_UPDATE);
  }
  if (keyIs(b, k0, k1, K_PAYLOAD)) {
    if (messageSeen & 2 || at(b, i, end) !== 0x7b) return -1;
    messageSeen |= 2;
    payloadSeen = 0;
    i = members(b, i + 1, end, false, payloadMember);
    return i < 0 || (payloadSeen & 1) !== 1 ? -1 : i;
  }
  return skipValue(b, i, end, 2);
}

function payloadMember(b: Buffer, end: number, k0: number, k1: number, i: number): number {
  if (keyIs(b, k0, k1, K_USAGE)) {
    if (payloadSeen & 1) return -1;
    payloadSeen |= 1;
    i = readUintMembers(b, i, end, U_KEYS, counts);
    return i >= 0 && cursor.num === 15 ? i : -1; // exactly the four counts, plain integers
  }
  if (keyIs(b, k0, k1, K_MESSAGE_ID)) {
    if (payloadSeen & 2 || at(b, i, end) !== 0x22) return -1;
    payloadSeen |= 2;
    i = readStr(b, i, end);
    rMessageId = cursor.str ?? null;
    return i;
  }
  return skipValue(b, i, end, 3);
}

/**
 * Reads the kimi-cli usage line in `b[start, end)` (without its line end):
 * `{"timestamp": …, "message": {"type": "StatusUpdate", "payload": {…, "token_usage": {…}, "message_id": …}}}`
 * with members in any order. Returns what the line gives, or null when the
 * line is not that shape or not provably valid JSON (the caller then reads it
 * as before).
 */
export function readKimiCliUsage(b: Buffer, start: number, end: number): KimiCliUsageLine | null {
  topSeen = 0;
  rTimestamp = undefined;
  rMessageId = null;
  if (!objectLine(b, start, end, topMember) || (topSeen & 2) !== 2) return null;
  return {
    timestamp: rTimestamp,
    messageId: rMessageId,
    input_other: counts[0]!,
    output: counts[1]!,
    input_cache_read: counts[2]!,
    input_cache_creation: counts[3]!,
  };
}
