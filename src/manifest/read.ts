/**
 * The manifest reader (MANIFEST.md: manifest.json, manifest.csv): the rows
 * of a `manifest.json`, a `manifest.csv` or an output folder, each checked
 * against the row schema and the others, errors naming the file and the
 * row's line (`DIFF_INPUT`; `cost` reports them as `COST_BAD_MANIFEST`).
 */
import type { Stats } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { InputError } from "../errors.js";
import { hubNameProblem, ROW_KEYS, type Row, RowSchema } from "../schema.js";
import { fsReason, orOnFsError } from "../util/fs-errors.js";
import { parseCsvCell } from "../writers/manifest.js";
import { checkpointKeyOfId } from "./model-id.js";

/** One row as a file holds it, before the checks: its value, the line it starts on, and `row N`. */
export interface SourceRow {
  value: unknown;
  line: number | null;
  label: string;
}

/** The checkpoint key of a row or record: `cell/family/step`, else (the baseline) the key of its model id. */
export function checkpointKeyOfRecord(r: Record<string, unknown>): string {
  if (r.family !== undefined && r.family !== null && r.step !== undefined && r.step !== null && r.step !== "") {
    return `${String(r.cell)}/${String(r.family)}/${String(r.step)}`;
  }
  return checkpointKeyOfId(String(r.model_id), null);
}

/** Where a manifest (or a diff side) went wrong: the `DIFF_INPUT` error naming the file and, where there is one, the line. */
export function bad(file: string, message: string, line: number | null = null): InputError {
  return new InputError("DIFF_INPUT", message, file, line);
}

/** Why `id` is not an `owner/name` Hub repo id, or null when it is one. */
export function hubIdProblem(id: string): string | null {
  const parts = id.split("/");
  if (parts.length !== 2) return "is not owner/name";
  for (const [what, part] of [
    ["owner", parts[0]!],
    ["name", parts[1]!],
  ] as const) {
    const problem = hubNameProblem(part);
    if (problem) return `has a ${what} that ${problem}`;
  }
  return null;
}

/** A value shown in a message, cut to a readable length. */
export function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * The 1-based line on which each element of the JSON array `text` starts
 * (`text` is valid JSON: it has been parsed), so that a bad row of a
 * `manifest.json` can be named by its line.
 */
function arrayElementLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let expectElement = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\n") line += 1;
    if (inString) {
      if (ch === "\\") i += 1;
      else if (ch === '"') inString = false;
      continue;
    }
    if (depth === 1 && expectElement && !/\s/.test(ch) && ch !== "]") {
      lines.push(line);
      expectElement = false;
    }
    if (ch === '"') inString = true;
    else if (ch === "[" || ch === "{") {
      depth += 1;
      if (depth === 1) expectElement = true;
    } else if (ch === "]" || ch === "}") depth -= 1;
    else if (ch === "," && depth === 1) expectElement = true;
  }
  return lines;
}

/**
 * Checks the rows of a `manifest.json` or `manifest.csv` against the row
 * schema and each other: every row a valid {@link RowSchema} row with an
 * `owner/name` model id, no model id and no checkpoint twice. Returns each
 * row with its checkpoint key (`cell/family/step`, {@link checkpointKeyOfRecord}).
 *
 * @throws InputError `DIFF_INPUT` naming `file` and the row's line.
 */
export function checkRows(file: string, rows: SourceRow[]): { row: Row; key: string }[] {
  const out: { row: Row; key: string }[] = [];
  const ids = new Map<string, string>();
  const keys = new Map<string, string>();
  for (const { value, line, label } of rows) {
    const parsed = RowSchema.safeParse(value);
    const id = (value as Record<string, unknown> | null)?.model_id;
    const named = typeof id === "string" ? ` (${shown(id)})` : "";
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const at = issue.path.length ? `${issue.path.join(".")}: ` : "";
      const field =
        issue.path.length === 1 && value && typeof value === "object"
          ? (value as Record<string, unknown>)[issue.path[0] as string]
          : undefined;
      const got = field !== undefined && field !== null ? ` (got ${shown(field)})` : "";
      throw bad(file, `${label}${named} is not a manifest row: ${at}${issue.message}${got}`, line);
    }
    const row = parsed.data;
    const problem = hubIdProblem(row.model_id);
    if (problem) throw bad(file, `${label}: model_id ${shown(row.model_id)} ${problem}: not a Hub model id`, line);
    const key = checkpointKeyOfRecord(row);
    if (ids.has(row.model_id))
      throw bad(
        file,
        `${label}: model_id ${row.model_id} is also the id of ${ids.get(row.model_id)}: a manifest holds each id once`,
        line,
      );
    if (keys.has(key))
      throw bad(
        file,
        `${label} (${row.model_id}): checkpoint ${key} is also the checkpoint of ${keys.get(key)}: a manifest holds each checkpoint once`,
        line,
      );
    ids.set(row.model_id, label);
    keys.set(key, `${label} (${row.model_id})`);
    out.push({ row, key });
  }
  return out;
}

/** The rows of a `manifest.json`, each with the line it starts on. */
export function jsonRows(file: string, text: string): SourceRow[] {
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message.split("\n")[0]!;
    const pos = /position (\d+)/.exec(message);
    const line = pos ? text.slice(0, Number(pos[1])).split("\n").length : null;
    throw bad(file, `not JSON: ${message}`, line);
  }
  if (!Array.isArray(rows))
    throw bad(file, `a manifest.json is a JSON array of rows, not ${rows === null ? "null" : typeof rows}`, 1);
  if (rows.length === 0) throw bad(file, "a manifest with no rows (every build has at least the baseline row)", 1);
  const lines = arrayElementLines(text);
  return rows.map((value, i) => ({ value, line: lines[i] ?? null, label: `row ${i + 1}` }));
}

/** The rows of a `manifest.csv`, typed back by the row schema ({@link parseCsvCell}), each with its line. */
export function csvRows(file: string, text: string): SourceRow[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, { info: true }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (err) {
    const e = err as Error & { lines?: number };
    throw bad(file, `not CSV: ${e.message.split("\n")[0]}`, typeof e.lines === "number" ? e.lines : null);
  }
  const header = records[0]?.record ?? [];
  const missing = ROW_KEYS.filter((k) => !header.includes(k));
  const extra = header.filter((k, i) => !(ROW_KEYS as string[]).includes(k) || header.indexOf(k) !== i);
  if (missing.length || extra.length) {
    const what = [
      missing.length ? `without ${missing.join(", ")}` : "",
      extra.length ? `with ${extra.map((k) => JSON.stringify(k)).join(", ")} (unknown or twice)` : "",
    ]
      .filter(Boolean)
      .join(" and ");
    throw bad(file, `the header row is not manifest.csv's: ${what}`, 1);
  }
  if (records.length < 2) throw bad(file, "a manifest with no rows (every build has at least the baseline row)", 1);
  const out: SourceRow[] = [];
  for (let r = 1; r < records.length; r++) {
    const line = records[r - 1]!.info.lines + 1;
    const label = `row ${r}`;
    const value: Record<string, unknown> = {};
    header.forEach((k, c) => {
      const cell = records[r]!.record[c]!;
      try {
        value[k] = parseCsvCell(k, cell);
      } catch (err) {
        const id = records[r]!.record[header.indexOf("model_id")];
        throw bad(
          file,
          `${label}${id ? ` (${shown(id)})` : ""} is not a manifest row: ${k}: ${(err as Error).message}`,
          line,
        );
      }
    });
    out.push({ value, line, label });
  }
  return out;
}

/** The text of a manifest file (BOM dropped), refused when it is not a regular file, empty or blank. */
export async function manifestText(path: string, info: Stats): Promise<string> {
  if (!info.isFile())
    throw bad(path, `not a regular file (a device, FIFO or socket): a diff side is a manifest file or folder`);
  if (info.size === 0) throw bad(path, "an empty file is not a manifest");
  const text = (
    await orOnFsError(
      () => readFile(path, "utf8"),
      (err) => {
        throw bad(path, `cannot read ${path}: ${fsReason(err)}`);
      },
    )
  ).replace(/^\uFEFF/, "");
  if (text.trim() === "") throw bad(path, "a blank file is not a manifest");
  return text;
}

/**
 * The one manifest reader (used by `diff` and `cost`; `diff` reads its sides with the same checks): the rows of a
 * `manifest.json`, a `manifest.csv` (values typed back by the row schema,
 * the formula escape undone) or an output folder's `manifest.json`, in file
 * order, each checked as a `diff` side's rows are checked.
 *
 * @throws InputError `DIFF_INPUT` naming the file and the row's line (a missing
 *   path, not a regular file, empty, not JSON or CSV, a row that is not a
 *   manifest row, an id or a checkpoint twice); a file that is neither `.json` nor `.csv` is read as
 *   JSON.
 */
export async function readManifestRows(path: string): Promise<Row[]> {
  let info: Stats;
  try {
    info = await stat(path);
  } catch {
    throw bad(path, `no such file or folder: ${path}`);
  }
  if (info.isDirectory()) {
    if (!(await stat(join(path, "manifest.json")).catch(() => null)))
      throw bad(path, "a folder without manifest.json (not a build's output folder)");
    return readManifestRows(join(path, "manifest.json"));
  }
  const text = await manifestText(path, info);
  return checkRows(path, path.endsWith(".csv") ? csvRows(path, text) : jsonRows(path, text)).map((r) => r.row);
}
