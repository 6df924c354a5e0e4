/**
 * Existence: which checkpoints get a row (their weights survive on the PVC,
 * in a spare repo or in a published repo) and which are lost (SOURCES.md,
 * last paragraph; MANIFEST.md: Rules).
 */
import type { Cell } from "../schema.js";
import { familyNameProblem } from "../schema.js";
import type { Diagnostics } from "../diagnostics.js";
import { InputError } from "../errors.js";
import { nfc } from "../sources/family-aliases.js";
import { cmpStr } from "../util/values.js";
import type { Candidate } from "./decision.js";
import { byOrigin, isPvc } from "./grouping.js";
import { warnUnknownCheckpoint } from "./roles.js";

/** A checkpoint seen somewhere whose weights survive nowhere (SOURCES.md, last paragraph). */
export interface LostCheckpoint {
  cell: string;
  family: string;
  step: number;
  seen_in: string[];
}

/**
 * Splits the candidates (in family, then step order) into those that get a
 * row and the lost ones.
 *
 * @throws InputError `FAMILY_ALIAS_COLLISION`, `DUPLICATE_CHECKPOINT` (see
 *   {@link checkPvcDirectories}), `FAMILY_INVALID_NAME` (a family id not
 *   valid in a Hub repo name).
 * Warnings: `CHECKPOINT_LOST`, `SUPERVISOR_UNKNOWN_CHECKPOINT` (a role event
 *   naming a lost checkpoint).
 */
export function splitByExistence(
  cell: Cell,
  cands: Iterable<Candidate>,
  diag: Diagnostics,
): { rowsCands: Candidate[]; lost: LostCheckpoint[] } {
  const rowsCands: Candidate[] = [];
  const lost: LostCheckpoint[] = [];
  for (const c of [...cands].sort((a, b) => cmpStr(a.family, b.family) || a.step - b.step)) {
    checkPvcDirectories(cell, c);
    const stable = c.obs.some((o) => o.kind === "pvc_stable");
    const weightsOnPvc = stable && c.obs.some((o) => o.kind === "pvc_weights");
    const survives = weightsOnPvc || c.spares.length > 0 || c.published.length > 0;
    if (!survives) {
      const l = lostCheckpoint(cell, c, diag);
      if (l) lost.push(l);
      continue;
    }
    checkFamilyName(cell, c);
    if (!stable) warnStableMissing(cell, c, diag);
    rowsCands.push(c);
  }
  return { rowsCands, lost };
}

/**
 * Directories on the PVC are checkpoints there now: two holding one family id
 * and step are two checkpoints (a renamed directory's old name only appears in
 * logs and on the Hub).
 *
 * @throws InputError `FAMILY_ALIAS_COLLISION` (two directories with different
 *   names give one family id and both hold the step), `DUPLICATE_CHECKPOINT`
 *   (one directory name at two PVC paths holds the step).
 */
function checkPvcDirectories(cell: Cell, c: Candidate): void {
  if (c.pvcDirs.size <= 1) return;
  const names = new Set([...c.pvcDirs].map((d) => nfc(d.split("/").pop()!)));
  if (names.size > 1) {
    const shown = [...c.pvcDirs]
      .sort(cmpStr)
      .slice(0, 2)
      .map((d) => {
        const o = c.obs.filter((x) => isPvc(x) && x.familyDir === d).sort(byOrigin)[0]!;
        return `${JSON.stringify(d.split("/").pop())} (${o.origin.file}:${o.origin.line})`;
      });
    throw new InputError(
      "FAMILY_ALIAS_COLLISION",
      `cell "${cell.cell}": directories ${shown.join(" and ")} both give family "${c.family}" and both hold step ${c.step}: two training runs would be merged; fix family_aliases`,
      "cells.json",
    );
  }
  throw new InputError(
    "DUPLICATE_CHECKPOINT",
    `cell "${cell.cell}": directories ${[...c.pvcDirs]
      .map((d) => JSON.stringify(d))
      .sort()
      .join(" and ")} both give family "${c.family}" step ${c.step}`,
    `${cell.cell}/pvc`,
  );
}

/**
 * Warns `PVC_STABLE_MISSING` for a checkpoint that gets a row (a spare or
 * published repo holds it) while the PVC lists its weight shards without a
 * `STABLE` (SOURCES.md: pvc/, a step without it was never completed): a
 * STABLE line lost from the listing, or an incomplete write that was
 * archived. Its STABLE mtime, the write time, is unknown.
 */
function warnStableMissing(cell: Cell, c: Candidate, diag: Diagnostics): void {
  const shard = c.obs.filter((o) => o.kind === "pvc_weights").sort(byOrigin)[0];
  if (!shard) return;
  const held = c.published.length > 0 ? "published" : "archived to a spare repo";
  diag.warn(
    "PVC_STABLE_MISSING",
    `${cell.cell} ${c.family} step ${c.step}: the PVC lists its weight shards but no STABLE, yet it was ${held}: a STABLE line missing from the listing? its STABLE mtime (the write time) is unknown: its hour comes from the janitor, else it is unrecoverable`,
    shard.origin.file,
    shard.origin.line,
  );
}

/**
 * The lost checkpoint of a candidate whose weights survive nowhere, or null
 * when no evidence shows a *complete* checkpoint (a janitor `skip`, e.g. "no
 * STABLE yet", a bare directory or weight file do not). Warns
 * `CHECKPOINT_LOST` at its first evidence and `SUPERVISOR_UNKNOWN_CHECKPOINT`
 * for each role event naming it.
 */
function lostCheckpoint(cell: Cell, c: Candidate, diag: Diagnostics): LostCheckpoint | null {
  const seen = [
    ...new Set(
      c.obs.filter((o) => !(o.kind === "janitor_other" && /^skip/.test(String(o.detail.action)))).map((o) => o.kind),
    ),
  ].filter((k) => k !== "pvc_dir" && k !== "pvc_weights");
  let lost: LostCheckpoint | null = null;
  if (seen.length > 0) {
    lost = { cell: cell.cell, family: c.family, step: c.step, seen_in: seen.sort() };
    const first = c.obs.find((o) => (seen as string[]).includes(o.kind));
    const shards = c.obs.some((o) => o.kind === "pvc_weights")
      ? " (its shards on the PVC have no STABLE: never completed, or its STABLE line missing from the listing)"
      : "";
    diag.warn(
      "CHECKPOINT_LOST",
      `${cell.cell} ${c.family} step ${c.step}: seen in ${seen.join(", ")} but its weights survive nowhere${shards} (no row)`,
      first?.origin.file ?? null,
      first?.origin.line ?? null,
    );
  }
  for (const o of c.obs.filter((o) => o.kind === "supervisor_role")) warnUnknownCheckpoint(o, diag);
  return lost;
}

/**
 * @throws InputError `FAMILY_INVALID_NAME` when the family id is not valid in
 *   a Hub repo name, naming the first line that shows the directory (the
 *   listing, else a janitor or supervisor line): add a `family_aliases` entry.
 */
function checkFamilyName(cell: Cell, c: Candidate): void {
  const problem = familyNameProblem(c.family);
  if (!problem) return;
  const first = [...c.obs].filter((o) => o.familyDir !== null).sort(byOrigin)[0];
  const dir = [...c.pvcDirs][0] ?? first?.familyDir ?? c.family;
  throw new InputError(
    "FAMILY_INVALID_NAME",
    `cell "${cell.cell}": family directory ${JSON.stringify(dir)} ${problem}, so it cannot stand in a Hub repo name; map it in cells.json family_aliases`,
    first?.origin.file ?? "cells.json",
    first?.origin.line ?? null,
  );
}
