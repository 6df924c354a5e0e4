import { readFile, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ROW_KEYS } from "../schema.js";
import { cmpStr } from "../util/values.js";
import { loadCells } from "../sources/cells.js";
import { earlierFamilyNames, familyOfName } from "../resolve/family-names.js";
import { parsePublishedName, readHubSnapshot } from "../extractors/hub-files.js";
import { fsErrorCode, fsReason, isAbsent } from "../util/fs-errors.js";
import { Diagnostics, type Warning, warningLine } from "../diagnostics.js";
import { orderRenames } from "../resolve/rename-plan.js";
import { bad, checkRows, csvRows, hubIdProblem, jsonRows, manifestText, shown } from "../manifest/read.js";
import { checkpointKeyOfId } from "../manifest/model-id.js";

/** One side of a diff: records keyed by checkpoint (`cell/family/step`, or the id for the baseline). */
type Side = Map<string, Record<string, unknown>[]>;

/** The diff of two manifests, as `--json` prints it. */
export interface ManifestDiff {
  old: string;
  new: string;
  added: string[];
  removed: string[];
  changed: { key: string; model_id: string; fields: Record<string, { old: unknown; new: unknown }> }[];
  renames: { from: string; to: string }[];
  /** Renames the plan cannot make: the target is an id the old side already holds (a second repo of one checkpoint), or a cycle. */
  conflicts: { from: string; to: string; reason: string }[];
}

function add(side: Side, key: string, rec: Record<string, unknown>): void {
  side.set(key, [...(side.get(key) ?? []), rec]);
}

/** The ids of a `model-ids.txt`: one `owner/name` Hub id a line, none twice (blank lines skipped). */
function idLines(side: Side, file: string, text: string): void {
  const seen = new Map<string, number>();
  text.split("\n").forEach((raw, i) => {
    const id = raw.replace(/\r$/, "").trim();
    if (id === "") return;
    const problem = hubIdProblem(id);
    if (problem)
      throw bad(file, `${shown(id)} ${problem}: a model-ids.txt holds one Hub model id (owner/name) a line`, i + 1);
    if (seen.has(id))
      throw bad(file, `${id} is also on line ${seen.get(id)}: a model-ids.txt holds each id once`, i + 1);
    seen.set(id, i + 1);
    add(side, checkpointKeyOfId(id, null), { model_id: id });
  });
}

/**
 * Loads one side of a diff: a `manifest.json` (rows checked with the row
 * schema), a `manifest.csv` (values typed back by the row schema and the
 * formula escape undone, so the CSV and the JSON of one build compare
 * equal), a `model-ids.txt` (one `owner/name` Hub id a line), an output
 * folder holding `manifest.json`, or a sources folder (its Hub snapshot's
 * published ids and the baseline).
 *
 * @param path the path as given; errors name it.
 * @throws InputError `DIFF_INPUT` naming the file and the row's line for a
 *   path that is none of these: missing, not a regular file (`/dev/null`, a
 *   FIFO), empty, not JSON or CSV, a row that is not a manifest row (e.g. a
 *   null `model_id`, an `hour` that is text), a line that is not a Hub id
 *   (e.g. a `provenance.jsonl`), an id or a checkpoint twice.
 */
export async function loadSide(path: string, warn: WarningSink = toStderr): Promise<Side> {
  const side: Side = new Map();
  let info: import("node:fs").Stats;
  try {
    info = await stat(path);
  } catch (err) {
    const code = fsErrorCode(err);
    throw bad(
      path,
      code === null || isAbsent(err) ? `no such file or folder: ${path}` : `cannot read ${path}: ${fsReason(err)}`,
    );
  }
  if (info.isDirectory()) {
    if ((await stat(join(path, "cells.json")).catch(() => null))?.isFile()) {
      const registry = await loadCells(path);
      const cells = registry.cells.map((c) => c.cell);
      const diag = new Diagnostics();
      const repos = await readHubSnapshot(path, diag);
      // What the build would warn about in this Hub snapshot, the diff says too (a bad .hub.json is a repo left out).
      for (const w of diag.warnings)
        warn({ code: w.code, file: w.file === null ? path : join(path, w.file), line: w.line, message: w.message });
      for (const repo of repos) {
        const p = repo.owner === registry.org ? parsePublishedName(repo.name, cells) : null;
        // A repo named with a directory's earlier name is that family's (family_aliases): a rename, not a removal.
        if (p)
          add(side, `${p.cell}/${familyOfName(registry.cells.find((c) => c.cell === p.cell)!, p.family)}/${p.step}`, {
            model_id: repo.id,
          });
        else if (repo.id === registry.baseline) add(side, repo.id, { model_id: repo.id });
      }
      return side;
    }
    if (!(await stat(join(path, "manifest.json")).catch(() => null))) {
      throw bad(
        path,
        `a folder that is neither a sources folder (cells.json) nor a build's output folder (manifest.json)`,
      );
    }
    return loadSide(join(path, "manifest.json"), warn);
  }
  const text = await manifestText(path, info);
  if (path.endsWith(".json") || path.endsWith(".csv")) {
    for (const { row, key } of checkRows(path, path.endsWith(".json") ? jsonRows(path, text) : csvRows(path, text)))
      add(side, key, row);
  } else idLines(side, path, text);
  return side;
}

/** Where a reader's warnings go: the command's stderr, in the CLI's form (`ptb-manifest: warning CODE at FILE[:LINE]: message`). */
export type WarningSink = (w: Warning) => void;

/** The default {@link WarningSink} of a library caller: `process.stderr`, as the CLI prints them. */
const toStderr: WarningSink = (w) => void process.stderr.write(warningLine(w));

/**
 * The records of the build's `provenance.jsonl`. When `outDir` holds a build
 * (a `build-report.json`) whose provenance is missing, unreadable or has bad
 * lines, a `PROVENANCE_UNREADABLE` warning says so on stderr: the ids under a
 * family's earlier name (family_aliases) can then not be paired with their
 * rows, which would read as removals and additions.
 */
async function provenanceRecords(outDir: string, warn: WarningSink = toStderr): Promise<unknown[]> {
  const isBuild = (await stat(join(outDir, "build-report.json")).catch(() => null))?.isFile() ?? false;
  const file = join(outDir, "provenance.jsonl");
  const cannot = "ids published under a family's earlier name (family_aliases) cannot be paired with their rows";
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if (isBuild)
      warn({
        code: "PROVENANCE_UNREADABLE",
        file,
        line: null,
        message: `${fsErrorCode(err) === "ENOENT" ? "missing" : `cannot be read: ${fsReason(err)}`}; ${cannot}`,
      });
    return [];
  }
  let bad = 0;
  let first: number | null = null;
  const records = text.split("\n").flatMap((line, i) => {
    try {
      return line.trim() === "" ? [] : [JSON.parse(line) as unknown];
    } catch {
      bad += 1;
      first ??= i + 1;
      return [];
    }
  });
  if (bad > 0 && isBuild)
    warn({
      code: "PROVENANCE_UNREADABLE",
      file,
      line: first,
      message: `${bad} line(s) are not JSON; ${cannot} where they are named`,
    });
  return records;
}

/**
 * The `provenance.jsonl` records (MANIFEST.md: provenance) of the build
 * beside `path`: an output folder, or a manifest file in one; none for a
 * sources folder (its Hub ids are keyed through `family_aliases` already)
 * or without a provenance file.
 */
export async function provenanceBeside(path: string, warn: WarningSink = toStderr): Promise<unknown[]> {
  const info = await stat(path).catch(() => null);
  if (!info) return [];
  const dir = info.isDirectory() ? path : dirname(path);
  if ((await stat(join(dir, "cells.json")).catch(() => null))?.isFile()) return [];
  return provenanceRecords(dir, warn);
}

/** The earlier family names the build beside `path` matched ({@link provenanceBeside}, {@link earlierFamilyNames}). */
export async function earlierNamesBeside(path: string, warn: WarningSink = toStderr): Promise<Map<string, string>> {
  return earlierFamilyNames(await provenanceBeside(path, warn));
}

/**
 * Re-keys a side's checkpoints `cell/family/step` whose `cell/family` is an
 * earlier name of a family (`names`, from {@link earlierNamesBeside}), so an
 * id published under a directory's earlier name pairs with its row: a rename.
 */
export function rekeySide(side: Side, names: Map<string, string>): Side {
  if (names.size === 0) return side;
  const out: Side = new Map();
  for (const [key, recs] of side) {
    const m = /^(.*)\/([^/]*)\/(\d+)$/.exec(key);
    const family = m ? names.get(`${m[1]}/${m[2]}`) : undefined;
    const k = m && family !== undefined ? `${m[1]}/${family}/${m[3]}` : key;
    out.set(k, [...(out.get(k) ?? []), ...recs]);
  }
  return out;
}

/**
 * Compares two manifests (issue: diff): rows added and removed (by
 * checkpoint), fields changed, and the rename plan a rebuild implies (every
 * old id whose checkpoint now has another id; one whose target is an id the
 * old side already holds, e.g. a second published repo of the checkpoint, is
 * a conflict instead, as in `publish`'s plan). Every list is sorted.
 */
export function diffSides(oldSide: Side, newSide: Side, oldName: string, newName: string): ManifestDiff {
  const keys = [...new Set([...oldSide.keys(), ...newSide.keys()])].sort(cmpStr);
  const out: ManifestDiff = {
    old: oldName,
    new: newName,
    added: [],
    removed: [],
    changed: [],
    renames: [],
    conflicts: [],
  };
  for (const key of keys) {
    const olds = oldSide.get(key) ?? [];
    const news = newSide.get(key) ?? [];
    const now = news[0];
    if (!now) {
      out.removed.push(...olds.map((o) => String(o.model_id)));
      continue;
    }
    if (olds.length === 0) {
      out.added.push(String(now.model_id));
      continue;
    }
    for (const before of olds) {
      const fields: ManifestDiff["changed"][number]["fields"] = {};
      for (const k of ROW_KEYS) {
        if (!(k in before) || !(k in now)) continue;
        const a = JSON.stringify(before[k]);
        const b = JSON.stringify(now[k]);
        if (a !== b) fields[k] = { old: before[k], new: now[k] };
      }
      if (Object.keys(fields).length > 0) out.changed.push({ key, model_id: String(now.model_id), fields });
      if (before.model_id !== now.model_id)
        out.renames.push({ from: String(before.model_id), to: String(now.model_id) });
    }
  }
  out.added.sort(cmpStr);
  out.removed.sort(cmpStr);
  // A rename never targets an id that exists on the old side (publish's rule): that is a conflict to settle by hand.
  const existing = new Set([...oldSide.values()].flat().map((r) => String(r.model_id)));
  const plan = orderRenames(out.renames, existing);
  out.renames = plan.renames.sort((a, b) => cmpStr(a.from, b.from));
  out.conflicts = plan.conflicts.sort((a, b) => cmpStr(a.from, b.from));
  return out;
}

/** True when the two sides differ: a row added, removed or changed, or a rename. */
export function differs(d: ManifestDiff): boolean {
  return d.added.length + d.removed.length + d.changed.length + d.renames.length + d.conflicts.length > 0;
}

/** Renders a diff as text. */
export function renderDiff(d: ManifestDiff): string {
  const out = [`diff ${d.old} → ${d.new}`, `added (${d.added.length}):`, ...d.added.map((id) => `  + ${id}`)];
  out.push(`removed (${d.removed.length}):`, ...d.removed.map((id) => `  - ${id}`));
  out.push(`changed (${d.changed.length}):`);
  for (const c of d.changed) {
    out.push(`  ~ ${c.key} (${c.model_id})`);
    for (const [k, v] of Object.entries(c.fields))
      out.push(`      ${k}: ${JSON.stringify(v.old)} → ${JSON.stringify(v.new)}`);
  }
  out.push(`renames (${d.renames.length}):`, ...d.renames.map((r) => `  ${r.from} → ${r.to}`));
  if (d.conflicts.length > 0)
    out.push(
      `not renamed (${d.conflicts.length}, to settle by hand):`,
      ...d.conflicts.map((c) => `  ${c.from} → ${c.to}: ${c.reason}`),
    );
  return `${out.join("\n")}\n`;
}
