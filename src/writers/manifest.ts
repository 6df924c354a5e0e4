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

/**
 * The first characters that make a spreadsheet (Excel, LibreOffice, Google
 * Sheets) read a cell as a formula: `=`, `+`, `-`, `@`, tab and carriage
 * return (OWASP, "CSV Injection"); and `'`, the escape itself, so that the
 * escape can always be undone.
 */
const FORMULA_START = /^[=+\-@\t\r']/;

/**
 * Escapes a CSV *string* value against formula injection (OWASP): a string
 * that starts with `=`, `+`, `-`, `@`, tab, carriage return or `'` gets one
 * leading `'`, which makes a spreadsheet show it as text. Applied to the
 * string fields only (never to numbers, booleans, lists or empty fields), so
 * `-0.5` stays a number. Undo with {@link unescapeCsvText}: a string field
 * that starts with `'` lost exactly that one character.
 */
export function escapeCsvText(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** Undoes {@link escapeCsvText}: drops one leading `'`. */
export function unescapeCsvText(text: string): string {
  return text.startsWith("'") ? text.slice(1) : text;
}

/**
 * One CSV cell: null → empty, lists → JSON text, booleans → `true`/`false`,
 * numbers as JavaScript writes them, strings escaped by {@link escapeCsvText}
 * (MANIFEST.md: manifest.csv).
 */
export function csvCell(value: Row[keyof Row]): string {
  if (value === null) return "";
  if (Array.isArray(value)) return JSON.stringify(value);
  if (typeof value === "string") return escapeCsvText(value);
  return String(value);
}

/**
 * `manifest.csv`: RFC 4180 through csv-stringify, a header row, UTF-8, `\n`
 * line ends; lists as JSON text; null as an empty field (MANIFEST.md); a
 * string that a spreadsheet would run as a formula gets a leading `'`
 * ({@link escapeCsvText}).
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
