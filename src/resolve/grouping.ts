/**
 * Grouping: every observation of a cell, to the checkpoint it is about
 * (docs/resolution.md: step 1; family-names.ts for the names of Hub repos and
 * anchors).
 */
import type { Cell } from "../schema.js";
import type { Observation } from "../observations.js";
import type { HubRepoObservation } from "../extractors/hub-files.js";
import { cmpStr } from "../util/values.js";
import { familyOfName } from "./family-names.js";
import { type Candidate, candidateKey } from "./decision.js";

/** The candidates of a cell, keyed by {@link candidateKey}, and its anchors by family id. */
export interface Grouping {
  cands: Map<string, Candidate>;
  anchorsByFamily: Map<string, Observation[]>;
  /** The family ids the PVC, janitor and supervisor name (after family_aliases, NFC). */
  familyIds: ReadonlySet<string>;
}

/** True for an observation of the PVC listing. */
export const isPvc = (o: Observation): boolean =>
  o.kind === "pvc_stable" || o.kind === "pvc_weights" || o.kind === "pvc_dir";

/** Orders observations by file, then line. */
export const byOrigin = (x: Observation, y: Observation): number =>
  cmpStr(x.origin.file, y.origin.file) || (x.origin.line ?? 0) - (y.origin.line ?? 0);

/**
 * Groups PVC, janitor and supervisor observations (already keyed by family
 * id), Hub repos and anchors (whose family part is matched by `familyOfName`
 * against the families the other sources name) by checkpoint. Pure.
 */
export function groupCandidates(
  cell: Cell,
  observations: Observation[],
  roleEvents: Observation[],
  published: HubRepoObservation[],
  spares: HubRepoObservation[],
): Grouping {
  const cands = new Map<string, Candidate>();
  const get = (family: string, step: number): Candidate => {
    const k = candidateKey(family, step);
    let c = cands.get(k);
    if (!c) {
      c = { family, step, obs: [], pvcDirs: new Set(), published: [], spares: [] };
      cands.set(k, c);
    }
    return c;
  };
  const stepsOf = new Map<string, Set<number>>();
  for (const o of [...observations, ...roleEvents]) {
    if (o.kind !== "anchor") stepsOf.set(o.family, (stepsOf.get(o.family) ?? new Set()).add(o.step));
  }
  const familyIds: ReadonlySet<string> = new Set(stepsOf.keys());
  const familyOf = (name: string, step: number): string => familyOfName(cell, name, familyIds, { step, stepsOf });
  const anchorsByFamily = new Map<string, Observation[]>();
  for (const o of observations) {
    if (o.kind === "anchor") {
      const family = familyOf(o.family, o.step);
      const list = anchorsByFamily.get(family) ?? [];
      list.push(o);
      anchorsByFamily.set(family, list);
      continue;
    }
    const c = get(o.family, o.step);
    c.obs.push(o);
    if (isPvc(o) && o.familyDir !== null) c.pvcDirs.add(o.familyDir);
  }
  for (const o of roleEvents) get(o.family, o.step).obs.push(o);
  for (const p of published) get(familyOf(p.family, p.step), p.step).published.push(p);
  for (const s of spares) get(familyOf(s.family, s.step), s.step).spares.push(s);
  return { cands, anchorsByFamily, familyIds };
}
