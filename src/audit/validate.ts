import type { BuildResult } from "../model.js";
import { where } from "../diagnostics.js";
import { DEFAULT_TOLERANCE_H, predictHour } from "../resolve/cadence.js";
import type { DescribedBuild } from "../pipeline/last-build.js";
import { optionNotes } from "./explain.js";
import { cmpStr } from "../util/values.js";
import type { RowEvidence } from "../resolve/resolve-cell.js";
import { NOT_WRITE_EVIDENCE } from "../resolve/decision.js";
import { contradictsWrite } from "../resolve/hour-conflict.js";
import { round2 } from "../resolve/clock.js";
import { stepOrderContradictions } from "../resolve/step-order.js";

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
  anchors: {
    cell: string;
    family: string;
    step: number;
    anchor_hour: number;
    row_hour: number | null;
    hour_source: string | null;
    residual_h: number | null;
    miss: boolean;
    file: string;
    line: number | null;
  }[];
  /** Every `anchors.tsv` line (or file) the build did not use, with the warning that says why. */
  unused_anchors: { code: string; reason: string; file: string | null; line: number | null }[];
  conflicts: {
    model_id: string;
    hour: number;
    kind: string;
    evidence_hour: number;
    diff_h: number;
    file: string;
    line: number | null;
  }[];
  step_order: {
    cell: string;
    family: string;
    lower_step: number;
    lower_hour: number;
    higher_step: number;
    higher_hour: number;
  }[];
  /** The tolerance the fits were validated at, when it is not `tolerance_h` (a build in `--out` made with another). */
  fits_tolerance_h?: number;
  /** Which build was checked: the last one written into `--out`, or one derived now (set by the command). */
  build?: DescribedBuild;
  /**
   * True when the build in `--out` was made from inputs that changed since (set by the command):
   * its hours are not those of the sources now, so it fails however its checks went.
   */
  inputs_changed?: boolean;
}

/**
 * Checks a build against its independent evidence (issue: validate): the
 * cadence fit of every family, the residual of every anchor against its
 * row's hour, every time evidence of a row that disagrees with the chosen
 * hour by more than `toleranceH` (a janitor v1 action time only when it is
 * earlier than the hour, since the janitor acts after the write; rejected copy-backs, retries and directory
 * mtimes are not evidence), and every pair of exactly timed checkpoints of a
 * family whose hours contradict their step order. Anchors of lost checkpoints
 * are checked against their family's fit; every anchor line the build did not
 * use is listed in `unused_anchors` with the warning that says why.
 */
export function validateBuild(result: BuildResult, toleranceH = DEFAULT_TOLERANCE_H): ValidationReport {
  const families: ValidationReport["families"] = [];
  for (const [cell, fits] of Object.entries(result.fits)) {
    for (const [family, fit] of Object.entries(fits).sort((a, b) => cmpStr(a[0], b[0]))) {
      const points = result.rows.filter(
        (r) => r.cell === cell && r.family === family && (r.hour_source === "mtime" || r.hour_source === "janitor"),
      ).length;
      families.push({
        cell,
        family,
        points,
        fit: fit && {
          slope_min_per_step: Math.round(fit.slopeHPerStep * 60 * 1e4) / 1e4,
          used: fit.used,
          outliers: fit.outliers,
          loo_max_h: Number.isFinite(fit.looMaxH) ? round2(fit.looMaxH) : null,
          loo_p95_h: Number.isFinite(fit.looP95H) ? round2(fit.looP95H) : null,
          validated: fit.validated,
          reason: fit.reason,
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
      if (e.budgetHour === null || (e.rejected !== null && NOT_WRITE_EVIDENCE.has(e.rejected))) continue;
      if (e.kind === "anchor") {
        // A row left without an hour (its fit failed, perhaps because of this very anchor) is checked
        // against the family's fitted line, so a bad anchor cannot hide by making its row unrecoverable.
        const fit = row.hour === null ? result.fits[row.cell]?.[row.family!] : null;
        const against = row.hour ?? (fit ? predictHour(fit, row.step!) : null);
        const residual = against === null ? null : round2(against - e.budgetHour);
        anchors.push({
          cell: row.cell,
          family: row.family!,
          step: row.step!,
          anchor_hour: e.budgetHour,
          row_hour: row.hour,
          hour_source: row.hour_source,
          residual_h: residual,
          miss: residual !== null && Math.abs(residual) > toleranceH,
          file: e.file,
          line: e.line,
        });
      } else if ((e.kind === "pvc_stable" || e.kind === "janitor_archive") && !e.used && row.hour !== null) {
        const diff = round2(e.budgetHour - row.hour);
        // A janitor v1 time is an action after the write: only an earlier one contradicts.
        if (contradictsWrite(diff, e.timeIs ?? "write", toleranceH))
          conflicts.push({
            model_id: row.model_id,
            hour: row.hour,
            kind: e.kind,
            evidence_hour: e.budgetHour,
            diff_h: diff,
            file: e.file,
            line: e.line,
          });
      }
    }
  });
  // Anchors of lost checkpoints (no row) went into their family's fit: checked against it.
  for (const [cell, fits] of Object.entries(result.fits)) {
    for (const [family, fit] of Object.entries(fits).sort((a, b) => cmpStr(a[0], b[0]))) {
      for (const a of fit?.anchors ?? []) {
        if (result.rows.some((r) => r.cell === cell && r.family === family && r.step === a.step)) continue;
        const residual = round2(a.residualH);
        anchors.push({
          cell,
          family,
          step: a.step,
          anchor_hour: round2(a.anchorHour),
          row_hour: null,
          hour_source: null,
          residual_h: residual,
          miss: Math.abs(residual) > toleranceH,
          file: `${cell}/anchors.tsv`,
          line: null,
        });
      }
    }
  }
  const unusedAnchors: ValidationReport["unused_anchors"] = result.warnings
    .filter((w) => ANCHOR_UNUSED_CODES.has(w.code))
    .map((w) => ({ code: w.code, reason: w.message, file: w.file, line: w.line }));
  const stepOrder: ValidationReport["step_order"] = [];
  const exact = result.rows.filter(
    (r) => r.hour !== null && (r.hour_source === "mtime" || r.hour_source === "janitor"),
  );
  const byFamily = new Map<string, typeof exact>();
  for (const r of exact)
    byFamily.set(`${r.cell}\u0000${r.family}`, [...(byFamily.get(`${r.cell}\u0000${r.family}`) ?? []), r]);
  for (const members of byFamily.values()) {
    for (const { lower, higher } of stepOrderContradictions(
      members.map((r) => ({ step: r.step!, hour: r.hour!, item: r })),
    )) {
      stepOrder.push({
        cell: higher.item.cell,
        family: higher.item.family!,
        lower_step: lower.step,
        lower_hour: lower.hour,
        higher_step: higher.step,
        higher_hour: higher.hour,
      });
    }
  }
  const ok = !anchors.some((a) => a.miss) && conflicts.length === 0 && stepOrder.length === 0;
  return {
    tolerance_h: toleranceH,
    ok,
    families,
    anchors,
    unused_anchors: unusedAnchors,
    conflicts,
    step_order: stepOrder,
  };
}

/** The warnings that leave an `anchors.tsv` line (or the whole file) unused (README: Warnings and errors). */
const ANCHOR_UNUSED_CODES = new Set([
  "ANCHOR_BAD_LINE",
  "ANCHOR_CUT_LINE",
  "ANCHOR_NOT_TAB_SEPARATED",
  "ANCHOR_UNKNOWN_FAMILY",
  "ANCHOR_UNKNOWN_STEP",
  "ANCHOR_UNREADABLE",
]);

/** An hour, a residual or an error for the text report: `n/a` for null. */
const num = (x: number | null, unit = " h"): string => (x === null ? "n/a" : `${x}${unit}`);

/**
 * Renders a validation report as text: the "which build" line (when the
 * command set one), the fits, anchors (`ok`, `MISS`, or `n/a` for an anchor
 * of a row without an hour in a family without a fit: nothing to check it
 * against), conflicts, step order, and one `validate: PASS` or `FAIL` line.
 */
export function renderValidation(v: ValidationReport): string {
  const out: string[] = [];
  if (v.build) out.push(v.build.line, ...optionNotes(v.build), "");
  out.push(`Cadence fits (tolerance ${v.fits_tolerance_h ?? v.tolerance_h} h):`);
  for (const f of v.families) {
    out.push(
      f.fit
        ? `  ${f.cell}/${f.family}: ${f.fit.slope_min_per_step} min/step on ${f.fit.used.length} points (outliers: ${f.fit.outliers.join(", ") || "none"}), LOO max ${num(f.fit.loo_max_h)} p95 ${num(f.fit.loo_p95_h)}: ${f.fit.validated ? "validated" : "not validated"} (${f.fit.reason})`
        : `  ${f.cell}/${f.family}: ${f.points} exact points, no fit`,
    );
  }
  out.push(
    "",
    `Anchors (${v.anchors.length}${v.fits_tolerance_h !== undefined ? `, tolerance ${v.tolerance_h} h` : ""}):`,
  );
  for (const a of v.anchors) {
    const mark = a.residual_h === null ? "n/a " : a.miss ? "MISS" : "ok  ";
    const against =
      a.residual_h === null
        ? "no residual: the row has no hour and its family no fit"
        : a.row_hour === null
          ? `residual ${a.residual_h} h against the family's fit`
          : `residual ${a.residual_h} h`;
    out.push(
      `  ${mark} ${a.cell}/${a.family}/${a.step}: anchor h ${a.anchor_hour}, row h ${a.row_hour ?? "null"} (${a.hour_source ?? "no hour_source"}), ${against}  ${where(a.file, a.line)}`,
    );
  }
  if (v.unused_anchors.length > 0) {
    out.push("", `Anchors not used (${v.unused_anchors.length}):`);
    for (const u of v.unused_anchors) out.push(`  ${u.code}: ${u.reason}  ${where(u.file, u.line)}`);
  }
  out.push("", `Conflicts between sources (${v.conflicts.length}):`);
  for (const c of v.conflicts)
    out.push(
      `  ${c.model_id}: hour ${c.hour}, ${c.kind} says ${c.evidence_hour} (${c.diff_h > 0 ? "+" : ""}${c.diff_h} h)  ${where(c.file, c.line)}`,
    );
  out.push("", `Step-order contradictions (${v.step_order.length}):`);
  for (const s of v.step_order)
    out.push(
      `  ${s.cell}/${s.family}: step ${s.lower_step} at h ${s.lower_hour} but step ${s.higher_step} at h ${s.higher_hour}`,
    );
  const misses = v.anchors.filter((a) => a.miss).length;
  const stale = v.inputs_changed ? "; the inputs changed since that build: rebuild, then validate" : "";
  out.push(
    "",
    v.ok
      ? "validate: PASS"
      : `validate: FAIL (${misses} anchor miss${misses === 1 ? "" : "es"}, ${v.conflicts.length} conflict${v.conflicts.length === 1 ? "" : "s"}, ${v.step_order.length} step-order contradiction${v.step_order.length === 1 ? "" : "s"}${stale})`,
  );
  return `${out.join("\n")}\n`;
}
