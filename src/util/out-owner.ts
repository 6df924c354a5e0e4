/**
 * Which files of an output folder this tool wrote, and which command wrote
 * each (DESIGN.md: Trust: "An output folder only ever has files replaced
 * that this tool wrote there").
 *
 * Every write of outputs ({@link writeFilesAtomically}, and `snapshot-hub`'s
 * folder) also writes the marker file {@link OUT_MARKER} into the folder,
 * atomically with the outputs and renamed last:
 *
 * ```json
 * {
 *   "tool": "ptb-manifest",
 *   "about": "...",
 *   "files": { "README.md": { "sha256": "<hex>", "writer": "build" }, "cost.html": { "sha256": "<hex>", "writer": "cost" }, ... }
 * }
 * ```
 *
 * `files` lists every file this tool wrote into the folder (paths relative
 * to it, `/`-separated, sorted), with the sha256 of the bytes written and
 * the {@link Writer} that wrote it. An existing file at an output name is
 * replaced by a writer only when it is its own:
 *
 * - recorded in the marker as written by the same writer, and its bytes
 *   still have the recorded sha256 (a file edited since is the user's) or
 *   are exactly the ones about to be written. A file another writer wrote
 *   is never replaced (`cost --html out/manifest.json` cannot replace the
 *   build's manifest, a build never replaces `cost.html`);
 * - not recorded (no marker, or a marker of an earlier version, which said
 *   only that the tool wrote a file, as a bare sha256): only when its bytes
 *   are exactly the ones about to be written. Nothing is guessed from a
 *   file's content or from a `build-report.json` beside it; a folder that
 *   looks like an earlier version's output folder gets a message saying so:
 *   rerun once with `--force`.
 *
 * Anything else (a user's `README.md`, a symbolic link, a marker not written
 * by this tool) is foreign: the write stops with `OUT_FOREIGN_FILE` naming
 * it, before anything is written, unless `--force`. Separately, an output
 * never replaces a file the same run reads (`OUT_IS_INPUT`, even with
 * `--force`: `out-not-input.ts`).
 */
import { createHash } from "node:crypto";
import { createReadStream, type Stats } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { InputError } from "../errors.js";
import { fsErrorCode, unreadableError } from "./fs-errors.js";
import { linkToNonFile } from "./out-folder.js";

/** The marker file, in every folder the tool writes outputs into. */
export const OUT_MARKER = ".ptb-manifest-outputs.json";

/** The commands that write outputs, as the marker records them. */
export type Writer = "build" | "cost" | "snapshot-hub";
const WRITERS: ReadonlySet<string> = new Set<Writer>(["build", "cost", "snapshot-hub"]);

/** The files a build writes. */
export const BUILD_NAMES: ReadonlySet<string> = new Set([
  "manifest.json",
  "manifest.csv",
  "model-ids.txt",
  "provenance.jsonl",
  "build-report.json",
  "report.html",
  "README.md",
  "datapackage.json",
  "manifest.schema.json",
]);

/** One file the marker records: its sha256 and the writer (null: recorded by an earlier version, which did not say). */
interface Recorded {
  sha256: string;
  writer: Writer | null;
}

/** What the marker of a folder says. */
export interface Ownership {
  /** Relative path → what the marker records of it; empty without a marker. */
  recorded: Map<string, Recorded>;
  /** True when a marker exists and this tool wrote it. */
  marker: boolean;
  /** True when a file is at the marker's name that this tool did not write (not JSON, another shape, a link). */
  markerForeign: boolean;
  /**
   * True when the folder looks like an earlier version's output folder: a
   * marker without writers, or no marker and a `build-report.json` that says
   * `"tool": "ptb-manifest"`. Only chooses the wording of `OUT_FOREIGN_FILE`
   * (and lets `build`'s early check leave unrecorded files to the byte
   * comparison at write time); it makes no file ours.
   */
  earlier: boolean;
}

/** The sha256 of `content`, lower-case hex. */
export function sha256Of(content: string | Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}

/** The sha256 of a file's bytes, streamed. */
async function fileSha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

async function lstatOrNull(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch {
    return null;
  }
}

/**
 * Reads the marker of `dir`, and whether the folder looks like an earlier
 * version's output folder. A malformed marker (not JSON, another shape, not a
 * file) is `markerForeign`.
 *
 * @throws InputError `FILE_ERROR` when the marker exists but cannot be read
 *   (no permission, an I/O error): which files the tool wrote there is then
 *   unknown, which is not the same as "someone else's marker" (that would
 *   point the user to `--force`).
 */
export async function readOwnership(dir: string): Promise<Ownership> {
  const own: Ownership = { recorded: new Map(), marker: false, markerForeign: false, earlier: false };
  const markerPath = join(dir, OUT_MARKER);
  const s = await lstatOrNull(markerPath);
  if (s) {
    try {
      if (!s.isFile()) throw new Error("not a file");
      const parsed = JSON.parse(await readFile(markerPath, "utf8")) as { tool?: unknown; files?: unknown };
      if (
        parsed.tool !== "ptb-manifest" ||
        !parsed.files ||
        typeof parsed.files !== "object" ||
        Array.isArray(parsed.files)
      )
        throw new Error("not a marker");
      for (const [name, entry] of Object.entries(parsed.files as Record<string, unknown>)) {
        const isSha = (x: unknown): x is string => typeof x === "string" && /^[0-9a-f]{64}$/.test(x);
        if (isSha(entry)) {
          own.recorded.set(name, { sha256: entry, writer: null }); // an earlier version's marker: no writer
          own.earlier = true;
        } else if (entry && typeof entry === "object") {
          const e = entry as { sha256?: unknown; writer?: unknown };
          if (isSha(e.sha256))
            own.recorded.set(name, {
              sha256: e.sha256,
              writer: typeof e.writer === "string" && WRITERS.has(e.writer) ? (e.writer as Writer) : null,
            });
        }
      }
      own.marker = true;
    } catch (err) {
      if (fsErrorCode(err) !== null)
        throw unreadableError("FILE_ERROR", markerPath, err, "cannot read the output marker");
      own.markerForeign = true;
    }
  } else {
    try {
      const report = JSON.parse(await readFile(join(dir, "build-report.json"), "utf8")) as { tool?: unknown };
      own.earlier = report !== null && typeof report === "object" && report.tool === "ptb-manifest";
    } catch {
      own.earlier = false;
    }
  }
  return own;
}

/**
 * The existing files among `files` (relative path → content about to be
 * written) in `dir` that `writer` may not replace, each with the reason, in
 * the order given; the marker itself when it is foreign. See the module
 * comment for the rule.
 *
 * A content of `null` (not known yet: the early check of `build`, before
 * anything is computed) checks only what needs no content: a file recorded
 * as the writer's own is left to the check at write time, and so is an
 * unrecorded one in a folder that looks like an earlier version's (its
 * bytes may be the ones about to be written); any other unrecorded file is
 * foreign.
 */
export async function foreignFiles(
  dir: string,
  files: Map<string, string | Buffer | null>,
  own: Ownership,
  writer: Writer,
): Promise<string[]> {
  const foreign: string[] = [];
  if (own.markerForeign) foreign.push(`${OUT_MARKER} (not a marker ptb-manifest wrote)`);
  for (const [name, content] of files) {
    if (name === OUT_MARKER) continue;
    const path = join(dir, name);
    const s = await lstatOrNull(path);
    if (!s || (!s.isFile() && !s.isSymbolicLink())) continue; // a folder or a device there is checkOutFile's OUT_NOT_A_FILE
    if (!s.isFile()) {
      // A link to a device, a pipe or a folder is no file to replace: checkOutFile's OUT_NOT_A_FILE, even with --force.
      if ((await linkToNonFile(path)) === null) foreign.push(`${name} (a symbolic link)`);
      continue;
    }
    const recorded = own.recorded.get(name);
    if (recorded !== undefined && recorded.writer !== null && recorded.writer !== writer) {
      foreign.push(`${name} (written by ptb-manifest ${recorded.writer}, not by ${writer})`);
      continue;
    }
    if (content === null) {
      if (recorded === undefined && !own.earlier) foreign.push(`${name} (not written by ptb-manifest)`);
      continue;
    }
    const now = await fileSha256(path);
    if (now === sha256Of(content)) continue; // replacing it changes nothing
    if (recorded?.writer === writer) {
      if (now !== recorded.sha256) foreign.push(`${name} (changed since ptb-manifest wrote it)`);
      continue;
    }
    foreign.push(
      recorded !== undefined
        ? `${name} (recorded by an earlier ptb-manifest, which did not say which command wrote it)`
        : `${name} (not written by ptb-manifest)`,
    );
  }
  return foreign;
}

/**
 * The `OUT_FOREIGN_FILE` error for `foreign` (as {@link foreignFiles}
 * gives them) in the folder `dir` named by `option`: the first few named, the
 * rest counted. When `earlier` (the folder looks like an earlier version's
 * output folder, which recorded no writer), the message says so and tells
 * to rerun once with `--force` if the files are that version's outputs.
 */
export function foreignFileError(dir: string, foreign: string[], option = "--out", earlier = false): InputError {
  const shown = foreign.slice(0, 5).join(", ");
  const more = foreign.length > 5 ? ` and ${foreign.length - 5} more` : "";
  const first = foreign[0]!.replace(/ \(.*$/, "");
  const it = foreign.length === 1 ? "it" : "them";
  const hint = earlier
    ? `; ${dir} looks like the output folder of an earlier ptb-manifest version, which did not record which command wrote its files: if ${foreign.length === 1 ? "it is that version's output" : "they are that version's outputs"}, rerun once with --force (then they are recorded), else use another folder or move ${it} away`
    : ` (use another folder, move ${it} away, or pass --force to replace ${it})`;
  return new InputError(
    "OUT_FOREIGN_FILE",
    `${option} ${dir} holds ${foreign.length === 1 ? "a file" : `${foreign.length} files`} that an output would replace but ptb-manifest did not write there: ${shown}${more}; nothing written${hint}`,
    join(dir, first),
  );
}

/**
 * The marker's text after `writer` writes `files` into `dir`: the entries of
 * `own` whose file still exists and is not rewritten now (each with its
 * writer), plus a sha256 for every file written, recorded as `writer`'s.
 * Keys sorted; deterministic.
 */
export async function markerText(
  dir: string,
  files: Map<string, string | Buffer>,
  own: Ownership,
  writer: Writer,
): Promise<string> {
  const entries = new Map<string, Recorded>();
  for (const [name, rec] of own.recorded) {
    if (files.has(name) || name === OUT_MARKER) continue;
    if ((await lstatOrNull(join(dir, name)))?.isFile()) entries.set(name, rec);
  }
  for (const [name, content] of files)
    if (name !== OUT_MARKER) entries.set(name, { sha256: sha256Of(content), writer });
  return markerOf(entries);
}

/** The marker's text for `entries` (relative path → sha256 and writer). */
function markerOf(entries: Map<string, Recorded>): string {
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${JSON.stringify(
    {
      tool: "ptb-manifest",
      about:
        "the files ptb-manifest wrote into this folder, with their sha256 and the command that wrote each: a command replaces only its own files here (README: Safety)",
      files: Object.fromEntries(sorted.map(([name, rec]) => [name, { sha256: rec.sha256, writer: rec.writer }])),
    },
    null,
    2,
  )}\n`;
}

/** Every non-folder entry under `dir`, as relative `/`-separated paths, with its lstat. */
async function walk(dir: string, rel = ""): Promise<{ rel: string; stats: Stats }[]> {
  const out: { rel: string; stats: Stats }[] = [];
  for (const e of await readdir(join(dir, rel))) {
    const r = rel ? `${rel}/${e}` : e;
    const s = await lstat(join(dir, r));
    if (s.isDirectory()) out.push(...(await walk(dir, r)));
    else out.push({ rel: r, stats: s });
  }
  return out;
}

/**
 * Checks that the folder `dir`, about to be replaced whole (`snapshot-hub
 * --out`), holds only files `opts.writer` wrote: absent or empty (folders
 * only), or every file in it recorded in its marker as that writer's, with
 * the recorded sha256. A folder without a marker (or whose marker records
 * no writers: an earlier version's) is foreign whatever it holds; when all
 * its files fit `opts.earlier` (the layout the command writes) the message
 * says it looks like an earlier version's output and to rerun once with
 * `--force`.
 *
 * @throws InputError `OUT_FOREIGN_FILE` naming the other files, unless `force`.
 */
export async function checkFolderOwned(
  dir: string,
  opts: { force?: boolean; option?: string; writer: Writer; earlier: (rel: string) => boolean },
): Promise<void> {
  if (opts.force) return;
  const s = await lstatOrNull(dir);
  if (!s?.isDirectory()) return;
  const own = await readOwnership(dir);
  const foreign: string[] = own.markerForeign ? [`${OUT_MARKER} (not a marker ptb-manifest wrote)`] : [];
  let layout = true; // every file fits the command's layout
  for (const { rel, stats } of await walk(dir)) {
    if (rel === OUT_MARKER) continue;
    if (!stats.isFile()) {
      foreign.push(`${rel} (${stats.isSymbolicLink() ? "a symbolic link" : "not a regular file"})`);
      layout = false;
      continue;
    }
    if (!opts.earlier(rel)) layout = false;
    const recorded = own.recorded.get(rel);
    if (recorded === undefined) foreign.push(`${rel} (not written by ptb-manifest)`);
    else if (recorded.writer === null)
      foreign.push(`${rel} (recorded by an earlier ptb-manifest, which did not say which command wrote it)`);
    else if (recorded.writer !== opts.writer)
      foreign.push(`${rel} (written by ptb-manifest ${recorded.writer}, not by ${opts.writer})`);
    else if ((await fileSha256(join(dir, rel))) !== recorded.sha256)
      foreign.push(`${rel} (changed since ptb-manifest wrote it)`);
  }
  const earlier = !own.markerForeign && layout && (!own.marker || own.earlier);
  if (foreign.length > 0) throw foreignFileError(dir, foreign, opts.option, earlier);
}

/** The marker's text for every file now under `dir` (a folder just written whole by `writer`). */
export async function markerOfFolder(dir: string, writer: Writer): Promise<string> {
  const entries = new Map<string, Recorded>();
  for (const { rel, stats } of await walk(dir))
    if (stats.isFile() && rel !== OUT_MARKER) entries.set(rel, { sha256: await fileSha256(join(dir, rel)), writer });
  return markerOf(entries);
}
