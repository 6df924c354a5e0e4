import { describe, expect, it } from "vitest";
import { Diagnostics } from "../src/diagnostics.js";
import type { CadenceFit } from "../src/resolve/cadence.js";
import { cadenceHours, untimedHour } from "../src/resolve/cadence-hours.js";
import { boundsOf, NO_BOUNDS } from "../src/resolve/bounds.js";
import { at, candidate, exactAt, obs, untimed, window } from "./helpers/resolve-data.js";

/** A validated fit: hour = step / 100, error 0.3 h. */
const fit = (validated: boolean): CadenceFit => ({
  slopeHPerStep: 0.01,
  interceptH: 0,
  used: [100, 200, 300],
  outliers: [],
  looErrorsH: [0, 0, 0],
  looMaxH: 0,
  looP95H: 0,
  anchors: [],
  anchorMaxH: 0.3,
  validated,
  reason: validated ? "ok" : "no anchor",
  errorH: 0.304,
});

describe("bounds", () => {
  it("the latest hour of a lower step and the earliest of a higher step", () => {
    const exact = [
      { step: 100, hour: 1 },
      { step: 200, hour: 2.5 },
      { step: 300, hour: 2.25 },
      { step: 400, hour: 4 },
    ];
    expect(boundsOf(250, exact)).toEqual({ lower: 2.5, lowerFrom: 200, upper: 2.25, upperFrom: 300 });
    expect(boundsOf(50, exact)).toEqual({ lower: null, lowerFrom: null, upper: 1, upperFrom: 100 });
    expect(boundsOf(500, exact)).toEqual({ lower: 4, lowerFrom: 400, upper: null, upperFrom: null });
    expect(NO_BOUNDS).toEqual({ lower: null, lowerFrom: null, upper: null, upperFrom: null });
  });
});

describe("cadence fit and validation → hours of untimed checkpoints", () => {
  it("extrapolates with a validated fit, clamped into the bounds", () => {
    const diag = new Diagnostics();
    const c = candidate("sft", 250);
    const inside = untimedHour(
      c,
      untimed(),
      { lower: 2, lowerFrom: 200, upper: 3, upperFrom: 300 },
      fit(true),
      3,
      window(10),
      diag,
    );
    expect([inside.source, inside.hour, inside.writeMs, inside.errorH, inside.rule]).toEqual([
      "extrapolated",
      2.5,
      at(2.5),
      0.3,
      "extrapolated: cadence fit of family sft on 3 exact points, validated (ok)",
    ]);
    const clamped = untimedHour(
      c,
      untimed(),
      { lower: 2.75, lowerFrom: 200, upper: null, upperFrom: null },
      fit(true),
      3,
      window(10),
      diag,
    );
    expect([clamped.hour, clamped.rule]).toEqual([
      2.75,
      "extrapolated: cadence fit of family sft on 3 exact points, validated (ok) (prediction 2.50 h clamped up to the lower bound)",
    ]);
    expect(diag.warnings).toEqual([
      {
        code: "EXTRAPOLATION_CLAMPED",
        message: "sft step 250 (prediction 2.50 h clamped up to the lower bound)",
        file: null,
        line: null,
      },
    ]);
  });

  it("leaves it unrecoverable without a validated fit, and keeps a clock-unknown decision", () => {
    const diag = new Diagnostics();
    const c = candidate("sft", 250);
    expect(untimedHour(c, untimed(), NO_BOUNDS, fit(false), 3, window(10), diag).rule).toBe(
      "unrecoverable: no mtime or janitor time survives, and the cadence fit does not validate (no anchor)",
    );
    expect(untimedHour(c, untimed(), NO_BOUNDS, null, 2, window(10), diag).rule).toBe(
      "unrecoverable: no mtime or janitor time survives, and family sft has 2 exactly timed checkpoints (a fit needs 3)",
    );
    const unknown = { ...untimed(), clockUnknown: true, rule: "why" };
    expect(untimedHour(c, unknown, NO_BOUNDS, fit(true), 3, window(10), diag)).toBe(unknown);
    expect(diag.warnings).toEqual([]);
  });

  it("fits each family on its exact hours and anchors; bounds for untimed rows only", () => {
    const timed = [100, 200, 300, 400].map((s) => ({ cand: candidate("sft", s), time: exactAt(s / 100) }));
    const gap = { cand: candidate("sft", 250), time: untimed() };
    const lone = { cand: candidate("dpo", 1), time: untimed() };
    const anchor = obs("anchor", "sft", 250, at(2.5));
    const dpoAnchor = obs("anchor", "dpo", 1, at(1), { seq: 3 });
    const all = [lone, timed[0]!, timed[1]!, gap, timed[2]!, timed[3]!];
    const diag = new Diagnostics();
    const { decided, fits } = cadenceHours(
      "c",
      all,
      new Map([
        ["sft", [anchor]],
        ["dpo", [dpoAnchor]],
      ]),
      window(10),
      1.5,
      diag,
    );
    expect(decided.map((d) => d.cand)).toEqual(all.map((t) => t.cand));
    expect(Object.keys(fits)).toEqual(["dpo", "sft"]);
    expect(fits.dpo).toBeNull();
    expect(fits.sft!.validated).toBe(true);
    expect(fits.sft!.used).toEqual([100, 200, 300, 400]);
    const g = decided[3]!;
    expect([g.time.source, g.time.hour]).toEqual(["extrapolated", 2.5]);
    expect(g.bounds).toEqual({ lower: 2, lowerFrom: 200, upper: 3, upperFrom: 300 });
    expect(decided[1]!.bounds).toEqual(NO_BOUNDS);
    expect(decided[0]!.time.source).toBe("unrecoverable");
    expect(diag.warnings).toEqual([
      {
        code: "CADENCE_NOT_VALIDATED",
        message:
          "c family dpo: 1 untimed checkpoint(s) stay unrecoverable: only 0 exactly timed checkpoint(s), a fit needs 3",
        file: "c/anchor",
        line: 4,
      },
    ]);
  });
});
