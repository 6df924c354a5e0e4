/**
 * Family names: which family a name belongs to (SOURCES.md: cells.json
 * `family_aliases`; MANIFEST.md: `family`).
 *
 * A family is named by its PVC directory (the directory that holds
 * `weights/`), by `family_aliases` keys mapping directory names (current or
 * earlier ones: a renamed directory) to its id, by janitor lines (v1 paths,
 * v2 `family=`) and supervisor events that may still use an earlier
 * directory name, and by Hub repo names (published and spare) that carry the
 * family id or an earlier name. Every comparison of names is made in Unicode
 * NFC, so a name typed in decomposed form (NFD: `n` + combining tilde) is the
 * same name as its composed form (`ñ`).
 */
import type { Cell } from "../schema.js";
import { parsePublishedName, parseSpareName } from "../extractors/hub-files.js";
import { aliasTable, familyIdOf, nfc } from "../sources/family-aliases.js";

/**
 * The family a name that is meant to be a family id belongs to: a Hub repo
 * name's family part (`{cell}.h{HHH}.{family}.{step}`,
 * `{cell}.{family}.step_{N}`) or an `anchors.tsv` family. A name that is the
 * id of one of the cell's families (`familyIds`) is that family; else a name
 * that is a `family_aliases` key (a directory name or an earlier name of
 * one) is the family it maps to; else the name itself (a family the cell
 * does not know: the resolver warns). All compared in NFC.
 *
 * A name that is both a family's id and an alias key of another family (a
 * swap, a chain: the resolver warns) is the family whose evidence holds the
 * step, when only the alias's family does; else the family whose id it is.
 *
 * @param familyIds the ids of the families the cell's PVC, janitor and
 *   supervisor evidence gives; without it, the ids `family_aliases` maps to
 *   stand for them (what `diff` knows of a sources folder without resolving it).
 * @param at the step the name comes with, and the steps each family's
 *   evidence holds (family id → steps), to settle an ambiguous name.
 */
export function familyOfName(
  cell: Pick<Cell, "family_aliases">,
  name: string,
  familyIds?: ReadonlySet<string>,
  at?: { step: number; stepsOf: ReadonlyMap<string, ReadonlySet<number>> },
): string {
  const n = nfc(name);
  const isId = familyIds ? familyIds.has(n) : Object.values(cell.family_aliases ?? {}).some((v) => nfc(v) === n);
  if (!isId) return familyIdOf(cell, n);
  const other = aliasTable(cell.family_aliases).get(n);
  if (
    other !== undefined &&
    other !== n &&
    at &&
    at.stepsOf.get(other)?.has(at.step) &&
    !at.stepsOf.get(n)?.has(at.step)
  )
    return other;
  return n;
}

/**
 * The family among `families` (family id → its steps) that shares the most
 * steps with `steps`, for a warning's "did you mean" (ties: the first id in
 * code-point order); null when none shares a step.
 */
export function likelySameFamily(
  steps: Iterable<number>,
  families: ReadonlyMap<string, ReadonlySet<number>>,
): string | null {
  const wanted = [...new Set(steps)];
  let best: string | null = null;
  let bestCount = 0;
  for (const [family, have] of [...families.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    const count = wanted.filter((s) => have.has(s)).length;
    if (count > bestCount) {
      best = family;
      bestCount = count;
    }
  }
  return best;
}

/**
 * The earlier family names a build matched (MANIFEST.md: provenance.jsonl):
 * for every row whose `published_repo` or `spare_repo` evidence carries
 * another family part than the row's family (`{cell}.h{HHH}.{family}.{step}`,
 * `{cell}.{family}.step_{N}`), `"{cell}/{name}"` → the row's family. `publish`
 * and `diff` use it to map repos and ids named with an earlier name to their
 * rows, as the build did. Records that are not rows (the baseline, a
 * malformed line) are skipped.
 *
 * @param records the parsed lines of a `provenance.jsonl`.
 */
export function earlierFamilyNames(records: unknown[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const rec of records) {
    if (!rec || typeof rec !== "object") continue;
    const { cell, family, evidence } = rec as { cell?: unknown; family?: unknown; evidence?: unknown };
    if (typeof cell !== "string" || typeof family !== "string" || !Array.isArray(evidence)) continue;
    for (const item of evidence as { kind?: unknown; raw?: unknown }[]) {
      if ((item?.kind !== "published_repo" && item?.kind !== "spare_repo") || typeof item.raw !== "string") continue;
      const name = item.raw.slice(item.raw.indexOf("/") + 1);
      const p = item.kind === "published_repo" ? parsePublishedName(name, [cell]) : parseSpareName(name, [cell]);
      if (p && p.family !== family) out.set(`${cell}/${p.family}`, family);
    }
  }
  return out;
}
