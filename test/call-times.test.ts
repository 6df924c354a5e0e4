import { describe, expect, it } from "vitest";
import { unplaceImplausibleTimes } from "../src/extractors/trajectory/call-times.js";
import type { TokenCall } from "../src/extractors/trajectory/types.js";

const call = (timeMs: number | null, line: number, file = "s.jsonl"): TokenCall => ({
  uncachedInput: 1,
  cacheRead: 0,
  cacheWrite: 0,
  output: 1,
  timeMs,
  file,
  line,
});

describe("implausible call times (trajectory/call-times.ts)", () => {
  it("keeps the calls as they are, not copied, when every time is plausible", () => {
    const calls = [call(Date.UTC(2026, 0, 1), 1), call(null, 2)];
    const got = unplaceImplausibleTimes(calls);
    expect(got.warning).toBeNull();
    expect(got.calls).toBe(calls);
  });

  it("unplaces the times outside the years 2020-2099 and names the first by file and line", () => {
    const calls = [call(Date.UTC(2026, 0, 1), 3), call(1_790_000_000, 2, "b.jsonl"), call(1.79e15, 1, "a.jsonl")];
    const got = unplaceImplausibleTimes(calls);
    expect(got.calls.map((c) => c.timeMs)).toEqual([Date.UTC(2026, 0, 1), null, null]);
    expect(got.warning).toEqual({
      code: "TRAJECTORY_IMPLAUSIBLE_TIME",
      message: expect.stringMatching(
        /^2 call\(s\) are timed outside 2020-01-01T00:00:00\.000Z – 2100-01-01T00:00:00\.000Z \(the first at \+058692-11-03T14:13:20\.000Z\): no model call/,
      ),
      file: "a.jsonl",
      line: 1,
    });
  });

  it("an open end of the window (a run whose clock stops) is shown as a number, not a crash", () => {
    const got = unplaceImplausibleTimes(
      [call(Date.UTC(2025, 0, 1), 1), call(Date.UTC(2026, 0, 2), 2)],
      Date.UTC(2026, 0, 1),
      Number.POSITIVE_INFINITY,
      "TRAJECTORY_CALL_OUTSIDE_RUN",
      "a wrong date",
    );
    expect(got.warning?.message).toBe(
      "1 call(s) are timed outside 2026-01-01T00:00:00.000Z – Infinity (the first at 2025-01-01T00:00:00.000Z): a wrong date; they count in the totals but are not placed in time, as calls without a time",
    );
  });
});
