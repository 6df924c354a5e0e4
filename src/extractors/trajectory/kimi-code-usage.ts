/**
 * kimi-code: a `usage.record` line read from its bytes (TRAJECTORIES.md,
 * "kimi-code"). The reader walks the line's object and reads only what the
 * rules use — `model`, `usageScope`, `time` and the four counts of `usage` —
 * and checks every other byte against the JSON grammar (json-bytes.ts). It
 * gives up (null: the caller parses the line with `JSON.parse`) on every line
 * that is not the usual shape, so what it returns is always what the parsed
 * line gives: a usage object with another key or a value that is not a plain
 * integer, a `\` escape in what is read, a key read twice, a `time` that is
 * neither a plain integer nor null.
 */
import { LINE_SKIP, LINE_TAKE, LINE_UNKNOWN, type LineClass } from "../../util/line-scan.js";
import {
  at,
  cursor,
  keyBytes,
  keyIs,
  objectLine,
  readStr,
  readUint,
  readUintMembers,
  RecentString,
  skipValue,
  strIs,
} from "./json-bytes.js";

/** Kimi Code writes all four counts on every `usage.record`. */
export const KIMI_CODE_USAGE_SHAPE = {
  required: ["inputOther", "output", "inputCacheRead", "inputCacheCreation"] as const,
  optional: [] as const,
  known: [] as const,
};

/** What a well-shaped `usage.record` line says. */
export interface KimiCodeUsageLine {
  /** `model` when it is a string. */
  model: string | undefined;
  /** `usageScope` when it is a string. */
  scope: string | undefined;
  /** `time` (a plain integer), undefined when absent or null. */
  time: number | undefined;
  inputOther: number;
  output: number;
  inputCacheRead: number;
  inputCacheCreation: number;
}

const K_TYPE = keyBytes("type");
const K_MODEL = keyBytes("model");
const K_SCOPE = keyBytes("usageScope");
const K_USAGE = keyBytes("usage");
const K_TIME = keyBytes("time");
const V_USAGE_RECORD = keyBytes("usage.record");
const U_KEYS = [keyBytes("inputOther"), keyBytes("output"), keyBytes("inputCacheRead"), keyBytes("inputCacheCreation")];

const counts = [0, 0, 0, 0];
const recentModel = new RecentString();
const recentScope = new RecentString();

/** Reads the usage object at `b[i]` into `counts`: exactly the four keys, once each, plain integers; else -1. */
function readCounts(b: Uint8Array, i: number, end: number): number {
  i = readUintMembers(b, i, end, U_KEYS, counts);
  return i >= 0 && cursor.num === 15 ? i : -1;
}

// What the walk read (not re-entrant): reset by readKimiCodeUsage.
let seen = 0; // 1 type, 2 model, 4 scope, 8 usage, 16 time
let rModel: string | undefined;
let rScope: string | undefined;
let rTime: number | undefined;

function topMember(b: Buffer, end: number, k0: number, k1: number, i: number): number {
  let bit = 0;
  if (keyIs(b, k0, k1, K_TYPE)) {
    bit = 1;
    i = strIs(b, i, end, V_USAGE_RECORD);
  } else if (keyIs(b, k0, k1, K_MODEL)) {
    bit = 2;
    i = readStr(b, i, end, recentModel);
    rModel = cursor.str;
  } else if (keyIs(b, k0, k1, K_SCOPE)) {
    bit = 4;
    i = readStr(b, i, end, recentScope);
    rScope = cursor.str;
  } else if (keyIs(b, k0, k1, K_USAGE)) {
    bit = 8;
    i = readCounts(b, i, end);
  } else if (keyIs(b, k0, k1, K_TIME)) {
    bit = 16;
    if (at(b, i, end) === 0x6e) {
      i = skipValue(b, i, end, 1); // null: no time
      rTime = undefined;
    } else {
      i = readUint(b, i, end);
      rTime = cursor.num;
    }
  } else return skipValue(b, i, end, 1);
  if (i < 0 || (seen & bit) !== 0) return -1;
  seen |= bit;
  return i;
}

/**
 * Reads the `usage.record` line in `b[start, end)` (without its line end):
 * `{"type":"usage.record","model":…,"usage":{…},"usageScope":…,"time":…}`
 * with members in any order. Returns what the line gives, or null when the
 * line is not that shape or not provably valid JSON (the caller then parses
 * it whole).
 */
export function readKimiCodeUsage(b: Buffer, start: number, end: number): KimiCodeUsageLine | null {
  seen = 0;
  rModel = undefined;
  rScope = undefined;
  rTime = undefined;
  if (!objectLine(b, start, end, topMember) || (seen & 9) !== 9) return null;
  return {
    model: rModel,
    scope: rScope,
    time: rTime,
    inputOther: counts[0]!,
    output: counts[1]!,
    inputCacheRead: counts[2]!,
    inputCacheCreation: counts[3]!,
  };
}

const LEAD = keyBytes('{"type":"');
const T_USAGE_RECORD = keyBytes('usage.record"');
const T_FORKED = keyBytes('forked"');

/**
 * The kimi-code fast path's first look at a line laid out as Kimi Code writes
 * it, `{"type":"…"`, from fixed byte positions: `LINE_TAKE` for a
 * `usage.record` or a `forked` marker, `LINE_SKIP` for any other type whose
 * name is a plain string, `LINE_UNKNOWN` when the line is laid out otherwise
 * (the caller then reads its leading members). Like every fast-path look, it
 * assumes no key is written twice.
 */
export function classifyKimiCodeLead(b: Buffer, start: number, end: number): LineClass {
  const t = start + LEAD.length;
  if (t > end || !keyIs(b, start, t, LEAD)) return LINE_UNKNOWN;
  if (keyIs(b, t, Math.min(end, t + T_USAGE_RECORD.length), T_USAGE_RECORD)) return LINE_TAKE;
  if (keyIs(b, t, Math.min(end, t + T_FORKED.length), T_FORKED)) return LINE_TAKE;
  const stop = Math.min(end, t + 64);
  for (let i = t; i < stop; i += 1) {
    const c = b[i]!;
    if (c === 0x22) return LINE_SKIP;
    if (c === 0x5c || c < 0x20) return LINE_UNKNOWN;
  }
  return LINE_UNKNOWN;
}
