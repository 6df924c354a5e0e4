/**
 * Bounds of an untimed checkpoint (MANIFEST.md: hour_lower_bound,
 * hour_upper_bound): a family is written in step order, so its exactly timed
 * checkpoints below and above bound the hour.
 */
import type { Bounds } from "./decision.js";

/** No bounds: the row's hour is exact. */
export const NO_BOUNDS: Bounds = { lower: null, lowerFrom: null, upper: null, upperFrom: null };

/**
 * The bounds of step `step` from the family's exactly timed checkpoints
 * (`hour`: the rounded budget hour): the latest hour of a lower step, and the
 * earliest hour of a higher step, with the steps that give them (the first in
 * `exact` order on a tie).
 */
export function boundsOf(step: number, exact: readonly { step: number; hour: number }[]): Bounds {
  const lower = exact.filter((e) => e.step < step).sort((a, b) => b.hour - a.hour)[0];
  const upper = exact.filter((e) => e.step > step).sort((a, b) => a.hour - b.hour)[0];
  return {
    lower: lower?.hour ?? null,
    lowerFrom: lower?.step ?? null,
    upper: upper?.hour ?? null,
    upperFrom: upper?.step ?? null,
  };
}
