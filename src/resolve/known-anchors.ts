/**
 * Anchors that validate something (SOURCES.md: anchors.tsv): an anchor
 * validates the hour of a checkpoint some source shows (a row or a lost
 * checkpoint); one naming a step no source knows (a typo) would validate a fit
 * on nothing.
 */
import type { Diagnostics } from "../diagnostics.js";
import type { Observation } from "../observations.js";
import { cmpStr } from "../util/values.js";
import { type Candidate, candidateKey } from "./decision.js";
import type { LostCheckpoint } from "./existence.js";

/**
 * The anchors of each family that names a checkpoint of the cell (a row or a
 * lost one), by family id. Warns `ANCHOR_UNKNOWN_FAMILY` for every anchor of a
 * family with no checkpoint and `ANCHOR_UNKNOWN_STEP` for every anchor of a
 * step no source shows; neither is used.
 */
export function knownAnchors(
  cellName: string,
  anchorsByFamily: ReadonlyMap<string, Observation[]>,
  rowsCands: Candidate[],
  lost: LostCheckpoint[],
  diag: Diagnostics,
): Map<string, Observation[]> {
  const shownKeys = new Set([
    ...rowsCands.map((c) => candidateKey(c.family, c.step)),
    ...lost.map((l) => candidateKey(l.family, l.step)),
  ]);
  const shownFamilies = new Set([...rowsCands.map((c) => c.family), ...lost.map((l) => l.family)]);
  const known = new Map(anchorsByFamily);
  for (const [family, list] of [...anchorsByFamily.entries()].sort((a, b) => cmpStr(a[0], b[0]))) {
    if (!shownFamilies.has(family)) {
      for (const a of list)
        diag.warn(
          "ANCHOR_UNKNOWN_FAMILY",
          `anchor for family "${family}", which has no checkpoint in cell "${cellName}"; not used`,
          a.origin.file,
          a.origin.line,
        );
      known.delete(family);
      continue;
    }
    for (const a of list.filter((x) => !shownKeys.has(candidateKey(family, x.step)))) {
      diag.warn(
        "ANCHOR_UNKNOWN_STEP",
        `anchor for ${family} step ${a.step}, a checkpoint no source of cell "${cellName}" shows (no row, not a lost checkpoint); not used`,
        a.origin.file,
        a.origin.line,
      );
    }
    known.set(
      family,
      list.filter((a) => shownKeys.has(candidateKey(family, a.step))),
    );
  }
  return known;
}
