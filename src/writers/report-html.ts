import type { Spec as VegaSpec } from "vega";
import type { TopLevelSpec } from "vega-lite";
import type { BuildResult } from "../model.js";
import type { Row } from "../schema.js";
import { renderExplanation } from "../audit/explain.js";
import { countRows } from "./report.js";
import { VERSION } from "../version.js";
import { cellChartSpec } from "./report-cell-chart.js";
import { markCheckpoints, markCurves } from "./report-marks.js";
import { overviewSpec, type OverviewCell } from "./report-overview.js";
import { legendHtml, REPORT_CSS, REPORT_SCRIPT } from "./report-page.js";
import { htmlTable, lostExcludedTable, warningsTable } from "./report-tables.js";

/**
 * Renders a Vega-Lite spec to a standalone SVG string at build time, with
 * Vega's headless renderer (no browser, no network). Deterministic for the
 * same spec. Vega and Vega-Lite are loaded here, on the first call, so that
 * a command that renders no page does not load them. `adjust`, when given,
 * may change the compiled Vega spec before it is drawn (e.g. what Vega-Lite
 * cannot say about a legend's symbols).
 */
export async function renderSvg(spec: TopLevelSpec, adjust?: (compiled: VegaSpec) => void): Promise<string> {
  const [vega, { compile }] = await Promise.all([import("vega"), import("vega-lite")]);
  const compiled = compile(spec).spec;
  adjust?.(compiled);
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

export type { VegaSpec };

export const escapeHtml = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** One cell's section: heading, run line, its chart with marked checkpoints; `data-*` counts of what it draws. */
async function cellSection(result: BuildResult, cell: BuildResult["registry"]["cells"][number], eosOk: string) {
  const entries = result.rows.flatMap((row, index) => (row.cell === cell.cell ? [{ row, index }] : []));
  const run = result.runs[cell.cell];
  const curve = result.tokenCurves[cell.cell] ?? [[0, 0]];
  const runHours = curve.length ? curve[curve.length - 1]![0] : 100;
  const { spec, counts } = cellChartSpec(entries, curve, runHours);
  const svg = markCheckpoints(await renderSvg(spec), result.rows, true);
  const data = Object.entries(counts)
    .map(([k, n]) => ` data-${k.replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`)}="${n}"`)
    .join("");
  return `<section class="cell" id="cell-${escapeHtml(cell.cell)}" data-cell="${escapeHtml(cell.cell)}"${data}>
<h2>${escapeHtml(cell.cell)} <small>${escapeHtml(cell.driver)} · ${escapeHtml(cell.effort)}${cell.plotted === false ? " · not plotted" : ""}</small></h2>
<p>${entries.length} checkpoints; run ${escapeHtml(run?.run_start ?? "")} → ${escapeHtml(run?.run_end ?? "")} (${escapeHtml(run?.run_end_from ?? "")}); eos_ok ${escapeHtml(eosOk)}.</p>
${svg}
${curve.length === 0 ? "<p>Driver tokens unknown (null): no model call of the cell's trajectory is placed in the run (see the build's warnings).</p>\n" : ""}</section>`;
}

/** The overview section: the plotted cells' token curves on one axis, and their checkpoints over the hours. */
async function overviewSection(result: BuildResult): Promise<string> {
  const cells: OverviewCell[] = result.registry.cells
    .filter((c) => !c.excluded && c.plotted !== false)
    .map((c) => ({
      cell: c.cell,
      curve: result.tokenCurves[c.cell] ?? [],
      entries: result.rows.flatMap((row, index) => (row.cell === c.cell ? [{ row, index }] : [])),
    }));
  const { spec, curves, ticks } = overviewSpec(cells);
  const svg = markCurves(
    markCheckpoints(await renderSvg(spec), result.rows, false),
    cells.map((c) => c.cell),
  );
  const unknown = cells.filter((c) => c.curve.length === 0).map((c) => c.cell);
  const untimed = cells.reduce((n, c) => n + c.entries.filter((e) => e.row.hour === null).length, 0);
  return `<section id="overview" data-curves="${curves}" data-ticks="${ticks}">
<h2>Sweep overview</h2>
<p>The ${cells.length} plotted cells: cumulative driver tokens on one shared axis, and each cell's timed checkpoints over the budget hours (${untimed} untimed checkpoints have no hour to place here; the cell charts below draw their intervals).${unknown.length ? ` Driver tokens unknown (no curve): ${unknown.map(escapeHtml).join(", ")}.` : ""}</p>
${svg}
</section>`;
}

/** The `explain` text of every row, each in a `details#explain-<model id>` (what `ptb-manifest explain ID` prints). */
function explainSection(result: BuildResult): string {
  const items = result.rows.map((row: Row, i) => {
    const text = renderExplanation({
      query: row.model_id,
      row,
      provenance: result.provenance[i]!,
      run: result.runs[row.cell] ?? null,
    });
    const id = escapeHtml(row.model_id);
    return `<details class="explain" id="explain-${id}" data-model-id="${id}"><summary>${id}</summary><pre>${escapeHtml(text)}</pre></details>`;
  });
  return `<section id="explain">
<h2>Explain</h2>
<p>What <code>ptb-manifest explain MODEL_ID</code> prints for each row: the evidence considered for its hour, the rule that chose it, its tokens, role and eos. Click a checkpoint mark (or press Enter on it) to open its text here.</p>
${items.join("\n")}
</section>`;
}

/** The index card's tables, with the eos_ok counts made visible (broken counts in bold red). */
function cardTables(result: BuildResult): string {
  const c = countRows(result.rows);
  const cells = result.registry.cells.filter((x) => !x.excluded);
  const broken = (cell: string) => result.rows.filter((r) => r.cell === cell && r.eos_ok === false).length;
  const cellsTable = htmlTable(
    ["cell", "driver", "effort", "checkpoints", "eos_ok", "eos broken"],
    cells.map((x) => [
      x.cell,
      x.driver,
      x.effort,
      c.per_cell[x.cell] ?? 0,
      c.eos_ok_per_cell[x.cell] ?? "0/0",
      broken(x.cell),
    ]),
  ).replace(/<td>([1-9]\d*)<\/td><\/tr>/g, '<td class="bad">$1</td></tr>');
  const unknownNote = result.rows.some((r) => r.cell !== "BASELINE" && r.eos_ok === null)
    ? `\n<p>eos_ok <code>ok/known, N unknown</code>: N rows have <code>eos_ok</code> null (no published repo yet, or its files give no stop ids), counted neither as correct nor as broken.</p>`
    : "";
  const sourceTable = htmlTable(
    ["hour_source", "n"],
    Object.entries(c.per_hour_source).map(([k, n]) => [k, n]),
  );
  return `<h2>Cells</h2>\n${cellsTable}${unknownNote}\n<h2>hour_source</h2>\n${sourceTable}`;
}

/**
 * `report.html` (MANIFEST.md: the build's outputs): one self-contained page
 * (inline SVG, CSS and script; nothing fetched). From the top: the legend,
 * the sweep overview ({@link overviewSpec}), the index card's tables, the
 * warnings grouped by code, the lost and excluded checkpoints, one chart per
 * cell ({@link cellChartSpec}), and every row's `explain` text. Every
 * checkpoint mark is `.ckpt` with `data-model-id`, `data-hour-source`,
 * `data-eos` and `data-tip` (the lines of `checkpointTooltip`): hover and
 * keyboard focus show the tooltip, click or Enter opens the explain text.
 * Each cell's section carries the counts of what its chart draws
 * (`data-checkpoints`, `data-intervals`, `data-open-ends`,
 * `data-error-bars`, `data-roles`) for a browser test.
 */
export async function reportHtml(result: BuildResult): Promise<string> {
  const c = countRows(result.rows);
  const sections: string[] = [];
  for (const cell of result.registry.cells) {
    if (cell.excluded) continue;
    sections.push(await cellSection(result, cell, c.eos_ok_per_cell[cell.cell] ?? "0/0"));
  }
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>AgentPTB checkpoint index: build report</title>
<style>
${REPORT_CSS}</style>
</head>
<body>
<h1>AgentPTB checkpoint index</h1>
<p>${c.checkpoints} checkpoints in ${Object.keys(c.per_cell).length} cells, plus the baseline row. Built by ptb-manifest ${VERSION}. Hours are budget hours (paused time excluded). Hover or focus (Tab) a checkpoint for its details; click it, or press Enter, to copy its model id and open its explain text.</p>
${legendHtml()}
${await overviewSection(result)}
${cardTables(result)}
<h2>Warnings</h2>
<p>${result.warnings.length} warnings, grouped by code (build-report.json lists every one).</p>
${warningsTable(result.warnings)}
<h2>Lost and excluded checkpoints</h2>
<p>Checkpoints the manifest has no row for: lost ones (seen in a log or listing, but their weights survive nowhere) and the excluded cells.</p>
${lostExcludedTable(result)}
${sections.join("\n")}
${explainSection(result)}
<div id="tip" role="tooltip" hidden></div>
<div id="status" role="status" aria-live="polite"></div>
<script>
${REPORT_SCRIPT}
</script>
</body>
</html>
`;
}
