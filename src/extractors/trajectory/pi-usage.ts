/**
 * pi: an assistant `message` entry with usage, read from its bytes
 * (TRAJECTORIES.md, "pi"). The reader walks the line's object and reads only
 * what the pi rules use — the entry's `type`, `id` and `timestamp`, and its
 * message's `role`, `usage` counts and `timestamp` — and checks every other
 * byte against the JSON grammar (json-bytes.ts). It gives up (null: the caller
 * reads the line as before) on every line that is not the usual shape, so what
 * it returns is always what the parsed line gives: another type or role, no
 * `id` (version 1 files), a usage object with a key or value pi's usage rules
 * would tally or warn about, a `\` escape in what is read, a key read twice, a
 * time that is not a plain string (entry) or plain integer (message).
 */
import {
  at,
  cursor,
  keyBytes,
  keyIs,
  keySlot,
  members,
  objectLine,
  readStr,
  readUint,
  skipValue,
  strIs,
} from "./json-bytes.js";
import type { UsageShape } from "./usage-shape.js";

/**
 * pi writes all four counts; `totalTokens` (not in version 1) and `cost` are
 * derived, not counted. A `totalTokens` other than the sum of the four is a
 * mismatch (warned).
 */
export const PI_USAGE_SHAPE: UsageShape<"input" | "output" | "cacheRead" | "cacheWrite"> = {
  required: ["input", "output", "cacheRead", "cacheWrite"] as const,
  optional: [] as const,
  known: ["totalTokens", "cost"],
  sums: [{ total: "totalTokens", parts: ["input", "output", "cacheRead", "cacheWrite"] }],
};

/** What a well-shaped pi usage entry says. */
export interface PiUsageLine {
  /** The entry's `id` (a non-empty string). */
  id: string;
  /** The entry's `timestamp` when it is a string (undefined when absent). */
  timestamp: string | undefined;
  /** `message.timestamp` (epoch ms, a plain integer), undefined when absent. */
  messageTimestamp: number | undefined;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

const K_TYPE = keyBytes("type");
const K_ID = keyBytes("id");
const K_TIMESTAMP = keyBytes("timestamp");
const K_MESSAGE = keyBytes("message");
const K_ROLE = keyBytes("role");
const K_USAGE = keyBytes("usage");
const V_MESSAGE = keyBytes("message");
const V_ASSISTANT = keyBytes("assistant");
/** pi's usage keys ({@link PI_USAGE_SHAPE}): the four counts, then the derived `totalTokens` and `cost`. */
const U_KEYS = [
  keyBytes("input"),
  keyBytes("output"),
  keyBytes("cacheRead"),
  keyBytes("cacheWrite"),
  keyBytes("totalTokens"),
  keyBytes("cost"),
];

// What the walk read (not re-entrant): reset by readPiUsage.
let topSeen = 0; // 1 type, 2 id, 4 timestamp, 8 message
let messageSeen = 0; // 1 role, 2 usage, 4 timestamp
let usageSeen = 0; // bit s for U_KEYS[s]
let rId: string | undefined;
let rTimestamp: string | undefined;
let rMessageTimestamp: number | undefined;
const counts = [0, 0, 0, 0, 0];

function topMember(b: Buffer, end: number, k0: number, k1: number, i: number): number {
  if (keyIs(b, k0, k1, K_TYPE)) {
    if (topSeen & 1) return -1;
    topSeen |= 1;
    return strIs(b, i, end, V_MESSAGE);
  }
  if (keyIs(b, k0, k1, K_ID)) {
    if (topSeen & 2) return -1;
    topSeen |= 2;
    i = readStr(b, i, end);
    rId = cursor.str;
    return i;
  }
  if (keyIs(b, k0, k1, K_TIMESTAMP)) {
    if (topSeen & 4 || at(b, i, end) !== 0x22) return -1; // not a string: the rules' fallbacks decide
    topSeen |= 4;
    i = readStr(b, i, end);
    rTimestamp = cursor.str;
    return i;
  }
  if (keyIs(b, k0, k1, K_MESSAGE)) {
    if (topSeen & 8 || at(b, i, end) !== 0x7b) return -1;
    topSeen |= 8;
    messageSeen = 0;
    i = members(b, i + 1, end, false, messageMember);
    return i < 0 || (messageSeen & 3) !== 3 ? -1 : i;
  }
  return skipValue(b, i, end, 1);
}

function messageMember(b: Buffer, end: number, k0: number, k1: number, i: number): number {
  if (keyIs(b, k0, k1, K_ROLE)) {
    if (messageSeen & 1) return -1;
    messageSeen |= 1;
    return strIs(b, i, end, V_ASSISTANT);
  }
  if (keyIs(b, k0, k1, K_USAGE)) {
    if (messageSeen & 2 || at(b, i, end) !== 0x7b) return -1;
    messageSeen |= 2;
    usageSeen = 0;
    i = members(b, i + 1, end, false, usageMember);
    // The four counts present; a written total equal to their sum (else a mismatch: the rules warn).
    if (i < 0 || (usageSeen & 15) !== 15) return -1;
    if (usageSeen & 16 && counts[4] !== counts[0]! + counts[1]! + counts[2]! + counts[3]!) return -1;
    return i;
  }
  if (keyIs(b, k0, k1, K_TIMESTAMP)) {
    if (messageSeen & 4) return -1;
    messageSeen |= 4;
    i = readUint(b, i, end);
    rMessageTimestamp = cursor.num;
    return i;
  }
  return skipValue(b, i, end, 2);
}

function usageMember(b: Buffer, end: number, k0: number, k1: number, i: number): number {
  const slot = keySlot(b, k0, k1, U_KEYS);
  if (slot < 0 || (usageSeen & (1 << slot)) !== 0) return -1; // another key: the rules tally or ignore it
  usageSeen |= 1 << slot;
  if (slot === 5) return skipValue(b, i, end, 3); // cost: derived, any value
  i = readUint(b, i, end);
  counts[slot] = cursor.num;
  return i;
}

/**
 * Reads the pi usage entry in `b[start, end)` (without its line end):
 * `{"type":"message","id":…,"timestamp":…,"message":{"role":"assistant",…,"usage":{…},"timestamp":…}}`
 * with members in any order. Returns what the line gives, or null when the
 * line is not that shape or not provably valid JSON (the caller then reads it
 * as before).
 */
export function readPiUsage(b: Buffer, start: number, end: number): PiUsageLine | null {
  topSeen = 0;
  rId = undefined;
  rTimestamp = undefined;
  rMessageTimestamp = undefined;
  if (!objectLine(b, start, end, topMember) || (topSeen & 11) !== 11 || !rId) return null;
  return {
    id: rId,
    timestamp: rTimestamp,
    messageTimestamp: rMessageTimestamp,
    input: counts[0]!,
    output: counts[1]!,
    cacheRead: counts[2]!,
    cacheWrite: counts[3]!,
  };
}
