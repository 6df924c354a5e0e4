/**
 * The byte-level reader of a codex line's time (codex-line-time.ts) gives
 * what `JSON.parse` gives, or gives up (null: the caller parses the line
 * whole): never another time, never a line `JSON.parse` refuses. Checked on
 * every line of the real samples, of generated benchmark logs, and on fuzzed
 * lines.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isObject, setTrajectoryFastPath, str } from "../src/extractors/trajectory/common.js";
import { readTrajectory } from "../src/extractors/trajectory/index.js";
import { readCodexLineTime } from "../src/extractors/trajectory/codex-line-time.js";
import { generateRun } from "../bench/gen.js";
import { filesUnder, fuzzReader, linesOf, sampleLines, takenAtLeast } from "./helpers/usage-lines.js";

const READ_WHOLE = new Set(["session_meta", "event_msg", "token_usage_record"]);

/** Checks one line both ways; returns whether the byte reader took it. */
function check(line: string): boolean {
  const b = Buffer.from(`${line}\n{"next":1}`);
  const fast = readCodexLineTime(b, 0, Buffer.byteLength(line));
  if (fast === null) return false;
  let value: unknown;
  expect(() => {
    value = JSON.parse(line.trim());
  }, line).not.toThrow();
  expect(isObject(value), line).toBe(true);
  const v = value as Record<string, unknown>;
  expect(READ_WHOLE.has(v["type"] as string), line).toBe(false);
  expect(fast, line).toEqual({ timestamp: str(v, "timestamp") });
  return true;
}

const tmp = mkdtempSync(join(tmpdir(), "ptb-codex-line-time-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let generated: string[] = [];
beforeAll(async () => {
  await generateRun("codex", join(tmp, "codex"), 600_000, 2);
  generated = linesOf(filesUnder(join(tmp, "codex")));
});

describe("codex line time reader", () => {
  it("reads the time of every other line of the real samples and of generated logs as JSON.parse does", () => {
    let taken = 0;
    for (const l of [...sampleLines("codex"), ...generated]) {
      const took = check(l);
      const type = /^\{"timestamp":"[^"\\]*","type":"([a-z_]+)"/.exec(l)?.[1];
      // The usual layout of a line the counter reads no more of is never left to the fallback.
      if (type !== undefined && !READ_WHOLE.has(type)) expect(took, l).toBe(true);
      if (took) taken += 1;
    }
    expect(taken).toBeGreaterThan(takenAtLeast(400, 200));
  });

  it("reads members in any order and a time that is no string; gives up where JSON.parse must decide", () => {
    const read = (l: string) => readCodexLineTime(Buffer.from(l), 0, Buffer.byteLength(l));
    expect(
      read(' {"payload":{"x":[1,2.5e3,true,null]},"type":"response_item","timestamp":"2026-10-04T18:29:28.068Z"} '),
    ).toEqual({
      timestamp: "2026-10-04T18:29:28.068Z",
    });
    expect(read('{"timestamp":17,"type":"turn_context"}')).toEqual({ timestamp: undefined });
    expect(read('{"type":5}')).toEqual({ timestamp: undefined });
    const give = (l: string) => expect(read(l), l).toBeNull();
    const ts = '"timestamp":"2026-10-04T18:29:28.068Z"';
    give(`{${ts},"type":"session_meta","payload":{}}`);
    give(`{${ts},"type":"event_msg","payload":{"type":"agent_message"}}`);
    give(`{${ts},"type":"token_usage_record","payload":{}}`);
    give(`{${ts},"type":"event\\u005fmsg"}`); // an escaped type could be one read further
    give(`{"timestamp":"2026-10-04T18:29:28.068\\u005a","type":"x"}`); // an escaped time
    give(`{${ts},${ts},"type":"x"}`); // a key twice: JSON.parse keeps the last
    give(`{${ts},"type":"x","type":"event_msg"}`);
    give(`{"time\\u0073tamp":"x","type":"x"}`); // an escaped key
    give(`{${ts},"type":"x","payload":[1,]}`); // broken outside the part read
    give(`{${ts},"type":"x"}x`); // bytes after the object
    give(`{${ts},"type":"x"`); // cut off
    give("[1,2]");
    give("");
  });

  it("never reads a fuzzed line otherwise than JSON.parse does", () => {
    const bases = generated.filter((l) => l.includes('"response_item"') || l.includes('"turn_context"')).slice(0, 40);
    bases.push(
      '{"timestamp":"2026-10-04T18:29:28.068Z","type":"response_item","payload":{"x":[1,2.5e3,true,false,null,"é\\n"]}}',
    );
    fuzzReader(bases, check, 6000);
  });

  it("reads a fork whose replayed lines are damaged as the slow path does: the same calls, each damaged line warned", async () => {
    // sol-high's fork in the embedded sweep, with a damaged copy of its line 2 (a replayed message) after each line of 2–7.
    const dir = join(tmp, "fork");
    cpSync(join(import.meta.dirname, "..", "sources", "sol-high", "trajectory"), dir, { recursive: true });
    const fork = join(
      dir,
      "sessions/2026/10/04/rollout-2026-10-04T20-29-28-01a1082d-9784-72c9-8fd6-02ff19bac068.jsonl",
    );
    const lines = readFileSync(fork, "utf8").split("\n");
    const damaged = ['"x":[1,]', '"x":"\u0001"', '"x":"\\q"', '"x":01', '"x":tru', '"x":1.'].map((d) =>
      lines[1]!.replace('"payload":', `${d},"payload":`),
    );
    const edited = [lines[0]!, ...lines.slice(1, 7).flatMap((l, k) => [l, damaged[k]!]), ...lines.slice(7)];
    writeFileSync(fork, edited.join("\n"));
    setTrajectoryFastPath(false);
    const slow = await readTrajectory("codex", [dir], { displayRoot: dir });
    setTrajectoryFastPath(true);
    const fast = await readTrajectory("codex", [dir], { displayRoot: dir });
    expect(fast).toEqual(slow);
    expect(
      fast.warnings
        .filter((w) => w.code === "TRAJECTORY_BAD_JSON" && w.file?.endsWith("bac068.jsonl"))
        .map((w) => w.line),
    ).toEqual([3, 5, 7, 9, 11, 13]);
  });
});
