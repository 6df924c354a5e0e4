/**
 * `family_aliases` keys (SOURCES.md: cells.json): a directory name, current or
 * earlier, mapped to its family id; names compared in Unicode NFC.
 */
import type { Cell } from "../schema.js";

const tables = new WeakMap<Record<string, string>, Map<string, string>>();

/** `name` in Unicode NFC (ASCII names are returned as they are, without the cost of normalising). */
export function nfc(name: string): string {
  // eslint-disable-next-line no-control-regex
  return /^[\u0000-\u007f]*$/.test(name) ? name : name.normalize("NFC");
}

/**
 * The alias table of `family_aliases`, keyed by NFC name (own keys only: a
 * directory named `constructor` or `__proto__` is not an alias of anything).
 * Two keys that are one name in NFC keep the first (`loadCells` refuses two
 * such keys mapping to different ids).
 */
export function aliasTable(aliases: Record<string, string> | undefined): Map<string, string> {
  if (!aliases) return new Map();
  let table = tables.get(aliases);
  if (!table) {
    table = new Map();
    for (const key of Object.keys(aliases)) {
      const k = nfc(key);
      if (!table.has(k)) table.set(k, aliases[key]!);
    }
    tables.set(aliases, table);
  }
  return table;
}

/**
 * Pairs of `family_aliases` keys that are one name in NFC but map to
 * different family ids (`[key, other key]`); empty when there are none.
 */
export function conflictingAliasKeys(aliases: Record<string, string> | undefined): [string, string][] {
  if (!aliases) return [];
  const first = new Map<string, string>();
  const out: [string, string][] = [];
  for (const key of Object.keys(aliases)) {
    const k = nfc(key);
    const had = first.get(k);
    if (had === undefined) first.set(k, key);
    else if (aliases[had] !== aliases[key]) out.push([had, key]);
  }
  return out;
}

/**
 * The family id of a directory name (the last part of a PVC family
 * directory, a janitor v1 path or `family=`, a supervisor path): its
 * `family_aliases` entry, compared in NFC, else the name itself in NFC.
 */
export function familyIdOf(cell: Pick<Cell, "family_aliases">, directoryName: string): string {
  const aliases = cell.family_aliases;
  if (!aliases) return nfc(directoryName);
  if (Object.hasOwn(aliases, directoryName)) return aliases[directoryName]!;
  const name = nfc(directoryName);
  return aliasTable(aliases).get(name) ?? name;
}
