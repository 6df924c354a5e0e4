import { describe, expect, it } from "vitest";
import { clockUnknownAt, iso, runWindow } from "../src/resolve/run-window.js";
import { at, supervisor, T0 } from "./helpers/resolve-data.js";

describe("run window", () => {
  it("ends at run_end when there is one", () => {
    const w = runWindow(supervisor(10), 1.5);
    expect([w.runStartMs, w.runEndMs, w.runEndFrom, w.unknownFromMs, w.toleranceH]).toEqual([
      T0,
      at(10),
      "run_end",
      null,
      1.5,
    ]);
  });

  it("ends at 100 budget hours without run_end", () => {
    const w = runWindow(supervisor(null, [{ startMs: at(1), endMs: at(3) }]), 1);
    expect([w.runEndMs, w.runEndFrom]).toEqual([at(102), "100 budget hours"]);
  });

  it("knows no clock after a pause never resumed before run_end", () => {
    const w = runWindow(supervisor(10, [{ startMs: at(4), endMs: null }]), 1.5);
    expect(w.unknownFromMs).toBe(at(4));
    expect(clockUnknownAt(w, at(4))).toBe(false);
    expect(clockUnknownAt(w, at(4) + 1)).toBe(true);
  });

  it("shows a time no Date can hold as null", () => {
    expect(iso(T0)).toBe("2026-01-01T00:00:00.000Z");
    expect(iso(null)).toBeNull();
    expect(iso(9e15)).toBeNull();
  });
});
