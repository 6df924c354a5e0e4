import { describe, expect, it, afterAll } from "vitest";
import { Diagnostics } from "../src/diagnostics.js";
import { InputError } from "../src/errors.js";
import { readSupervisor } from "../src/pipeline/read-supervisor.js";
import { BudgetClock, round2 } from "../src/resolve/clock.js";
import type { Cell } from "../src/schema.js";
import { makeTree, removeTree, lines } from "./helpers/tree.js";

const roots: string[] = [];
afterAll(async () => Promise.all(roots.map(removeTree)));
const cell: Cell = {
  cell: "c1",
  driver: "d",
  effort: "e",
  trajectory_format: "codex",
  pvc_root: "/pvc/ptb/c1",
  janitor_tz: "UTC",
  family_aliases: { "sft 3": "sft3" },
};
const T = (s: string) => Date.parse(s);

async function read(text: string) {
  const root = await makeTree({ "c1/supervisor/history.jsonl": text });
  roots.push(root);
  const diag = new Diagnostics();
  return { history: await readSupervisor(root, cell, diag), warnings: diag.warnings };
}

describe("supervisor history", () => {
  it("reads run_start, pauses, run_end, roles; ignores driver_restart and unknown events; warns on bad lines", async () => {
    const { history, warnings } = await read(
      lines(
        '{"ts":"2026-10-02T08:00:00Z","event":"run_start","run_id":"a-main"}',
        '{"ts":"2026-10-03T01:12:40Z","event":"driver_restart","reason":"oom"}',
        '{"ts":"2026-10-04T10:00:00Z","event":"pause","reason":"cluster maintenance"}',
        "{not json",
        '{"ts":"2026-10-04T13:30:00Z","event":"resume"}',
        '{"ts":"2026-10-05T00:00:00Z","event":"quota_probe","x":1}',
        '{"ts":"2026-10-06T12:00:00Z","event":"fallback","checkpoint":"/pvc/ptb/c1/sft2/weights/step_800"}',
        '{"ts":"2026-10-06T12:00:00Z","event":"submit","checkpoint":"/pvc/ptb/c1/sft 3/weights/step_400"}',
        '{"ts":"2026-10-06T15:30:00Z","event":"run_end"}',
      ),
    );
    expect(history.runStartMs).toBe(T("2026-10-02T08:00:00Z"));
    expect(history.runEndMs).toBe(T("2026-10-06T15:30:00Z"));
    expect(history.pauses).toEqual([{ startMs: T("2026-10-04T10:00:00Z"), endMs: T("2026-10-04T13:30:00Z"), line: 3 }]);
    expect(history.roleEvents.map((e) => [e.detail.role, e.family, e.step, e.familyDir])).toEqual([
      ["fallback", "sft2", 800, "sft2"],
      ["SUBMITTED", "sft3", 400, "sft 3"],
    ]);
    expect(warnings.map((w) => [w.code, w.line])).toEqual([["SUPERVISOR_BAD_LINE", 4]]);
  });

  it("a missing run_start is fatal, naming the file", async () => {
    const err = await read(lines('{"ts":"2026-10-06T15:30:00Z","event":"run_end"}')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err).toMatchObject({ code: "SUPERVISOR_NO_RUN_START", file: "c1/supervisor/history.jsonl" });
  });

  it("a second run_start is a warning and the first is used", async () => {
    const { history, warnings } = await read(
      lines('{"ts":"2026-10-02T08:00:00Z","event":"run_start"}', '{"ts":"2026-10-03T08:00:00Z","event":"run_start"}'),
    );
    expect(history.runStartMs).toBe(T("2026-10-02T08:00:00Z"));
    expect(warnings.map((w) => [w.code, w.line])).toEqual([
      ["SUPERVISOR_DUPLICATE_RUN_START", 2],
      ["SUPERVISOR_NO_SUBMIT", null],
    ]);
  });
});

describe("budget clock", () => {
  const clock = new BudgetClock(T("2026-10-02T08:00:00Z"), [
    { startMs: T("2026-10-04T10:00:00Z"), endMs: T("2026-10-04T13:30:00Z") },
    { startMs: T("2026-10-05T00:00:00Z"), endMs: T("2026-10-05T01:00:00Z") },
  ]);
  it("counts hours from run_start less paused time before t", () => {
    expect(clock.hourAt(T("2026-10-02T08:00:00Z"))).toBe(0);
    expect(clock.hourAt(T("2026-10-04T10:00:00Z"))).toBe(50);
    expect(clock.hourAt(T("2026-10-04T12:00:00Z"))).toBe(50); // inside the pause
    expect(clock.hourAt(T("2026-10-04T14:30:00Z"))).toBe(51);
    expect(clock.hourAt(T("2026-10-05T02:00:00Z"))).toBe(61.5);
  });
  it("timeAt inverts hourAt", () => {
    for (const h of [0, 10.25, 50, 51, 61.5, 99.99]) expect(clock.hourAt(clock.timeAt(h))).toBeCloseTo(h, 9);
    expect(new Date(clock.timeAt(50)).toISOString()).toBe("2026-10-04T10:00:00.000Z");
  });
  it("round2 rounds half away from zero without binary drift", () => {
    expect(round2(1.005)).toBe(1.01);
    expect(round2(41.995)).toBe(42);
    expect(round2(7.004999)).toBe(7);
  });
});

describe("found by a new user", () => {
  it("a pause never resumed before run_end warns: the clock is unknown up to run_end (P3)", async () => {
    const { warnings } = await read(
      lines(
        '{"ts":"2026-10-02T08:00:00Z","event":"run_start"}',
        '{"ts":"2026-10-04T10:00:00Z","event":"pause"}',
        '{"ts":"2026-10-06T15:30:00Z","event":"run_end"}',
      ),
    );
    expect(warnings.map((w) => [w.code, w.line])).toEqual([
      ["SUPERVISOR_UNPAIRED_PAUSE", 2],
      ["SUPERVISOR_NO_SUBMIT", null],
    ]);
    expect(warnings[0]!.message).toContain(
      "how much of the 53.50 h of wall time up to run_end the budget clock ran is unknown",
    );
  });

  it("a run_start whose ts is unreadable is named with its line (P21)", async () => {
    const err = await read(lines('{"ts":"2026-10-02T08:00:00","event":"run_start"}')).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "SUPERVISOR_NO_RUN_START", line: 1 });
    expect((err as Error).message).toContain('its run_start line cannot be read (no valid "ts"');
  });

  it("an impossible calendar date is a bad line, not rolled over (P15)", async () => {
    const { history, warnings } = await read(
      lines('{"ts":"2026-02-01T08:00:00Z","event":"run_start"}', '{"ts":"2026-02-30T16:00:00Z","event":"pause"}'),
    );
    expect(history.pauses).toEqual([]);
    expect(warnings.map((w) => [w.code, w.line])).toEqual([
      ["SUPERVISOR_BAD_LINE", 2],
      ["SUPERVISOR_NO_SUBMIT", null],
    ]);
  });
});

describe("parseIsoTime", () => {
  it("reads RFC 3339 times strictly", async () => {
    const { parseIsoTime } = await import("../src/util/values.js");
    expect(parseIsoTime("2026-10-02T08:00:00Z")).toBe(Date.UTC(2026, 9, 2, 8));
    expect(parseIsoTime("2026-10-02t08:00:00.250+02:00")).toBe(Date.UTC(2026, 9, 2, 6, 0, 0, 250));
    expect(parseIsoTime("2024-02-29T00:00:00Z")).toBe(Date.UTC(2024, 1, 29));
    for (const bad of [
      "2026-02-30T16:00:00Z",
      "2025-02-29T00:00:00Z",
      "2026-10-02T24:00:00Z",
      "2026-10-02T23:59:60Z",
      "2026-10-02T08:00:00+25:00",
      "2026-10-02T08:00:00",
      "1790000000",
      "now",
    ]) {
      expect(parseIsoTime(bad), bad).toBeNaN();
    }
    expect(parseIsoTime("2026-10-02 08:00:00", { assumeUtc: true })).toBe(Date.UTC(2026, 9, 2, 8));
  });
});

describe("a known event spelt differently (third new-user pass)", () => {
  it("warns instead of silently dropping a role or the run's end", async () => {
    const { history, warnings } = await read(
      lines(
        '{"ts":"2026-10-02T08:00:00Z","event":"run_start"}',
        '{"ts":"2026-10-03T08:00:00Z","event":"Submit","checkpoint":"/pvc/ptb/c1/sft2/weights/step_100"}',
        '{"ts":"2026-10-03T09:00:00Z","event":"fall_back","checkpoint":"/pvc/ptb/c1/sft2/weights/step_100"}',
        '{"ts":"2026-10-03T10:00:00Z","event":"run-end"}',
        '{"ts":"2026-10-03T10:00:00Z","event":"checkpoint_eval"}',
      ),
    );
    expect(history.roleEvents).toEqual([]);
    expect(history.runEndMs).toBeNull();
    expect(warnings.map((w) => [w.code, w.line])).toEqual([
      ["SUPERVISOR_MISSPELLED_EVENT", 2],
      ["SUPERVISOR_MISSPELLED_EVENT", 3],
      ["SUPERVISOR_MISSPELLED_EVENT", 4],
      ["SUPERVISOR_NO_SUBMIT", null],
    ]);
    expect(warnings.at(-1)!.message).toContain('events the builder does not read: "Submit" (line 2)');
  });

  it("warns on another form or a typo of a known event (paused, resumed, run_ended, pasue, resme), not on other unknown events (restart, result, phase)", async () => {
    const { history, warnings } = await read(
      lines(
        '{"ts":"2026-10-02T08:00:00Z","event":"run_start"}',
        '{"ts":"2026-10-02T09:00:00Z","event":"paused"}',
        '{"ts":"2026-10-02T11:00:00Z","event":"resumed"}',
        '{"ts":"2026-10-02T12:00:00Z","event":"driver_restart"}',
        '{"ts":"2026-10-02T12:30:00Z","event":"budget_warning"}',
        '{"ts":"2026-10-02T12:40:00Z","event":"restart"}',
        '{"ts":"2026-10-02T12:41:00Z","event":"result"}',
        '{"ts":"2026-10-02T12:42:00Z","event":"phase"}',
        '{"ts":"2026-10-02T12:43:00Z","event":"pasue"}',
        '{"ts":"2026-10-02T13:00:00Z","event":"resme"}',
        '{"ts":"2026-10-03T08:00:00Z","event":"submit","checkpoint":"/pvc/ptb/c1/sft2/weights/step_100"}',
        '{"ts":"2026-10-03T10:00:00Z","event":"run_ended"}',
      ),
    );
    expect(history.pauses).toEqual([]);
    expect(history.roleEvents.length).toBe(1);
    expect(warnings.map((w) => [w.code, w.line, w.message])).toEqual([
      [
        "SUPERVISOR_MISSPELLED_EVENT",
        2,
        'event "paused" is not "pause", though close to it (a tense or a typo?); ignored like any unknown event',
      ],
      [
        "SUPERVISOR_MISSPELLED_EVENT",
        3,
        'event "resumed" is not "resume", though close to it (a tense or a typo?); ignored like any unknown event',
      ],
      [
        "SUPERVISOR_MISSPELLED_EVENT",
        9,
        'event "pasue" is not "pause", though close to it (a tense or a typo?); ignored like any unknown event',
      ],
      [
        "SUPERVISOR_MISSPELLED_EVENT",
        10,
        'event "resme" is not "resume", though close to it (a tense or a typo?); ignored like any unknown event',
      ],
      [
        "SUPERVISOR_MISSPELLED_EVENT",
        12,
        'event "run_ended" is not "run_end", though close to it (a tense or a typo?); ignored like any unknown event',
      ],
    ]);
  });
});
