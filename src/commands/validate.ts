import { resolve } from "node:path";
import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { buildManifest, type BuildResult } from "../build.js";
import { ExitCodeError } from "../cli.js";
import { DEFAULT_TOLERANCE_H, predictHour } from "../resolve/cadence.js";
import { cmpStr, type RowEvidence } from "../resolve/resolve-cell.js";
import { round2 } from "../resolve/clock.js";

/** The validation report, as `--json` prints it. */
export interface ValidationReport {
  tolerance_h: number;
  ok: boolean;
  families: {
    cell: string;
    family: string;
    points: number;
    fit: null | {
      slope_min_per_step: number;
      used: number[];
      outliers: number[];
      loo_max_h: number | null;
      loo_p95_h: number | null;
      validated: boolean;
      reason: string;
    };
  }[];
  anchors: { cell: string; family: string; step: number; anchor_hour: number; row_hour: number | null; hour_source: string | null; residual_h: number | null; miss: boolean; file: string; line: number | null }[];
  conflicts: { model_id: string; hour: number; kind: string; evidence_hour: number; diff_h: number; file: string; line: number | null }[];
  step_order: { cell: string; family: string; lower_step: number; lower_hour: number; higher_step: number; higher_hour: number }[];
}

/**
 * Checks a build against its independent evidence (issue: validate): the
 * cadence fit of every family, the residual of every anchor against its
 * row's hour, every time evidence of a row that disagrees with the chosen
 * hour by more than `toleranceH` (a janitor v1 action time only when it is
 * earlier than the hour, since the janitor acts after the write; rejected copy-backs, retries and directory
 * mtimes are not evidence), and every pair of exactly timed checkpoints of a
 * family whose hours contradict their step order.
 */
export function validateBuild(result: BuildResult, toleranceH = DEFAULT_TOLERANCE_H): ValidationReport {
  const families: ValidationReport["families"] = [];
  for (const [cell, fits] of Object.entries(result.fits)) {
    for (const [family, fit] of Object.entries(fits).sort((a, b) => cmpStr(a[0], b[0]))) {
      const points = result.rows.filter((r) => r.cell === cell && r.family === family && (r.hour_source === "mtime" || r.hour_source === "janitor")).length;
      families.push({
        cell, family, points,
        fit: fit && {
          slope_min_per_step: Math.round(fit.slopeHPerStep * 60 * 1e4) / 1e4,
          used: fit.used, outliers: fit.outliers,
          loo_max_h: Number.isFinite(fit.looMaxH) ? round2(fit.looMaxH) : null,
          loo_p95_h: Number.isFinite(fit.looP95H) ? round2(fit.looP95H) : null,
          validated: fit.validated, reason: fit.reason,
        },
      });
    }
  }
  const anchors: ValidationReport["anchors"] = [];
  const conflicts: ValidationReport["conflicts"] = [];
  result.rows.forEach((row, i) => {
    const p = result.provenance[i] as RowEvidence;
    if (!("evidence" in p)) return;
    for (const e of p.evidence) {
      if (e.budgetHour === null || e.rejected === "copy_back" || e.rejected === "retry" || e.rejected === "directory_mtime" || e.rejected === "outside_run" || e.rejected === "before_run_start") continue;
      if (e.kind === "anchor") {
        // A row left without an hour (its fit failed, perhaps because of this very anchor) is checked
        // against the family's fitted line, so a bad anchor cannot hide by making its row unrecoverable.
        const fit = row.hour === null ? result.fits[row.cell]?.[row.family!] : null;
        const against = row.hour ?? (fit ? predictHour(fit, row.step!) : null);
        const residual = against === null ? null : round2(against - e.budgetHour);
        anchors.push({
          cell: row.cell, family: row.family!, step: row.step!, anchor_hour: e.budgetHour, row_hour: row.hour, hour_source: row.hour_source,
          residual_h: residual, miss: residual !== null && Math.abs(residual) > toleranceH, file: e.file, line: e.line,
        });
      } else if ((e.kind === "pvc_stable" || e.kind === "janitor_archive") && !e.used && row.hour !== null) {
        const diff = round2(e.budgetHour - row.hour);
        // A janitor v1 time is an action after the write: only an earlier one contradicts.
        const contradicts = e.timeIs === "after_write" ? diff < -toleranceH : Math.abs(diff) > toleranceH;
        if (contradicts) conflicts.push({ model_id: row.model_id, hour: row.hour, kind: e.kind, evidence_hour: e.budgetHour, diff_h: diff, file: e.file, line: e.line });
      }
    }
  });
  const stepOrder: ValidationReport["step_order"] = [];
  const exact = result.rows.filter((r) => r.hour !== null && (r.hour_source === "mtime" || r.hour_source === "janitor"));
  const byFamily = new Map<string, typeof exact>();
  for (const r of exact) byFamily.set(`${r.cell}\u0000${r.family}`, [...(byFamily.get(`${r.cell}\u0000${r.family}`) ?? []), r]);
  for (const members of byFamily.values()) {
    const sorted = [...members].sort((a, b) => a.step! - b.step!);
    let latest = sorted[0]!;
    for (const r of sorted.slice(1)) {
      if (r.hour! < latest.hour!) {
        stepOrder.push({ cell: r.cell, family: r.family!, lower_step: latest.step!, lower_hour: latest.hour!, higher_step: r.step!, higher_hour: r.hour! });
      }
      if (r.hour! > latest.hour!) latest = r;
    }
  }
  const ok = !anchors.some((a) => a.miss) && conflicts.length === 0 && stepOrder.length === 0;
  return { tolerance_h: toleranceH, ok, families, anchors, conflicts, step_order: stepOrder };
}

/** Renders a validation report as text. */
export function renderValidation(v: ValidationReport): string {
  const out: string[] = [`Cadence fits (tolerance ${v.tolerance_h} h):`];
  for (const f of v.families) {
    out.push(
      f.fit
        ? `  ${f.cell}/${f.family}: ${f.fit.slope_min_per_step} min/step on ${f.fit.used.length} points (outliers: ${f.fit.outliers.join(", ") || "none"}), LOO max ${f.fit.loo_max_h} h p95 ${f.fit.loo_p95_h} h: ${f.fit.validated ? "validated" : "not validated"} (${f.fit.reason})`
        : `  ${f.cell}/${f.family}: ${f.points} exact points, no fit`,
    );
  }
  out.push("", `Anchors (${v.anchors.length}):`);
  for (const a of v.anchors) {
    out.push(`  ${a.miss ? "MISS" : "ok  "} ${a.cell}/${a.family}/${a.step}: anchor h ${a.anchor_hour}, row h ${a.row_hour ?? "null"} (${a.hour_source}), residual ${a.residual_h ?? "-"} h  ${a.file}:${a.line}`);
  }
  out.push("", `Conflicts between sources (${v.conflicts.length}):`);
  for (const c of v.conflicts) out.push(`  ${c.model_id}: hour ${c.hour}, ${c.kind} says ${c.evidence_hour} (${c.diff_h} h)  ${c.file}:${c.line}`);
  out.push("", `Step-order contradictions (${v.step_order.length}):`);
  for (const s of v.step_order) out.push(`  ${s.cell}/${s.family}: step ${s.lower_step} at h ${s.lower_hour} but step ${s.higher_step} at h ${s.higher_hour}`);
  out.push("", v.ok ? "validate: PASS" : "validate: FAIL");
  return `${out.join("\n")}\n`;
}

/** Registers `ptb-manifest validate`. */
export function registerValidate(program: Command): void {
  program
    .command("validate")
    .description("Check recovered hours against independent evidence: cadence fits, anchors, source conflicts, step order. Exit 1 on any miss.")
    .option("--sources <dir>", "the sources folder to read", "sources")
    .option("--json", "print the report as one JSON object", false)
    .option("--tolerance-h <hours>", "largest accepted anchor residual or disagreement between sources, hours", parseHours, DEFAULT_TOLERANCE_H)
    .addHelpText("after", "\nExit codes: 0 pass; 1 an anchor misses by more than the tolerance, sources conflict, or step order is contradicted (or a fatal input error).")
    .action(async (o: { sources: string; json: boolean; toleranceH: number }) => {
      const result = await buildManifest({ sourcesDir: resolve(o.sources), toleranceH: o.toleranceH });
      const v = validateBuild(result, o.toleranceH);
      process.stdout.write(o.json ? `${JSON.stringify(v, null, 2)}\n` : renderValidation(v));
      if (!v.ok) throw new ExitCodeError(1, "validate: FAIL");
    });
}

/** Parses a `--tolerance-h` value: a positive number of hours (a usage error otherwise). */
export function parseHours(value: string): number {
  const n = /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`expected a positive number of hours, got "${value}"`);
  return n;
}
