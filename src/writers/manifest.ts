import { stringify } from "csv-stringify/sync";
import { z } from "zod";
import { ROW_KEYS, RowSchema, type Row } from "../schema.js";

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

/** How a column's values are written to the CSV, read off the row schema. */
type CsvKind = "number" | "boolean" | "list" | "text";

/** The kind and nullability of each column, from {@link RowSchema} (so the reader follows the schema, never a second list). */
const CSV_COLUMNS: Record<string, { kind: CsvKind; nullable: boolean }> = Object.fromEntries(
  Object.entries(RowSchema.shape).map(([key, field]) => {
    let type: z.ZodType = field;
    const nullable = type instanceof z.ZodNullable;
    if (type instanceof z.ZodNullable) type = type.unwrap() as z.ZodType;
    const kind: CsvKind =
      type instanceof z.ZodNumber
        ? "number"
        : type instanceof z.ZodBoolean
          ? "boolean"
          : type instanceof z.ZodArray
            ? "list"
            : "text";
    return [key, { kind, nullable }];
  }),
);

/** A number as JavaScript writes one (`String(n)`): optional `-`, digits, an optional fraction and exponent. */
const NUMBER_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:e[+-]?\d+)?$/;

/**
 * Reads one `manifest.csv` field back into the value {@link csvCell} wrote
 * for the column `key`, typed by the row schema: an empty field is null (in
 * a nullable column; else the empty string), numbers, `true`/`false`, lists
 * as JSON text, and text with the formula escape of {@link escapeCsvText}
 * undone. So a manifest read from its CSV equals the same manifest's JSON.
 *
 * Strict: a field that {@link csvCell} cannot have written (a number
 * column holding `5 h` or `=cmd()`, a text starting with `=`, `+`, `-`, `@`,
 * tab or carriage return without the escape, a `'` that escapes nothing) is
 * refused; the returned value is still to be checked with {@link RowSchema}.
 *
 * @throws Error whose message says what is wrong with the field (without the column's name).
 */
export function parseCsvCell(key: string, text: string): unknown {
  const column = CSV_COLUMNS[key];
  if (!column) throw new Error(`is not a manifest column`);
  if (text === "") return column.nullable ? null : "";
  switch (column.kind) {
    case "number": {
      const n = Number(text);
      if (!NUMBER_TEXT.test(text) || !Number.isFinite(n)) throw new Error(`${JSON.stringify(text)} is not a number`);
      return n;
    }
    case "boolean":
      if (text === "true" || text === "false") return text === "true";
      throw new Error(`${JSON.stringify(text)} is not true or false`);
    case "list": {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined;
      }
      if (!Array.isArray(value)) throw new Error(`${JSON.stringify(text)} is not a list written as JSON text`);
      return value;
    }
    case "text": {
      if (!FORMULA_START.test(text)) return text;
      const rest = text.slice(1);
      if (text.startsWith("'") && FORMULA_START.test(rest)) return rest;
      if (text.startsWith("'"))
        throw new Error(
          `${JSON.stringify(text)} starts with a ' that escapes nothing (ptb-manifest escapes only a text starting with =, +, -, @, tab, carriage return or ')`,
        );
      throw new Error(
        `${JSON.stringify(text)} starts with ${JSON.stringify(text[0])} without the ' escape: a spreadsheet would run it as a formula, and ptb-manifest never writes it so`,
      );
    }
  }
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
