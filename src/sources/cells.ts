import { distance } from "fastest-levenshtein";
import { findNodeAtLocation, parseTree } from "jsonc-parser";
import { CellSchema, CellsFileSchema, type Cell, type CellsFile } from "../schema.js";
import { InputError } from "../errors.js";
import { assertConfined } from "./confine.js";
import { conflictingAliasKeys, familyIdOf as familyIdOfName } from "./family-aliases.js";
import { assertSourcesFolder, readCellsText } from "./sources-folder.js";
import { CELLS_JSON } from "./layout.js";

/**
 * True when `zone` is an IANA region name this Node.js knows: `Area/Location`
 * (`America/Los_Angeles`, `America/Argentina/Buenos_Aires`), or `UTC` /
 * `Etc/UTC` (SOURCES.md: cells.json `janitor_tz`). Abbreviations (`EST`,
 * `PST`, `CET`: fixed offsets or ambiguous), POSIX-style rules (`EST5EDT`),
 * other `Etc/` zones (`Etc/GMT+5`: fixed offsets, with inverted signs) and
 * offsets (`+08:00`) are refused: a janitor's clock follows a region's law,
 * daylight saving time included.
 */
export function isValidTimeZone(zone: string): boolean {
  if (zone !== "UTC" && zone !== "Etc/UTC" && !/^[A-Z][A-Za-z_]*(\/[A-Za-z0-9_+-]+)+$/.test(zone)) return false;
  if (zone.startsWith("Etc/") && zone !== "Etc/UTC") return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads and validates `<sources>/cells.json` (SOURCES.md: cells.json).
 * First checks that nothing in the sources folder leads out of it
 * ({@link assertConfined}): every later read starts from here.
 *
 * @returns the parsed registry, cells in file order.
 * @throws InputError `SOURCES_NOT_FOUND`, `SOURCES_UNREADABLE`,
 *   `CELLS_MISSING` (no file), `CELLS_UNREADABLE`, `CELLS_BAD_JSON`,
 *   `CELLS_UNKNOWN_KEY` (a key the layout does not name, e.g. a typo),
 *   `CELLS_INVALID` (a wrong type or a missing required key, naming the key path),
 *   `CELLS_DUPLICATE_CELL`, `CELLS_BAD_TIME_ZONE` (janitor_tz not an IANA zone),
 *   `CELLS_INVALID` also for two `family_aliases` keys that are one name in NFC with different ids,
 *   `SOURCES_LINK_OUTSIDE`, `SOURCES_SPECIAL_FILE`.
 */
export async function loadCells(sourcesDir: string): Promise<CellsFile> {
  await assertSourcesFolder(sourcesDir);
  await assertConfined(sourcesDir);
  return parseCells(await readCellsText(sourcesDir));
}

/**
 * Parses and checks the text of `cells.json` (SOURCES.md: cells.json), a
 * leading byte-order mark allowed: the part of {@link loadCells} that needs
 * no file system.
 *
 * @throws InputError `CELLS_BAD_JSON`, `CELLS_UNKNOWN_KEY`, `CELLS_INVALID`,
 *   `CELLS_DUPLICATE_CELL`, `CELLS_BAD_TIME_ZONE` as {@link loadCells}.
 */
export function parseCells(cellsText: string): CellsFile {
  const file = CELLS_JSON;
  let text = cellsText;
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message;
    throw new InputError(
      "CELLS_BAD_JSON",
      `cells.json is not valid JSON: ${message}`,
      file,
      jsonErrorLine(text, message),
    );
  }
  const parsed = CellsFileSchema.safeParse(json);
  if (!parsed.success) {
    // A misspelled key is both unknown and a missing required key: name the typo first.
    const issue = parsed.error.issues.find((i) => i.code === "unrecognized_keys") ?? parsed.error.issues[0]!;
    const at = describePath(json, issue.path);
    if (issue.code === "unrecognized_keys") {
      const keys = issue.keys.map((k) => `"${k}"`).join(", ");
      const hint = closestKey(issue.keys[0]!, knownKeys(issue.path));
      throw new InputError(
        "CELLS_UNKNOWN_KEY",
        `unknown key ${keys} in ${at}${hint !== null ? ` (did you mean "${hint}"?)` : ""}`,
        file,
        keyLine(text, [...issue.path, issue.keys[0]!] as (string | number)[]),
      );
    }
    throw new InputError("CELLS_INVALID", `${at}: ${issue.message}`, file);
  }
  const registry = parsed.data;
  // Cell names start model ids, and the Hub compares repo names without case: `alpha` and `Alpha` clash.
  const seen = new Map<string, string>();
  for (const cell of registry.cells) {
    const other = seen.get(cell.cell.toLowerCase());
    if (other !== undefined) {
      throw new InputError(
        "CELLS_DUPLICATE_CELL",
        other === cell.cell
          ? `cell "${cell.cell}" is listed twice`
          : `cells "${other}" and "${cell.cell}" differ only in case: their model ids would clash on the Hub`,
        file,
      );
    }
    seen.set(cell.cell.toLowerCase(), cell.cell);
    if (!isValidTimeZone(cell.janitor_tz)) {
      throw new InputError(
        "CELLS_BAD_TIME_ZONE",
        `cell "${cell.cell}": janitor_tz "${cell.janitor_tz}" is not an IANA time zone region name (Area/Location, e.g. America/New_York, or UTC)`,
        file,
        keyLine(text, ["cells", registry.cells.indexOf(cell), "janitor_tz"]),
      );
    }
    const [pair] = conflictingAliasKeys(cell.family_aliases);
    if (pair) {
      const [a, b] = pair;
      throw new InputError(
        "CELLS_INVALID",
        `cell "${cell.cell}": family_aliases keys ${JSON.stringify(a)} and ${JSON.stringify(b)} are one name in Unicode NFC but map to ${JSON.stringify(cell.family_aliases![a])} and ${JSON.stringify(cell.family_aliases![b])}`,
        file,
      );
    }
  }
  return registry;
}

/** The keys the layout knows at a zod issue path: a cell's keys inside `cells[i]`, else the top level's. */
function knownKeys(path: PropertyKey[]): string[] {
  return Object.keys((path[0] === "cells" ? CellSchema : CellsFileSchema).shape);
}

/**
 * The known key closest to a misspelled one (Levenshtein distance, ignoring
 * case, `-` and `_`), or null when none is near (more than a third of the
 * longer name differs).
 */
export function closestKey(key: string, known: string[]): string | null {
  const norm = (k: string): string => k.toLowerCase().replace(/[-_\s]/g, "");
  let best: { key: string; d: number } | null = null;
  for (const k of known) {
    const d = distance(norm(key), norm(k));
    if (best === null || d < best.d) best = { key: k, d };
  }
  return best !== null && best.d <= Math.max(1, Math.floor(Math.max(key.length, best.key.length) / 3))
    ? best.key
    : null;
}

/** The 1-based line of the member at `path` (keys and array indexes) in a JSON text, or null. */
function keyLine(text: string, path: (string | number)[]): number | null {
  const node = findNodeAtLocation(parseTree(text) ?? { type: "null", offset: 0, length: 0 }, path);
  // A member's node is its value; its parent is the "key": value pair, which starts at the key.
  const at = node?.parent?.type === "property" ? node.parent.offset : node?.offset;
  return at === undefined ? null : text.slice(0, at).split("\n").length;
}

/** The 1-based line of a `JSON.parse` error that gives a position (`... at position 123`), or null. */
function jsonErrorLine(text: string, message: string): number | null {
  const m = /at position (\d+)/.exec(message);
  if (!m) return text.trim() === "" ? null : text.split("\n").length;
  return text.slice(0, Number(m[1])).split("\n").length;
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

/**
 * Maps a PVC directory name to its family id (SOURCES.md: cells.json
 * `family_aliases`), names compared in Unicode NFC: see
 * {@link familyIdOfName} in src/resolve/family-names.ts.
 */
export function familyIdOf(cell: Cell, directoryName: string): string {
  return familyIdOfName(cell, directoryName);
}
