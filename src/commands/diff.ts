import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { parse } from "csv-parse/sync";
import { unescapeCsvText } from "../writers/manifest.js";
import { InputError } from "../diagnostics.js";
import { ROW_KEYS } from "../schema.js";
import { cmpStr } from "../resolve/resolve-cell.js";
import { loadCells } from "../sources/cells.js";
import { parsePublishedName, readHubSnapshot } from "../extractors/hub-files.js";
import { Diagnostics } from "../diagnostics.js";

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
}

const ID_RE = /^([^/]+)\/(.+?)\.h(\d{3,}|NA)\.(.+)\.(\d+)$/;

function keyOfId(id: string, cells: string[] | null): string {
  const [owner, name] = id.split("/");
  if (cells && owner && name) {
    const p = parsePublishedName(name, cells);
    if (p) return `${p.cell}/${p.family}/${p.step}`;
  }
  const m = ID_RE.exec(id);
  return m ? `${m[2]}/${m[4]}/${m[5]}` : id;
}

function keyOfRecord(r: Record<string, unknown>): string {
  if (r.family !== undefined && r.family !== null && r.step !== undefined && r.step !== null && r.step !== "") {
    return `${String(r.cell)}/${String(r.family)}/${String(r.step)}`;
  }
  return keyOfId(String(r.model_id), null);
}

function add(side: Side, key: string, rec: Record<string, unknown>): void {
  side.set(key, [...(side.get(key) ?? []), rec]);
}

/**
 * Loads one side of a diff: a `manifest.json`, a `manifest.csv` (values as
 * the CSV writes them, compared as text), a `model-ids.txt`, an output folder
 * holding `manifest.json`, or a sources folder (its Hub snapshot's published
 * ids and the baseline).
 *
 * @throws InputError `DIFF_INPUT` for a path that is none of these.
 */
export async function loadSide(path: string): Promise<Side> {
  const side: Side = new Map();
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new InputError("DIFF_INPUT", `no such file or folder: ${path}`, path);
  }
  if (info.isDirectory()) {
    if ((await stat(join(path, "cells.json")).catch(() => null))?.isFile()) {
      const registry = await loadCells(path);
      const cells = registry.cells.map((c) => c.cell);
      for (const repo of await readHubSnapshot(path, new Diagnostics())) {
        if (repo.owner === registry.org && parsePublishedName(repo.name, cells)) add(side, keyOfId(repo.id, cells), { model_id: repo.id });
        else if (repo.id === registry.baseline) add(side, repo.id, { model_id: repo.id });
      }
      return side;
    }
    return loadSide(join(path, "manifest.json"));
  }
  const text = await readFile(path, "utf8");
  if (path.endsWith(".json")) {
    let rows: unknown;
    try {
      rows = JSON.parse(text);
    } catch (err) {
      throw new InputError("DIFF_INPUT", `not JSON: ${(err as Error).message}`, path);
    }
    if (!Array.isArray(rows)) throw new InputError("DIFF_INPUT", "a manifest.json is a JSON array of rows", path);
    for (const r of rows as Record<string, unknown>[]) add(side, keyOfRecord(r), r);
  } else if (path.endsWith(".csv")) {
    for (const r of parse(text, { columns: true }) as Record<string, string>[]) {
      const rec = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, unescapeCsvText(v)])); // undo the formula escape
      add(side, keyOfRecord(rec), rec);
    }
  } else {
    for (const id of text.split("\n").map((l) => l.trim()).filter(Boolean)) add(side, keyOfId(id, null), { model_id: id });
  }
  return side;
}

/**
 * Compares two manifests (issue: diff): rows added and removed (by
 * checkpoint), fields changed, and the rename plan a rebuild implies (every
 * old id whose checkpoint now has another id). Every list is sorted.
 */
export function diffSides(oldSide: Side, newSide: Side, oldName: string, newName: string): ManifestDiff {
  const keys = [...new Set([...oldSide.keys(), ...newSide.keys()])].sort(cmpStr);
  const out: ManifestDiff = { old: oldName, new: newName, added: [], removed: [], changed: [], renames: [] };
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
      if (before.model_id !== now.model_id) out.renames.push({ from: String(before.model_id), to: String(now.model_id) });
    }
  }
  out.added.sort(cmpStr);
  out.removed.sort(cmpStr);
  out.renames.sort((a, b) => cmpStr(a.from, b.from));
  return out;
}

/** Renders a diff as text. */
export function renderDiff(d: ManifestDiff): string {
  const out = [`diff ${d.old} → ${d.new}`, `added (${d.added.length}):`, ...d.added.map((id) => `  + ${id}`)];
  out.push(`removed (${d.removed.length}):`, ...d.removed.map((id) => `  - ${id}`));
  out.push(`changed (${d.changed.length}):`);
  for (const c of d.changed) {
    out.push(`  ~ ${c.key} (${c.model_id})`);
    for (const [k, v] of Object.entries(c.fields)) out.push(`      ${k}: ${JSON.stringify(v.old)} → ${JSON.stringify(v.new)}`);
  }
  out.push(`renames (${d.renames.length}):`, ...d.renames.map((r) => `  ${r.from} → ${r.to}`));
  return `${out.join("\n")}\n`;
}

/** Registers `ptb-manifest diff`. */
export function registerDiff(program: Command): void {
  program
    .command("diff")
    .description("Compare two manifests: rows added, removed, changed field by field, and the rename plan (old id → new id).")
    .argument("<old>", "manifest.json, manifest.csv, model-ids.txt, an output folder, or a sources folder (its Hub snapshot's published ids)")
    .argument("<new>", "the same kinds as <old>")
    .option("--json", "print the diff as one JSON object", false)
    .action(async (oldPath: string, newPath: string, o: { json: boolean }) => {
      const d = diffSides(await loadSide(resolve(oldPath)), await loadSide(resolve(newPath)), oldPath, newPath);
      process.stdout.write(o.json ? `${JSON.stringify(d, null, 2)}\n` : renderDiff(d));
    });
}
