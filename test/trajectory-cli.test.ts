/**
 * `ptb-manifest tokens` through the real CLI entry (`main()` of src/cli.ts),
 * with stdout captured.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { main } from "../src/cli.js";
import { at, ms, tempDir, useTempDirs, writeJsonl } from "./trajectory-helpers.js";

useTempDirs();

const SAMPLES = resolve(import.meta.dirname, "../../shared/samples/trajectories");
const present = existsSync(join(SAMPLES, "expected.json"));

let out: string[] = [];
let err: string[] = [];
beforeEach(() => {
  out = [];
  err = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    out.push(String(chunk));
    return true;
  });
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    err.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

const run = (...args: string[]) => main(["node", "ptb-manifest", ...args]);

describe.skipIf(!present)(
  present ? "tokens --json on a real sample" : `tokens --json on a real sample: skipped, ${SAMPLES} not found`,
  () => {
    it("prints exactly one JSON object with the expected totals of the codex sample", async () => {
      const file = join(SAMPLES, "codex/rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl");
      const code = await run("tokens", "--format", "codex", file, "--json");
      expect(code).toBe(0);
      expect(JSON.parse(out.join(""))).toEqual({
        uncached_input: 99460,
        cache_read: 1651968,
        cache_write: 0,
        output: 14600,
        total: 1766028,
        calls: 28,
        last_call_time: "2026-02-23T11:46:43.614Z",
        warnings: [],
      });
    });

    it("with --at gives the checkpoint tokens(t) of the claude-code sample folder", async () => {
      const folder = join(SAMPLES, "claude-code/-home-user-projects-spotter-worktrees-spotter-4te");
      const code = await run("tokens", "--format", "claude-code", folder, "--at", "2026-02-12T14:12:38.806Z", "--json");
      expect(code).toBe(0);
      const report = JSON.parse(out.join(""));
      expect(report).toMatchObject({
        uncached_input: 10,
        cache_read: 128728,
        cache_write: 28455,
        output: 642,
        total: 157835,
        calls: 6,
      });
      expect(report.warnings.map((w: { code: string }) => w.code)).toEqual(["TRAJECTORY_OUTPUT_UNDERCOUNT"]);
    });
  },
);

describe("tokens command on a fixture", () => {
  const fixture = () => {
    const d = tempDir();
    const rec = (s: number | null, other: number, scope = "turn") => ({
      type: "usage.record",
      model: "m",
      usage: { inputOther: other, output: 10, inputCacheRead: 100, inputCacheCreation: 1 },
      usageScope: scope,
      ...(s === null ? {} : { time: ms(s) }),
    });
    writeJsonl(d, "s1/agents/main/wire.jsonl", [
      { type: "metadata", created_at: ms(0) },
      rec(10, 5),
      rec(20, 6),
      "oops",
      rec(30, 7, "session"),
    ]);
    return d;
  };

  it("warns TRAJECTORY_FILE_NOT_READ (once per folder) for files of the folder it does not read, a FIFO too; a kimi context file is known", async () => {
    const d = fixture();
    copyFileSync(join(d, "s1/agents/main/wire.jsonl"), join(d, "s1/agents/main/wire.jsonl.1"));
    writeFileSync(join(d, "s1/agents/main/wire.jsonl.bak"), "");
    writeFileSync(join(d, "s1/agents/main/context.jsonl"), "");
    execFileSync("mkfifo", [join(d, "s1/wire.jsonl")]);
    const code = await run("tokens", "--format", "kimi-code", d, "--json");
    expect(code).toBe(0);
    const report = JSON.parse(out.join(""));
    expect([report.total, report.calls]).toEqual([351, 3]); // the fixture's own count: nothing of the unread files
    const unread = report.warnings.filter((w: { code: string }) => w.code === "TRAJECTORY_FILE_NOT_READ");
    expect(unread).toEqual([
      {
        code: "TRAJECTORY_FILE_NOT_READ",
        message: `${d}/: 3 file(s) not read (no kimi-code session file, or not a regular file), first ${d}/s1/agents/main/wire.jsonl.1; a kimi-code session file is read only when named wire.jsonl (or wire.jsonl.gz): name it wire.jsonl, else the run's tokens miss its calls`,
        file: `${d}/s1/agents/main/wire.jsonl.1`,
        line: null,
      },
    ]);
  });

  it("--json --at: cumulative totals of the calls at or before the moment, and the warnings", async () => {
    const d = fixture();
    const code = await run("tokens", "--format", "kimi-code", d, "--at", at(20), "--json");
    expect(code).toBe(0);
    expect(out).toHaveLength(1);
    const report = JSON.parse(out.join(""));
    // A count at a moment says so (since, at), as a --since or --cell one does: it is not the run's total.
    expect(report).toEqual({
      since: null,
      at: at(20),
      uncached_input: 11,
      cache_read: 200,
      cache_write: 2,
      output: 20,
      total: 233,
      calls: 2,
      last_call_time: at(20),
      warnings: [
        {
          code: "TRAJECTORY_BAD_JSON",
          message: expect.stringContaining("not valid JSON"),
          file: join(d, "s1/agents/main/wire.jsonl"),
          line: 4,
        },
      ],
    });
  });

  it("a window outside the logs is null with TRAJECTORY_WINDOW_OUTSIDE_LOGS; a quiet stretch inside them counts 0", async () => {
    const d = fixture();
    const ask = async (...args: string[]) => {
      out.length = 0;
      expect(await run("tokens", "--format", "kimi-code", d, ...args, "--json")).toBe(0);
      const r = JSON.parse(out.join(""));
      return [r.total, r.calls, r.warnings.map((w: { code: string; line: number }) => [w.code, w.line])];
    };
    const bad = ["TRAJECTORY_BAD_JSON", 4];
    // Calls at 10, 20 and 30 (lines 2, 3 and 5).
    expect(await ask("--at", at(5))).toEqual([null, null, [bad, ["TRAJECTORY_WINDOW_OUTSIDE_LOGS", 2]]]);
    expect(await ask("--since", at(35))).toEqual([null, null, [bad, ["TRAJECTORY_WINDOW_OUTSIDE_LOGS", 5]]]);
    expect(await ask("--since", at(12), "--at", at(18))).toEqual([0, 0, [bad]]);
    expect(await ask("--at", at(10))).toEqual([116, 1, [bad]]); // the first call alone
  });

  it("a reading left incomplete (a codex rollout without its session_meta) is null, not the count of what was read", async () => {
    const d = tempDir();
    const tokenCount = (s: number, input: number) => ({
      timestamp: at(s),
      type: "event_msg",
      payload: {
        type: "token_count",
        info: {
          total_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: 5, total_tokens: input + 5 },
          last_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: 5, total_tokens: input + 5 },
        },
      },
    });
    const meta = { timestamp: at(0), type: "session_meta", payload: { id: "a", timestamp: at(0) } };
    writeJsonl(d, "rollout-a.jsonl", [meta, tokenCount(10, 100)]);
    expect(await run("tokens", "--format", "codex", d, "--json")).toBe(0);
    expect(JSON.parse(out.join(""))).toMatchObject({ total: 105, calls: 1, warnings: [] });
    writeJsonl(d, "rollout-b.jsonl", [tokenCount(20, 50)]);
    for (const window of [[], ["--at", at(30)]]) {
      out.length = 0;
      expect(await run("tokens", "--format", "codex", d, ...window, "--json")).toBe(0);
      const r = JSON.parse(out.join(""));
      expect([r.total, r.calls, r.last_call_time, r.warnings.map((w: { code: string }) => w.code)]).toEqual([
        null,
        null,
        null,
        ["TRAJECTORY_NO_SESSION_META"],
      ]);
    }
  });

  it("a call timed in the wrong unit (epoch seconds as ms: 1970) is a call without a time, with TRAJECTORY_IMPLAUSIBLE_TIME, not dropped from --at", async () => {
    const d = tempDir();
    const rec = (time: number, other: number) => ({
      type: "usage.record",
      model: "m",
      usage: { inputOther: other, output: 10, inputCacheRead: 100, inputCacheCreation: 1 },
      usageScope: "turn",
      time,
    });
    writeJsonl(d, "s1/agents/main/wire.jsonl", [
      { type: "metadata", created_at: Date.parse(at(0)) },
      rec(Date.parse(at(10)), 5),
      rec(Math.floor(Date.parse(at(20)) / 1000), 6), // seconds, not ms
      rec(Date.parse(at(30)), 7),
    ]);
    expect(await run("tokens", "--format", "kimi-code", d, "--json")).toBe(0);
    const all = JSON.parse(out.join(""));
    expect([all.total, all.calls, all.last_call_time]).toEqual([351, 3, at(30)]);
    expect(all.warnings.map((w: { code: string; line: number }) => [w.code, w.line])).toEqual([
      ["TRAJECTORY_IMPLAUSIBLE_TIME", 3],
    ]);
    expect(all.warnings[0].message).toMatch(
      /^1 call\(s\) are timed outside 2020-01-01T00:00:00.000Z – 2100-01-01T00:00:00.000Z \(the first at 1970-/,
    );
    // At a moment after it, the misdated call is left out (as a call without a time), not counted in 1970.
    out.length = 0;
    expect(await run("tokens", "--format", "kimi-code", d, "--at", at(25), "--json")).toBe(0);
    expect(JSON.parse(out.join("")).calls).toBe(1);
  });

  it("--at with an offset is the same instant", async () => {
    const d = fixture();
    const local = at(20).replace("T10:", "T11:").replace("Z", "+01:00");
    expect(await run("tokens", "--format", "kimi-code", d, "--at", local, "--json")).toBe(0);
    expect(JSON.parse(out.join("")).calls).toBe(2);
  });

  it("without --json prints a readable table on stdout and warnings on stderr", async () => {
    const d = fixture();
    expect(await run("tokens", "--format", "kimi-code", d)).toBe(0);
    const text = out.join("");
    expect(text).toMatch(/uncached input\s+18\n/);
    expect(text).toMatch(/total\s+351\n/);
    expect(text).toMatch(/calls\s+3\n/);
    expect(text).toContain(`last call time  ${at(30)}`);
    expect(err.join("")).toContain("TRAJECTORY_BAD_JSON");
  });

  it("with PTB_MANIFEST_DEBUG says on stderr how many threads scanned, and only then", async () => {
    const d = fixture();
    const io = { stdout: process.stdout, stderr: process.stderr };
    const argv = ["node", "ptb-manifest", "tokens", "--format", "kimi-code", d, "--json"];
    expect(await main(argv, { ...io, env: { PTB_MANIFEST_DEBUG: "1" } })).toBe(0);
    expect(err).toEqual(["ptb-manifest: debug: scan threads 1\n"]);
    err = [];
    expect(await main(argv, { ...io, env: {} })).toBe(0);
    expect(err).toEqual([]);
  });

  it("an unknown format or an unparseable --at is a usage error naming the accepted values", async () => {
    const d = fixture();
    expect(await run("tokens", "--format", "gemini", d)).toBe(64);
    expect(err.join("")).toContain("codex, claude-code, pi, kimi-cli, kimi-code");
    err = [];
    expect(await run("tokens", "--format", "kimi-code", d, "--at", "2026-03-01 10:00")).toBe(64);
    expect(err.join("")).toMatch(/--at.*ISO 8601/);
  });

  it("a missing PATH is a clear error", async () => {
    const d = tempDir();
    expect(await run("tokens", "--format", "codex")).toBe(64);
    expect(err.join("")).toContain("missing required argument 'path'");
    err = [];
    expect(await run("tokens", "--format", "codex", join(d, "absent"))).toBe(1);
    expect(err.join("")).toContain("TRAJECTORY_PATH_MISSING");
  });

  it("--help explains every option", async () => {
    expect(await run("tokens", "--help")).toBe(0);
    const help = out.join("");
    for (const opt of ["--format <format>", "--at <iso-time>", "--json", "<path...>"])
      expect(help).toContain(opt.replace("<path...>", "path"));
  });
});
