/**
 * The score scale check of `cost` (README: cost): one suite's scores are on
 * one scale, so a gain is a difference of two of them. A suite whose scores
 * hold both fractions strictly between 0 and 1 and values above 1 mixes a
 * fraction with a percentage (0.31 and 30.5): its gains and tokens per point
 * would be confident nonsense, so it is said.
 */
import type { Warning } from "../diagnostics.js";
import type { Score } from "./cost.js";

/**
 * One `COST_MIXED_SCALE` warning per suite of `scores` whose scores include
 * a fraction (0 < score < 1) and a value above 1, at the first fraction's
 * `file:line`, naming one score of each kind and how many; none when every
 * suite keeps to one scale (0 and 1 fit either).
 */
export function mixedScaleWarnings(scores: readonly Score[]): Warning[] {
  const bySuite = new Map<string, { fractions: Score[]; above: Score[] }>();
  for (const s of scores) {
    const kinds = bySuite.get(s.suite) ?? { fractions: [], above: [] };
    if (s.score > 0 && s.score < 1) kinds.fractions.push(s);
    else if (s.score > 1) kinds.above.push(s);
    bySuite.set(s.suite, kinds);
  }
  const warnings: Warning[] = [];
  for (const [suite, { fractions, above }] of bySuite) {
    if (fractions.length === 0 || above.length === 0) continue;
    const f = fractions[0]!;
    const a = above[0]!;
    const colon = f.at.lastIndexOf(":");
    warnings.push({
      code: "COST_MIXED_SCALE",
      message: `suite ${suite} mixes ${fractions.length} score(s) between 0 and 1 (${f.model_id}: ${f.score}) with ${above.length} above 1 (${a.model_id}: ${a.score}, at ${a.at}): a fraction and a percentage? its gains compare them as they are`,
      file: colon > 0 ? f.at.slice(0, colon) : f.at,
      line: colon > 0 ? Number(f.at.slice(colon + 1)) : null,
    });
  }
  return warnings;
}
