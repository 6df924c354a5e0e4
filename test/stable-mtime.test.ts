import { describe, expect, it } from "vitest";
import { firstStableWithinRun, stableMtimes } from "../src/resolve/stable-mtime.js";
import { withinRun } from "../src/resolve/run-window.js";
import { at, candidate, obs, window } from "./helpers/resolve-data.js";

describe("STABLE mtimes (stable-mtime.ts)", () => {
  it("lists a checkpoint's STABLE mtimes in listing order and nothing else", () => {
    const late = obs("pvc_stable", "sft", 1, at(3), { seq: 5 });
    const early = obs("pvc_stable", "sft", 1, at(4), { seq: 2 });
    const dir = obs("pvc_dir", "sft", 1, at(1), { seq: 0 });
    const archive = obs("janitor_archive", "sft", 1, at(1), { seq: 1 });
    expect(stableMtimes(candidate("sft", 1, [late, dir, early, archive]))).toEqual([early, late]);
  });

  it("takes the first within the run, run_start and the run's end included; none when all lie outside", () => {
    const w = window(10);
    const copyBack = obs("pvc_stable", "sft", 1, at(10.5), { seq: 0 });
    const atEnd = obs("pvc_stable", "sft", 1, at(10), { seq: 1 });
    const atStart = obs("pvc_stable", "sft", 1, at(0), { seq: 2 });
    expect(firstStableWithinRun([copyBack, atEnd, atStart], w)).toBe(atEnd);
    expect(firstStableWithinRun([copyBack, atStart], w)).toBe(atStart);
    expect(firstStableWithinRun([copyBack, obs("pvc_stable", "sft", 1, at(-0.01), { seq: 3 })], w)).toBeUndefined();
    expect([withinRun(at(0), w), withinRun(at(10), w), withinRun(at(-0.001), w), withinRun(at(10.001), w)]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});
