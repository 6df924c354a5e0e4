/**
 * codex: the time of a rollout line that is neither a usage line nor a
 * `session_meta`, read from its bytes (TRAJECTORIES.md, "codex": a fork's or
 * sub-agent's replayed history is told by the times of all its lines, so
 * every line of such a file is read). The reader walks the line's object,
 * reads the top-level `timestamp` and `type`, and checks every other byte
 * against the JSON grammar (json-bytes.ts), so a line it reads is proven
 * valid JSON. It gives up (null: the caller parses the line with
 * `JSON.parse`) on a line whose `type` is one the counter reads more of
 * (`session_meta`, `event_msg`, `token_usage_record`), a `\` escape in a key,
 * the `type` or the `timestamp`, a key read twice, or a line that is not one
 * valid JSON object.
 */
import { at, cursor, keyBytes, keyIs, objectLine, readStr, skipString, skipValue } from "./json-bytes.js";

const K_TIMESTAMP = keyBytes("timestamp");
const K_TYPE = keyBytes("type");
/** The types whose lines the counter reads more of than the time. */
const READ_WHOLE = [keyBytes("session_meta"), keyBytes("event_msg"), keyBytes("token_usage_record")];

// What the walk read (not re-entrant): reset by readCodexLineTime.
let seen = 0;
let readWhole = false;
let timestamp: string | undefined;

function topMember(b: Buffer, end: number, k0: number, k1: number, v: number): number {
  if (keyIs(b, k0, k1, K_TIMESTAMP)) {
    if ((seen & 1) !== 0) return -1;
    seen |= 1;
    const j = readStr(b, v, end);
    timestamp = cursor.str;
    return j;
  }
  if (keyIs(b, k0, k1, K_TYPE)) {
    if ((seen & 2) !== 0) return -1;
    seen |= 2;
    if (at(b, v, end) !== 0x22) return skipValue(b, v, end, 1);
    const j = skipString(b, v, end);
    if (j < 0 || cursor.escaped) return -1;
    readWhole = READ_WHOLE.some((t) => keyIs(b, v + 1, j - 1, t));
    return j;
  }
  return skipValue(b, v, end, 1);
}

/**
 * Reads the line `b[start, end)` (without its line end) when it is one JSON
 * object whose `type` is none of `session_meta`, `event_msg` and
 * `token_usage_record`: returns `{ timestamp }`, the top-level `timestamp`
 * when it is a string (undefined otherwise, as `JSON.parse` would give a
 * non-string or no value there), or null when the caller must parse the line
 * whole (see the module's comment).
 */
export function readCodexLineTime(b: Buffer, start: number, end: number): { timestamp: string | undefined } | null {
  seen = 0;
  readWhole = false;
  timestamp = undefined;
  if (!objectLine(b, start, end, topMember) || readWhole) return null;
  return { timestamp };
}
