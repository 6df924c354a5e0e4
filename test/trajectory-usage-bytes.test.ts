/**
 * The byte-level readers of codex `token_count` and kimi-code `usage.record`
 * lines give what `JSON.parse` and the format's usage rules give, or give up
 * (null, the caller parses the line whole): never a different number, never
 * a line `JSON.parse` refuses. Checked on every line of the real samples, of
 * generated benchmark logs, and on fuzzed lines.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isObject, obj, str } from "../src/extractors/trajectory/common.js";
import { LINE_SKIP, LINE_TAKE, LINE_UNKNOWN } from "../src/util/line-scan.js";
import {
  CODEX_USAGE_SHAPE,
  classifyCodexLead,
  readCodexTokenCount,
  type CodexVec,
} from "../src/extractors/trajectory/codex-usage.js";
import {
  classifyKimiCodeLead,
  KIMI_CODE_USAGE_SHAPE,
  readKimiCodeUsage,
} from "../src/extractors/trajectory/kimi-code-usage.js";
import { readUsage } from "../src/extractors/trajectory/usage-shape.js";
import { cursor, readStr, RecentString } from "../src/extractors/trajectory/json-bytes.js";
import { generateRun } from "../bench/gen.js";
import {
  expectDamagedAsSlow,
  filesUnder,
  fuzzReader,
  linesOf,
  sampleLines,
  takenAtLeast,
} from "./helpers/usage-lines.js";

function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text.trim()) };
  } catch {
    return { ok: false };
  }
}

function vec(c: Record<string, number>): CodexVec {
  return {
    input: c["input_tokens"]!,
    cached: c["cached_input_tokens"]!,
    cacheWrite: c["cache_write_input_tokens"]!,
    output: c["output_tokens"]!,
  };
}

/** What the codex scan takes from a parsed line, or a reason it is not a plain token_count (the reader must give up). */
function codexSlow(value: unknown): unknown {
  if (!isObject(value)) return "not an object";
  const payload = obj(value, "payload");
  if (value["type"] !== "event_msg" || !payload || payload["type"] !== "token_count") return "another line";
  const o = value["ordinal"];
  const head = {
    timestamp: str(value, "timestamp"),
    ordinal: typeof o === "number" && Number.isInteger(o) ? o : null,
    threadId: str(payload, "thread_id"),
  };
  const info = payload["info"];
  if (!isObject(info)) return { ...head, usage: null };
  const t = info["total_token_usage"];
  if (!isObject(t)) return "no total";
  const total = readUsage(t, CODEX_USAGE_SHAPE);
  if (total.kind !== "ok") return `total ${total.kind}`;
  const l = info["last_token_usage"];
  const lr = isObject(l) ? readUsage(l, CODEX_USAGE_SHAPE) : null;
  return {
    ...head,
    usage: { total: vec(total.counts), last: lr?.kind === "ok" ? vec(lr.counts) : null },
    // Tallied by the slow path: the fast reader must give up on these.
    tallied: total.unknown.length > 0 || total.mismatches.length > 0,
  };
}

function kimiSlow(value: unknown): unknown {
  if (!isObject(value) || value["type"] !== "usage.record") return "another line";
  const u = obj(value, "usage");
  if (!u) return "no usage";
  const r = readUsage(u, KIMI_CODE_USAGE_SHAPE);
  if (r.kind !== "ok") return `usage ${r.kind}`;
  const t = value["time"];
  return {
    model: str(value, "model"),
    scope: str(value, "usageScope"),
    time: t === null || t === undefined ? undefined : t,
    ...r.counts,
    tallied: r.unknown.length > 0,
  };
}

/** Checks one line both ways; returns whether the byte reader took it. */
function checkCodex(line: string): boolean {
  const b = Buffer.from(`${line}\n{"next":1}`);
  const fast = readCodexTokenCount(b, 0, Buffer.byteLength(line));
  if (fast === null) return false;
  const p = parse(line);
  expect(p.ok, line).toBe(true);
  const slow = codexSlow(p.ok ? p.value : undefined) as Record<string, unknown>;
  expect(typeof slow, line).toBe("object");
  expect(slow["tallied"] ?? false, line).toBe(false);
  const { tallied: _, ...want } = slow;
  expect(fast, line).toEqual(want);
  return true;
}

function checkKimi(line: string): boolean {
  const b = Buffer.from(`${line}\n{"next":1}`);
  const fast = readKimiCodeUsage(b, 0, Buffer.byteLength(line));
  if (fast === null) return false;
  const p = parse(line);
  expect(p.ok, line).toBe(true);
  const slow = kimiSlow(p.ok ? p.value : undefined) as Record<string, unknown>;
  expect(typeof slow, line).toBe("object");
  expect(slow["tallied"], line).toBe(false);
  const { tallied: _, ...want } = slow;
  expect(fast, line).toEqual(want);
  return true;
}

const tmp = mkdtempSync(join(tmpdir(), "ptb-usage-bytes-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const generated: Record<string, string[]> = {};
beforeAll(async () => {
  for (const f of ["codex", "kimi-code"] as const) {
    await generateRun(f, join(tmp, f), 600_000, 2);
    generated[f] = linesOf(filesUnder(join(tmp, f)));
  }
});

const isCodexUsage = (l: string) => l.includes('"token_count"') && l.includes('"event_msg"');
const isKimiUsage = (l: string) => l.includes('"usage.record"');

describe("codex token_count reader", () => {
  it("reads every token_count line of the real samples and of generated logs as JSON.parse does", () => {
    const lines = [...sampleLines("codex"), ...generated["codex"]!];
    let usage = 0;
    for (const l of lines) {
      const took = checkCodex(l);
      if (isCodexUsage(l)) {
        expect(took, l).toBe(true); // the usual shape is never left to the fallback
        usage += 1;
      } else expect(took, l).toBe(false);
    }
    expect(usage).toBeGreaterThan(takenAtLeast(150, 80));
  });

  it("reads a heartbeat, an ordinal, a thread id and members in another order", () => {
    const b = (s: string) => Buffer.from(s);
    const hb =
      '{"timestamp":"2026-02-23T11:41:32.787Z","type":"event_msg","payload":{"type":"token_count","info":null}}';
    expect(readCodexTokenCount(b(hb), 0, hb.length)).toEqual({
      timestamp: "2026-02-23T11:41:32.787Z",
      ordinal: null,
      threadId: undefined,
      usage: null,
    });
    const u = '{"input_tokens":10,"cached_input_tokens":4,"output_tokens":3,"cache_write_input_tokens":2}';
    const l = ` {"payload":{"thread_id":"t1","info":{"last_token_usage":null,"total_token_usage":${u}},"type":"token_count"},"ordinal":7,"type":"event_msg"} `;
    expect(readCodexTokenCount(b(l), 0, l.length)).toEqual({
      timestamp: undefined,
      ordinal: 7,
      threadId: "t1",
      usage: { total: { input: 10, cached: 4, cacheWrite: 2, output: 3 }, last: null },
    });
  });

  it("gives up on what the usage rules tally or warn about, and on lines it cannot prove valid", () => {
    const line = (total: string, tail = "") =>
      `{"timestamp":"2026-02-23T11:41:32.787Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":${total}}}${tail}}`;
    const ok = '{"input_tokens":10,"cached_input_tokens":4,"output_tokens":3}';
    const give = (l: string) => expect(readCodexTokenCount(Buffer.from(l), 0, Buffer.byteLength(l)), l).toBeNull();
    expect(readCodexTokenCount(Buffer.from(line(ok)), 0, line(ok).length)).not.toBeNull();
    give(line('{"input_tokens":10,"cached_input_tokens":4}')); // missing
    give(line('{"input_tokens":10,"cached_input_tokens":40,"output_tokens":3}')); // contradiction
    give(line('{"input_tokens":10,"cached_input_tokens":4,"output_tokens":3,"total_tokens":14}')); // mismatch
    give(line('{"input_tokens":10,"cached_input_tokens":4,"output_tokens":3,"extra":1}')); // unknown key
    give(line('{"input_tokens":10.0,"cached_input_tokens":4,"output_tokens":3}')); // not a plain integer
    give(line('{"input_tokens":10,"input_tokens":11,"cached_input_tokens":4,"output_tokens":3}')); // key twice
    give(line('{"inp\\u0075t_tokens":10,"cached_input_tokens":4,"output_tokens":3}')); // escaped key
    give(line(ok, ',"x":"\u0001"')); // a control character in a string
    give(line(ok, ',"x":[1,]')); // broken outside the part read
    give(line(ok, ',"x":"\\q"')); // a bad escape
    give(`${line(ok)}x`); // bytes after the object
    give(line(ok).slice(0, -1)); // cut off
    give(line(ok, ',"type":"other"')); // type twice
  });

  it("never reads a fuzzed line otherwise than JSON.parse and the rules do", () => {
    const bases = generated["codex"]!.filter(isCodexUsage).slice(0, 40);
    bases.push(
      '{"timestamp":"2026-02-23T11:41:32.787Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"x":[1,2.5e3,true,false,null,"é\\n"]}}}',
    );
    fuzzReader(bases, checkCodex, 8000);
  });
});

describe("kimi-code usage.record reader", () => {
  it("reads every usage.record line of the real samples and of generated logs as JSON.parse does", () => {
    const lines = [...sampleLines("kimi-code"), ...generated["kimi-code"]!];
    let usage = 0;
    for (const l of lines) {
      const took = checkKimi(l);
      if (isKimiUsage(l) && l.startsWith('{"type":"usage.record"')) {
        expect(took, l).toBe(true);
        usage += 1;
      } else expect(took, l).toBe(false);
    }
    expect(usage).toBeGreaterThan(takenAtLeast(120, 80));
  });

  it("reads a record without time or model, and gives up on other shapes", () => {
    const l =
      '{"usage":{"inputOther":1,"output":2,"inputCacheRead":3,"inputCacheCreation":4},"type":"usage.record","time":null}';
    expect(readKimiCodeUsage(Buffer.from(l), 0, l.length)).toEqual({
      model: undefined,
      scope: undefined,
      time: undefined,
      inputOther: 1,
      output: 2,
      inputCacheRead: 3,
      inputCacheCreation: 4,
    });
    const give = (x: string) => expect(readKimiCodeUsage(Buffer.from(x), 0, Buffer.byteLength(x)), x).toBeNull();
    give(l.replace('"time":null', '"time":"12"'));
    give(l.replace('"inputCacheCreation":4', '"inputCacheCreation":4,"extra":5'));
    give(l.replace('"output":2', '"output":-2'));
    give(l.replace('"usage.record"', '"usage.recorded"'));
    give(l.replace("}", "}}"));
  });

  it("never reads a fuzzed line otherwise than JSON.parse and the rules do", () => {
    const bases = generated["kimi-code"]!.filter(isKimiUsage).slice(0, 40);
    bases.push(
      '{"type":"usage.record","model":"m\u00e9","usage":{"inputOther":1,"output":2,"inputCacheRead":3,"inputCacheCreation":4},"usageScope":"session","time":1783999172043,"x":{"a":[]}}',
    );
    fuzzReader(bases, checkKimi, 8000);
  });
});

describe("the fixed-layout classifiers", () => {
  const cls = (f: (b: Buffer, s: number, e: number) => number, line: string) => f(Buffer.from(line), 0, line.length);
  const ts = '{"timestamp":"2026-02-23T11:41:32.787Z",';
  it("codex: takes token_count events, session_meta and token_usage_record, skips other types, leaves other layouts", () => {
    expect(cls(classifyCodexLead, `${ts}"type":"event_msg","payload":{"type":"token_count","info":null}}`)).toBe(
      LINE_TAKE,
    );
    expect(cls(classifyCodexLead, `${ts}"type":"session_meta","payload":{}}`)).toBe(LINE_TAKE);
    expect(cls(classifyCodexLead, `${ts}"type":"token_usage_record","payload":{}}`)).toBe(LINE_TAKE);
    expect(cls(classifyCodexLead, `${ts}"type":"event_msg","payload":{"type":"agent_reasoning"}}`)).toBe(LINE_SKIP);
    expect(cls(classifyCodexLead, `${ts}"type":"response_item","payload":{"type":"token_count"}}`)).toBe(LINE_SKIP);
    expect(cls(classifyCodexLead, `${ts}"type":"event_msg","payload":{"info":null,"type":"token_count"}}`)).toBe(
      LINE_UNKNOWN,
    );
    expect(cls(classifyCodexLead, `{"type":"event_msg","timestamp":"x","payload":{}}`)).toBe(LINE_UNKNOWN);
    expect(cls(classifyCodexLead, `${ts}"type":"event\\u005fmsg","payload":{}}`)).toBe(LINE_UNKNOWN);
    expect(cls(classifyCodexLead, '{"timestamp":"2026-02-23T11:4')).toBe(LINE_UNKNOWN);
  });
  it("kimi-code: takes usage.record and forked, skips other types, leaves other layouts", () => {
    expect(cls(classifyKimiCodeLead, '{"type":"usage.record","usage":{}}')).toBe(LINE_TAKE);
    expect(cls(classifyKimiCodeLead, '{"type":"forked"}')).toBe(LINE_TAKE);
    expect(cls(classifyKimiCodeLead, '{"type":"context.append_loop_event","event":{}}')).toBe(LINE_SKIP);
    expect(cls(classifyKimiCodeLead, '{"type":"usage.recordx"}')).toBe(LINE_SKIP);
    expect(cls(classifyKimiCodeLead, '{"time":1,"type":"usage.record"}')).toBe(LINE_UNKNOWN);
    expect(cls(classifyKimiCodeLead, '{"type":"usage\\u002erecord"}')).toBe(LINE_UNKNOWN);
    expect(cls(classifyKimiCodeLead, '{"type":"usa')).toBe(LINE_UNKNOWN);
  });
});

describe("a usage line damaged outside the part read", () => {
  const tc = (i: number, tail: string) =>
    `{"timestamp":"2026-02-23T11:4${i}:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":${100 * i},"cached_input_tokens":0,"output_tokens":${i},"reasoning_output_tokens":0,"total_tokens":${101 * i}},"last_token_usage":null},"rate_limits":${tail}}}`;
  const ur = (i: number, tail: string) =>
    `{"type":"usage.record","model":"m","usage":{"inputOther":${i},"output":1,"inputCacheRead":2,"inputCacheCreation":0},"usageScope":"turn","time":${1783999172043 + i},"x":${tail}}`;
  for (const [format, file, line] of [
    ["codex", "rollout-2026-02-23T12-41-04-x.jsonl", tc],
    ["kimi-code", "agents/main/wire.jsonl", ur],
  ] as const) {
    it(`${format}: is warned and dropped as with JSON.parse`, async () => {
      const dir = join(tmp, `damaged-${format}`);
      const meta = '{"timestamp":"2026-02-23T11:40:00.000Z","type":"session_meta","payload":{"id":"t"}}';
      await expectDamagedAsSlow(format, dir, file, format === "codex" ? meta : '{"type":"metadata"}', line);
    });
  }
});

describe("readStr with a RecentString", () => {
  it("hands out the same string for the same bytes, and a new one for any other bytes", () => {
    const recent = new RecentString();
    const read = (json: string): string | undefined => {
      const b = Buffer.from(`${json},`);
      expect(readStr(b, 0, b.length - 1, recent)).toBe(b.length - 1);
      return cursor.str;
    };
    const a = read('"kimi-k2"');
    expect(a).toBe("kimi-k2");
    expect(read('"kimi-k2"')).toBe(a);
    expect(read('"kimi-k3"')).toBe("kimi-k3"); // same length, other bytes
    expect(read('"kimi-k2"')).toBe("kimi-k2");
    expect(read('"mödel"')).toBe("mödel"); // UTF-8
    expect(read('"mödel"')).toBe("mödel");
    const long = "x".repeat(100); // not kept, still read
    expect(read(`"${long}"`)).toBe(long);
    expect(read(`"${long}"`)).toBe(long);
    expect(read('"kimi-k2"')).toBe("kimi-k2");
    expect(read("12")).toBeUndefined(); // not a string
  });
});
