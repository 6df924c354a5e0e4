/**
 * The step-order rule (SOURCES.md: a family is one training run, whose
 * checkpoints are written in step order): among a family's exactly timed
 * checkpoints (hour from an mtime or the janitor), a higher step written at an
 * earlier hour than a lower one contradicts it. Shared by the build (a
 * warning) and `validate` (a failed check).
 */
import type { Diagnostics } from "../diagnostics.js";
import type { Origin } from "../observations.js";
import { cmpStr } from "../util/values.js";

/** A checkpoint of one family with its exact budget hour. */
export interface TimedStep<T = unknown> {
  step: number;
  hour: number;
  /** Whatever the caller needs back (a row, a candidate). */
  item: T;
}

/** One contradiction: `higher` (a higher step) has an earlier hour than `lower`, the latest of the lower steps. */
export interface StepOrderContradiction<T = unknown> {
  lower: TimedStep<T>;
  higher: TimedStep<T>;
}

/**
 * Every checkpoint of one family written earlier than a lower step: walks the
 * steps upwards keeping the latest hour seen so far, and reports each step
 * whose hour is strictly below it (paired with the step that holds it).
 * Hours are compared as given (the callers pass the rows' 2-decimal hours).
 *
 * @param members the family's exactly timed checkpoints, in any order.
 * @returns the contradictions in step order (empty when the hours rise with the steps).
 */
export function stepOrderContradictions<T>(members: readonly TimedStep<T>[]): StepOrderContradiction<T>[] {
  const sorted = [...members].sort((a, b) => a.step - b.step);
  const out: StepOrderContradiction<T>[] = [];
  let latest = sorted[0];
  for (const m of sorted.slice(1)) {
    if (m.hour < latest!.hour) out.push({ lower: latest!, higher: m });
    if (m.hour > latest!.hour) latest = m;
  }
  return out;
}

/**
 * Warns `FAMILY_STEP_ORDER` once per family (in family order) whose exactly
 * timed checkpoints (2-decimal `hour` not null) contradict their steps
 * ({@link stepOrderContradictions}), at the evidence that timed the first
 * offending higher step: two runs merged (a wrong family_aliases entry) or a
 * wrong time.
 */
export function warnStepOrder(
  cellName: string,
  members: readonly { family: string; step: number; hour: number | null; at: Origin | null }[],
  diag: Diagnostics,
): void {
  const byFamily = new Map<string, typeof members>();
  for (const m of members) byFamily.set(m.family, [...(byFamily.get(m.family) ?? []), m]);
  for (const [family, list] of [...byFamily.entries()].sort((a, b) => cmpStr(a[0], b[0]))) {
    const bad = stepOrderContradictions(
      list.filter((m) => m.hour !== null).map((m) => ({ step: m.step, hour: m.hour!, item: m })),
    );
    if (bad.length === 0) continue;
    const shown = bad
      .slice(0, 3)
      .map((b) => `step ${b.lower.step} at h ${b.lower.hour} but step ${b.higher.step} at h ${b.higher.hour}`)
      .join("; ");
    const at = bad[0]!.higher.item.at;
    diag.warn(
      "FAMILY_STEP_ORDER",
      `cell "${cellName}" family "${family}": ${bad.length} exactly timed checkpoint(s) written before a lower step (${shown}${bad.length > 3 ? "; ..." : ""}): one training run writes in step order, so these look like two runs merged (check family_aliases) or a wrong time`,
      at?.file ?? "cells.json",
      at?.line ?? null,
    );
  }
}
