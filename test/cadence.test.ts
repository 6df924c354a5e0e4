import { describe, expect, it } from "vitest";
import { fitCadence, predictHour, theilSen } from "../src/resolve/cadence.js";

const pts = (xs: [number, number][]) => xs.map(([step, hour]) => ({ step, hour }));

describe("cadence fit", () => {
  const exact = pts([
    [100, 2.0],
    [200, 4.1],
    [300, 5.9],
    [400, 8.0],
    [500, 10.1],
    [600, 30.0],
  ]); // 600 is an outlier

  it("Theil-Sen ignores one outlier", () => {
    const { slope } = theilSen(exact);
    expect(slope).toBeCloseTo(0.02, 2);
  });

  it("rejects the outlier, fits the rest, validates against anchors", () => {
    const fit = fitCadence(
      exact,
      pts([
        [250, 5.2],
        [450, 9.0],
      ]),
    )!;
    expect(fit.outliers).toEqual([600]);
    expect(fit.used).toEqual([100, 200, 300, 400, 500]);
    expect(fit.validated).toBe(true);
    expect(fit.slopeHPerStep * 60).toBeCloseTo(1.2, 1); // minutes per step
    expect(predictHour(fit, 250)).toBeCloseTo(5.015, 9); // OLS: slope 0.0201 h/step, intercept -0.01 h
    expect(fit.looMaxH).toBeLessThan(0.3);
    expect(fit.anchorMaxH).toBeCloseTo(0.185, 9); // |5.015 - 5.2| beats |9.035 - 9.0|
    expect(fit.errorH).toBe(Math.max(fit.looMaxH, fit.anchorMaxH!));
  });

  it("does not validate without anchors, or with an anchor residual above the tolerance", () => {
    expect(fitCadence(exact, [])!.validated).toBe(false);
    expect(fitCadence(exact, [])!.reason).toMatch(/no anchor/);
    const far = fitCadence(exact, pts([[250, 9.0]]))!;
    expect(far.validated).toBe(false);
    expect(far.reason).toMatch(/anchor residual 3\.\d\d h exceeds 1.5 h/);
  });

  it("needs three points", () => {
    expect(
      fitCadence(
        pts([
          [1, 1],
          [2, 2],
        ]),
        pts([[3, 3]]),
      ),
    ).toBeNull();
  });
});
