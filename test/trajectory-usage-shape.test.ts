/**
 * A usage object whose keys are not its format's (TRAJECTORIES.md, each
 * format's usage fields): counts that cannot be read are never read as 0, and
 * numeric keys a format does not define are warned about, once per file, with
 * the number of records and the first line. The same rule for all five
 * formats, on the fast path and the full parse alike.
 */
import { describe, expect, it } from "vitest";
import { setTrajectoryFastPath } from "../src/extractors/trajectory/common.js";
import { readTrajectory, TokenLedger, type TrajectoryFormat } from "../src/extractors/trajectory/index.js";
import { at, ms, tempDir, useTempDirs, writeJsonl } from "./trajectory-helpers.js";

useTempDirs();

type Usage = Record<string, unknown>;

interface FormatCase {
  file: string;
  /** Lines written before the calls (headers). */
  head: object[];
  /** The i-th call's line (0-based) carrying `usage`. */
  line: (i: number, usage: Usage) => object;
  /** The i-th call's usage as real logs write it (codex: a running total). */
  usage: (i: number) => Usage;
  /** The count keys renamed to another spelling (the kimi-code case: all but `output`). */
  rename: Record<string, string>;
  /** Tokens of one call, and whether an unreadable record's tokens come back in the next running total. */
  perCall: number;
  runningTotal: boolean;
}

const CASES: Record<TrajectoryFormat, FormatCase> = {
  codex: {
    file: "rollout-2026-03-01T10-00-00-x.jsonl",
    // Codex writes the session_meta first (a rollout without it is TRAJECTORY_NO_SESSION_META).
    head: [{ timestamp: at(0), type: "session_meta", payload: { id: "x" } }],
    line: (i, u) => ({
      timestamp: at(10 * i + 5),
      type: "event_msg",
      payload: { type: "token_count", info: { total_token_usage: u, last_token_usage: u } },
    }),
    usage: (i) => ({
      input_tokens: 1000 * (i + 1),
      cached_input_tokens: 500 * (i + 1),
      output_tokens: 10 * (i + 1),
      reasoning_output_tokens: 5 * (i + 1),
      total_tokens: 1010 * (i + 1),
    }),
    rename: { input_tokens: "inputTokens", cached_input_tokens: "cachedInputTokens", output_tokens: "outputTokens" },
    perCall: 1010,
    runningTotal: true,
  },
  "claude-code": {
    file: "s.jsonl",
    head: [],
    line: (i, u) => ({
      type: "assistant",
      timestamp: at(10 * i + 5),
      uuid: `u${i}`,
      requestId: `r${i}`,
      message: { id: `m${i}`, role: "assistant", model: "claude-x", content: [], usage: u },
    }),
    usage: () => ({
      input_tokens: 100,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 1000,
      output_tokens: 10,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      server_tool_use: { web_search_requests: 0 },
      service_tier: "standard",
      inference_geo: "",
      iterations: [],
      speed: "standard",
    }),
    rename: {
      input_tokens: "inputTokens",
      cache_creation_input_tokens: "cacheCreationInputTokens",
      cache_read_input_tokens: "cacheReadInputTokens",
    },
    perCall: 1110,
    runningTotal: false,
  },
  pi: {
    file: "2026-03-01T10-00-00-000Z_x.jsonl",
    head: [{ type: "session", version: 3, id: "S", timestamp: at(0), cwd: "/w" }],
    line: (i, u) => ({
      type: "message",
      id: `e${i}`,
      parentId: null,
      timestamp: at(10 * i + 5),
      message: { role: "assistant", content: [], usage: u, stopReason: "stop", timestamp: ms(10 * i) },
    }),
    usage: () => ({
      input: 100,
      output: 10,
      cacheRead: 1000,
      cacheWrite: 0,
      totalTokens: 1110,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    }),
    rename: { input: "input_tokens", cacheRead: "cache_read", cacheWrite: "cache_write" },
    perCall: 1110,
    runningTotal: false,
  },
  "kimi-cli": {
    file: "s/wire.jsonl",
    head: [{ type: "metadata", protocol_version: "1.3" }],
    line: (i, u) => ({
      timestamp: ms(10 * i + 5) / 1000,
      message: { type: "StatusUpdate", payload: { context_usage: 0.1, token_usage: u, message_id: `m${i}` } },
    }),
    usage: () => ({ input_other: 100, output: 10, input_cache_read: 1000, input_cache_creation: 0 }),
    rename: {
      input_other: "inputOther",
      input_cache_read: "inputCacheRead",
      input_cache_creation: "inputCacheCreation",
    },
    perCall: 1110,
    runningTotal: false,
  },
  "kimi-code": {
    file: "s/agents/main/wire.jsonl",
    head: [],
    line: (i, u) => ({ type: "usage.record", model: "k", usageScope: "turn", usage: u, time: ms(10 * i + 5) }),
    usage: () => ({ inputOther: 100, output: 10, inputCacheRead: 1000, inputCacheCreation: 0 }),
    rename: {
      inputOther: "input_other",
      inputCacheRead: "input_cache_read",
      inputCacheCreation: "input_cache_creation",
    },
    perCall: 1110,
    runningTotal: false,
  },
};

const FORMATS = Object.keys(CASES) as TrajectoryFormat[];

function renamed(u: Usage, map: Record<string, string>): Usage {
  return Object.fromEntries(Object.entries(u).map(([k, v]) => [map[k] ?? k, v]));
}

/** Writes one session file of `n` calls, `edit` changing the usage of some, and reads it both ways (they must agree). */
async function read(format: TrajectoryFormat, n: number, edit: (i: number, u: Usage) => Usage) {
  const c = CASES[format];
  const root = tempDir();
  writeJsonl(root, c.file, [...c.head, ...Array.from({ length: n }, (_x, i) => c.line(i, edit(i, c.usage(i))))]);
  setTrajectoryFastPath(false);
  let slow;
  try {
    slow = await readTrajectory(format, [root], { displayRoot: root });
  } finally {
    setTrajectoryFastPath(true);
  }
  const fast = await readTrajectory(format, [root], { displayRoot: root });
  expect(fast).toEqual(slow);
  const totals = new TokenLedger(fast.calls).totals();
  return { totals, warnings: fast.warnings, firstLine: c.head.length + 1 };
}

describe("usage objects with unexpected keys (all five formats)", () => {
  for (const format of FORMATS) {
    const c = CASES[format];

    it(`${format}: the keys real logs write count, with no warning`, async () => {
      const r = await read(format, 3, (_i, u) => u);
      expect([r.totals.calls, r.totals.total]).toEqual([3, 3 * c.perCall]);
      expect(r.warnings).toEqual([]);
    });

    it(`${format}: count keys renamed: no call counted as 0; one warning per file with the count and first line; no calls`, async () => {
      const r = await read(format, 3, (_i, u) => renamed(u, c.rename));
      expect([r.totals.calls, r.totals.total]).toEqual([0, 0]);
      expect(r.warnings.map((w) => [w.code, w.file, w.line])).toEqual([
        ["TRAJECTORY_UNREADABLE_USAGE", c.file, r.firstLine],
        ["TRAJECTORY_UNKNOWN_USAGE_KEY", c.file, r.firstLine],
        ["TRAJECTORY_NO_CALLS", c.file, null],
      ]);
      expect(r.warnings[0]!.message).toMatch(/^3 .* record\(s\) lack the count key\(s\) /);
      expect(r.warnings[1]!.message).toContain(`(${Object.values(c.rename).sort().join(", ")})`);
    });

    it(`${format}: one record renamed among three: skipped and said so, never a zero call`, async () => {
      const r = await read(format, 3, (i, u) => (i === 1 ? renamed(u, c.rename) : u));
      // A running total (codex) still holds the skipped call's tokens at the next readable line.
      expect([r.totals.calls, r.totals.total]).toEqual(c.runningTotal ? [2, 3 * c.perCall] : [2, 2 * c.perCall]);
      expect(r.warnings.map((w) => [w.code, w.line])).toEqual([
        ["TRAJECTORY_UNREADABLE_USAGE", r.firstLine + 1],
        ["TRAJECTORY_UNKNOWN_USAGE_KEY", r.firstLine + 1],
      ]);
      expect(r.warnings[0]!.message).toMatch(/^1 /);
    });

    it(`${format}: only the output count present is unreadable (the format always writes its input counts)`, async () => {
      const outKey = Object.keys(c.usage(0)).find((k) => /^output/.test(k))!;
      const r = await read(format, 2, (_i, u) => ({ [outKey]: u[outKey] }));
      expect(r.totals.calls).toBe(0);
      expect(r.warnings.map((w) => w.code)).toEqual(["TRAJECTORY_UNREADABLE_USAGE", "TRAJECTORY_NO_CALLS"]);
    });

    it(`${format}: an extra numeric key is counted from the known keys, with one warning per file`, async () => {
      const r = await read(format, 3, (i, u) => (i === 0 ? u : { ...u, audio_tokens: 7 }));
      expect([r.totals.calls, r.totals.total]).toEqual([3, 3 * c.perCall]);
      expect(r.warnings.map((w) => [w.code, w.line])).toEqual([["TRAJECTORY_UNKNOWN_USAGE_KEY", r.firstLine + 1]]);
      expect(r.warnings[0]!.message).toMatch(/^2 .*\(audio_tokens\)/);
    });
  }

  it("claude-code: the cache counts may be absent (API gateways): 0, no warning", async () => {
    const r = await read("claude-code", 2, () => ({ input_tokens: 100, output_tokens: 10 }));
    expect([r.totals.calls, r.totals.total, r.warnings]).toEqual([2, 220, []]);
  });

  it("codex: cache_write_input_tokens (newer versions) is a count, not an unknown key", async () => {
    const r = await read("codex", 2, (i, u) => ({ ...u, cache_write_input_tokens: 100 * (i + 1) }));
    expect([r.totals.calls, r.totals.cacheWrite, r.totals.total, r.warnings]).toEqual([2, 200, 2020, []]);
  });

  it("kimi-code: a usage.record with no usage object is unreadable, not a silent skip", async () => {
    const r = await read("kimi-code", 2, (i, u) => (i === 0 ? (null as unknown as Usage) : u));
    expect([r.totals.calls, r.totals.total]).toEqual([1, 1110]);
    expect(r.warnings.map((w) => [w.code, w.line])).toEqual([["TRAJECTORY_UNREADABLE_USAGE", 1]]);
  });
});

describe("a model response with no usage object at all", () => {
  it("claude-code: an assistant line without message.usage is unreadable (fast path too, wherever `type` is on the line)", async () => {
    const root = tempDir();
    const line = (i: number, usage: boolean, typeFirst: boolean) => {
      const message = {
        id: `m${i}`,
        role: "assistant",
        model: "claude-x",
        content: [],
        ...(usage ? { usage: { input_tokens: 100, output_tokens: 10 } } : {}),
      };
      return typeFirst
        ? { type: "assistant", timestamp: at(i), requestId: `r${i}`, message }
        : { parentUuid: null, isSidechain: false, message, type: "assistant", timestamp: at(i), requestId: `r${i}` };
    };
    writeJsonl(root, "s.jsonl", [
      line(1, true, false),
      line(2, false, false),
      line(3, false, true),
      { type: "assistant", timestamp: at(4), message: { model: "<synthetic>", role: "assistant", content: [] } },
    ]);
    setTrajectoryFastPath(false);
    let slow;
    try {
      slow = await readTrajectory("claude-code", [root], { displayRoot: root });
    } finally {
      setTrajectoryFastPath(true);
    }
    const fast = await readTrajectory("claude-code", [root], { displayRoot: root });
    expect(fast).toEqual(slow);
    expect(fast.calls.length).toBe(1);
    expect(fast.warnings.map((w) => [w.code, w.line])).toEqual([["TRAJECTORY_UNREADABLE_USAGE", 2]]);
    expect(fast.warnings[0]!.message).toMatch(/^2 message\.usage record\(s\)/);
  });

  it("pi: an assistant entry without usage is unreadable (fast path too)", async () => {
    const root = tempDir();
    const entry = (i: number, usage: boolean) => ({
      type: "message",
      id: `e${i}`,
      timestamp: at(i),
      message: {
        content: [],
        role: "assistant",
        ...(usage ? { usage: { input: 1, output: 2, cacheRead: 3, cacheWrite: 4 } } : {}),
      },
    });
    writeJsonl(root, "x.jsonl", [
      { type: "session", version: 3, id: "S", timestamp: at(0), cwd: "/w" },
      entry(1, true),
      entry(2, false),
    ]);
    setTrajectoryFastPath(false);
    let slow;
    try {
      slow = await readTrajectory("pi", [root], { displayRoot: root });
    } finally {
      setTrajectoryFastPath(true);
    }
    const fast = await readTrajectory("pi", [root], { displayRoot: root });
    expect(fast).toEqual(slow);
    expect([fast.calls.length, fast.warnings.map((w) => [w.code, w.line])]).toEqual([
      1,
      [["TRAJECTORY_UNREADABLE_USAGE", 3]],
    ]);
  });
});

describe("kimi-cli: token_usage under another name", () => {
  it("a StatusUpdate holding an object under an unknown key is unreadable; one with context size only is ordinary", async () => {
    const r = await read("kimi-cli", 3, (_i, u) => u);
    expect(r.warnings).toEqual([]);
    const root = tempDir();
    const su = (s: number, payload: object) => ({
      timestamp: ms(s) / 1000,
      message: { type: "StatusUpdate", payload },
    });
    writeJsonl(root, "s/wire.jsonl", [
      { type: "metadata", protocol_version: "1.3" },
      su(1, {
        context_usage: 0.1,
        message_id: "a",
        token_usage: { input_other: 1, output: 2, input_cache_read: 3, input_cache_creation: 4 },
      }),
      su(2, { context_usage: 0.2 }),
      su(3, {
        context_usage: 0.3,
        message_id: "b",
        tokenUsage: { inputOther: 1, output: 2, inputCacheRead: 3, inputCacheCreation: 4 },
      }),
    ]);
    const reading = await readTrajectory("kimi-cli", [root], { displayRoot: root });
    expect(new TokenLedger(reading.calls).totals()).toMatchObject({ calls: 1, total: 10 });
    expect(reading.warnings.map((w) => [w.code, w.line])).toEqual([["TRAJECTORY_UNREADABLE_USAGE", 4]]);
    expect(reading.warnings[0]!.message).toContain("(they have: tokenUsage)");
  });
});

describe("counts that contradict their format, or a total that disagrees with its parts", () => {
  it("claude-code: flat cache counts removed while the cache_creation breakdown is there: unreadable, never 0", async () => {
    const r = await read("claude-code", 3, (_i, u) => {
      const { cache_creation_input_tokens: _w, cache_read_input_tokens: _r, ...rest } = u;
      return { ...rest, cache_creation: { ephemeral_5m_input_tokens: 400, ephemeral_1h_input_tokens: 0 } };
    });
    expect([r.totals.calls, r.totals.total]).toEqual([0, 0]);
    expect(r.warnings.map((w) => [w.code, w.file, w.line])).toEqual([
      ["TRAJECTORY_UNREADABLE_USAGE", "s.jsonl", 1],
      ["TRAJECTORY_NO_CALLS", "s.jsonl", null],
    ]);
    expect(r.warnings[0]!.message).toMatch(
      /^3 message\.usage record\(s\) lack the count key\(s\) cache_creation_input_tokens, cache_read_input_tokens /,
    );
  });

  it("claude-code: one flat cache count removed, the breakdown all zero: still unreadable (that version writes both)", async () => {
    const r = await read("claude-code", 2, (i, u) => {
      if (i === 0) return u;
      const { cache_read_input_tokens: _r, ...rest } = u;
      return rest;
    });
    expect([r.totals.calls, r.totals.total]).toEqual([1, 1110]);
    expect(r.warnings.map((w) => [w.code, w.line])).toEqual([["TRAJECTORY_UNREADABLE_USAGE", 2]]);
    expect(r.warnings[0]!.message).toContain("lack the count key(s) cache_read_input_tokens");
  });

  it("claude-code: cache_creation_input_tokens other than the breakdown's sum: counted from the flat key, warned once per file", async () => {
    const r = await read("claude-code", 3, (i, u) =>
      i === 0
        ? u
        : {
            ...u,
            cache_creation_input_tokens: 50,
            cache_creation: { ephemeral_5m_input_tokens: 70, ephemeral_1h_input_tokens: 0 },
          },
    );
    expect([r.totals.calls, r.totals.cacheWrite, r.totals.total]).toEqual([3, 100, 3 * 1110 + 100]);
    expect(r.warnings.map((w) => [w.code, w.file, w.line])).toEqual([
      ["TRAJECTORY_USAGE_TOTAL_MISMATCH", "s.jsonl", 2],
    ]);
    expect(r.warnings[0]!.message).toMatch(
      /^2 message\.usage record\(s\) carry a total that disagrees with its parts, first at line 2 \(cache_creation_input_tokens 50 ≠ the sum of cache_creation\.\* 70\)/,
    );
  });

  it("codex: input_tokens that exclude the cached part (cached > input): unreadable, never clamped to 0", async () => {
    // A gateway writing input without the cached part: every running total has cached > input.
    const r = await read("codex", 3, (i) => ({
      input_tokens: 500 * (i + 1),
      cached_input_tokens: 600 * (i + 1),
      output_tokens: 10 * (i + 1),
      total_tokens: 510 * (i + 1),
    }));
    expect([r.totals.calls, r.totals.total]).toEqual([0, 0]);
    expect(r.warnings.map((w) => [w.code, w.line])).toEqual([
      ["TRAJECTORY_UNREADABLE_USAGE", 2],
      ["TRAJECTORY_NO_CALLS", null],
    ]);
    expect(r.warnings[0]!.message).toMatch(
      /^3 token_count record\(s\) have counts that contradict the format \(cached_input_tokens > input_tokens\), first at line 2/,
    );
  });

  it("codex: consistent totals whose growth has more cached than input: that call is unreadable, the others count", async () => {
    const u = (input: number, cached: number, output: number) => ({
      input_tokens: input,
      cached_input_tokens: cached,
      output_tokens: output,
      total_tokens: input + output,
    });
    const totals = [u(1000, 0, 10), u(1500, 1200, 20), u(2500, 1700, 30)];
    const r = await read("codex", 3, (i) => totals[i]!);
    // Call 1: 1000 uncached + 10 output; call 2 (+500 input, +1200 cached) is skipped; call 3: +1000 input of which 500 cached, +10 output.
    expect([r.totals.calls, r.totals.uncachedInput, r.totals.cacheRead, r.totals.output, r.totals.total]).toEqual([
      2, 1500, 500, 20, 2020,
    ]);
    expect(r.warnings.map((w) => [w.code, w.line])).toEqual([["TRAJECTORY_UNREADABLE_USAGE", 3]]);
    expect(r.warnings[0]!.message).toMatch(
      /^1 token_count record\(s\) have counts that contradict the format \(a growth of cached_input_tokens/,
    );
  });

  it("codex: reasoning_output_tokens above output_tokens contradicts the format (output includes reasoning)", async () => {
    const r = await read("codex", 2, (i, u) => (i === 1 ? { ...u, reasoning_output_tokens: 999 } : u));
    // The unreadable total at line 3 is skipped: with no readable total after it, its call is not counted.
    expect([r.totals.calls, r.totals.total]).toEqual([1, 1010]);
    expect(r.warnings.map((w) => [w.code, w.line])).toEqual([["TRAJECTORY_UNREADABLE_USAGE", 3]]);
    expect(r.warnings[0]!.message).toContain("(reasoning_output_tokens > output_tokens)");
  });

  it("codex: total_tokens other than input + output: counted from the parts, one warning per file with the count and first line", async () => {
    const r = await read("codex", 3, (i, u) =>
      i === 0 ? u : { ...u, total_tokens: (u.total_tokens as number) + 100 * (i + 1) },
    );
    expect([r.totals.calls, r.totals.total]).toEqual([3, 3 * 1010]);
    expect(r.warnings.map((w) => [w.code, w.line])).toEqual([["TRAJECTORY_USAGE_TOTAL_MISMATCH", 3]]);
    expect(r.warnings[0]!.message).toMatch(
      /^2 token_count record\(s\) .* \(total_tokens 2220 ≠ input_tokens \+ output_tokens 2020\)/,
    );
  });

  it("pi: totalTokens other than the sum of the four counts: counted from the parts, warned once per file", async () => {
    const r = await read("pi", 3, (i, u) => (i === 2 ? { ...u, totalTokens: 1000 } : u));
    expect([r.totals.calls, r.totals.total]).toEqual([3, 3 * 1110]);
    expect(r.warnings.map((w) => [w.code, w.line])).toEqual([["TRAJECTORY_USAGE_TOTAL_MISMATCH", 4]]);
    expect(r.warnings[0]!.message).toMatch(
      /^1 message\.usage record\(s\) .*first at line 4 \(totalTokens 1000 ≠ input \+ output \+ cacheRead \+ cacheWrite 1110\)/,
    );
  });
});
