/**
 * Which files of an output folder this tool wrote (DESIGN.md: Trust: "An
 * output folder only ever has files replaced that this tool wrote there").
 *
 * Every write of outputs ({@link writeFilesAtomically}, and `snapshot-hub`'s
 * folder) also writes the marker file {@link OUT_MARKER} into the folder,
 * atomically with the outputs and renamed last:
 *
 * ```json
 * {
 *   "tool": "ptb-manifest",
 *   "about": "...",
 *   "files": { "README.md": "<sha256 hex>", "manifest.json": "<sha256 hex>", ... }
 * }
 * ```
 *
 * `files` lists every file this tool wrote into the folder (paths relative
 * to it, `/`-separated, sorted), with the sha256 of the bytes written. An
 * existing file at an output name is replaced only when it is ours:
 *
 * - recorded in the marker and its bytes still have the recorded sha256 (a
 *   file edited since is the user's, not ours any more), or its bytes are
 *   exactly the ones about to be written (replacing it changes nothing);
 * - not recorded, but written by a version of this tool from before the
 *   marker, recognised by its content: in a folder whose
 *   `build-report.json` says `"tool": "ptb-manifest"`, the build's output
 *   names (`README.md` only when it is the generated index card, with its
 *   `configs:` front matter for `manifest.csv`), and a `cost.html` with the
 *   title the `cost` command gives it.
 *
 * Anything else (a user's `README.md`, a symbolic link, a marker not written
 * by this tool) is foreign: the write stops with `OUT_FOREIGN_FILE` naming
 * it, before anything is written, unless `--force`.
 */
import { createHash } from "node:crypto";
import { createReadStream, type Stats } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { InputError } from "../diagnostics.js";

/** The marker file, in every folder the tool writes outputs into. */
export const OUT_MARKER = ".ptb-manifest-outputs.json";

/** The files a build writes (a folder written before the marker existed is recognised by them). */
export const BUILD_NAMES: ReadonlySet<string> = new Set([
  "manifest.json", "manifest.csv", "model-ids.txt", "provenance.jsonl", "build-report.json", "report.html", "README.md", "datapackage.json", "manifest.schema.json",
]);

/** What the marker of a folder says. */
export interface Ownership {
  /** Relative path → sha256 of the files recorded; empty without a marker. */
  recorded: Map<string, string>;
  /** True when a marker exists and this tool wrote it. */
  marker: boolean;
  /** True when a file is at the marker's name that this tool did not write (not JSON, another shape, a link). */
  markerForeign: boolean;
  /** True when the folder's `build-report.json` is a ptb-manifest build report (a build wrote there, maybe before the marker). */
  ptbReport: boolean;
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
 * Reads the marker of `dir` and whether a ptb-manifest build report is
 * there. Never throws: an unreadable or malformed marker is `markerForeign`.
 */
export async function readOwnership(dir: string): Promise<Ownership> {
  const own: Ownership = { recorded: new Map(), marker: false, markerForeign: false, ptbReport: false };
  const markerPath = join(dir, OUT_MARKER);
  const s = await lstatOrNull(markerPath);
  if (s) {
    try {
      if (!s.isFile()) throw new Error("not a file");
      const parsed = JSON.parse(await readFile(markerPath, "utf8")) as { tool?: unknown; files?: unknown };
      if (parsed.tool !== "ptb-manifest" || !parsed.files || typeof parsed.files !== "object" || Array.isArray(parsed.files)) throw new Error("not a marker");
      for (const [name, hash] of Object.entries(parsed.files as Record<string, unknown>)) {
        if (typeof hash === "string" && /^[0-9a-f]{64}$/.test(hash)) own.recorded.set(name, hash);
      }
      own.marker = true;
    } catch {
      own.markerForeign = true;
    }
  }
  try {
    const report = JSON.parse(await readFile(join(dir, "build-report.json"), "utf8")) as { tool?: unknown };
    own.ptbReport = report !== null && typeof report === "object" && report.tool === "ptb-manifest";
  } catch {
    own.ptbReport = false;
  }
  return own;
}

/**
 * True when `text` (an existing file's content at `name`) is recognisably
 * what a version of this tool from before the marker wrote there.
 */
function legacyOurs(name: string, own: Ownership, text: () => Promise<string>): Promise<boolean> | boolean {
  if (name === "cost.html") return text().then((t) => t.includes("<title>AgentPTB: cost per point of gain</title>"));
  if (!BUILD_NAMES.has(name) || !own.ptbReport) return false;
  if (name !== "README.md") return true;
  return text().then((t) => t.startsWith("---\n") && /\nconfigs:\n +- config_name: default\n/.test(t) && /\n +path: manifest\.csv\n/.test(t));
}

/**
 * The existing files among `files` (relative path → content about to be
 * written) in `dir` that this tool did not write, each with the reason, in
 * the order given; the marker itself when it is foreign. See the module
 * comment for the rule.
 *
 * A content of `null` (not known yet: the early check of `build`, before
 * anything is computed) checks only what needs no content: a recorded file
 * is left to the check at write time, an unrecorded one that is not
 * recognised is foreign.
 */
export async function foreignFiles(dir: string, files: Map<string, string | Buffer | null>, own: Ownership): Promise<string[]> {
  const foreign: string[] = [];
  if (own.markerForeign) foreign.push(`${OUT_MARKER} (not a marker ptb-manifest wrote)`);
  for (const [name, content] of files) {
    if (name === OUT_MARKER) continue;
    const path = join(dir, name);
    const s = await lstatOrNull(path);
    if (!s || (!s.isFile() && !s.isSymbolicLink())) continue; // a folder or a device there is checkOutFile's OUT_NOT_A_FILE
    if (!s.isFile()) {
      foreign.push(`${name} (a symbolic link)`);
      continue;
    }
    const recorded = own.recorded.get(name);
    if (recorded !== undefined) {
      if (content === null) continue;
      const now = await fileSha256(path);
      if (now !== recorded && now !== sha256Of(content)) foreign.push(`${name} (changed since ptb-manifest wrote it)`);
      continue;
    }
    if (await legacyOurs(name, own, () => readFile(path, "utf8"))) continue;
    if (content !== null && (await fileSha256(path)) === sha256Of(content)) continue;
    foreign.push(`${name} (not written by ptb-manifest)`);
  }
  return foreign;
}

/**
 * The `OUT_FOREIGN_FILE` error for `foreign` (as {@link foreignFiles}
 * gives them) in the folder `dir` named by `option`: the first few named, the
 * rest counted.
 */
export function foreignFileError(dir: string, foreign: string[], option = "--out"): InputError {
  const shown = foreign.slice(0, 5).join(", ");
  const more = foreign.length > 5 ? ` and ${foreign.length - 5} more` : "";
  const first = foreign[0]!.replace(/ \(.*$/, "");
  return new InputError(
    "OUT_FOREIGN_FILE",
    `${option} ${dir} holds ${foreign.length === 1 ? "a file" : `${foreign.length} files`} that an output would replace but ptb-manifest did not write there: ${shown}${more}; nothing written (use another folder, move ${foreign.length === 1 ? "it" : "them"} away, or pass --force to replace ${foreign.length === 1 ? "it" : "them"})`,
    join(dir, first),
  );
}

/**
 * The marker's text after writing `files` into `dir`: the entries of
 * `own` whose file still exists and is not rewritten now, plus a sha256 for
 * every file written. Keys sorted; deterministic.
 */
export async function markerText(dir: string, files: Map<string, string | Buffer>, own: Ownership): Promise<string> {
  const entries = new Map<string, string>();
  for (const [name, hash] of own.recorded) {
    if (files.has(name) || name === OUT_MARKER) continue;
    if ((await lstatOrNull(join(dir, name)))?.isFile()) entries.set(name, hash);
  }
  for (const [name, content] of files) if (name !== OUT_MARKER) entries.set(name, sha256Of(content));
  return markerOf(entries);
}

/** The marker's text for `entries` (relative path → sha256). */
export function markerOf(entries: Map<string, string>): string {
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${JSON.stringify(
    {
      tool: "ptb-manifest",
      about: "the files ptb-manifest wrote into this folder, with their sha256: it replaces no other file here (README: Safety)",
      files: Object.fromEntries(sorted),
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
 * --out`), holds only files this tool wrote: absent or empty (folders
 * only), or every file in it recorded in its marker with the recorded
 * sha256; without a marker (a folder written before the marker existed),
 * every file must fit `legacy` (the layout the command writes).
 *
 * @throws InputError `OUT_FOREIGN_FILE` naming the other files, unless `force`.
 */
export async function checkFolderOwned(dir: string, opts: { force?: boolean; option?: string; legacy: (rel: string) => boolean }): Promise<void> {
  if (opts.force) return;
  const s = await lstatOrNull(dir);
  if (!s?.isDirectory()) return;
  const own = await readOwnership(dir);
  const foreign: string[] = own.markerForeign ? [`${OUT_MARKER} (not a marker ptb-manifest wrote)`] : [];
  for (const { rel, stats } of await walk(dir)) {
    if (rel === OUT_MARKER) continue;
    if (!stats.isFile()) {
      foreign.push(`${rel} (${stats.isSymbolicLink() ? "a symbolic link" : "not a regular file"})`);
      continue;
    }
    const recorded = own.recorded.get(rel);
    if (own.marker) {
      if (recorded === undefined) foreign.push(`${rel} (not written by ptb-manifest)`);
      else if ((await fileSha256(join(dir, rel))) !== recorded) foreign.push(`${rel} (changed since ptb-manifest wrote it)`);
    } else if (!opts.legacy(rel)) foreign.push(`${rel} (not written by ptb-manifest)`);
  }
  if (foreign.length > 0) throw foreignFileError(dir, foreign, opts.option);
}

/** The marker's text for every file now under `dir` (a folder just written whole). */
export async function markerOfFolder(dir: string): Promise<string> {
  const entries = new Map<string, string>();
  for (const { rel, stats } of await walk(dir)) if (stats.isFile() && rel !== OUT_MARKER) entries.set(rel, await fileSha256(join(dir, rel)));
  return markerOf(entries);
}
