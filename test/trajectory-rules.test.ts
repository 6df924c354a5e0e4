/**
 * One hand-written fixture per counting rule of TRAJECTORIES.md, with exact totals.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InputError } from "../src/errors.js";
import { callTotals, incompleteReading, readTrajectory, TokenLedger } from "../src/extractors/trajectory/index.js";
import { claudeCodeCounter } from "../src/extractors/trajectory/claude-code.js";
import { setLongestParsedLine } from "../src/extractors/trajectory/common.js";
import type { TokenCall } from "../src/extractors/trajectory/types.js";
import { at, count, ms, parts, tempDir, useTempDirs, writeJsonl } from "./trajectory-helpers.js";

useTempDirs();

// ---------------------------------------------------------------- codex

type Tot = [input: number, cached: number, output: number, cacheWrite?: number];

function usage([input, cached, output, cacheWrite]: Tot) {
  return {
    input_tokens: input,
    cached_input_tokens: cached,
    ...(cacheWrite === undefined ? {} : { cache_write_input_tokens: cacheWrite }),
    output_tokens: output,
    reasoning_output_tokens: Math.floor(output / 2),
    total_tokens: input + output,
  };
}
const meta = (s: number, id: string, extra: object = {}, ordinal?: number) => ({
  timestamp: at(s),
  ...(ordinal === undefined ? {} : { ordinal }),
  type: "session_meta",
  payload: { id, timestamp: at(s), cwd: "/w", cli_version: "0.120.0", ...extra },
});
const tc = (s: number, total: Tot, last: Tot = total, ordinal?: number) => ({
  timestamp: at(s),
  ...(ordinal === undefined ? {} : { ordinal }),
  type: "event_msg",
  payload: { type: "token_count", info: { total_token_usage: usage(total), last_token_usage: usage(last) } },
});
const heartbeat = (s: number) => ({
  timestamp: at(s),
  type: "event_msg",
  payload: { type: "token_count", info: null },
});
const item = (s: number, ordinal?: number) => ({
  timestamp: at(s),
  ...(ordinal === undefined ? {} : { ordinal }),
  type: "response_item",
  payload: { type: "message", role: "user", content: [] },
});
const usageRecord = (s: number, responseId: string, u: Tot) => ({
  timestamp: at(s),
  type: "token_usage_record",
  payload: { thread_id: "T", response_id: responseId, usage: usage(u) },
});

describe("codex (TRAJECTORIES.md: codex)", () => {
  it("a call is where the running total grows: info:null heartbeats and unchanged repeats are skipped", async () => {
    const d = tempDir();
    writeJsonl(d, "rollout-2026-03-01T11-00-00-T.jsonl", [
      meta(0, "T"),
      heartbeat(1),
      tc(5, [100, 0, 10]),
      tc(6, [100, 0, 10]), // unchanged repeat
      tc(60, [100, 0, 10]), // a repeat a minute later: the call completed at the first
      tc(70, [250, 80, 30], [150, 80, 20]),
      tc(71, [250, 80, 30], [150, 80, 20]),
    ]);
    const { totals, ledger } = await count("codex", [d]);
    expect(parts(totals)).toEqual([170, 80, 0, 30, 280, 2]);
    expect(totals.lastCallTimeMs).toBe(ms(70));
    expect(parts(ledger.at(ms(69)))).toEqual([100, 0, 0, 10, 110, 1]);
  });

  it("summing last_token_usage over repeats would overcount; the running total does not", async () => {
    const d = tempDir();
    const lines: object[] = [meta(0, "T")];
    for (let i = 1; i <= 3; i += 1) {
      lines.push(tc(i * 10, [1000 * i, 0, 10 * i], [1000, 0, 10]));
      lines.push(tc(i * 10 + 2, [1000 * i, 0, 10 * i], [1000, 0, 10]));
      lines.push(tc(i * 10 + 4, [1000 * i, 0, 10 * i], [1000, 0, 10]));
    }
    writeJsonl(d, "rollout-a.jsonl", lines);
    const { totals } = await count("codex", [d]);
    expect(parts(totals)).toEqual([3000, 0, 0, 30, 3030, 3]);
  });

  it("parts: uncached = input − cached − cache_write; reasoning is inside output", async () => {
    const d = tempDir();
    writeJsonl(d, "rollout-b.jsonl", [meta(0, "T"), tc(5, [1000, 200, 50, 300])]);
    const { totals } = await count("codex", [d]);
    expect(parts(totals)).toEqual([500, 200, 300, 50, 1050, 1]);
  });

  it("the file name's local time is never used: the line timestamp (UTC) is the call time", async () => {
    const d = tempDir();
    writeJsonl(d, "rollout-2026-03-01T23-59-59-T.jsonl", [meta(0, "T"), tc(5, [10, 0, 1])]);
    const { totals } = await count("codex", [d]);
    expect(totals.lastCallTimeMs).toBe(ms(5));
  });

  it("a drop (context reset) resets the baseline: not negative usage, not a call", async () => {
    const d = tempDir();
    writeJsonl(d, "rollout-c.jsonl", [
      meta(0, "T"),
      tc(5, [1000, 0, 100]),
      tc(6, [400, 0, 40], [0, 0, 0]), // the reset rewrites the total lower, all-zero last usage
      tc(7, [400, 0, 40], [0, 0, 0]),
      tc(20, [600, 100, 50], [200, 100, 10]),
      tc(30, [0, 0, 0], [0, 0, 0]), // a reset to zero
      tc(40, [300, 0, 20]),
    ]);
    const { totals } = await count("codex", [d]);
    // 1100 + (100 uncached + 100 cached + 10 output) + 320
    expect(parts(totals)).toEqual([1000 + 100 + 300, 100, 0, 100 + 10 + 20, 1630, 3]);
  });

  it("a total that falls for one line and is back on the next, without a reset's all-zero last usage, is a glitch: warned, not a reset", async () => {
    const d = tempDir();
    writeJsonl(d, "rollout-g.jsonl", [
      meta(0, "T"),
      tc(5, [1000, 0, 100]),
      tc(6, [0, 0, 0], [50, 0, 5]), // a damaged total: its last usage is not the all-zero one of a reset
      tc(7, [1050, 0, 105], [50, 0, 5]),
      tc(8, [200, 0, 10], [0, 0, 0]), // a real reset, all-zero last usage
      tc(9, [250, 0, 15], [50, 0, 5]),
    ]);
    const { totals, reading } = await count("codex", [d]);
    // 1100, then the growth of 55 from the total before the glitch (not 1155 again from 0), then 55 after the reset
    expect(parts(totals)).toEqual([1000 + 50 + 50, 0, 0, 100 + 5 + 5, 1210, 3]);
    expect(reading.warnings.map((w) => [w.code, w.line])).toEqual([["TRAJECTORY_INCONSISTENT_TOTAL", 3]]);
  });

  // Each of these falls and stays lower without a reset's all-zero last usage: taken as a reset it counts
  // calls again (lines out of order: 1300 + 200 more), kept as a glitch it loses them (a second session joined
  // to the file: its first call, 40). Neither is stood behind: the reading is incomplete (null tokens).
  const drops: [string, object[], number][] = [
    [
      "lines out of order",
      [meta(0, "T"), tc(5, [1000, 0, 100]), tc(7, [1200, 0, 100], [200, 0, 0]), tc(6, [1100, 0, 100], [100, 0, 0])],
      4,
    ],
    [
      "a second session joined to the file",
      [meta(0, "T"), tc(5, [1000, 0, 100]), meta(50, "U"), tc(55, [30, 0, 10]), tc(56, [60, 0, 20], [30, 0, 10])],
      4,
    ],
    [
      "a damaged (too large) total on one line",
      [meta(0, "T"), tc(5, [1000, 0, 100]), tc(6, [50_001_050, 0, 105], [50, 0, 5]), tc(7, [1100, 0, 110], [50, 0, 5])],
      4,
    ],
  ];
  for (const [what, lines, line] of drops)
    it(`a total that falls and stays lower without a reset's all-zero last usage (${what}): TRAJECTORY_TOTAL_DROP, the reading is incomplete`, async () => {
      const d = tempDir();
      writeJsonl(d, "rollout-x.jsonl", lines);
      const { reading } = await count("codex", [d]);
      expect(reading.warnings.map((w) => [w.code, w.line])).toEqual([["TRAJECTORY_TOTAL_DROP", line]]);
      expect(incompleteReading(reading)?.code).toBe("TRAJECTORY_TOTAL_DROP");
    });

  it("a blank line before the session_meta is no line lost: the session_meta is still the first", async () => {
    const d = tempDir();
    writeJsonl(d, "rollout-b.jsonl", ["", " \r", meta(0, "T"), tc(5, [1000, 0, 100])]);
    const { totals, reading } = await count("codex", [d]);
    expect(parts(totals)).toEqual([1000, 0, 0, 100, 1100, 1]);
    expect(reading.warnings).toEqual([]);
  });

  it("token_usage_record lines repeat token_count: counted once, never both", async () => {
    const d = tempDir();
    writeJsonl(d, "rollout-d.jsonl", [
      meta(0, "T"),
      usageRecord(5, "r1", [100, 0, 10]),
      tc(5, [100, 0, 10]),
      usageRecord(9, "r2", [200, 50, 20]),
      tc(9, [300, 50, 30], [200, 50, 20]),
    ]);
    const { totals } = await count("codex", [d]);
    expect(parts(totals)).toEqual([250, 50, 0, 30, 330, 2]);
  });

  it("a file with token_usage_record lines but no running total counts the records", async () => {
    const d = tempDir();
    writeJsonl(d, "rollout-e.jsonl", [
      meta(0, "T"),
      usageRecord(5, "r1", [100, 0, 10]),
      usageRecord(9, "r2", [200, 50, 20]),
    ]);
    const { totals } = await count("codex", [d]);
    expect(parts(totals)).toEqual([250, 50, 0, 30, 330, 2]);
  });

  it("a resumed session appends to the same file and continues the running total", async () => {
    const d = tempDir();
    writeJsonl(d, "rollout-f.jsonl", [
      meta(0, "T"),
      tc(5, [100, 0, 10]),
      tc(6, [100, 0, 10]),
      meta(7200, "T"), // resume, two hours later
      item(7201),
      tc(7210, [250, 100, 15], [150, 100, 5]),
    ]);
    const { totals } = await count("codex", [d]);
    expect(parts(totals)).toEqual([150, 100, 0, 15, 265, 2]);
    expect(totals.lastCallTimeMs).toBe(ms(7210));
  });

  it("a forked child does not recount its replayed parent prefix (forked_from_id, parent present)", async () => {
    const d = tempDir();
    writeJsonl(d, "rollout-parent.jsonl", [meta(0, "P"), tc(10, [100, 0, 10]), tc(20, [300, 100, 30], [200, 100, 20])]);
    writeJsonl(d, "rollout-child.jsonl", [
      meta(100, "C", { forked_from_id: "P" }),
      meta(100, "P"), // the parent's copied session_meta
      item(100.001),
      tc(100.002, [100, 0, 10]), // replayed, stamped at the child's creation
      item(100.003),
      tc(100.004, [300, 100, 30], [200, 100, 20]),
      item(100.005),
      tc(108, [500, 300, 40], [200, 200, 10]), // the child's own call continues the total
    ]);
    const { totals, reading } = await count("codex", [d]);
    expect(parts(totals)).toEqual([100 + 100 + 0, 100 + 200, 0, 10 + 20 + 10, 540, 3]);
    expect(reading.warnings).toEqual([]);
  });

  it("a sub-agent child (source.subagent.thread_spawn.parent_thread_id) with ordinals: records before subagent_history_start_ordinal are the parent's", async () => {
    const d = tempDir();
    writeJsonl(d, "rollout-sub.jsonl", [
      meta(
        100,
        "C",
        {
          source: { subagent: { thread_spawn: { parent_thread_id: "P", depth: 1 } } },
          subagent_history_start_ordinal: 4,
        },
        0,
      ),
      item(101, 1),
      tc(105, [5000, 0, 50], [5000, 0, 50], 2), // inherited (ordinal < 4), even though stamped later than the burst
      item(106, 3),
      tc(112, [5600, 400, 60], [600, 400, 10], 5),
    ]);
    const { totals, reading } = await count("codex", [d]);
    expect(parts(totals)).toEqual([200, 400, 0, 10, 610, 1]);
    expect(reading.warnings.map((w) => w.code)).toEqual(["TRAJECTORY_PARENT_ABSENT"]);
  });

  it("a child whose parent file is absent: the replayed prefix is still not counted (it belongs to the parent), with a warning", async () => {
    const d = tempDir();
    writeJsonl(d, "rollout-child.jsonl", [
      meta(100, "C", { forked_from_id: "P" }),
      meta(100, "P"),
      tc(100.002, [100, 0, 10]),
      tc(100.004, [300, 100, 30], [200, 100, 20]),
      tc(108, [500, 300, 40], [200, 200, 10]),
    ]);
    const { totals, reading } = await count("codex", [d], d);
    expect(parts(totals)).toEqual([0, 200, 0, 10, 210, 1]);
    expect(reading.warnings).toEqual([
      expect.objectContaining({ code: "TRAJECTORY_PARENT_ABSENT", file: "rollout-child.jsonl", line: null }),
    ]);
  });

  it("the same thread's growth seen in two files (a copy) is counted once", async () => {
    const d = tempDir();
    const lines = [meta(0, "T"), tc(5, [100, 0, 10]), tc(9, [300, 50, 30], [200, 50, 20])];
    writeJsonl(d, "sessions/rollout-x.jsonl", lines);
    writeJsonl(d, "archived_sessions/rollout-x.jsonl", lines);
    const { totals } = await count("codex", [d]);
    expect(parts(totals)).toEqual([250, 50, 0, 30, 330, 2]);
  });
});

// ---------------------------------------------------------------- claude-code

const asst = (
  s: number,
  id: string,
  requestId: string | null,
  u: [input: number, cacheRead: number, cacheWrite: number, output: number],
  extra: object = {},
) => ({
  type: "assistant",
  timestamp: at(s),
  sessionId: "S",
  uuid: `u-${id}-${s}`,
  parentUuid: null,
  isSidechain: false,
  ...(requestId === null ? {} : { requestId }),
  message: {
    id,
    role: "assistant",
    model: "claude-opus-4-6",
    content: [{ type: "text", text: "x" }],
    usage: {
      input_tokens: u[0],
      cache_read_input_tokens: u[1],
      cache_creation_input_tokens: u[2],
      output_tokens: u[3],
    },
  },
  ...extra,
});
const user = (s: number) => ({
  type: "user",
  timestamp: at(s),
  sessionId: "S",
  message: { role: "user", content: "hi" },
});

describe("a line too long to parse whole", () => {
  it("is skipped with TRAJECTORY_BAD_JSON; the lines after it are read (the file is not given up)", async () => {
    setLongestParsedLine(2000);
    try {
      const d = tempDir();
      const long = JSON.stringify(asst(2, "m2", "r2", [9, 9, 9, 9], { message: { text: "y".repeat(3000) } }));
      // Cut off inside the long text, the next record glued to it: only a whole-line parse could judge it.
      writeJsonl(d, "s.jsonl", [
        asst(1, "m1", "r1", [1, 10, 0, 50]),
        `${long.slice(0, 2500)}${JSON.stringify(user(3))}`,
        asst(4, "m3", "r3", [2, 20, 0, 60]),
      ]);
      const { totals, reading } = await count("claude-code", [d]);
      expect(parts(totals)).toEqual([3, 30, 0, 110, 143, 2]);
      expect(
        reading.warnings.map((w) => [
          w.code,
          w.line,
          /longer than the longest text JavaScript can hold/.test(w.message),
        ]),
      ).toEqual([["TRAJECTORY_BAD_JSON", 2, true]]);
    } finally {
      setLongestParsedLine(null);
    }
  });
});

describe("claude-code (TRAJECTORIES.md: claude-code)", () => {
  it("one response written as several lines is counted once (message.id + requestId), with its largest output", async () => {
    const d = tempDir();
    writeJsonl(d, "s.jsonl", [
      user(0),
      asst(1, "msg_1", "req_1", [3, 1000, 200, 1]),
      asst(1.5, "msg_1", "req_1", [3, 1000, 200, 9]),
      asst(2, "msg_1", "req_1", [3, 1000, 200, 120]),
      asst(5, "msg_2", "req_2", [1, 1200, 50, 40]),
    ]);
    const { totals } = await count("claude-code", [d]);
    expect(parts(totals)).toEqual([4, 2200, 250, 160, 2614, 2]);
  });

  it("a line without requestId joins its message.id's response, in one file and across files (a copy whose writer left requestId off)", async () => {
    const d = tempDir();
    writeJsonl(d, "a/s.jsonl", [
      asst(1, "msg_1", null, [3, 1000, 200, 1]), // the first line of the response lost its requestId
      asst(2, "msg_1", "req_1", [3, 1000, 200, 120]),
      asst(5, "msg_2", "req_2", [1, 1200, 50, 40]),
      asst(6, "msg_3", "req_3", [2, 10, 0, 5]),
      asst(7, "msg_3", "req_other", [2, 10, 0, 6]), // the same id with another requestId: another response
    ]);
    writeJsonl(d, "b/s.jsonl", [
      asst(2, "msg_1", null, [3, 1000, 200, 120]),
      asst(5, "msg_2", null, [1, 1200, 50, 40]),
    ]);
    const { totals } = await count("claude-code", [d]);
    expect(parts(totals)).toEqual([8, 2220, 250, 171, 2649, 4]);
  });

  it("a response's lines that follow one another are folded as the file is scanned: one record each, the same calls", async () => {
    const d = tempDir();
    writeJsonl(d, "s.jsonl", [
      asst(1, "msg_1", "req_1", [3, 1000, 200, 1]),
      asst(3, "msg_1", "req_1", [3, 1000, 250, 5]),
      asst(2, "msg_1", "req_1", [4, 1000, 200, 9]), // earlier than the line before: not the latest
      asst(5, "msg_2", "req_2", [1, 10, 0, 40]),
      asst(3, "msg_1", "req_1", [3, 1000, 200, 120]), // the same response again, later in the file; an equal time
      asst(4, "msg_1", "req_other", [2, 0, 0, 7]), // another request: another response
    ]);
    const file = { path: join(d, "s.jsonl"), display: "s.jsonl" };
    const scan = await claudeCodeCounter.scan(file);
    const rec = (key: string, request: string, p: number[], s: number, line: number) => ({
      key,
      request,
      uncachedInput: p[0],
      cacheRead: p[1],
      cacheWrite: p[2],
      output: p[3],
      timeMs: ms(s),
      line,
    });
    expect(scan).toEqual({
      data: {
        lines: [
          rec("msg_1", "req_1", [4, 1000, 250, 9], 3, 2),
          rec("msg_2", "req_2", [1, 10, 0, 40], 5, 4),
          rec("msg_1", "req_1", [3, 1000, 200, 120], 3, 5),
          rec("msg_1", "req_other", [2, 0, 0, 7], 4, 6),
        ],
        agents: [],
      },
      warnings: [],
    });
    const { reading } = await count("claude-code", [d], d);
    const call = (p: number[], s: number, line: number) => ({
      uncachedInput: p[0],
      cacheRead: p[1],
      cacheWrite: p[2],
      output: p[3],
      timeMs: ms(s),
      file: "s.jsonl",
      line,
    });
    expect(reading.calls).toEqual([
      call([4, 1000, 250, 120], 3, 2),
      call([2, 0, 0, 7], 4, 6),
      call([1, 10, 0, 40], 5, 4),
    ]);
  });

  it("groups by message.id alone where requestId is missing", async () => {
    const d = tempDir();
    writeJsonl(d, "s.jsonl", [
      asst(1, "msg_1", null, [3, 1000, 200, 1]),
      asst(2, "msg_1", null, [3, 1000, 200, 265]),
      asst(3, "msg_2", null, [1, 1200, 0, 1]),
    ]);
    const { totals } = await count("claude-code", [d]);
    expect(parts(totals)).toEqual([4, 2200, 200, 266, 2670, 2]);
  });

  it("a resumed or branched session copies lines into a new file: deduplicated across files", async () => {
    const d = tempDir();
    writeJsonl(d, "a.jsonl", [
      asst(1, "msg_1", "req_1", [3, 1000, 200, 1]),
      asst(2, "msg_1", "req_1", [3, 1000, 200, 100]),
    ]);
    writeJsonl(d, "b.jsonl", [
      asst(1, "msg_1", "req_1", [3, 1000, 200, 1]),
      asst(2, "msg_1", "req_1", [3, 1000, 200, 100]),
      asst(50, "msg_2", "req_2", [2, 1300, 10, 30]),
    ]);
    const { totals } = await count("claude-code", [d]);
    expect(parts(totals)).toEqual([5, 2300, 210, 130, 2645, 2]);
  });

  it("<synthetic> and isApiErrorMessage lines carry no usage", async () => {
    const d = tempDir();
    const synthetic = asst(3, "syn-1", null, [0, 0, 0, 0]);
    synthetic.message.model = "<synthetic>";
    writeJsonl(d, "s.jsonl", [
      asst(1, "msg_1", "req_1", [3, 1000, 200, 100]),
      synthetic,
      asst(4, "err-1", "req_e", [5, 5, 5, 5], { isApiErrorMessage: true }),
    ]);
    const { totals } = await count("claude-code", [d]);
    expect(parts(totals)).toEqual([3, 1000, 200, 100, 1303, 1]);
  });

  it("sub-agent files under <session>/subagents/ count; their copies in progress lines do not", async () => {
    const d = tempDir();
    const sub = asst(10, "msg_s1", "req_s1", [7, 500, 100, 50], { isSidechain: true, agentId: "a1" });
    writeJsonl(d, "S.jsonl", [
      asst(1, "msg_1", "req_1", [3, 1000, 200, 100]),
      {
        type: "progress",
        timestamp: at(10.1),
        data: { type: "agent_progress", message: { ...sub, requestId: "req_s1" } },
      },
    ]);
    writeJsonl(d, "S/subagents/agent-a1.jsonl", [sub]);
    const { totals, reading } = await count("claude-code", [d]);
    expect(parts(totals)).toEqual([10, 1500, 300, 150, 1960, 2]);
    expect(reading.warnings).toEqual([]);
  });

  it("a session forwarding a sub-agent's responses without the sub-agent's own file: TRAJECTORY_SUBAGENT_MISSING, the reading is incomplete", async () => {
    const d = tempDir();
    const sub = asst(10, "msg_s1", "req_s1", [7, 500, 100, 50], { isSidechain: true, agentId: "a1" });
    const forwarded = (agentId: string, type: string, s: number) => ({
      type: "progress",
      timestamp: at(s),
      data: { type: "agent_progress", agentId, message: { ...sub, type, requestId: "req_s1" } },
    });
    writeJsonl(d, "S.jsonl", [
      asst(1, "msg_1", "req_1", [3, 1000, 200, 100]),
      forwarded("a2", "user", 9), // a prompt forwarded: no response of a2 yet, nothing missing
      forwarded("a1", "assistant", 10.1),
      forwarded("a3", "assistant", 11),
      forwarded("a1", "assistant", 12),
    ]);
    writeJsonl(d, "S/subagents/agent-a1.jsonl", [sub]); // a1's own file is there; a3's is not
    const { reading } = await count("claude-code", [d], d);
    expect(reading.warnings.map((w) => [w.code, w.file, w.line])).toEqual([
      ["TRAJECTORY_SUBAGENT_MISSING", "S.jsonl", 4],
    ]);
    expect(reading.warnings[0]!.message).toContain("1 sub-agent(s) (agentId a3)");
    expect(incompleteReading(reading)?.code).toBe("TRAJECTORY_SUBAGENT_MISSING");
  });

  it("a response's time is the timestamp of its last line", async () => {
    const d = tempDir();
    writeJsonl(d, "s.jsonl", [
      asst(1.1, "msg_1", "req_1", [3, 1000, 200, 1]),
      asst(1.9, "msg_1", "req_1", [3, 1000, 200, 80]),
    ]);
    const { totals, ledger } = await count("claude-code", [d]);
    expect(totals.lastCallTimeMs).toBe(ms(1.9));
    expect(ledger.at(ms(1.5)).calls).toBe(0);
    expect(ledger.at(ms(1.9)).calls).toBe(1);
  });

  it("tool-only responses that kept a streaming-size output are counted as recorded and reported once per run", async () => {
    const d = tempDir();
    writeJsonl(d, "a.jsonl", [
      asst(1, "msg_1", "req_1", [3, 1000, 200, 1]),
      asst(2, "msg_2", "req_2", [1, 1200, 0, 300]),
    ]);
    writeJsonl(d, "b.jsonl", [asst(3, "msg_3", "req_3", [1, 1300, 0, 3])]);
    const { totals, reading } = await count("claude-code", [d], d);
    expect(parts(totals)).toEqual([5, 3500, 200, 304, 4009, 3]);
    expect(reading.warnings).toHaveLength(1);
    expect(reading.warnings[0]).toMatchObject({ code: "TRAJECTORY_OUTPUT_UNDERCOUNT", file: "a.jsonl", line: 1 });
    expect(reading.warnings[0]!.message).toMatch(/^2 of 3 responses/);
  });
});

// ---------------------------------------------------------------- pi

const piHeader = (s: number, id: string, extra: object = {}) => ({
  type: "session",
  version: 3,
  id,
  timestamp: at(s),
  cwd: "/w",
  ...extra,
});
const piAsst = (
  s: number,
  id: string | null,
  u: [input: number, output: number, cacheRead: number, cacheWrite: number],
  stopReason = "stop",
  requestStartS = s - 30,
) => ({
  type: "message",
  ...(id === null ? {} : { id, parentId: null }),
  timestamp: at(s),
  message: {
    role: "assistant",
    content: [],
    stopReason,
    timestamp: ms(requestStartS),
    usage: {
      input: u[0],
      output: u[1],
      cacheRead: u[2],
      cacheWrite: u[3],
      totalTokens: u[0] + u[1] + u[2] + u[3],
      cost: { total: 0 },
    },
  },
});

describe("pi (TRAJECTORIES.md: pi)", () => {
  it("the call time is the entry's timestamp (save time), not message.timestamp (request start)", async () => {
    const d = tempDir();
    writeJsonl(d, "2026-03-01T10-00-00-000Z_a.jsonl", [
      piHeader(0, "a"),
      piAsst(100, "e1", [5, 50, 1000, 20], "stop", 40),
    ]);
    const { totals, ledger } = await count("pi", [d]);
    expect(parts(totals)).toEqual([5, 1000, 20, 50, 1075, 1]);
    expect(totals.lastCallTimeMs).toBe(ms(100));
    expect(ledger.at(ms(99)).calls).toBe(0);
  });

  it("an entry without its own timestamp is placed at message.timestamp (request start), with TRAJECTORY_REQUEST_TIME once per file", async () => {
    const d = tempDir();
    const { timestamp: _a, ...noTime1 } = piAsst(100, "e1", [5, 50, 1000, 20], "stop", 40);
    const { timestamp: _b, ...noTime2 } = piAsst(200, "e2", [1, 1, 1, 1], "stop", 150);
    writeJsonl(d, "2026-03-01T10-00-00-000Z_a.jsonl", [
      piHeader(0, "a"),
      piAsst(30, "e0", [1, 1, 1, 1]),
      noTime1,
      noTime2,
    ]);
    const { totals, reading, ledger } = await count("pi", [d], d);
    expect(parts(totals)).toEqual([7, 1002, 22, 52, 1083, 3]);
    expect(ledger.at(ms(40)).calls).toBe(2);
    expect(reading.warnings.map((w) => [w.code, w.line, w.message])).toEqual([
      [
        "TRAJECTORY_REQUEST_TIME",
        3,
        "2 usage entries have no valid timestamp of their own (the time the response was saved), first at line 3: placed at message.timestamp, when the request started (a little early; tokens at an hour may count it before it completed)",
      ],
    ]);
  });

  it("a fork copies entries with the same ids: deduplicated by entry id + usage across files", async () => {
    const d = tempDir();
    const e1 = piAsst(10, "e1", [5, 50, 1000, 20]);
    const e2 = piAsst(20, "e2", [1, 60, 1100, 30]);
    writeJsonl(d, "2026-03-01T10-00-00-000Z_a.jsonl", [piHeader(0, "a"), e1, e2]);
    writeJsonl(d, "2026-03-01T10-05-00-000Z_b.jsonl", [
      piHeader(300, "b", { parentSession: join(d, "2026-03-01T10-00-00-000Z_a.jsonl") }),
      e1,
      e2,
      piAsst(310, "e3", [2, 70, 1200, 40]),
    ]);
    const { totals, reading } = await count("pi", [d]);
    expect(parts(totals)).toEqual([8, 3300, 90, 180, 3578, 3]);
    expect(reading.warnings).toEqual([]);
  });

  it("version 1 files have no ids: deduplicated by timestamp + usage", async () => {
    const d = tempDir();
    const v1 = (s: number, u: [number, number, number, number]) => {
      const e = piAsst(s, null, u) as Record<string, unknown>;
      (e["message"] as { usage: Record<string, unknown> }).usage["totalTokens"] = undefined;
      return e;
    };
    const header = (s: number, id: string, extra: object = {}) => ({
      type: "session",
      id,
      timestamp: at(s),
      cwd: "/w",
      ...extra,
    });
    writeJsonl(d, "2026-03-01T10-00-00-000Z_a.jsonl", [
      header(0, "a"),
      v1(10, [5, 50, 1000, 20]),
      v1(20, [5, 50, 1000, 20]),
    ]);
    writeJsonl(d, "2026-03-01T11-00-00-000Z_b.jsonl", [
      header(3600, "b", { branchedFrom: "/home/u/.pi/agent/sessions/x/2026-03-01T10-00-00-000Z_a.jsonl" }),
      v1(10, [5, 50, 1000, 20]),
      v1(3610, [1, 10, 100, 0]),
    ]);
    const { totals } = await count("pi", [d]);
    // two calls of identical usage at different times both count; the copy of the first does not
    expect(parts(totals)).toEqual([11, 2100, 40, 110, 2261, 3]);
  });

  it("a branch whose parent file is absent is the only copy: all its calls count, even those older than its header", async () => {
    const d = tempDir();
    writeJsonl(d, "2026-03-01T12-00-00-000Z_b.jsonl", [
      piHeader(7200, "b", { parentSession: "/home/u/.pi/agent/sessions/x/2026-03-01T10-00-00-000Z_a.jsonl" }),
      piAsst(10, "e1", [5, 50, 1000, 20]),
      piAsst(20, "e2", [1, 60, 1100, 30]),
      piAsst(20, "e2", [1, 60, 1100, 30]), // written twice: one call, counted once and said once
    ]);
    const { totals, reading, ledger } = await count("pi", [d], d);
    expect(parts(totals)).toEqual([6, 2100, 50, 110, 2266, 2]);
    expect(ledger.at(ms(15)).calls).toBe(1);
    expect(reading.warnings).toEqual([
      expect.objectContaining({ code: "TRAJECTORY_PARENT_ABSENT", file: "2026-03-01T12-00-00-000Z_b.jsonl", line: 1 }),
    ]);
    expect(reading.warnings[0]!.message).toMatch(/all its 2 call\(s\) count$/);
  });

  it("aborted and errored assistant entries with usage count (also an all-zero aborted one)", async () => {
    const d = tempDir();
    writeJsonl(d, "2026-03-01T10-00-00-000Z_a.jsonl", [
      piHeader(0, "a"),
      piAsst(5, "e0", [0, 0, 0, 0], "aborted"),
      piAsst(10, "e1", [6, 1, 37652, 94], "error"),
      piAsst(20, "e2", [10, 8, 49204, 1739], "aborted"),
      { type: "message", id: "u1", timestamp: at(21), message: { role: "user", content: "x" } },
    ]);
    const { totals } = await count("pi", [d]);
    expect(parts(totals)).toEqual([16, 86856, 1833, 9, 88714, 3]);
  });
});

// ---------------------------------------------------------------- kimi-cli

const T0 = 1772359200; // 2026-03-01T10:00:00Z in epoch seconds
const kMeta = { type: "metadata", protocol_version: "1.4" };
const status = (
  s: number,
  messageId: string | null,
  u: [other: number, output: number, read: number, create: number] | null,
) => ({
  timestamp: T0 + s,
  message: {
    type: "StatusUpdate",
    payload: {
      context_usage: 0.1,
      ...(u === null
        ? {}
        : { token_usage: { input_other: u[0], output: u[1], input_cache_read: u[2], input_cache_creation: u[3] } }),
      ...(messageId === null ? {} : { message_id: messageId }),
    },
  },
});
const forwarded = (s: number, inner: ReturnType<typeof status>) => ({
  timestamp: T0 + s,
  message: { type: "SubagentEvent", payload: { parent_tool_call_id: "tc1", agent_id: "a1", event: inner.message } },
});

describe("kimi-cli (TRAJECTORIES.md: kimi-cli)", () => {
  it("a call is a StatusUpdate with token_usage, timed by the line timestamp (epoch seconds); StatusUpdates without usage are skipped", async () => {
    const d = tempDir();
    writeJsonl(d, "s1/wire.jsonl", [
      kMeta,
      status(1.5, "m1", [100, 10, 1000, 0]),
      status(2, null, null),
      status(9.123456, "m2", [50, 20, 1100, 5]),
    ]);
    const { totals } = await count("kimi-cli", [d]);
    expect(parts(totals)).toEqual([150, 2100, 5, 30, 2285, 2]);
    expect(totals.lastCallTimeMs).toBe(T0 * 1000 + 9123);
  });

  it("a sub-agent's usage, in its own subagents/<id>/wire.jsonl and forwarded in a SubagentEvent, counts once", async () => {
    const d = tempDir();
    const sub = status(5, "sub-1", [30, 3, 300, 0]);
    writeJsonl(d, "s1/wire.jsonl", [kMeta, status(1, "m1", [100, 10, 1000, 0]), forwarded(5.2, sub)]);
    writeJsonl(d, "s1/subagents/a1/wire.jsonl", [kMeta, sub]);
    const { totals } = await count("kimi-cli", [d]);
    expect(parts(totals)).toEqual([130, 1300, 0, 13, 1443, 2]);
  });

  it("a sub-agent's file outside <session>/subagents/ still counts once with its forwarded copy, with TRAJECTORY_SUBAGENT_OUTSIDE_SESSION", async () => {
    for (const place of ["s1-a1/wire.jsonl", "s1/agents/a1/wire.jsonl", "subagents/a1/wire.jsonl"]) {
      const d = tempDir();
      const sub = status(5, "sub-1", [30, 3, 300, 0]);
      writeJsonl(d, "s1/wire.jsonl", [kMeta, status(1, "m1", [100, 10, 1000, 0]), forwarded(5.2, sub)]);
      writeJsonl(d, place, [kMeta, sub]);
      const { totals, reading } = await count("kimi-cli", [d]);
      expect(parts(totals), place).toEqual([130, 1300, 0, 13, 1443, 2]);
      expect(reading.warnings.map((w) => [w.code, w.file, w.line])).toEqual([
        ["TRAJECTORY_SUBAGENT_OUTSIDE_SESSION", join(d, place), 2],
      ]);
    }
    // Not a copy: other parts, or a minute and more apart, or neither forwarded (message ids repeat across sessions).
    for (const [s, u] of [
      [5, [31, 3, 300, 0]],
      [66, [30, 3, 300, 0]],
    ] as [number, [number, number, number, number]][]) {
      const d = tempDir();
      writeJsonl(d, "s1/wire.jsonl", [kMeta, forwarded(5.2, status(5, "sub-1", [30, 3, 300, 0]))]);
      writeJsonl(d, "s2/wire.jsonl", [kMeta, status(s, "sub-1", u)]);
      const { totals, reading } = await count("kimi-cli", [d]);
      expect([totals.calls, reading.warnings.length]).toEqual([2, 0]);
    }
  });

  it("a forwarded sub-agent usage without the sub-agent's own file counts once", async () => {
    const d = tempDir();
    writeJsonl(d, "s1/wire.jsonl", [kMeta, forwarded(5.2, status(5, "sub-1", [30, 3, 300, 0]))]);
    const { totals } = await count("kimi-cli", [d]);
    expect(parts(totals)).toEqual([30, 300, 0, 3, 333, 1]);
  });

  it("/fork copies lines verbatim into a new session: the copies are not counted again", async () => {
    const d = tempDir();
    const lines = [kMeta, status(1, "m1", [100, 10, 1000, 0]), status(2, "m2", [50, 20, 1100, 5])];
    writeJsonl(d, "s1/wire.jsonl", lines);
    writeJsonl(d, "s2/wire.jsonl", [...lines, status(30, "m3", [1, 1, 1, 1])]);
    const { totals } = await count("kimi-cli", [d]);
    expect(parts(totals)).toEqual([151, 2101, 6, 31, 2289, 3]);
  });

  it("message_ids repeat across unrelated sessions: never deduplicated across them", async () => {
    const d = tempDir();
    writeJsonl(d, "s1/wire.jsonl", [kMeta, status(1, "chatcmpl-fixture-0001", [100, 10, 1000, 0])]);
    writeJsonl(d, "s2/wire.jsonl", [kMeta, status(500, "chatcmpl-fixture-0001", [100, 10, 1000, 0])]);
    const { totals } = await count("kimi-cli", [d]);
    expect(parts(totals)).toEqual([200, 2000, 0, 20, 2220, 2]);
  });
});

// ---------------------------------------------------------------- kimi-code

const record = (
  s: number | null,
  u: [other: number, output: number, read: number, create: number],
  scope = "turn",
) => ({
  type: "usage.record",
  model: "kimi-k3",
  usage: { inputOther: u[0], output: u[1], inputCacheRead: u[2], inputCacheCreation: u[3] },
  usageScope: scope,
  ...(s === null ? {} : { time: ms(s) }),
});
const stepEnd = (s: number, u: [number, number, number, number]) => ({
  type: "context.append_loop_event",
  event: {
    type: "step.end",
    turnId: "0",
    step: 1,
    usage: { inputOther: u[0], output: u[1], inputCacheRead: u[2], inputCacheCreation: u[3] },
  },
  time: ms(s),
});
const kcMeta = { type: "metadata", protocol_version: "1.4", created_at: ms(0) };

describe("kimi-code (TRAJECTORIES.md: kimi-code)", () => {
  it("usage.record lines are the calls; step.end repeats are not counted", async () => {
    const d = tempDir();
    writeJsonl(d, "s1/agents/main/wire.jsonl", [
      kcMeta,
      { type: "llm.request", time: ms(1) },
      record(5, [100, 10, 1000, 0]),
      stepEnd(5, [100, 10, 1000, 0]),
      record(9, [20, 5, 1100, 0]),
      stepEnd(9, [20, 5, 1100, 0]),
      { type: "llm.request", time: ms(10) }, // cancelled: no usage.record
    ]);
    const { totals } = await count("kimi-code", [d]);
    expect(parts(totals)).toEqual([120, 2100, 0, 15, 2235, 2]);
    expect(totals.lastCallTimeMs).toBe(ms(9));
  });

  it("a timed usage.record written twice in one file is one call, with TRAJECTORY_DUPLICATE_RECORDS (an untimed repeat may be a real call)", async () => {
    const d = tempDir();
    writeJsonl(d, "s1/agents/main/wire.jsonl", [
      kcMeta,
      record(5, [100, 10, 1000, 0]),
      record(5, [100, 10, 1000, 0]),
      record(9, [20, 5, 1100, 0]),
    ]);
    const { totals, reading } = await count("kimi-code", [d]);
    expect(parts(totals)).toEqual([120, 2100, 0, 15, 2235, 2]);
    expect(reading.warnings.map((w) => [w.code, w.message])).toEqual([
      [
        "TRAJECTORY_DUPLICATE_RECORDS",
        "1 usage record(s) repeat an earlier record of the same file, with the same time (to the ms), model, scope and usage (a line written twice?): counted once",
      ],
    ]);
  });

  it("both usageScope values count (a 'session' call such as compaction is a model call)", async () => {
    const d = tempDir();
    writeJsonl(d, "s1/agents/main/wire.jsonl", [
      kcMeta,
      record(5, [100, 10, 1000, 0]),
      record(7, [1734, 1074, 30720, 0], "session"),
    ]);
    const { totals } = await count("kimi-code", [d]);
    expect(parts(totals)).toEqual([1834, 31720, 0, 1084, 34638, 2]);
  });

  it("what precedes a 'forked' marker belongs to the parent: not recounted when the parent is present", async () => {
    const d = tempDir();
    const r1 = record(5, [100, 10, 1000, 0]);
    const r2 = record(9, [20, 5, 1100, 0]);
    writeJsonl(d, "parent/agents/main/wire.jsonl", [kcMeta, r1, r2]);
    writeJsonl(d, "fork/agents/main/wire.jsonl", [
      kcMeta,
      r1,
      r2,
      { type: "forked", time: ms(100) },
      record(110, [1, 1, 1, 1]),
    ]);
    const { totals, reading } = await count("kimi-code", [d]);
    expect(parts(totals)).toEqual([121, 2101, 1, 16, 2239, 3]);
    expect(reading.warnings).toEqual([]);
  });

  it("a fork whose parent is absent: the records before the marker are the only copy and count once (sibling forks too), with a warning", async () => {
    const d = tempDir();
    const r1 = record(5, [100, 10, 1000, 0]);
    writeJsonl(d, "forkA/agents/main/wire.jsonl", [
      kcMeta,
      r1,
      { type: "forked", time: ms(100) },
      record(110, [1, 1, 1, 1]),
    ]);
    writeJsonl(d, "forkB/agents/main/wire.jsonl", [
      kcMeta,
      r1,
      { type: "forked", time: ms(200) },
      record(210, [2, 2, 2, 2]),
    ]);
    const { totals, reading, ledger } = await count("kimi-code", [d], d);
    expect(parts(totals)).toEqual([103, 1003, 3, 13, 1122, 3]);
    expect(ledger.at(ms(6)).calls).toBe(1);
    expect(reading.warnings).toEqual([
      expect.objectContaining({ code: "TRAJECTORY_PARENT_ABSENT", file: "forkA/agents/main/wire.jsonl", line: null }),
    ]);
  });

  it("files with no time: calls counted in totals, left out of tokens(t), one warning per file", async () => {
    const d = tempDir();
    writeJsonl(d, "old/agents/main/wire.jsonl", [
      { type: "metadata", protocol_version: "1.1", created_at: ms(0) },
      record(null, [100, 10, 1000, 0]),
      record(null, [20, 5, 1100, 0]),
    ]);
    writeJsonl(d, "new/agents/main/wire.jsonl", [kcMeta, record(50, [1, 1, 1, 1])]);
    const { totals, reading, ledger } = await count("kimi-code", [d], d);
    expect(parts(totals)).toEqual([121, 2101, 1, 16, 2239, 3]);
    expect(totals.lastCallTimeMs).toBe(ms(50));
    expect(parts(ledger.at(ms(1000)))).toEqual([1, 1, 1, 1, 4, 1]);
    expect(reading.calls.map((c) => c.timeMs)).toEqual([ms(50), null, null]);
    expect(reading.warnings).toEqual([
      expect.objectContaining({ code: "TRAJECTORY_UNPLACED_CALLS", file: "old/agents/main/wire.jsonl", line: 2 }),
    ]);
  });

  it("a copy of a file with no time (its untimed records, in order, an earlier file's) is counted once; one shared record is not a copy", async () => {
    const d = tempDir();
    const old = [
      { type: "metadata", protocol_version: "1.1", created_at: ms(0) },
      record(null, [100, 10, 1000, 0]),
      record(null, [20, 5, 1100, 0]),
    ];
    writeJsonl(d, "a/agents/main/wire.jsonl", old);
    writeJsonl(d, "a-backup/agents/main/wire.jsonl", old.slice(0, 2)); // a backup taken after the first call
    writeJsonl(d, "b/agents/main/wire.jsonl", [old[0]!, record(null, [100, 10, 1000, 0]), record(null, [7, 7, 7, 7])]);
    const { totals, reading } = await count("kimi-code", [d], d);
    // a's two calls, b's two (its first has a's usage, but b is no copy of a: its next record differs).
    expect(parts(totals)).toEqual([227, 3107, 7, 32, 3373, 4]);
    expect(reading.warnings.filter((w) => w.code === "TRAJECTORY_DUPLICATE_RECORDS")).toEqual([
      {
        code: "TRAJECTORY_DUPLICATE_RECORDS",
        file: "a-backup/agents/main/wire.jsonl",
        line: null,
        message:
          "1 usage record(s) without a time are, in order, those of another file (a copied session?): counted once",
      },
    ]);
  });
});

// ---------------------------------------------------------------- bad lines, listing, ledger

describe("bad lines (TRAJECTORIES.md: The quantity)", () => {
  it("a line that is not JSON is reported with file and line and skipped; the other calls still count", async () => {
    const d = tempDir();
    writeJsonl(
      d,
      "rollout-bad.jsonl",
      [
        meta(0, "T"),
        tc(5, [100, 0, 10]),
        "WARN stray log message",
        "",
        tc(9, [300, 50, 30], [200, 50, 20]),
        '{"timestamp": "2026-03-01T10:00:10Z", "type": "event_m',
      ],
      { finalNewline: false },
    );
    const { totals, reading } = await count("codex", [d], d);
    expect(parts(totals)).toEqual([250, 50, 0, 30, 330, 2]);
    expect(reading.warnings.map((w) => [w.code, w.file, w.line])).toEqual([
      ["TRAJECTORY_BAD_JSON", "rollout-bad.jsonl", 3],
      ["TRAJECTORY_BAD_JSON", "rollout-bad.jsonl", 6],
    ]);
  });

  it("the same in every format (claude-code, pi, kimi-cli, kimi-code)", async () => {
    const d = tempDir();
    writeJsonl(d, "c/s.jsonl", [asst(1, "msg_1", "req_1", [3, 1000, 200, 100]), "{not json"]);
    writeJsonl(d, "p/2026-03-01T10-00-00-000Z_a.jsonl", [piHeader(0, "a"), "}", piAsst(10, "e1", [5, 50, 1000, 20])]);
    writeJsonl(d, "k/s1/wire.jsonl", [kMeta, "garbage", status(1, "m1", [100, 10, 1000, 0])]);
    writeJsonl(d, "kc/s1/agents/main/wire.jsonl", [kcMeta, record(5, [100, 10, 1000, 0]), "[1,"]);
    const cases = [
      ["claude-code", "c", "c/s.jsonl", 2, 1303],
      ["pi", "p", "p/2026-03-01T10-00-00-000Z_a.jsonl", 2, 1075],
      ["kimi-cli", "k", "k/s1/wire.jsonl", 2, 1110],
      ["kimi-code", "kc", "kc/s1/agents/main/wire.jsonl", 3, 1110],
    ] as const;
    for (const [format, sub, file, line, total] of cases) {
      const { totals, reading } = await count(format, [join(d, sub)], d);
      expect(totals.total).toBe(total);
      expect(reading.warnings.filter((w) => w.code === "TRAJECTORY_BAD_JSON").map((w) => [w.file, w.line])).toEqual([
        [file, line],
      ]);
    }
  });
});

describe("readTrajectory: files and order", () => {
  it("finds the format's session files recursively, reports paths relative to displayRoot, and sorts calls by (time, file, line) with null times last", async () => {
    const d = tempDir();
    writeJsonl(d, "run/b/s1/agents/main/wire.jsonl", [kcMeta, record(9, [1, 0, 0, 0]), record(null, [2, 0, 0, 0])]);
    writeJsonl(d, "run/a/s2/agents/sub/wire.jsonl", [kcMeta, record(9, [4, 0, 0, 0]), record(3, [8, 0, 0, 0])]);
    writeJsonl(d, "run/a/notes.jsonl", [record(1, [1000, 0, 0, 0])]); // not a kimi-code session file
    const reading = await readTrajectory("kimi-code", [join(d, "run")], { displayRoot: d });
    expect(reading.calls.map((c: TokenCall) => [c.uncachedInput, c.timeMs, c.file, c.line])).toEqual([
      [8, ms(3), "run/a/s2/agents/sub/wire.jsonl", 3],
      [4, ms(9), "run/a/s2/agents/sub/wire.jsonl", 2],
      [1, ms(9), "run/b/s1/agents/main/wire.jsonl", 2],
      [2, null, "run/b/s1/agents/main/wire.jsonl", 3],
    ]);
  });

  it("a path that does not exist is a fatal InputError; an empty folder is a warning", async () => {
    const d = tempDir();
    await expect(readTrajectory("codex", [join(d, "nope")])).rejects.toMatchObject({
      name: "InputError",
      code: "TRAJECTORY_PATH_MISSING",
    });
    await expect(readTrajectory("codex", [join(d, "nope")])).rejects.toBeInstanceOf(InputError);
    const r = await readTrajectory("codex", [d], { displayRoot: d });
    expect(r.warnings.map((w) => w.code)).toEqual(["TRAJECTORY_NO_FILES"]);
  });

  it("a file given twice (directly and inside its folder) is read once", async () => {
    const d = tempDir();
    const f = writeJsonl(d, "rollout-a.jsonl", [meta(0, "T"), tc(5, [100, 0, 10])]);
    writeJsonl(d, "rollout-b.jsonl", [meta(0, "U"), tc(5, [100, 0, 10])]);
    const { totals } = await count("codex", [f, d]);
    expect(totals.calls).toBe(2);
  });

  it("reads gzip-compressed session files", async () => {
    const { gzipSync } = await import("node:zlib");
    const { writeFileSync } = await import("node:fs");
    const d = tempDir();
    const body = `${[meta(0, "T"), tc(5, [100, 0, 10])].map((l) => JSON.stringify(l)).join("\n")}\n`;
    writeFileSync(join(d, "rollout-z.jsonl.gz"), gzipSync(body));
    const { totals } = await count("codex", [d]);
    expect(parts(totals)).toEqual([100, 0, 0, 10, 110, 1]);
  });
});

describe("TokenLedger", () => {
  const c = (timeMs: number | null, n: number): TokenCall => ({
    uncachedInput: n,
    cacheRead: 10 * n,
    cacheWrite: 0,
    output: 1,
    timeMs,
    file: "f",
    line: n,
  });
  const ledger = new TokenLedger([c(3000, 4), c(1000, 1), c(2000, 2), c(2000, 3), c(null, 5)]);

  it("totals() counts every call, placed or not; lastCallTimeMs is the latest placed call", () => {
    expect(ledger.totals()).toEqual({
      uncachedInput: 15,
      cacheRead: 150,
      cacheWrite: 0,
      output: 5,
      total: 170,
      calls: 5,
      lastCallTimeMs: 3000,
    });
  });

  it("callTotals gives the ledger's totals without building it", () => {
    const calls = [c(3000, 4), c(1000, 1), c(2000, 2), c(2000, 3), c(null, 5)];
    expect(callTotals(calls)).toEqual(new TokenLedger(calls).totals());
    expect(callTotals([c(null, 1)])).toEqual({ ...new TokenLedger([c(null, 1)]).totals(), lastCallTimeMs: null });
    expect(callTotals([])).toEqual(new TokenLedger([]).totals());
    const big = { ...c(5, 1), cacheRead: 2 ** 40 + 1 };
    expect(callTotals([big, big]).cacheRead).toBe(2 ** 41 + 2);
  });

  it("sums counts beyond 32 bits exactly, from calls in order or not, unplaced ones last or not", () => {
    const big = (timeMs: number | null, n: number): TokenCall => ({ ...c(timeMs, n), cacheRead: 4_294_967_297 * n });
    for (const calls of [
      [big(1000, 1), big(2000, 2), big(3000, 3), big(null, 4)],
      [big(3000, 3), big(1000, 1), big(2000, 2), big(null, 4)],
      [big(1000, 1), big(null, 4), big(2000, 2), big(3000, 3)],
    ]) {
      const l = new TokenLedger(calls);
      expect(l.totals()).toMatchObject({ cacheRead: 42_949_672_970, calls: 4, lastCallTimeMs: 3000 });
      expect(l.placedCalls()).toBe(3);
      expect(l.at(2000).cacheRead).toBe(12_884_901_891);
      expect(l.at(3000, 2000).cacheRead).toBe(21_474_836_485);
      expect(l.around(2000, 1, 1).map((x) => x.line)).toEqual([2, 3]);
    }
  });

  it("at(t) is cumulative over calls with time ≤ t (inclusive), null-time calls excluded", () => {
    expect(ledger.at(2000)).toEqual({
      uncachedInput: 6,
      cacheRead: 60,
      cacheWrite: 0,
      output: 3,
      total: 69,
      calls: 3,
      lastCallTimeMs: 2000,
    });
    expect(ledger.at(1999).calls).toBe(1);
    expect(ledger.at(999)).toEqual({
      uncachedInput: 0,
      cacheRead: 0,
      cacheWrite: 0,
      output: 0,
      total: 0,
      calls: 0,
      lastCallTimeMs: null,
    });
    expect(ledger.at(1e15).calls).toBe(4);
  });

  it("at(t, from) counts calls with from ≤ time ≤ t", () => {
    expect(ledger.at(3000, 2000)).toMatchObject({ uncachedInput: 9, calls: 3, lastCallTimeMs: 3000 });
    expect(ledger.at(2999, 1001)).toMatchObject({ uncachedInput: 5, calls: 2, lastCallTimeMs: 2000 });
    expect(ledger.at(1000, 2000)).toMatchObject({ calls: 0, lastCallTimeMs: null, total: 0 });
  });
});
