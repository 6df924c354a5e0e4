import { stringify } from "csv-stringify/sync";
import { ROW_KEYS, type Row } from "../schema.js";

/**
 * `manifest.json`: a JSON array, one object per row, keys in MANIFEST.md
 * order, two-space indented, ending in a newline.
 */
export function manifestJson(rows: Row[]): string {
  const ordered = rows.map((r) => Object.fromEntries(ROW_KEYS.map((k) => [k, r[k]])));
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/** One CSV cell: null → empty, lists → JSON text, booleans → `true`/`false` (MANIFEST.md: manifest.csv). */
export function csvCell(value: Row[keyof Row]): string {
  if (value === null) return "";
  if (Array.isArray(value)) return JSON.stringify(value);
  return String(value);
}

/**
 * `manifest.csv`: RFC 4180 through csv-stringify, a header row, UTF-8, `\n`
 * line ends; lists as JSON text; null as an empty field (MANIFEST.md).
 */
export function manifestCsv(rows: Row[]): string {
  return stringify(
    rows.map((r) => ROW_KEYS.map((k) => csvCell(r[k]))),
    { header: true, columns: ROW_KEYS as string[], record_delimiter: "\n" },
  );
}

/** `model-ids.txt`: the ids, one a line, in manifest order. */
export function modelIdsTxt(rows: Row[]): string {
  return rows.map((r) => `${r.model_id}\n`).join("");
}

/** `provenance.jsonl`: one JSON object a line, one per row, in manifest order. */
export function provenanceJsonl(items: unknown[]): string {
  return items.map((e) => `${JSON.stringify(e)}\n`).join("");
}
