import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import type { BuildResult } from "../model.js";
import type { Row } from "../schema.js";
import { countRows } from "./report.js";
import { VERSION } from "../version.js";

/** Colours of the hour sources, fixed so every chart and the legend agree. */
export const HOUR_SOURCE_COLOURS: Record<string, string> = {
  mtime: "#1b9e77",
  janitor: "#7570b3",
  extrapolated: "#d95f02",
  unrecoverable: "#999999",
};

/**
 * Renders a Vega-Lite spec to a standalone SVG string at build time, with
 * Vega's headless renderer (no browser, no network). Deterministic for the
 * same spec.
 */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

export const escapeHtml = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** What a cell's chart draws, counted so a test can check the rendered page (issue: report). */
export interface CellChartCounts {
  /** Points of timed rows (mtime, janitor, extrapolated). */
  points: number;
  /** Bound intervals of unrecoverable rows. */
  intervals: number;
  /** Error bars of extrapolated rows. */
  errorBars: number;
  /** SUBMITTED and fallback markers. */
  roles: number;
}

/**
 * The Vega-Lite spec of one cell (issue: report): its checkpoints on the
 * budget-hour axis, one lane per family, coloured by `hour_source`;
 * unrecoverable rows as their bound intervals, extrapolated rows with their
 * error bar; SUBMITTED and fallback checkpoints marked; under it, the
 * cumulative driver-token curve on the same axis.
 */
export function cellChartSpec(
  _cell: string,
  rows: Row[],
  curve: [number, number][],
  runHours: number,
): { spec: TopLevelSpec; counts: CellChartCounts } {
  const maxHour = Math.max(100, Math.ceil(runHours), ...rows.map((r) => r.hour ?? 0));
  const families = [...new Set(rows.map((r) => r.family!))].sort();
  const timed = rows
    .filter((r) => r.hour !== null)
    .map((r) => ({ ...r, eos: r.eos_ok === null ? "unknown" : String(r.eos_ok) }));
  const intervals = rows
    .filter((r) => r.hour === null)
    .map((r) => ({ ...r, lo: r.hour_lower_bound ?? 0, hi: r.hour_upper_bound ?? maxHour }));
  const errorBars = rows
    .filter((r) => r.hour_source === "extrapolated" && r.hour !== null && r.hour_error_h !== null)
    .map((r) => ({ ...r, lo: Math.max(0, r.hour! - r.hour_error_h!), hi: r.hour! + r.hour_error_h! }));
  const roles = rows
    .filter((r) => r.role === "SUBMITTED" || r.role === "fallback")
    .map((r) => ({ ...r, x: r.hour ?? ((r.hour_lower_bound ?? 0) + (r.hour_upper_bound ?? maxHour)) / 2 }));
  const x = { type: "quantitative" as const, scale: { domain: [0, maxHour] }, title: "budget hour" };
  const colour = {
    field: "hour_source",
    type: "nominal" as const,
    title: "hour_source",
    scale: { domain: Object.keys(HOUR_SOURCE_COLOURS), range: Object.values(HOUR_SOURCE_COLOURS) },
  };
  // Sorted by code point as `families` is; an explicit list of values breaks Vega on a family named "constructor".
  const y = { field: "family", type: "nominal" as const, title: "family", sort: "ascending" as const };
  const spec: TopLevelSpec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    config: { font: "sans-serif", view: { stroke: "#ddd" } },
    vconcat: [
      {
        width: 680,
        height: Math.max(60, families.length * 26),
        layer: [
          {
            data: { values: intervals },
            mark: { type: "rule", strokeWidth: 4, opacity: 0.55, strokeCap: "round", description: "bounds" },
            encoding: {
              x: { field: "lo", ...x },
              x2: { field: "hi" },
              y,
              color: colour,
              tooltip: [
                { field: "model_id" },
                { field: "lo", title: "lower bound" },
                { field: "hi", title: "upper bound" },
              ],
            },
          },
          {
            data: { values: errorBars },
            mark: { type: "rule", strokeWidth: 2, description: "error" },
            encoding: {
              x: { field: "lo", ...x },
              x2: { field: "hi" },
              y,
              color: colour,
              tooltip: [{ field: "model_id" }, { field: "hour_error_h" }],
            },
          },
          {
            data: { values: timed },
            mark: { type: "point", filled: true, size: 46, opacity: 0.9, description: "checkpoint" },
            encoding: {
              x: { field: "hour", ...x },
              y,
              color: colour,
              tooltip: [
                { field: "model_id" },
                { field: "hour" },
                { field: "hour_source" },
                { field: "role" },
                { field: "eos" },
              ],
            },
          },
          {
            data: { values: roles },
            mark: { type: "point", shape: "diamond", size: 260, filled: false, strokeWidth: 2, description: "role" },
            encoding: {
              x: { field: "x", ...x },
              y,
              stroke: {
                field: "role",
                type: "nominal",
                title: "role",
                scale: { domain: ["SUBMITTED", "fallback"], range: ["#e7298a", "#e6ab02"] },
              },
              tooltip: [{ field: "model_id" }, { field: "role" }],
            },
          },
        ],
      },
      {
        width: 680,
        height: 110,
        data: { values: curve.map(([hour, tokens]) => ({ hour, tokens })) },
        mark: { type: "line", interpolate: "step-after", color: "#444", description: "tokens" },
        encoding: {
          x: { field: "hour", ...x },
          y: { field: "tokens", type: "quantitative", title: "driver tokens", axis: { format: "~s" } },
        },
      },
    ],
    resolve: { scale: { color: "independent" } },
  };
  return {
    spec,
    counts: { points: timed.length, intervals: intervals.length, errorBars: errorBars.length, roles: roles.length },
  };
}

function table(head: string[], rows: (string | number)[][]): string {
  const th = head.map((h) => `<th>${escapeHtml(h)}</th>`).join("");
  const tr = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(String(c))}</td>`).join("")}</tr>`).join("\n");
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${tr}\n</tbody></table>`;
}

/**
 * `report.html`: one self-contained page (inline SVG and CSS, no script, no
 * network) with the index card's tables and, per cell, the timeline and
 * token curve of {@link cellChartSpec}. Each cell's section carries
 * `data-points`, `data-intervals`, `data-error-bars` and `data-roles` so a
 * browser test can check the marks drawn.
 */
export async function reportHtml(result: BuildResult): Promise<string> {
  const c = countRows(result.rows);
  const sections: string[] = [];
  for (const cell of result.registry.cells) {
    if (cell.excluded) continue;
    const rows = result.rows.filter((r) => r.cell === cell.cell);
    const run = result.runs[cell.cell];
    const curve = result.tokenCurves[cell.cell] ?? [[0, 0]];
    const runHours = curve.length ? curve[curve.length - 1]![0] : 100;
    const { spec, counts } = cellChartSpec(cell.cell, rows, curve, runHours);
    const svg = await renderSvg(spec);
    sections.push(
      `<section class="cell" id="cell-${escapeHtml(cell.cell)}" data-cell="${escapeHtml(cell.cell)}" data-points="${counts.points}" data-intervals="${counts.intervals}" data-error-bars="${counts.errorBars}" data-roles="${counts.roles}">
<h2>${escapeHtml(cell.cell)} <small>${escapeHtml(cell.driver)} · ${escapeHtml(cell.effort)}${cell.plotted === false ? " · not plotted" : ""}</small></h2>
<p>${rows.length} checkpoints; run ${escapeHtml(run?.run_start ?? "")} → ${escapeHtml(run?.run_end ?? "")} (${escapeHtml(run?.run_end_from ?? "")}); eos_ok ${escapeHtml(c.eos_ok_per_cell[cell.cell] ?? "0/0")}.</p>
${svg}
${curve.length === 0 ? "<p>Driver tokens unknown (null): no model call of the cell's trajectory is placed in the run (see the build's warnings).</p>\n" : ""}</section>`,
    );
  }
  const cellsTable = table(
    ["cell", "driver", "effort", "checkpoints", "eos_ok"],
    result.registry.cells
      .filter((x) => !x.excluded)
      .map((x) => [x.cell, x.driver, x.effort, c.per_cell[x.cell] ?? 0, c.eos_ok_per_cell[x.cell] ?? "0/0"]),
  );
  const sourceTable = table(
    ["hour_source", "n"],
    Object.entries(c.per_hour_source).map(([k, n]) => [k, n]),
  );
  const excluded = result.excluded
    .map((e) => `<li><code>${escapeHtml(e.cell)}</code>: ${escapeHtml(e.reason)}</li>`)
    .join("");
  const legend = Object.entries(HOUR_SOURCE_COLOURS)
    .map(([k, col]) => `<span class="key"><span class="swatch" style="background:${col}"></span>${k}</span>`)
    .join(" ");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>AgentPTB checkpoint index: build report</title>
<style>
body { font-family: sans-serif; margin: 24px auto; max-width: 980px; color: #222; }
table { border-collapse: collapse; margin: 8px 0 20px; }
th, td { border: 1px solid #ccc; padding: 3px 10px; text-align: left; }
th { background: #f4f4f4; }
section.cell { margin: 28px 0; border-top: 1px solid #ddd; padding-top: 8px; }
small { color: #666; font-weight: normal; }
.key { margin-right: 14px; } .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 5px; margin-right: 4px; }
</style>
</head>
<body>
<h1>AgentPTB checkpoint index</h1>
<p>${c.checkpoints} checkpoints in ${Object.keys(c.per_cell).length} cells, plus the baseline row. Built by ptb-manifest ${VERSION}. Hours are budget hours (paused time excluded); untimed checkpoints are drawn as their bound intervals, extrapolated ones with their error bar; ◇ marks the submitted (pink) and fallback (yellow) checkpoints.</p>
<p>${legend}</p>
<h2>Cells</h2>
${cellsTable}${result.rows.some((r) => r.cell !== "BASELINE" && r.eos_ok === null) ? `\n<p>eos_ok <code>ok/known, N unknown</code>: N rows have <code>eos_ok</code> null (no published repo yet, or its files give no stop ids), counted neither as correct nor as broken.</p>` : ""}
<h2>hour_source</h2>
${sourceTable}
${excluded ? `<p>Excluded:</p><ul>${excluded}</ul>` : ""}
${sections.join("\n")}
</body>
</html>
`;
}
