/**
 * The byte-level readers of the marker-mode formats' usage lines (pi message
 * entries, claude-code assistant lines, kimi-cli StatusUpdates) give what
 * `JSON.parse` and the format's usage rules give, or give up (null, the caller
 * reads the line as before): never a different number, never a line
 * `JSON.parse` refuses, never a line the rules tally or warn about. Checked on
 * every line of the real samples, of generated benchmark logs, and on fuzzed
 * lines; and end to end, a usage line damaged outside the part read is warned
 * and dropped as with the fast path off.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isObject, obj, str } from "../src/extractors/trajectory/common.js";
import { PI_USAGE_SHAPE, readPiUsage } from "../src/extractors/trajectory/pi-usage.js";
import { CLAUDE_CODE_USAGE_SHAPE, readClaudeCodeUsage } from "../src/extractors/trajectory/claude-code-usage.js";
import { KIMI_CLI_USAGE_SHAPE, readKimiCliUsage } from "../src/extractors/trajectory/kimi-cli-usage.js";
import { readUsage } from "../src/extractors/trajectory/usage-shape.js";
import { generateRun } from "../bench/gen.js";
import { expectDamagedAsSlow, filesUnder, fuzzReader, linesOf, sampleLines } from "./helpers/usage-lines.js";

type Format = "pi" | "claude-code" | "kimi-cli";

function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text.trim()) };
  } catch {
    return { ok: false };
  }
}

/** A usage reading's counts, or why the rules do not count it plainly (a string: the byte reader must give up). */
function countsOf<K extends string>(
  usage: Record<string, unknown> | undefined,
  shape: Parameters<typeof readUsage<K>>[1],
) {
  if (!usage) return "no usage";
  const r = readUsage(usage, shape);
  if (r.kind !== "ok") return `usage ${r.kind}`;
  if (r.unknown.length > 0 || r.mismatches.length > 0) return "tallied";
  return r.counts;
}

/** What the pi scan takes from a parsed entry, or why the byte reader must give up. */
function piSlow(value: unknown): unknown {
  if (!isObject(value) || value["type"] !== "message") return "another line";
  const message = obj(value, "message");
  if (str(message, "role") !== "assistant") return "another line";
  const counts = countsOf(obj(message, "usage"), PI_USAGE_SHAPE);
  if (typeof counts === "string") return counts;
  const id = str(value, "id");
  if (!id) return "no id";
  const t = value["timestamp"];
  if (t !== undefined && typeof t !== "string") return "odd timestamp";
  const mt = message!["timestamp"];
  if (mt !== undefined && !(Number.isSafeInteger(mt) && (mt as number) >= 0)) return "odd message timestamp";
  return { id, timestamp: t, messageTimestamp: mt, ...counts };
}

/** What the claude-code scan takes from a parsed line, or why the byte reader must give up. */
function claudeSlow(value: unknown): unknown {
  if (!isObject(value) || value["type"] !== "assistant") return "another line";
  const message = obj(value, "message");
  if (str(message, "model") === "<synthetic>" || value["isApiErrorMessage"] === true) return "a notice";
  const counts = countsOf(obj(message, "usage"), CLAUDE_CODE_USAGE_SHAPE);
  if (typeof counts === "string") return counts;
  const id = str(message, "id");
  if (!id) return "no id";
  const t = value["timestamp"];
  if (t !== undefined && typeof t !== "string") return "odd timestamp";
  return { id, requestId: str(value, "requestId"), timestamp: t, ...counts };
}

/** What the kimi-cli scan takes from a parsed line, or why the byte reader must give up. */
function kimiCliSlow(value: unknown): unknown {
  const message = obj(value, "message");
  if (str(message, "type") !== "StatusUpdate") return "another line";
  const payload = obj(message, "payload");
  const counts = countsOf(obj(payload, "token_usage"), KIMI_CLI_USAGE_SHAPE);
  if (typeof counts === "string") return counts;
  const t = (value as Record<string, unknown>)["timestamp"];
  if (t !== undefined && typeof t !== "number") return "odd timestamp";
  const id = payload!["message_id"];
  if (id !== undefined && typeof id !== "string") return "odd message id";
  return { timestamp: t, messageId: id ?? null, ...counts };
}

const READERS: Record<Format, { fast: (b: Buffer, s: number, e: number) => unknown; slow: (v: unknown) => unknown }> = {
  pi: { fast: readPiUsage, slow: piSlow },
  "claude-code": { fast: readClaudeCodeUsage, slow: claudeSlow },
  "kimi-cli": { fast: readKimiCliUsage, slow: kimiCliSlow },
};

/**
 * Checks one line both ways: when the byte reader takes it, `JSON.parse`
 * accepts it and the rules count it plainly, with the same values. Returns
 * whether it was taken, and whether the rules count it plainly.
 */
function check(format: Format, line: string): { took: boolean; plain: boolean } {
  const { fast, slow } = READERS[format];
  // The line is followed by another in the buffer, as in the scanner's.
  const got = fast(Buffer.from(`${line}\n{"next":1}`), 0, Buffer.byteLength(line));
  const p = parse(line);
  const want = p.ok ? slow(p.value) : "not JSON";
  if (got !== null) expect(got, line).toEqual(want);
  return { took: got !== null, plain: typeof want === "object" };
}

const tmp = mkdtempSync(join(tmpdir(), "ptb-usage-bytes-marker-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const generated: Record<string, string[]> = {};
beforeAll(async () => {
  for (const f of ["pi", "claude-code", "kimi-cli"] as const) {
    await generateRun(f, join(tmp, f), 600_000, 2);
    generated[f] = linesOf(filesUnder(join(tmp, f)));
  }
});

const BASE: Record<Format, string> = {
  pi: '{"type":"message","id":"e1","parentId":null,"timestamp":"2026-11-08T23:40:45.229Z","message":{"role":"assistant","content":[{"type":"text","text":"é\\n"}],"model":"m","usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"input":0.5,"total":1e-3}},"stopReason":"stop","timestamp":1794181295498}}',
  "claude-code":
    '{"parentUuid":null,"message":{"model":"claude-opus-5","id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"é\\n"}],"usage":{"input_tokens":21,"cache_creation_input_tokens":1082,"cache_read_input_tokens":111073,"cache_creation":{"ephemeral_5m_input_tokens":1082,"ephemeral_1h_input_tokens":0},"output_tokens":313,"service_tier":"standard","server_tool_use":{"web_search_requests":0}}},"requestId":"req_1","type":"assistant","uuid":"u1","timestamp":"2026-10-21T09:18:31.475Z"}',
  "kimi-cli":
    '{"timestamp": 1794133596.0971034, "message": {"type": "StatusUpdate", "payload": {"context_usage": 0.71, "context_tokens": 26103, "token_usage": {"input_other": 2849, "output": 1526, "input_cache_read": 23254, "input_cache_creation": 0}, "message_id": "chatcmpl-1", "plan_mode": false, "x": "é\\n"}}}',
};

/** Lines the rules count but the byte reader leaves to the fallback, each with why. */
const GIVE_UP: Record<Format, [string, string][]> = {
  pi: [
    ['"id":"e1"', '"id":""'], // version 1: no id
    ['"role":"assistant"', '"role":"user"'],
    ['"type":"message"', '"type":"session"'],
    ['"totalTokens":10', '"totalTokens":11'], // mismatch: warned
    ['"cacheWrite":4', '"cacheWrite":4,"extra":1'], // unknown key: tallied
    ['"cacheWrite":4,', ""], // missing count
    ['"input":1', '"input":1.5'], // not a count
    ['"input":1', '"input":1,"input":1'], // key twice
    ['"timestamp":"2026', '"timestamp":"\\u0032026'], // escaped
    ['"timestamp":1794181295498', '"timestamp":1794181295498.5'],
    ['"timestamp":"2026-11-08T23:40:45.229Z"', '"timestamp":1'],
    ['"message":{', '"message":{"usage":null,'], // usage twice
  ],
  "claude-code": [
    ['"model":"claude-opus-5"', '"model":"<synthetic>"'],
    ['"model":"claude-opus-5"', '"model":"\\u003csynthetic>"'],
    ['"requestId":"req_1"', '"isApiErrorMessage":true,"requestId":"req_1"'],
    ['"id":"msg_1"', '"id":null'],
    ['"type":"assistant","uuid"', '"type":"progress","uuid"'],
    ['"ephemeral_1h_input_tokens":0', '"ephemeral_1h_input_tokens":1'], // breakdown ≠ total: warned
    ['"cache_read_input_tokens":111073,', ""], // breakdown without a cache count: unreadable
    ['"ephemeral_1h_input_tokens":0', '"ephemeral_1h_input_tokens":0,"other":0'],
    ['"output_tokens":313', '"output_tokens":313,"new_tokens":1'], // unknown key: tallied
    ['"output_tokens":313', '"output_tokens":null'],
    ['"timestamp":"2026-10-21T09:18:31.475Z"', '"timestamp":5'],
    ['"requestId":"req_1"', '"requestId":"req\\u005f1"'],
  ],
  "kimi-cli": [
    ['"type": "StatusUpdate"', '"type": "SubagentEvent"'],
    ['"input_cache_creation": 0', '"input_cache_creation": 0, "extra": 1'],
    ['"input_cache_creation": 0', '"input_cache_creation": null'],
    ['"output": 1526', '"output": -1'],
    ['"message_id": "chatcmpl-1"', '"message_id": 5'],
    ['"timestamp": 1794133596.0971034', '"timestamp": "1794133596"'],
    ['"timestamp": 1794133596.0971034', '"timestamp": 1, "timestamp": 2'],
    ['"token_usage"', '"token_usage": null, "token_usage"'],
  ],
};

for (const format of ["pi", "claude-code", "kimi-cli"] as const) {
  describe(`${format} usage reader`, () => {
    it("reads every usage line of the real samples and of generated logs as JSON.parse and the rules do", () => {
      const lines = [...sampleLines(format), ...generated[format]!];
      let usage = 0;
      for (const l of lines) {
        const { took, plain } = check(format, l);
        if (took) usage += 1;
        else expect(plain, l).toBe(false); // the usual shape is never left to the fallback
      }
      expect(usage).toBeGreaterThan(50);
    });

    it("reads the usual line, and gives up on what the rules treat otherwise", () => {
      const b = BASE[format];
      expect(check(format, b)).toEqual({ took: true, plain: true });
      for (const [from, to] of GIVE_UP[format]) {
        const l = b.replace(from, to);
        expect(l, `${from} → ${to}`).not.toBe(b);
        expect(check(format, l).took, l).toBe(false);
      }
      // Broken JSON outside what is read, or around the object.
      expect(b).toContain("é");
      for (const l of [b.replace("é", "\u0001"), b.replace('"é', '"\\x'), `${b}x`, b.slice(0, -1), ` ${b} `]) {
        const { took } = check(format, l);
        expect(took, l).toBe(l === ` ${b} `);
      }
    });

    it("never reads a fuzzed line otherwise than JSON.parse and the rules do", () => {
      const bases = [BASE[format], ...generated[format]!.filter((l) => check(format, l).took).slice(0, 40)];
      fuzzReader(bases, (line) => check(format, line).took, 6000);
    });
  });
}

describe("a marker-mode usage line damaged outside the part read", () => {
  const pi = (i: number, tail: string) =>
    `{"type":"message","id":"e${i}","parentId":null,"timestamp":"2026-11-08T23:4${i}:00.000Z","message":{"role":"assistant","x":${tail},"usage":{"input":${i},"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":${i + 9},"cost":{"total":0}},"timestamp":1794181295498}}`;
  const claude = (i: number, tail: string) =>
    `{"message":{"model":"m","id":"msg_${i}","x":${tail},"usage":{"input_tokens":${i},"output_tokens":20}},"requestId":"r${i}","type":"assistant","timestamp":"2026-10-21T09:1${i}:31.475Z"}`;
  const kimi = (i: number, tail: string) =>
    `{"timestamp": 179413359${i}.5, "message": {"type": "StatusUpdate", "payload": {"x": ${tail}, "token_usage": {"input_other": ${i}, "output": 1, "input_cache_read": 2, "input_cache_creation": 0}, "message_id": "c${i}"}}}`;
  for (const [format, file, line, head] of [
    ["pi", "sessions/--w--/2026-11-08T23-40-00-000Z_s1.jsonl", pi, '{"type":"session","version":3,"id":"s1"}'],
    ["claude-code", "projects/-w/s1.jsonl", claude, '{"type":"user","message":{"role":"user","content":"hi"}}'],
    ["kimi-cli", "sessions/h/s1/wire.jsonl", kimi, '{"type": "metadata", "protocol_version": "1.3"}'],
  ] as const) {
    it(`${format}: is warned and dropped as with JSON.parse`, async () => {
      const dir = join(tmp, `damaged-${format}`);
      await expectDamagedAsSlow(format, dir, file, head, line);
    });
  }
});
