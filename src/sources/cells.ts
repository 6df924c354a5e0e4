import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { CellsFileSchema, type Cell, type CellsFile } from "../schema.js";
import { InputError } from "../diagnostics.js";

/** True when `zone` is an IANA time zone this Node.js knows. */
export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads and validates `<sources>/cells.json` (SOURCES.md: cells.json).
 *
 * @returns the parsed registry, cells in file order.
 * @throws InputError `CELLS_MISSING` (no file), `CELLS_BAD_JSON`,
 *   `CELLS_UNKNOWN_KEY` (a key the layout does not name, e.g. a typo),
 *   `CELLS_INVALID` (a wrong type or a missing required key, naming the key path),
 *   `CELLS_DUPLICATE_CELL`, `CELLS_BAD_TIME_ZONE` (janitor_tz not an IANA zone).
 */
export async function loadCells(sourcesDir: string): Promise<CellsFile> {
  const file = "cells.json";
  let text: string;
  try {
    text = await readFile(join(sourcesDir, file), "utf8");
  } catch {
    throw new InputError("CELLS_MISSING", `no cells.json in ${sourcesDir}`, file);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new InputError("CELLS_BAD_JSON", `cells.json is not valid JSON: ${(err as Error).message}`, file);
  }
  const parsed = CellsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = describePath(json, issue.path);
    if (issue.code === "unrecognized_keys") {
      const keys = issue.keys.map((k) => `"${k}"`).join(", ");
      throw new InputError("CELLS_UNKNOWN_KEY", `unknown key ${keys} in ${at}`, file);
    }
    throw new InputError("CELLS_INVALID", `${at}: ${issue.message}`, file);
  }
  const registry = parsed.data;
  const seen = new Set<string>();
  for (const cell of registry.cells) {
    if (seen.has(cell.cell)) {
      throw new InputError("CELLS_DUPLICATE_CELL", `cell "${cell.cell}" is listed twice`, file);
    }
    seen.add(cell.cell);
    if (!isValidTimeZone(cell.janitor_tz)) {
      throw new InputError(
        "CELLS_BAD_TIME_ZONE",
        `cell "${cell.cell}": janitor_tz "${cell.janitor_tz}" is not an IANA time zone`,
        file,
      );
    }
  }
  return registry;
}

/** Names a zod issue path readably: `cells[2] ("sol-high").janitor_tz`. */
function describePath(json: unknown, path: PropertyKey[]): string {
  if (path.length === 0) return "the top level";
  let out = "";
  let node: unknown = json;
  for (const part of path) {
    if (typeof part === "number") {
      node = Array.isArray(node) ? node[part] : undefined;
      const name = node && typeof node === "object" && "cell" in node ? ` ("${String((node as Cell).cell)}")` : "";
      out += `[${part}]${name}`;
    } else {
      node = node && typeof node === "object" ? (node as Record<string, unknown>)[String(part)] : undefined;
      out += out ? `.${String(part)}` : String(part);
    }
  }
  return out;
}

/** Maps a PVC directory name to its family id (SOURCES.md: cells.json `family_aliases`). */
export function familyIdOf(cell: Cell, directoryName: string): string {
  return cell.family_aliases?.[directoryName] ?? directoryName;
}
