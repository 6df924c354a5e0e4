import { describe, expect, it } from "vitest";
import { Diagnostics } from "../src/diagnostics.js";
import { exactTime, warnUnresumedPause } from "../src/resolve/exact-time.js";
import { at, candidate, obs, supervisor, window } from "./helpers/resolve-data.js";

const reasons = (d: ReturnType<typeof exactTime>) => d.rejected.map((r) => [r.observation.origin.line, r.reason]);

describe("exact time by precedence", () => {
  it("takes the first STABLE mtime within the run; rejects copy-backs, early mtimes, directory mtimes, and the janitor below it", () => {
    const copyBack = obs("pvc_stable", "sft", 1, at(11), { seq: 0 });
    const early = obs("pvc_stable", "sft", 1, at(-1), { seq: 1 });
    const good = obs("pvc_stable", "sft", 1, at(2.004), { seq: 2 });
    const dir = obs("pvc_dir", "sft", 1, at(9), { seq: 3 });
    const archive = obs("janitor_archive", "sft", 1, at(2.5), { seq: 4 });
    const diag = new Diagnostics();
    const d = exactTime(candidate("sft", 1, [copyBack, early, good, dir, archive]), window(10), diag);
    expect(d.chosen).toEqual({
      observation: good,
      why: "STABLE mtime within the run: the write time (precedence 1, mtime)",
    });
    expect([d.source, d.rule, d.writeMs, d.hour, d.clockUnknown]).toEqual([
      "mtime",
      "mtime: STABLE file mtime within the run",
      at(2.004),
      2,
      false,
    ]);
    expect(d.hourExact).toBeCloseTo(2.004, 9);
    expect(reasons(d)).toEqual([
      [1, "copy_back"],
      [2, "before_run_start"],
      [4, "directory_mtime"],
      [5, "lower_precedence"],
    ]);
    expect(d.rejected[0]!.why).toBe(
      "copy-back: STABLE mtime 2026-01-01T11:00:00.000Z is after the run's end 2026-01-01T10:00:00.000Z (run_end)",
    );
    // Lines 2 and 3 list STABLE again with other mtimes than line 1.
    expect(diag.warnings.map((w) => [w.code, w.line])).toEqual([
      ["PVC_DUPLICATE_ENTRY", 2],
      ["PVC_DUPLICATE_ENTRY", 3],
      ["PVC_MTIME_AFTER_RUN_END", 1],
      ["PVC_MTIME_BEFORE_RUN_START", 2],
    ]);
  });

  it("a STABLE mtime centuries after the run says it is no plausible time (a listing in milliseconds), not just a copy-back", () => {
    const ms = obs("pvc_stable", "sft", 1, 1790988774426 * 1000, { seq: 0 });
    const diag = new Diagnostics();
    const d = exactTime(candidate("sft", 1, [ms]), window(10), diag);
    expect([d.source, reasons(d)]).toEqual(["unrecoverable", [[1, "copy_back"]]]);
    expect(diag.warnings.map((w) => [w.code, w.message])).toEqual([
      [
        "PVC_MTIME_AFTER_RUN_END",
        "sft step 1: STABLE mtime +058724-03-05T17:47:06.000Z is after the run ended (2026-01-01T10:00:00.000Z) (no plausible time: a listing in milliseconds, not seconds?); treated as a copy-back, not a write time",
      ],
    ]);
  });

  it("a first janitor archive whose time is in doubt (null) leaves no janitor hour: a later archive is a retry, not the write time", () => {
    const doubtful = obs("janitor_archive", "sft", 1, null, { seq: 0, timeNote: "time unknown: out of time order" });
    const retry = obs("janitor_archive", "sft", 1, at(4), { seq: 1 });
    const d = exactTime(candidate("sft", 1, [retry, doubtful]), window(10), new Diagnostics());
    expect([d.chosen, d.source, d.writeMs, d.hour]).toEqual([null, "unrecoverable", null, null]);
    expect(reasons(d)).toEqual([
      [1, "time_in_doubt"],
      [2, "retry"],
    ]);
    expect(d.rejected.map((r) => r.why)).toEqual([
      "time unknown: out of time order",
      "a later archive of the same checkpoint (retry); the first, c/janitor_archive:1, counts, and its time is unknown",
    ]);
  });

  it("a retry whose v2 src_mtime differs from the first archive's: JANITOR_ARCHIVE_TIMES_DIFFER, the first still counts", () => {
    const v2 = { version: "v2" };
    const first = obs("janitor_archive", "sft", 1, at(3), { seq: 0, detail: v2 });
    const same = obs("janitor_archive", "sft", 1, at(3) + 400, { seq: 1, detail: v2 });
    const moved = obs("janitor_archive", "sft", 1, at(5.78), { seq: 2, detail: v2 });
    const diag = new Diagnostics();
    const d = exactTime(candidate("sft", 1, [first, same, moved]), window(10), diag);
    expect([d.chosen?.observation, d.hour]).toEqual([first, 3]);
    expect(diag.warnings.map((w) => [w.code, w.line, w.message])).toEqual([
      [
        "JANITOR_ARCHIVE_TIMES_DIFFER",
        3,
        "sft step 1: archived again with src_mtime 2026-01-01T05:46:48.000Z, 2.78 h from the first archive's 2026-01-01T03:00:00.000Z (c/janitor_archive:1), which counts: were the weights rewritten?",
      ],
    ]);
  });

  it("falls back to the first janitor archive within the run; later ones are retries", () => {
    // v1 lines: a retry's action time is later than the first's (a v2 retry repeats the src_mtime).
    const v1 = { detail: { version: "v1" }, timeNote: "action time" };
    const outside = obs("janitor_archive", "sft", 1, at(12), { seq: 0, ...v1 });
    const first = obs("janitor_archive", "sft", 1, at(3), { seq: 1, ...v1, timeNote: "src_mtime" });
    const retry = obs("janitor_archive", "sft", 1, at(4), { seq: 2, ...v1 });
    const diag = new Diagnostics();
    const d = exactTime(candidate("sft", 1, [retry, first, outside]), window(10), diag);
    expect([d.chosen?.observation, d.source, d.rule, d.hour]).toEqual([
      first,
      "janitor",
      "janitor: first archive line, src_mtime",
      3,
    ]);
    expect(reasons(d)).toEqual([
      [1, "outside_run"],
      [3, "retry"],
    ]);
    expect(d.rejected[1]!.why).toBe(
      "a later archive of the same checkpoint (retry); the first, c/janitor_archive:2, counts",
    );
    expect(diag.warnings.map((w) => w.message)).toEqual([
      "sft step 1: janitor time 2026-01-01T12:00:00.000Z is outside the run",
    ]);
  });

  it("warns HOUR_CONFLICT by the shared rule: a v1 action time only when before the write", () => {
    const stable = obs("pvc_stable", "sft", 1, at(2));
    const v1Late = obs("janitor_archive", "sft", 1, at(6), { detail: { version: "v1" } });
    const v1Early = obs("janitor_archive", "sft", 1, at(0.25), { detail: { version: "v1" } });
    const v2Late = obs("janitor_archive", "sft", 1, at(6));
    const codes = (a: ReturnType<typeof obs>) => {
      const diag = new Diagnostics();
      exactTime(candidate("sft", 1, [stable, a]), window(10), diag);
      return diag.warnings.map((w) => w.message);
    };
    expect(codes(v1Late)).toEqual([]);
    expect(codes(v1Early)).toEqual([
      "sft step 1: STABLE mtime and janitor action time (before the write!) differ by -1.75 h",
    ]);
    expect(codes(v2Late)).toEqual(["sft step 1: STABLE mtime and janitor src_mtime differ by 4.00 h"]);
  });

  it("rejects a write inside a pause never resumed before run_end: clock_unknown, no hour", () => {
    const stable = obs("pvc_stable", "sft", 1, at(6));
    const w = window(10, [{ startMs: at(5), endMs: null }]);
    const d = exactTime(candidate("sft", 1, [stable]), w, new Diagnostics());
    expect([d.chosen, d.writeMs, d.hour, d.source, d.clockUnknown]).toEqual([null, null, null, "unrecoverable", true]);
    expect(reasons(d)).toEqual([[1, "clock_unknown"]]);
    expect(d.rule).toBe(
      "unrecoverable: written inside a pause (from 2026-01-01T05:00:00.000Z) never resumed before run_end, so its budget hour is unknown",
    );
    const diag = new Diagnostics();
    warnUnresumedPause(
      "c",
      [{ cand: candidate("sft", 1), time: d }],
      w,
      supervisor(10, [{ startMs: at(5), endMs: null, line: 9 }]),
      diag,
    );
    expect(diag.warnings).toEqual([
      {
        code: "HOUR_IN_UNRESUMED_PAUSE",
        message:
          'cell "c": 1 checkpoint(s) written after the pause at 2026-01-01T05:00:00.000Z, which is never resumed before run_end (2026-01-01T10:00:00.000Z), get no hour (unrecoverable, with bounds): the budget clock there is unknown (sft step 1)',
        file: "c/supervisor/history.jsonl",
        line: 9,
      },
    ]);
  });

  it("leaves a checkpoint without time unrecoverable with an empty rule (the cadence step decides)", () => {
    const d = exactTime(candidate("sft", 1, [obs("pvc_weights", "sft", 1, null)]), window(10), new Diagnostics());
    expect(d).toEqual({
      chosen: null,
      rejected: [],
      writeMs: null,
      hourExact: null,
      hour: null,
      source: "unrecoverable",
      rule: "",
      errorH: null,
      clockUnknown: false,
    });
  });
});
