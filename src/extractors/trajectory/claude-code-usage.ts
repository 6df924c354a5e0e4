/**
 * claude-code: an `assistant` line with usage, read from its bytes
 * (TRAJECTORIES.md, "claude-code"). The reader walks the line's object and
 * reads only what the claude-code rules use — the line's `type`,
 * `isApiErrorMessage`, `requestId` and `timestamp`, and its message's `model`,
 * `id` and `usage` counts — and checks every other byte against the JSON
 * grammar (json-bytes.ts). It gives up (null: the caller reads the line as
 * before) on every line that is not the usual shape, so what it returns is
 * always what the parsed line gives: another type, an API error or
 * `<synthetic>` notice, no `message.id`, a usage object with a key or value the
 * claude-code usage rules would tally or warn about, a `\` escape in what is
 * read, a key read twice, a `timestamp` that is not a string.
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
  RecentString,
  readUint,
  readUintMembers,
  skipString,
  skipValue,
  strIs,
} from "./json-bytes.js";
import type { UsageShape } from "./usage-shape.js";

/**
 * `message.usage` of Claude Code: input and output always; the cache counts
 * are left out by some API gateways (0 then), but a usage that carries the
 * `cache_creation` breakdown is of a version that writes both cache counts:
 * one absent is unreadable, never 0, and a `cache_creation_input_tokens` other
 * than the breakdown's sum is a mismatch (warned). `cache_creation`,
 * `server_tool_use`, `service_tier`, `inference_geo`, `iterations` and `speed`
 * are written by real logs and not counted.
 */
export const CLAUDE_CODE_USAGE_SHAPE: UsageShape<
  "input_tokens" | "output_tokens" | "cache_read_input_tokens" | "cache_creation_input_tokens"
> = {
  required: ["input_tokens", "output_tokens"] as const,
  optional: ["cache_read_input_tokens", "cache_creation_input_tokens"] as const,
  known: ["cache_creation", "server_tool_use", "service_tier", "inference_geo", "iterations", "speed"],
  breakdowns: [
    {
      object: "cache_creation",
      total: "cache_creation_input_tokens",
      requires: ["cache_creation_input_tokens", "cache_read_input_tokens"],
    },
  ],
};

/** What a well-shaped claude-code usage line says. */
export interface ClaudeCodeUsageLine {
  /** `message.id` (a non-empty string). */
  id: string;
  /** `requestId` when it is a string. */
  requestId: string | undefined;
  /** The line's `timestamp` (undefined when absent). */
  timestamp: string | undefined;
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

const K_TYPE = keyBytes("type");
const K_API_ERROR = keyBytes("isApiErrorMessage");
const K_REQUEST = keyBytes("requestId");
const K_TIMESTAMP = keyBytes("timestamp");
const K_MESSAGE = keyBytes("message");
const K_MODEL = keyBytes("model");
const K_ID = keyBytes("id");
const K_USAGE = keyBytes("usage");
const V_ASSISTANT = keyBytes("assistant");
const V_SYNTHETIC = keyBytes("<synthetic>");
const L_TRUE = keyBytes("true");

/** The count keys ({@link CLAUDE_CODE_USAGE_SHAPE}), then the `cache_creation` breakdown, then the known keys not counted. */
const U_KEYS = [
  keyBytes("input_tokens"),
  keyBytes("output_tokens"),
  keyBytes("cache_read_input_tokens"),
  keyBytes("cache_creation_input_tokens"),
  keyBytes("cache_creation"),
  keyBytes("server_tool_use"),
  keyBytes("service_tier"),
  keyBytes("inference_geo"),
  keyBytes("iterations"),
  keyBytes("speed"),
];
const U_CACHE_CREATION = 4;
/** The members of the `cache_creation` breakdown as Claude Code writes them. */
const B_KEYS = [keyBytes("ephemeral_5m_input_tokens"), keyBytes("ephemeral_1h_input_tokens")];

// What the walk read (not re-entrant): reset by readClaudeCodeUsage.
let topSeen = 0; // 1 type, 2 isApiErrorMessage, 4 requestId, 8 timestamp, 16 message
let messageSeen = 0; // 1 model, 2 id, 4 usage
let usageSeen = 0; // bit s for U_KEYS[s]
let rId: string | undefined;
let rRequest: string | undefined;
let rTimestamp: string | undefined;
// A response's lines mostly follow one another: their id and request id are decoded once.
const recentId = new RecentString();
const recentRequest = new RecentString();
const counts = [0, 0, 0, 0];
const breakdown = [0, 0];

function topMember(b: Buffer, end: number, k0: number, k1: number, i: number): number {
  if (keyIs(b, k0, k1, K_TYPE)) {
    if (topSeen & 1) return -1;
    topSeen |= 1;
    return strIs(b, i, end, V_ASSISTANT);
  }
  if (keyIs(b, k0, k1, K_API_ERROR)) {
    if (topSeen & 2) return -1;
    topSeen |= 2;
    const j = skipValue(b, i, end, 1);
    return j === i + 4 && keyIs(b, i, j, L_TRUE) ? -1 : j; // an API error notice: not a model call
  }
  if (keyIs(b, k0, k1, K_REQUEST)) {
    if (topSeen & 4) return -1;
    topSeen |= 4;
    i = readStr(b, i, end, recentRequest);
    rRequest = cursor.str;
    return i;
  }
  if (keyIs(b, k0, k1, K_TIMESTAMP)) {
    if (topSeen & 8 || at(b, i, end) !== 0x22) return -1;
    topSeen |= 8;
    i = readStr(b, i, end);
    rTimestamp = cursor.str;
    return i;
  }
  if (keyIs(b, k0, k1, K_MESSAGE)) {
    if (topSeen & 16 || at(b, i, end) !== 0x7b) return -1;
    topSeen |= 16;
    messageSeen = 0;
    i = members(b, i + 1, end, false, messageMember);
    return i < 0 || (messageSeen & 6) !== 6 ? -1 : i;
  }
  return skipValue(b, i, end, 1);
}

function messageMember(b: Buffer, end: number, k0: number, k1: number, i: number): number {
  if (keyIs(b, k0, k1, K_MODEL)) {
    if (messageSeen & 1) return -1;
    messageSeen |= 1;
    if (at(b, i, end) !== 0x22) return skipValue(b, i, end, 2); // not a string: not `<synthetic>`
    const j = skipString(b, i, end);
    return j < 0 || cursor.escaped || keyIs(b, i + 1, j - 1, V_SYNTHETIC) ? -1 : j; // a local notice
  }
  if (keyIs(b, k0, k1, K_ID)) {
    if (messageSeen & 2) return -1;
    messageSeen |= 2;
    i = readStr(b, i, end, recentId);
    rId = cursor.str;
    return i;
  }
  if (keyIs(b, k0, k1, K_USAGE)) {
    if (messageSeen & 4 || at(b, i, end) !== 0x7b) return -1;
    messageSeen |= 4;
    return readUsageObject(b, i, end);
  }
  return skipValue(b, i, end, 2);
}

/**
 * The usage object at `b[i]` into `counts`: input and output present; with
 * the `cache_creation` breakdown, both cache counts present and the
 * breakdown's sum equal to `cache_creation_input_tokens` (else the rules warn:
 * give up); an absent cache count is 0.
 */
function readUsageObject(b: Buffer, i: number, end: number): number {
  usageSeen = 0;
  counts[2] = 0;
  counts[3] = 0;
  i = members(b, i + 1, end, false, usageMember);
  if (i < 0 || (usageSeen & 3) !== 3) return -1;
  if (usageSeen & (1 << U_CACHE_CREATION)) {
    if ((usageSeen & 12) !== 12 || breakdown[0]! + breakdown[1]! !== counts[3]) return -1;
  }
  return i;
}

function usageMember(b: Buffer, end: number, k0: number, k1: number, i: number): number {
  const slot = keySlot(b, k0, k1, U_KEYS);
  if (slot < 0 || (usageSeen & (1 << slot)) !== 0) return -1; // another key: the rules tally or ignore it
  usageSeen |= 1 << slot;
  if (slot < 4) {
    i = readUint(b, i, end);
    counts[slot] = cursor.num;
    return i;
  }
  if (slot === U_CACHE_CREATION) {
    breakdown[0] = 0;
    breakdown[1] = 0;
    return readUintMembers(b, i, end, B_KEYS, breakdown);
  }
  return skipValue(b, i, end, 3); // known, not counted: any value
}

/**
 * Reads the claude-code usage line in `b[start, end)` (without its line end):
 * `{…,"message":{"model":…,"id":…,…,"usage":{…}},"requestId":…,"type":"assistant",…,"timestamp":…}`
 * with members in any order. Returns what the line gives, or null when the
 * line is not that shape or not provably valid JSON (the caller then reads it
 * as before).
 */
export function readClaudeCodeUsage(b: Buffer, start: number, end: number): ClaudeCodeUsageLine | null {
  topSeen = 0;
  rId = undefined;
  rRequest = undefined;
  rTimestamp = undefined;
  if (!objectLine(b, start, end, topMember) || (topSeen & 17) !== 17 || !rId) return null;
  return {
    id: rId,
    requestId: rRequest,
    timestamp: rTimestamp,
    input_tokens: counts[0]!,
    output_tokens: counts[1]!,
    cache_read_input_tokens: counts[2]!,
    cache_creation_input_tokens: counts[3]!,
  };
}
