/**
 * A row's `source` (MANIFEST.md: source): where its weights are, the PVC path
 * when the listing or a janitor line shows it, else the spare repo, else the
 * published repo.
 */
import type { Cell } from "../schema.js";
import { nfc } from "../sources/family-aliases.js";
import { cmpStr } from "../util/values.js";
import type { Candidate } from "./decision.js";

/** The PVC directories of each family (a renamed directory: several), in the order the candidates show them. */
export function familyDirectories(rowsCands: readonly Candidate[]): Map<string, string[]> {
  const familyDirsOf = new Map<string, string[]>();
  for (const c of rowsCands) {
    for (const dir of c.pvcDirs) {
      const dirs = familyDirsOf.get(c.family) ?? [];
      if (!dirs.includes(dir)) dirs.push(dir);
      familyDirsOf.set(c.family, dirs);
    }
  }
  return familyDirsOf;
}

/**
 * The `source` of a checkpoint. A janitor v1 path is the path; a v2 `family=`
 * is the directory's name (it may sit under runs/): the family's PVC directory
 * of that name (from `familyDirs`, {@link familyDirectories}), else the name as
 * the line gives it (the directory was renamed since).
 */
export function rowSource(cell: Cell, c: Candidate, familyDirs: ReadonlyMap<string, string[]>): string {
  const janitorObs = c.obs.filter((o) => o.kind.startsWith("janitor") && o.familyDir !== null);
  const v1Dir = janitorObs.find((o) => o.detail.version === "v1")?.familyDir ?? undefined;
  const pvcDirFor = (named: string): string => {
    const dirs = familyDirs.get(c.family) ?? [];
    const base = nfc(named.split("/").pop()!);
    return dirs.find((d) => d === named) ?? dirs.find((d) => nfc(d.split("/").pop()!) === base) ?? named;
  };
  const pvcDir =
    [...c.pvcDirs][0] ?? (janitorObs.length > 0 ? (v1Dir ?? pvcDirFor(janitorObs[0]!.familyDir!)) : undefined);
  if (pvcDir !== undefined) return `${cell.pvc_root.replace(/\/+$/, "")}/${pvcDir}/weights/step_${c.step}`;
  if (c.spares.length > 0) return c.spares[0]!.repo.id;
  return [...c.published].sort((a, b) => cmpStr(a.repo.id, b.repo.id))[0]!.repo.id;
}
