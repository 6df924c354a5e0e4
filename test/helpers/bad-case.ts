/**
 * The bad-input corpus (test/fixtures/bad/<case>/case.json): each case is the
 * mini sweep of ./mini-sweep.ts (every row known by hand, see
 * ./mini-sweep-expected.ts) plus a few declarative edits, and the exact
 * outcome a build of it must have. test/bad-input.test.ts runs every case
 * through the real CLI.
 *
 * case.json:
 * {
 *   "fault":    what is wrong with the input (one line; unique in the corpus),
 *   "why":      (optional) why the rows it changes change, where that is not obvious,
 *   "edits":    [Edit, ...] applied in order to the mini sweep's files,
 *   "args":     extra `build` arguments (optional, e.g. ["--strict"]; they come after the case's own
 *               `--out <case folder>/out`, so an `--out` here replaces it); "$SOURCES" stands for the
 *               case's sources folder and "$ROOT" for the folder holding it (also in error.file and
 *               error.message),
 *   "exit":     the exit code (0 written, 1 fatal input error, 2 --strict with warnings, 64 usage error);
 *               for every exit but 0, nothing under the case's folder may change,
 *   "error":    for exit 1: {"code", "file", "line" (null when none), "message": a substring},
 *   "usage":    for exit 64: a substring of the usage error on stderr,
 *   "stdout":   for exit 0 (optional): substrings of what the build prints (its summary),
 *   "files":    for exit 0 (optional): {"<output file>": [substring, ...]}, e.g. of "README.md",
 *   "warnings": {"added": [[code, file, line, message substring?], ...], "removed": [[code, file, line], ...]}
 *               relative to the mini sweep's warnings (compared as exact multisets of [code, file, line]),
 *   "rows":     {"changed": {"<model id in the mini sweep>": {field: value, ...}}, "removed": [id, ...], "added": [row, ...]}
 *               relative to the mini sweep's rows: every other row must come out exactly as in the mini sweep,
 *   "lost":     {"added": [lost checkpoint, ...], "removed": [...]} relative to the mini sweep's (optional)
 * }
 *
 * Edit (`path` is relative to the sources folder):
 * - {"op": "write", "path", "text" | "lines" | "records" | "hex", "gzip"?}: replace or create a file
 *   (`lines`: strings each ended by "\n"; `records`: objects written as JSON, strings as they are, one a
 *   line; `hex`: raw bytes; `gzip`: compress what is given);
 * - {"op": "append", "path", "text" | "lines" | "records" | "hex"}: add bytes at the end;
 * - {"op": "insert", "path", "before": line number (1-based), "lines" | "records" | "hex"}: insert whole lines
 *   (a final "\n" is added when missing);
 * - {"op": "replace", "path", "find", "with"}: replace the one occurrence of `find` (there must be exactly one);
 * - {"op": "delete", "path"}: delete a file, or every file under a folder;
 * - {"op": "json", "path", "set": {"a.0.b": value}, "unset": ["a.0.c"]}: edit a JSON file by key path;
 * - {"op": "crlf", "path"}: turn every "\n" into "\r\n";
 * - {"op": "bom", "path"}: add a UTF-8 byte-order mark;
 * - {"op": "truncate", "path", "bytes"}: keep the first `bytes` bytes (negative: drop that many at the end);
 * - {"op": "gzip", "path", "to"}: gzip the file into `to` (the original is removed);
 * - {"op": "symlink", "path", "target"}: a symbolic link; "$OUTSIDE" in `target` is a folder beside the
 *   sources folder (outside it), filled by "outside" edits;
 * - {"op": "outside", "path", "text" | "lines" | "records"}: a file in that outside folder;
 * - {"op": "fifo", "path"}: a named pipe (mkfifo).
 */
import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import type { Row } from "../../src/schema.js";

export type WarningKey = [code: string, file: string | null, line: number | null, message?: string];

export interface BadCase {
  fault: string;
  why?: string;
  edits: Edit[];
  args?: string[];
  exit: 0 | 1 | 2 | 64;
  error?: { code: string; file: string | null; line: number | null; message: string };
  usage?: string;
  stdout?: string[];
  files?: Record<string, string[]>;
  warnings?: { added?: WarningKey[]; removed?: WarningKey[] };
  rows?: { changed?: Record<string, Partial<Row>>; removed?: string[]; added?: Row[] };
  lost?: { added?: unknown[]; removed?: unknown[] };
}

export interface Edit {
  op:
    | "write"
    | "append"
    | "insert"
    | "replace"
    | "delete"
    | "json"
    | "crlf"
    | "bom"
    | "truncate"
    | "gzip"
    | "symlink"
    | "outside"
    | "fifo";
  path: string;
  text?: string;
  lines?: string[];
  records?: unknown[];
  hex?: string;
  gzip?: boolean;
  before?: number;
  find?: string;
  with?: string;
  set?: Record<string, unknown>;
  unset?: string[];
  bytes?: number;
  to?: string;
  target?: string;
}

function payload(e: Edit): Buffer {
  if (e.hex !== undefined) return Buffer.from(e.hex.replace(/\s+/g, ""), "hex");
  if (e.lines !== undefined) return Buffer.from(e.lines.map((l) => `${l}\n`).join(""));
  if (e.records !== undefined)
    return Buffer.from(e.records.map((r) => `${typeof r === "string" ? r : JSON.stringify(r)}\n`).join(""));
  if (e.text !== undefined) return Buffer.from(e.text);
  throw new Error(`edit ${e.op} ${e.path}: give text, lines, records or hex`);
}

function setPath(obj: unknown, path: string, value: unknown, unset: boolean): void {
  const parts = path.split(".");
  let node = obj as Record<string, unknown>;
  for (const p of parts.slice(0, -1)) {
    const next = node[p];
    if (next === undefined || next === null || typeof next !== "object") throw new Error(`json edit: no ${path}`);
    node = next as Record<string, unknown>;
  }
  const last = parts[parts.length - 1]!;
  if (unset) delete node[last];
  else node[last] = value;
}

/**
 * Applies a case's edits to a copy of `base` (path → bytes). Returns the
 * files, the links to make and the files of the outside folder.
 */
export function applyEdits(
  base: Record<string, string>,
  edits: Edit[],
): { files: Map<string, Buffer>; links: [string, string][]; outside: Map<string, Buffer>; fifos: string[] } {
  const files = new Map<string, Buffer>(Object.entries(base).map(([k, v]) => [k, Buffer.from(v)]));
  const links: [string, string][] = [];
  const outside = new Map<string, Buffer>();
  const fifos: string[] = [];
  const get = (p: string): Buffer => {
    const b = files.get(p);
    if (!b) throw new Error(`edit: no file ${p} in the mini sweep`);
    return b;
  };
  for (const e of edits) {
    switch (e.op) {
      case "write": {
        const body = payload(e);
        files.set(e.path, e.gzip ? gzipSync(body) : body);
        break;
      }
      case "append":
        files.set(e.path, Buffer.concat([files.get(e.path) ?? Buffer.alloc(0), payload(e)]));
        break;
      case "insert": {
        // Byte-level, so that garbage given as hex stays exactly those bytes.
        const b = get(e.path);
        let offset = 0;
        for (let line = 1; line < (e.before ?? 1); line++) {
          const nl = b.indexOf(0x0a, offset);
          if (nl < 0) throw new Error(`insert: ${e.path} has no line ${e.before}`);
          offset = nl + 1;
        }
        let add = payload(e);
        if (add[add.length - 1] !== 0x0a) add = Buffer.concat([add, Buffer.from("\n")]);
        files.set(e.path, Buffer.concat([b.subarray(0, offset), add, b.subarray(offset)]));
        break;
      }
      case "replace": {
        const text = get(e.path).toString("utf8");
        const n = text.split(e.find!).length - 1;
        if (n !== 1) throw new Error(`replace: ${JSON.stringify(e.find)} occurs ${n} times in ${e.path}`);
        files.set(e.path, Buffer.from(text.replace(e.find!, () => e.with!)));
        break;
      }
      case "delete": {
        const prefix = `${e.path.replace(/\/$/, "")}/`;
        const hits = [...files.keys()].filter((k) => k === e.path || k.startsWith(prefix));
        if (hits.length === 0) throw new Error(`delete: nothing at ${e.path}`);
        for (const k of hits) files.delete(k);
        break;
      }
      case "json": {
        const value: unknown = JSON.parse(get(e.path).toString("utf8"));
        for (const [k, v] of Object.entries(e.set ?? {})) setPath(value, k, v, false);
        for (const k of e.unset ?? []) setPath(value, k, undefined, true);
        files.set(e.path, Buffer.from(JSON.stringify(value, null, 2)));
        break;
      }
      case "crlf":
        files.set(e.path, Buffer.from(get(e.path).toString("utf8").replace(/\n/g, "\r\n")));
        break;
      case "bom":
        files.set(e.path, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), get(e.path)]));
        break;
      case "truncate": {
        const b = get(e.path);
        files.set(e.path, b.subarray(0, e.bytes! >= 0 ? e.bytes! : b.length + e.bytes!));
        break;
      }
      case "gzip":
        files.set(e.to!, gzipSync(get(e.path)));
        files.delete(e.path);
        break;
      case "symlink":
        links.push([e.path, e.target!]);
        break;
      case "outside":
        outside.set(e.path, payload(e));
        break;
      case "fifo":
        fifos.push(e.path);
        break;
    }
  }
  return { files, links, outside, fifos };
}

/** Writes the sources folder of a case under `root` (`root/sources`, and `root/outside` for links out of it). */
export async function writeCase(root: string, applied: ReturnType<typeof applyEdits>): Promise<string> {
  const sources = join(root, "sources");
  const outsideDir = join(root, "outside");
  await mkdir(sources, { recursive: true });
  await mkdir(outsideDir, { recursive: true });
  for (const [p, body] of applied.files) {
    await mkdir(dirname(join(sources, p)), { recursive: true });
    await writeFile(join(sources, p), body);
  }
  for (const [p, body] of applied.outside) {
    await mkdir(dirname(join(outsideDir, p)), { recursive: true });
    await writeFile(join(outsideDir, p), body);
  }
  for (const p of applied.fifos) {
    await mkdir(dirname(join(sources, p)), { recursive: true });
    execFileSync("mkfifo", [join(sources, p)]);
  }
  for (const [p, target] of applied.links) {
    await mkdir(dirname(join(sources, p)), { recursive: true });
    await symlink(target.replace("$OUTSIDE", outsideDir), join(sources, p));
  }
  return sources;
}
