import { describe, expect, it, afterAll } from "vitest";
import { mkdir, symlink, cp } from "node:fs/promises";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { readTrajectory, TokenLedger } from "../src/extractors/trajectory/index.js";
import { makeTree, removeTree, lines } from "./helpers/tree.js";
import { runCli } from "./helpers/cli.js";

/** Trajectory inputs a new user found to mislead the counters (issue 5's fresh-eyes pass). */
const roots: string[] = [];
afterAll(async () => Promise.all(roots.map(removeTree)));

const record = (time: number, output: unknown) =>
  JSON.stringify({
    type: "usage.record",
    model: "kimi-k3",
    usageScope: "turn",
    usage: { inputOther: 100, output, inputCacheRead: 1000, inputCacheCreation: 0 },
    time,
  });

async function session(): Promise<string> {
  const root = await makeTree({
    "sessions/s1/agents/main/wire.jsonl": lines(record(1790000000000, 10), record(1790000060000, 20)),
  });
  roots.push(root);
  return root;
}

describe("trajectory inputs found by a new user", () => {
  it("a symbolic link loop inside the folder does not multiply the count (P4)", async () => {
    const root = await session();
    await symlink(".", join(root, "sessions", "self"));
    const reading = await readTrajectory("kimi-code", [root], { displayRoot: root });
    expect(new TokenLedger(reading.calls).totals()).toMatchObject({ calls: 2, total: 2 * 1100 + 30 });
    expect(reading.calls.map((c) => c.file)).toEqual([
      "sessions/s1/agents/main/wire.jsonl",
      "sessions/s1/agents/main/wire.jsonl",
    ]);
    expect(reading.warnings.map((w) => w.code)).toEqual(["TRAJECTORY_DUPLICATE_PATH"]);
  });

  it("a dangling link with a session name is a read error that says so, not 'removed while the command ran'", async () => {
    const root = await session();
    await symlink("gone.jsonl", join(root, "sessions", "s1", "agents", "main", "wire.jsonl.gz"));
    const reading = await readTrajectory("kimi-code", [root], { displayRoot: root });
    expect(reading.warnings.map((w) => [w.code, w.file, w.message])).toEqual([
      [
        "TRAJECTORY_READ_ERROR",
        "sessions/s1/agents/main/wire.jsonl.gz",
        "cannot follow the link sessions/s1/agents/main/wire.jsonl.gz: its target does not exist (a dangling link); the session files there are not counted, so the run's tokens are incomplete",
      ],
    ]);
  });

  it("a session folder copied whole is counted once (P5)", async () => {
    const root = await session();
    await cp(join(root, "sessions", "s1", "agents"), join(root, "sessions", "s1", "backup", "agents"), {
      recursive: true,
    });
    const reading = await readTrajectory("kimi-code", [root], { displayRoot: root });
    expect(new TokenLedger(reading.calls).totals()).toMatchObject({ calls: 2, total: 2230 });
    expect(reading.warnings.map((w) => [w.code, w.file])).toEqual([
      ["TRAJECTORY_DUPLICATE_RECORDS", "sessions/s1/backup/agents/main/wire.jsonl"],
    ]);
  });

  it("a fractional or too-large token count is a bad usage value, not rounded (P14)", async () => {
    const root = await makeTree({
      "sessions/s1/agents/main/wire.jsonl": lines(
        record(1790000000000, 10.5),
        record(1790000060000, 1e20),
        record(1790000120000, 7),
      ),
    });
    roots.push(root);
    const reading = await readTrajectory("kimi-code", [root], { displayRoot: root });
    expect(new TokenLedger(reading.calls).totals()).toMatchObject({ calls: 1, total: 1107 });
    expect(reading.warnings.map((w) => [w.code, w.line])).toEqual([
      ["TRAJECTORY_BAD_USAGE", 1],
      ["TRAJECTORY_BAD_USAGE", 2],
    ]);
  });

  it("tokens refuses an impossible --at date, a pipe and a device (P15, P16)", async () => {
    const root = await session();
    const at = await runCli("tokens", "--format", "kimi-code", root, "--at", "2026-02-30T13:00:00Z");
    expect(at.code).toBe(64);
    execFileSync("mkfifo", [join(root, "pipe.jsonl")]);
    const fifo = await runCli("tokens", "--format", "kimi-code", join(root, "pipe.jsonl"));
    expect([fifo.code, fifo.stderr]).toEqual([1, expect.stringContaining("error TRAJECTORY_PATH_SPECIAL")]);
    const dev = await runCli("tokens", "--format", "codex", "/dev/null");
    expect([dev.code, dev.stderr]).toEqual([1, expect.stringContaining("error TRAJECTORY_PATH_SPECIAL")]);
    // A folder holding a pipe still reads its session files.
    await mkdir(join(root, "more"));
    const folder = await runCli("tokens", "--format", "kimi-code", root, "--json");
    expect(JSON.parse(folder.stdout)).toMatchObject({ calls: 2, total: 2230 });
  });
});

describe("the wrong format", () => {
  it("warns when session files hold no call of it (P6, second pass)", async () => {
    const root = await session();
    const reading = await readTrajectory("codex", [root], { displayRoot: root });
    expect(reading.calls).toEqual([]);
    expect(reading.warnings.map((w) => [w.code, w.file])).toEqual([
      ["TRAJECTORY_NO_CALLS", "sessions/s1/agents/main/wire.jsonl"],
    ]);
  });
});
