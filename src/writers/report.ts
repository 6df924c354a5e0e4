import type { BuildResult } from "../model.js";
import type { Row } from "../schema.js";
import { VERSION } from "../version.js";

/**
 * How a cell's `eos_ok` count is shown (summary, card, report.html,
 * `build-report.json`): `ok/known`, where `known` counts rows whose `eos_ok`
 * is true or false, then `, N unknown` for the rows whose `eos_ok` is null
 * (no published repo yet, or its files give no stop ids: MANIFEST.md
 * `eos_ok`), so an unknown is never read as broken. Without unknowns it is
 * the index card's plain `39/57`; a cell with nothing published yet reads
 * `0/0, 11 unknown`.
 */
export function eosOkText(ok: number, known: number, unknown: number): string {
  return unknown > 0 ? `${ok}/${known}, ${unknown} unknown` : `${ok}/${known}`;
}

/** The counts the index card states (MANIFEST.md: Counts the published index states). */
export function countRows(rows: Row[]): {
  rows: number;
  checkpoints: number;
  per_cell: Record<string, number>;
  per_hour_source: Record<string, number>;
  eos_ok_per_cell: Record<string, string>;
  roles: Record<string, number>;
} {
  // Keyed by cell names and roles: no inherited keys ("constructor", "toString", ...).
  const perCell: Record<string, number> = Object.create(null);
  const perSource: Record<string, number> = { mtime: 0, janitor: 0, extrapolated: 0, unrecoverable: 0 };
  const eosOk: Record<string, [number, number, number]> = Object.create(null);
  const roles: Record<string, number> = Object.create(null);
  for (const r of rows) {
    if (r.cell === "BASELINE") continue;
    perCell[r.cell] = (perCell[r.cell] ?? 0) + 1;
    perSource[r.hour_source] = (perSource[r.hour_source] ?? 0) + 1;
    const e = (eosOk[r.cell] ??= [0, 0, 0]);
    if (r.eos_ok === null) e[2] += 1;
    else {
      if (r.eos_ok) e[0] += 1;
      e[1] += 1;
    }
    roles[r.role] = (roles[r.role] ?? 0) + 1;
  }
  return {
    rows: rows.length,
    checkpoints: rows.filter((r) => r.cell !== "BASELINE").length,
    per_cell: perCell,
    per_hour_source: perSource,
    // No prototype: a cell named `constructor` without rows must read as absent, not as Object's constructor.
    eos_ok_per_cell: Object.assign(
      Object.create(null) as Record<string, string>,
      Object.fromEntries(Object.entries(eosOk).map(([c, [ok, n, unknown]]) => [c, eosOkText(ok, n, unknown)])),
    ),
    roles,
  };
}

/**
 * `build-report.json` (MANIFEST.md): tool version, arguments, input file
 * hashes, counts, excluded cells with their reasons, lost checkpoints, the
 * cadence fits, and every warning as `{code, message, file, line}`. It holds
 * no wall-clock time, so a rebuild of the same input is byte-identical.
 */
export function buildReportJson(
  result: BuildResult,
  args: Record<string, unknown>,
  inputs: Record<string, string>,
): string {
  const warningCounts: Record<string, number> = {};
  for (const w of result.warnings) warningCounts[w.code] = (warningCounts[w.code] ?? 0) + 1;
  const report = {
    tool: "ptb-manifest",
    version: VERSION,
    arguments: args,
    counts: countRows(result.rows),
    excluded: result.excluded,
    lost: result.lost,
    runs: result.runs,
    fits: result.fits,
    warning_counts: Object.fromEntries(Object.entries(warningCounts).sort(([a], [b]) => (a < b ? -1 : 1))),
    warnings: result.warnings,
    inputs,
  };
  return `${JSON.stringify(report, (_k, v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? null : v), 2)}\n`;
}
