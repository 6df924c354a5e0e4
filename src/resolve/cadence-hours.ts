/**
 * Hours from the cadence fit (SOURCES.md: "Where a checkpoint's hour comes
 * from", 3; cadence.ts for the fit and its validation): per family, the fit on
 * its exactly timed checkpoints and anchors, and the hour of each untimed
 * checkpoint, extrapolated when the fit validates, else unrecoverable.
 */
import type { Diagnostics } from "../diagnostics.js";
import type { Observation } from "../observations.js";
import { cmpStr } from "../util/values.js";
import { round2 } from "./clock.js";
import { type CadenceFit, fitCadence, predictHour } from "./cadence.js";
import { boundsOf, NO_BOUNDS } from "./bounds.js";
import type { Bounds, Candidate, Decided, TimeDecision } from "./decision.js";
import { clockUnknownAt, type RunWindow } from "./run-window.js";

/**
 * Fits every family of `timed` (family, then step order) and decides the hour
 * of its untimed checkpoints; bounds for each untimed one. Returns the
 * decisions in the order of `timed` and the fits by family (null: fewer than
 * 3 exact points). An anchor inside an unresumed pause is left out of the fit.
 *
 * Warnings: `EXTRAPOLATION_CLAMPED`, `CADENCE_NOT_VALIDATED` (a family with
 * anchors whose untimed checkpoints stay unrecoverable).
 */
export function cadenceHours(
  cellName: string,
  timed: readonly { cand: Candidate; time: TimeDecision }[],
  anchorsByFamily: ReadonlyMap<string, Observation[]>,
  w: RunWindow,
  outlierFloorH: number,
  diag: Diagnostics,
): { decided: Decided[]; fits: Record<string, CadenceFit | null> } {
  const byFamily = new Map<string, { cand: Candidate; time: TimeDecision }[]>();
  for (const t of timed) byFamily.set(t.cand.family, [...(byFamily.get(t.cand.family) ?? []), t]);
  const fits: Record<string, CadenceFit | null> = Object.create(null); // keyed by family: "__proto__" is a valid one
  const out = new Map<Candidate, Decided>();
  for (const [family, members] of [...byFamily.entries()].sort((a, b) => cmpStr(a[0], b[0]))) {
    const exact = members.filter((m) => m.time.hourExact !== null);
    const exactHours = exact.map((e) => ({ step: e.cand.step, hour: e.time.hour! }));
    const untimed = members.filter((m) => m.time.hourExact === null);
    const anchors = (anchorsByFamily.get(family) ?? [])
      .filter((a) => !clockUnknownAt(w, a.utcMs!))
      .map((a) => ({ step: a.step, hour: w.clock.hourAt(a.utcMs!) }));
    const fit = fitCadence(
      exact.map((e) => ({ step: e.cand.step, hour: e.time.hourExact! })),
      anchors,
      w.toleranceH,
      outlierFloorH,
    );
    fits[family] = fit;
    for (const m of exact) out.set(m.cand, { ...m, bounds: NO_BOUNDS });
    for (const m of untimed) {
      const bounds = boundsOf(m.cand.step, exactHours);
      out.set(m.cand, { cand: m.cand, bounds, time: untimedHour(m.cand, m.time, bounds, fit, exact.length, w, diag) });
    }
    const familyAnchors = anchorsByFamily.get(family) ?? [];
    if (untimed.length > 0 && familyAnchors.length > 0 && !(fit && fit.validated)) {
      diag.warn(
        "CADENCE_NOT_VALIDATED",
        `${cellName} family ${family}: ${untimed.length} untimed checkpoint(s) stay unrecoverable: ${fit ? fit.reason : `only ${exact.length} exactly timed checkpoint(s), a fit needs 3`}`,
        familyAnchors[0]!.origin.file,
        familyAnchors[0]!.origin.line,
      );
    }
  }
  return { decided: timed.map((t) => out.get(t.cand)!), fits };
}

/**
 * The hour of an untimed checkpoint: the validated fit's prediction, clamped
 * into `bounds` (warns `EXTRAPOLATION_CLAMPED`), else unrecoverable with the
 * reason. A checkpoint whose clock is unknown keeps its decision: no
 * prediction can map to it. A clock stopped for good never reads a later
 * hour: the write time is then the run's end.
 */
export function untimedHour(
  c: Candidate,
  d: TimeDecision,
  bounds: Bounds,
  fit: CadenceFit | null,
  exactCount: number,
  w: RunWindow,
  diag: Diagnostics,
): TimeDecision {
  if (d.clockUnknown) return d;
  if (!(fit && fit.validated)) {
    const rule = fit
      ? `unrecoverable: no mtime or janitor time survives, and the cadence fit does not validate (${fit.reason})`
      : `unrecoverable: no mtime or janitor time survives, and family ${c.family} has ${exactCount} exactly timed checkpoints (a fit needs 3)`;
    return { ...d, source: "unrecoverable", rule };
  }
  let h = predictHour(fit, c.step);
  let clampNote = "";
  if (bounds.lower !== null && h < bounds.lower) {
    clampNote = ` (prediction ${h.toFixed(2)} h clamped up to the lower bound)`;
    h = bounds.lower;
  } else if (bounds.upper !== null && h > bounds.upper) {
    clampNote = ` (prediction ${h.toFixed(2)} h clamped down to the upper bound)`;
    h = bounds.upper;
  }
  if (clampNote) diag.warn("EXTRAPOLATION_CLAMPED", `${c.family} step ${c.step}${clampNote}`, null, null);
  const t = w.clock.timeAt(h);
  return {
    ...d,
    source: "extrapolated",
    hourExact: h,
    hour: round2(h),
    writeMs: Number.isFinite(t) ? t : w.runEndMs,
    errorH: round2(fit.errorH),
    rule: `extrapolated: cadence fit of family ${c.family} on ${fit.used.length} exact points, validated (${fit.reason})${clampNote}`,
  };
}
