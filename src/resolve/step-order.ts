/**
 * The step-order rule (SOURCES.md: a family is one training run, whose
 * checkpoints are written in step order): among a family's exactly timed
 * checkpoints (hour from an mtime or the janitor), a higher step written at an
 * earlier hour than a lower one contradicts it. Shared by the build (a
 * warning) and `validate` (a failed check).
 */

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
