/**
 * The cadence fit of one family: budget hour as a linear function of step,
 * fitted on the family's exactly timed checkpoints, robust to an outlier, and
 * validated by leave-one-out error and independent anchors before it may
 * give an hour (SOURCES.md: "Where a checkpoint's hour comes from", 3;
 * docs/resolution.md: Cadence fit).
 */
import { median } from "../util/arrays.js";

/** A point `(step, hour)`; hour in budget hours. */
export interface CadencePoint {
  step: number;
  hour: number;
}

/** The fit and its validation, as `explain` and `validate` show it. */
export interface CadenceFit {
  /** Hours per step, and the hour at step 0. */
  slopeHPerStep: number;
  interceptH: number;
  /** Steps of the points used, and of those rejected as outliers. */
  used: number[];
  outliers: number[];
  /** Leave-one-out absolute errors, hours, one per used point (same order as `used`). */
  looErrorsH: number[];
  looMaxH: number;
  looP95H: number;
  /** Anchor residuals (predicted − anchor), hours. */
  anchors: { step: number; anchorHour: number; predictedHour: number; residualH: number }[];
  anchorMaxH: number | null;
  /** Whether the fit may give hours, and why not when it may not. */
  validated: boolean;
  reason: string;
  /** `max(looMaxH, anchorMaxH)`: the validated error bound. */
  errorH: number;
}

/** The default validation tolerance, hours (the index quotes ~1.4 h). */
export const DEFAULT_TOLERANCE_H = 1.5;
/**
 * The default floor of the outlier cut, hours: a point is an outlier when its
 * residual from the robust line exceeds `max(floor, 3·1.4826·MAD)`
 * (docs/resolution.md: Cadence fit). Its own knob (`--outlier-floor-h`), so
 * the validation tolerance never changes which points are fitted.
 */
export const DEFAULT_OUTLIER_FLOOR_H = 1.5;
const MIN_POINTS = 3;

/** Theil–Sen line: median of pairwise slopes, median of `hour − slope·step`. Needs 2+ distinct steps. */
export function theilSen(points: CadencePoint[]): { slope: number; intercept: number } {
  const slopes: number[] = [];
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      const a = points[i]!;
      const b = points[j]!;
      if (a.step !== b.step) slopes.push((b.hour - a.hour) / (b.step - a.step));
    }
  }
  const slope = slopes.length ? median(slopes) : 0;
  const intercept = median(points.map((p) => p.hour - slope * p.step));
  return { slope, intercept };
}

/** Ordinary least squares line through the points. */
function ols(points: CadencePoint[]): { slope: number; intercept: number } {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.step, 0) / n;
  const my = points.reduce((s, p) => s + p.hour, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (const p of points) {
    sxx += (p.step - mx) ** 2;
    sxy += (p.step - mx) * (p.hour - my);
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

function p95(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)]!;
}

/**
 * Fits and validates a family's cadence.
 *
 * @param points the family's exactly timed checkpoints (mtime or janitor), budget hours.
 * @param anchors the family's anchors, converted to budget hours.
 * @param toleranceH the largest leave-one-out error and anchor residual accepted, hours:
 *   the validation gate only, it never changes which points are fitted.
 * @param outlierFloorH the floor of the outlier cut, hours (`max(floor, 3·1.4826·MAD)`
 *   around the Theil–Sen line decides which points are fitted).
 * @returns the fit, or null when there are fewer than 3 points with 2 distinct steps.
 */
export function fitCadence(
  points: CadencePoint[],
  anchors: CadencePoint[],
  toleranceH = DEFAULT_TOLERANCE_H,
  outlierFloorH = DEFAULT_OUTLIER_FLOOR_H,
): CadenceFit | null {
  if (points.length < MIN_POINTS || new Set(points.map((p) => p.step)).size < 2) return null;
  const robust = theilSen(points);
  const residuals = points.map((p) => p.hour - (robust.intercept + robust.slope * p.step));
  const mad = median(residuals.map((r) => Math.abs(r - median(residuals))));
  const cut = Math.max(outlierFloorH, 3 * 1.4826 * mad);
  const inliers = points.filter((_, i) => Math.abs(residuals[i]!) <= cut);
  const outliers = points.filter((_, i) => Math.abs(residuals[i]!) > cut).map((p) => p.step);
  const base = {
    used: inliers.map((p) => p.step),
    outliers,
  };
  if (inliers.length < MIN_POINTS) {
    return {
      ...base,
      slopeHPerStep: robust.slope,
      interceptH: robust.intercept,
      looErrorsH: [],
      looMaxH: Number.POSITIVE_INFINITY,
      looP95H: Number.POSITIVE_INFINITY,
      anchors: [],
      anchorMaxH: null,
      validated: false,
      reason: `only ${inliers.length} points left after rejecting outliers (needs ${MIN_POINTS})`,
      errorH: Number.POSITIVE_INFINITY,
    };
  }
  const line = ols(inliers);
  const looErrorsH = inliers.map((p, i) => {
    const rest = inliers.filter((_, j) => j !== i);
    const l = ols(rest);
    return Math.abs(l.intercept + l.slope * p.step - p.hour);
  });
  const looMaxH = Math.max(...looErrorsH);
  const anchorRows = anchors.map((a) => {
    const predictedHour = line.intercept + line.slope * a.step;
    return { step: a.step, anchorHour: a.hour, predictedHour, residualH: predictedHour - a.hour };
  });
  const anchorMaxH = anchorRows.length ? Math.max(...anchorRows.map((a) => Math.abs(a.residualH))) : null;
  let validated = true;
  let reason = `leave-one-out max ${looMaxH.toFixed(2)} h and anchor max ${anchorMaxH?.toFixed(2)} h within ${toleranceH} h`;
  if (line.slope <= 0) {
    validated = false;
    reason = "the fitted cadence does not increase with step";
  } else if (anchorMaxH === null) {
    validated = false;
    reason = "no anchor for this family in anchors.tsv: the fit cannot be validated";
  } else if (looMaxH > toleranceH) {
    validated = false;
    reason = `leave-one-out max error ${looMaxH.toFixed(2)} h exceeds ${toleranceH} h`;
  } else if (anchorMaxH > toleranceH) {
    validated = false;
    reason = `anchor residual ${anchorMaxH.toFixed(2)} h exceeds ${toleranceH} h`;
  }
  return {
    ...base,
    slopeHPerStep: line.slope,
    interceptH: line.intercept,
    looErrorsH,
    looMaxH,
    looP95H: p95(looErrorsH),
    anchors: anchorRows,
    anchorMaxH,
    validated,
    reason,
    errorH: Math.max(looMaxH, anchorMaxH ?? 0),
  };
}

/** The fit's predicted hour at `step`. */
export function predictHour(fit: CadenceFit, step: number): number {
  return fit.interceptH + fit.slopeHPerStep * step;
}
