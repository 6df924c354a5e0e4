/**
 * Warnings about family names (SOURCES.md: cells.json `family_aliases`;
 * family-names.ts): aliases that map nothing or are ambiguous, directories of
 * one family whose steps interleave, families no PVC directory shows.
 */
import type { Cell } from "../schema.js";
import type { Diagnostics } from "../diagnostics.js";
import type { Observation } from "../observations.js";
import type { SupervisorHistory } from "../extractors/supervisor.js";
import type { HubRepoObservation } from "../extractors/hub-files.js";
import { aliasTable, nfc } from "../sources/family-aliases.js";
import { cmpStr } from "../util/values.js";
import type { Candidate } from "./decision.js";
import { likelySameFamily } from "./family-names.js";
import { byOrigin, isPvc } from "./grouping.js";

/** What {@link warnUnusedAliases} reads: the cell and every name its evidence uses. */
export interface AliasEvidence {
  cell: Cell;
  observations: Observation[];
  supervisor: Pick<SupervisorHistory, "roleEvents">;
  published: HubRepoObservation[];
  spares: HubRepoObservation[];
}

/**
 * Warns `FAMILY_NAME_AMBIGUOUS` for every `family_aliases` key that is also
 * the id of another family (a swap, a chain): Hub repos of that name are
 * ambiguous.
 */
export function warnAmbiguousAliases(cell: Cell, familyIds: ReadonlySet<string>, diag: Diagnostics): void {
  for (const [key, id] of aliasTable(cell.family_aliases)) {
    if (key !== nfc(id) && familyIds.has(key)) {
      diag.warn(
        "FAMILY_NAME_AMBIGUOUS",
        `cell "${cell.cell}": "${key}" is the id of a family and, as a family_aliases key, an earlier name of family "${id}": a Hub repo or anchor named "${key}" is taken as "${id}"'s only when its step is one of "${id}"'s and not of "${key}"'s; give the families distinct names`,
        "cells.json",
        null,
      );
    }
  }
}

/**
 * Warns `FAMILY_ALIAS_UNUSED` for every `family_aliases` key that names no
 * directory of the cell's PVC, janitor or supervisor evidence, no family part
 * of its Hub repos and no `anchors.tsv` family (compared in NFC): the alias
 * has no effect, so an intended rename did not happen.
 */
export function warnUnusedAliases(input: AliasEvidence, diag: Diagnostics): void {
  const aliases = input.cell.family_aliases;
  if (!aliases || Object.keys(aliases).length === 0) return;
  const used = new Set<string>();
  for (const o of [...input.observations, ...input.supervisor.roleEvents]) {
    if (o.familyDir !== null) used.add(nfc(o.familyDir.split("/").pop()!));
    else if (o.kind === "anchor") used.add(nfc(o.family));
  }
  for (const p of [...input.published, ...input.spares]) used.add(nfc(p.family));
  const dirs = [
    ...new Set(
      input.observations.filter((o) => isPvc(o) && o.familyDir !== null).map((o) => o.familyDir!.split("/").pop()!),
    ),
  ].sort(cmpStr);
  for (const key of Object.keys(aliases)) {
    if (used.has(nfc(key))) continue;
    diag.warn(
      "FAMILY_ALIAS_UNUSED",
      `cell "${input.cell.cell}": family_aliases key ${JSON.stringify(key)} names no directory, log line, event or Hub repo of the cell, so it maps nothing to "${aliases[key]}"${dirs.length ? ` (the PVC's family directories: ${dirs.map((d) => JSON.stringify(d)).join(", ")})` : ""}`,
      "cells.json",
      null,
    );
  }
}

/**
 * Warns `FAMILY_DIRS_INTERLEAVED` once per family whose PVC directories'
 * step ranges overlap (e.g. `sft` holds 100 and 300, `sft-b` holds 200): a
 * renamed directory continues where the old one stopped, so overlapping
 * ranges look like two training runs that `family_aliases` merged. Named at
 * the first listing line of the later directory.
 */
export function warnInterleavedDirectories(cellName: string, all: Candidate[], diag: Diagnostics): void {
  const ranges = new Map<string, Map<string, { min: number; max: number; first: Observation }>>();
  for (const c of all) {
    for (const o of c.obs) {
      if (!isPvc(o) || o.familyDir === null) continue;
      const dirs = ranges.get(c.family) ?? new Map<string, { min: number; max: number; first: Observation }>();
      const r = dirs.get(o.familyDir);
      if (!r) dirs.set(o.familyDir, { min: c.step, max: c.step, first: o });
      else {
        r.min = Math.min(r.min, c.step);
        r.max = Math.max(r.max, c.step);
        if (byOrigin(o, r.first) < 0) r.first = o;
      }
      ranges.set(c.family, dirs);
    }
  }
  for (const [family, dirs] of [...ranges.entries()].sort((a, b) => cmpStr(a[0], b[0]))) {
    if (dirs.size < 2) continue;
    const sorted = [...dirs.entries()].sort((a, b) => a[1].min - b[1].min || cmpStr(a[0], b[0]));
    for (let i = 1; i < sorted.length; i++) {
      const [prevDir, prev] = sorted[i - 1]!;
      const [dir, r] = sorted[i]!;
      if (r.min > prev.max) continue;
      diag.warn(
        "FAMILY_DIRS_INTERLEAVED",
        `cell "${cellName}": directories ${JSON.stringify(prevDir)} (steps ${prev.min}-${prev.max}) and ${JSON.stringify(dir)} (steps ${r.min}-${r.max}) both give family "${family}" and their steps interleave: a renamed directory continues where the old one stopped, so these look like two training runs merged; check family_aliases`,
        r.first.origin.file,
        r.first.origin.line,
      );
      break;
    }
  }
}

/**
 * Warns about the families of `rowsCands` that no PVC directory shows
 * (SOURCES.md: cells.json `family_aliases`): `FAMILY_NOT_ON_PVC` once per
 * family that janitor lines or supervisor events name while the cell's PVC
 * shows other families (at the first such line), and `HUB_UNKNOWN_FAMILY`
 * per checkpoint known only from the Hub whose family no other evidence of
 * the cell names (at its repo's `.hub.json`). Each suggests the
 * `family_aliases` entry that would join it to the family sharing the most
 * steps with it. Neither when the PVC shows no family at all (an empty
 * listing is its own warning).
 */
export function warnUnknownFamilies(
  cellName: string,
  rowsCands: Candidate[],
  all: Candidate[],
  diag: Diagnostics,
): void {
  const pvcSteps = new Map<string, Set<number>>();
  const namedSteps = new Map<string, Set<number>>();
  for (const c of all) {
    if (c.obs.some(isPvc)) pvcSteps.set(c.family, (pvcSteps.get(c.family) ?? new Set()).add(c.step));
    if (c.obs.length > 0) namedSteps.set(c.family, (namedSteps.get(c.family) ?? new Set()).add(c.step));
  }
  const byFamily = new Map<string, Candidate[]>();
  for (const c of rowsCands)
    if (!pvcSteps.has(c.family)) byFamily.set(c.family, [...(byFamily.get(c.family) ?? []), c]);
  const known = [...pvcSteps.keys()].sort(cmpStr);
  if (known.length === 0) return; // the PVC shows no family at all (an empty listing, warned): nothing to compare with
  for (const [family, members] of [...byFamily.entries()].sort((a, b) => cmpStr(a[0], b[0]))) {
    const named = namedSteps.has(family);
    const others = new Map([...(named ? pvcSteps : namedSteps)].filter(([f]) => f !== family));
    const like = likelySameFamily(
      members.map((m) => m.step),
      others,
    );
    const fix = `if it is an earlier name of a family, add it to family_aliases in cells.json ("${family}": "${like ?? "<family>"}")`;
    if (named) {
      const first = members.flatMap((m) => m.obs).sort(byOrigin)[0]!;
      diag.warn(
        "FAMILY_NOT_ON_PVC",
        `cell "${cellName}": family "${family}" (${members.length} row${members.length === 1 ? "" : "s"}) is named in ${first.kind.startsWith("janitor") ? "the janitor log" : "supervisor history"} but no PVC directory holds it (the PVC has ${known.map((f) => `"${f}"`).join(", ")}); a renamed directory? ${fix}; a deleted one leaves its rows as they are`,
        first.origin.file,
        first.origin.line,
      );
      continue;
    }
    for (const m of members) {
      const repo =
        m.published.length > 0
          ? [...m.published].sort((a, b) => cmpStr(a.repo.id, b.repo.id))[0]!.repo
          : [...m.spares].sort((a, b) => cmpStr(a.repo.id, b.repo.id))[0]!.repo;
      diag.warn(
        "HUB_UNKNOWN_FAMILY",
        `${repo.id}: family "${family}" step ${m.step} is known only from the Hub, and no family of cell "${cellName}" has that name (the PVC has ${known.map((f) => `"${f}"`).join(", ")}); ${fix}`,
        `${repo.dir}/.hub.json`,
        null,
      );
    }
  }
}
