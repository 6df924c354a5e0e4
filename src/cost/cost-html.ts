/**
 * The cost.html page (score and cost per point against hour and tokens, with tooltips).
 * Per suite, score against budget hour and against driver tokens, and the
 * cost per point against hour (index-card.md, "Cost per point of gain").
 */
import type { TopLevelSpec } from "vega-lite";
import type { Row } from "../schema.js";
import { cmpStr } from "../util/values.js";
import { checkpointTooltip } from "../writers/checkpoint-tooltip.js";
import { escapeHtml, renderSvg, type VegaSpec } from "../writers/report-html.js";
import type { CostReport } from "./cost.js";

type CostRow = CostReport["rows"][number];

/** One drawn point: the figures, its cell, whether its packaging is broken, and its tooltip text. */
interface Point {
  cell: string;
  hour: number | null;
  score: number;
  tokens: number | null;
  cost: number | null;
  /** "eos_ok true", or what is wrong with the packaging (the legend's words). */
  packaging: string;
  /** The tooltip lines joined by "\n" (each point's `aria-label`, which the page's script shows). */
  tip: string;
}

const PACKAGING_OK = "eos_ok true";
const PACKAGING_FALSE = "eos_ok false: score is a floor";
const PACKAGING_NULL = "eos_ok null: packaging unknown";

/** Plot sizes in pixels, and the padding that keeps every mark inside its plot area. */
const WIDTH = 340;
const HEIGHT = 260;
/** Pixels added on each side of a continuous domain: more than a point's radius, so no point touches an edge. */
const PAD = 10;
/** The y padding of the score charts: room for the baseline label above the line. */
const PAD_SCORE = 18;

/** A number as the pages write it: thousands separated, at most 2 decimals. */
const num = (x: number): string => x.toLocaleString("en-US", { maximumFractionDigits: 2 });

/**
 * The tooltip lines of one cost figure: the checkpoint's lines
 * (`checkpointTooltip`, as report.html shows them), then the score on the
 * suite with the baseline and gain, the cost per point, and the note (why
 * there is no cost, or the packaging caveat) when there is one.
 */
export function costTooltip(row: Row, figure: CostRow): string[] {
  return [
    ...checkpointTooltip(row),
    `score on ${figure.suite}: ${figure.score} (baseline ${figure.baseline_score}, gain ${figure.gain})${figure.scored_as ? `, scored as ${figure.scored_as}` : ""}`,
    `cost per point: ${figure.cost_per_point === null ? "none" : `${num(figure.cost_per_point)} driver tokens per point of gain`}`,
    ...(figure.note ? [`note: ${figure.note}`] : []),
  ];
}

/** What the packaging of a figure's row is, in the legend's words. */
function packagingOf(figure: CostRow): string {
  return figure.eos_ok === true ? PACKAGING_OK : figure.eos_ok === false ? PACKAGING_FALSE : PACKAGING_NULL;
}

/** The three charts of one suite, and where each point goes. */
type ChartKind = "score-hour" | "score-tokens" | "cost-hour";

/** Everything the charts of one page share: the cells' colours and the hour domain. */
interface Scales {
  cells: string[];
  /** The hour domain: 0 to 100, or to the last hour when a row lies past the budget. */
  hourMax: number;
  /** Whether an eos-broken point is drawn anywhere on the page (then the shape legend is shown). */
  broken: boolean;
}

/**
 * At most `count` + 1 round tick values (steps of 1, 2 or 5 times a power of ten)
 * from `lo` to `hi`, both included when round: the axis labels stay inside
 * the data's range, never on the padding beyond it (no "−2M" below a zero).
 */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let i = Math.ceil(lo / step); i * step <= hi + step * 1e-9; i++) out.push(Number((i * step).toPrecision(12)));
  return out;
}

/** A quantitative axis over `[lo, hi]` (what the data spans), padded by `pad` pixels each side. */
function axis(field: string, title: string, lo: number, hi: number, pad: number, format?: string) {
  return {
    field,
    type: "quantitative" as const,
    title,
    scale: { domain: hi > lo ? [lo, hi] : [lo - 1, hi + 1], nice: false, zero: false, padding: pad },
    axis: {
      values: hi > lo ? niceTicks(lo, hi) : [lo],
      // "0", not "0M", under an SI format.
      ...(format ? { labelExpr: `datum.value === 0 ? "0" : format(datum.value, "${format}")` } : {}),
    },
  };
}

/** The x and y fields, axis titles and scales of one chart kind, over the values of `points`. */
function axes(kind: ChartKind, suite: string, baseline: number, points: Point[], scales: Scales) {
  const hourAxis = {
    ...axis("hour", "budget hour", 0, scales.hourMax, PAD),
    axis: { values: Array.from({ length: Math.floor(scales.hourMax / 10) + 1 }, (_, i) => i * 10) },
  };
  const max = (xs: number[]) => Math.max(...xs);
  if (kind === "cost-hour") {
    const costs = points.map((p) => p.cost!);
    return {
      x: hourAxis,
      y: axis("cost", `cost per point (tokens, ${suite})`, 0, costs.length ? max(costs) : 1, PAD, "~s"),
    };
  }
  const scores = [baseline, ...points.map((p) => p.score)];
  const y = axis("score", `score (suite ${suite})`, Math.min(...scores), max(scores), PAD_SCORE);
  if (kind === "score-hour") return { x: hourAxis, y };
  const tokens = points.map((p) => p.tokens!);
  return {
    x: axis("tokens", "driver tokens at the checkpoint's hour", 0, tokens.length ? max(tokens) : 1, PAD, "~s"),
    y,
  };
}

/**
 * The Vega-Lite spec of one chart: a line per cell through its eos_ok
 * points (an eos-broken point is never joined to them), the points (filled
 * circles; eos-broken ones in their own layer, `broken`, with their own
 * shape and legend), and on the score charts the baseline as a dashed rule
 * with its label. Domains are padded so no mark touches the plot's edge.
 */
function chartSpec(
  kind: ChartKind,
  suite: string,
  baseline: { score: number; model_id: string },
  points: Point[],
  scales: Scales,
): TopLevelSpec {
  const { x, y } = axes(kind, suite, baseline.score, points, scales);
  const color = {
    field: "cell",
    type: "nominal" as const,
    title: "cell",
    scale: { domain: scales.cells },
    legend: { labelLimit: 260 },
  };
  const shape = {
    field: "packaging",
    type: "nominal" as const,
    title: "packaging",
    scale: {
      domain: [PACKAGING_OK, PACKAGING_FALSE, PACKAGING_NULL],
      range: ["circle", "triangle-down", "diamond"],
    },
    legend: scales.broken ? { labelLimit: 260 } : null,
  };
  const ok = points.filter((p) => p.packaging === PACKAGING_OK);
  const broken = points.filter((p) => p.packaging !== PACKAGING_OK);
  const layers: object[] = [
    {
      name: "lines",
      data: { values: ok },
      mark: { type: "line", strokeWidth: 1.5 },
      encoding: { x, y, color, order: { field: x.field, type: "quantitative" } },
    },
    {
      name: "ok",
      data: { values: ok },
      mark: { type: "point", filled: true, size: 70, opacity: 1 },
      encoding: { x, y, color, shape, description: { field: "tip" } },
    },
  ];
  if (broken.length)
    layers.push({
      name: "broken",
      data: { values: broken },
      // Hollow (a white inside, so the whole mark takes the pointer), stroked in the cell's colour.
      mark: { type: "point", filled: false, fill: "white", size: 90, strokeWidth: 2, opacity: 1 },
      encoding: { x, y, color, shape, description: { field: "tip" } },
    });
  if (kind !== "cost-hour") {
    const label = `baseline ${baseline.model_id}: ${baseline.score}`;
    layers.push(
      {
        name: "baseline",
        data: { values: [{ score: baseline.score, label }] },
        mark: { type: "rule", strokeDash: [4, 4], color: "#666" },
        encoding: { y: { field: "score", type: "quantitative" } },
      },
      {
        name: "baseline_label",
        data: { values: [{ score: baseline.score, label }] },
        mark: { type: "text", align: "left", baseline: "bottom", dx: 4, dy: -3, color: "#444", fontSize: 10 },
        encoding: { x: { value: 0 }, y: { field: "score", type: "quantitative" }, text: { field: "label" } },
      },
    );
  }
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    width: WIDTH,
    height: HEIGHT,
    title: {
      "score-hour": `score against budget hour (${suite})`,
      "score-tokens": `score against driver tokens (${suite})`,
      "cost-hour": `cost per point against budget hour (${suite})`,
    }[kind],
    layer: layers,
    config: { legend: { orient: "right" } },
  } as TopLevelSpec;
}

/** The packaging legend draws its symbols as the marks are: eos_ok true filled, the others hollow. */
function packagingLegend(compiled: VegaSpec): void {
  for (const legend of compiled.legends ?? [])
    if (legend.shape)
      legend.encode = {
        symbols: {
          update: {
            fill: { signal: `datum.value === ${JSON.stringify(PACKAGING_OK)} ? "#444" : "white"` },
            stroke: { value: "#444" },
            strokeWidth: { value: 1.5 },
          },
        },
      };
}

/** Why a figure has no point on a chart kind, or null when it has one. */
function notDrawn(kind: ChartKind, f: CostRow): string | null {
  if (kind !== "score-tokens" && f.hour === null) return "hour unrecoverable (null)";
  if (kind === "score-tokens" && f.driver_tokens_at_hour === null) return "driver tokens unknown (null)";
  if (kind === "cost-hour" && f.cost_per_point === null) return "no cost per point";
  return null;
}

/** The page's script: each point is focusable and shows its `aria-label` as a tooltip on hover and on focus. */
const TOOLTIP_SCRIPT = `(() => {
  const tip = document.getElementById("tooltip");
  const show = (el) => {
    tip.replaceChildren(...el.getAttribute("aria-label").split("\\n").map((l) => {
      const d = document.createElement("div");
      d.textContent = l;
      return d;
    }));
    const r = el.getBoundingClientRect();
    tip.hidden = false;
    const left = Math.min(r.right + 8 + window.scrollX, window.scrollX + document.documentElement.clientWidth - tip.offsetWidth - 4);
    tip.style.left = Math.max(4, left) + "px";
    tip.style.top = r.bottom + 8 + window.scrollY + "px";
  };
  const hide = () => { tip.hidden = true; };
  for (const el of document.querySelectorAll("svg [role=graphics-symbol][aria-roledescription=point]")) {
    el.setAttribute("tabindex", "0");
    el.setAttribute("aria-describedby", "tooltip");
    el.addEventListener("mouseenter", () => show(el));
    el.addEventListener("focus", () => show(el));
    el.addEventListener("mouseleave", hide);
    el.addEventListener("blur", hide);
  }
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") hide(); });
})();`;

const STYLE = `body{font-family:sans-serif;margin:24px auto;max-width:1480px;padding:0 16px;color:#222}
small{color:#666;font-weight:normal}.charts{display:flex;flex-wrap:wrap;gap:8px}
figure{margin:0}svg [tabindex]:focus{outline:none;stroke:#000;stroke-width:3}
#tooltip{position:absolute;z-index:1;background:#fff;border:1px solid #888;border-radius:3px;padding:6px 8px;font-size:12px;line-height:1.4;box-shadow:0 2px 6px rgba(0,0,0,.2);max-width:520px;pointer-events:none}
#tooltip div:first-child{font-weight:bold}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}`;

/**
 * `cost.html` (index-card.md: Cost per point of gain): per suite, score
 * against budget hour and against driver tokens at the checkpoint's hour
 * (a line per cell, the baseline as a labelled dashed rule), and the cost
 * per point itself against budget hour. The hour axis reads 0 to 100 (or
 * further when a row lies past the budget); every domain is padded so no
 * point is clipped. Rows of `report.rows` with eos_ok false or null (kept by
 * `--include-eos-broken`) are drawn as their own hollow marks with a legend,
 * never joined to the eos_ok lines. A row with no value for a chart's axis
 * (hour or tokens null, no cost) is listed under the chart, not drawn.
 * Every point carries its tooltip (`costTooltip`) as its `aria-label`,
 * shown on hover and keyboard focus by an inline script.
 *
 * One self-contained HTML file (inline SVG, style and script; no network
 * request). `manifest` is the manifest the report was computed from: each
 * figure's row is looked up by `model_id` for its tooltip.
 *
 * @throws Error when a figure's model id has no row of `manifest` (a report
 *   from another manifest).
 */
export async function costHtml(report: CostReport, manifest: Row[]): Promise<string> {
  const byId = new Map(manifest.map((r) => [r.model_id, r]));
  const rowOf = (f: CostRow): Row => {
    const row = byId.get(f.model_id);
    if (!row) throw new Error(`cost.html: ${f.model_id} has no row in the manifest the report was computed from`);
    return row;
  };
  const baselineRow = manifest.find((r) => r.cell === "BASELINE");
  const hours = report.rows.map((r) => r.hour).filter((h): h is number => h !== null);
  const scales: Scales = {
    cells: [...new Set(report.rows.map((r) => r.cell))].sort(cmpStr),
    hourMax: Math.max(100, Math.ceil(Math.max(0, ...hours) / 10) * 10),
    broken: report.rows.some((r) => r.eos_ok !== true),
  };
  const kinds: ChartKind[] = ["score-hour", "score-tokens", "cost-hour"];
  const sections: string[] = [];
  for (const { suite, baseline_score } of report.suites) {
    const figures = report.rows.filter((r) => r.suite === suite);
    const charts: string[] = [];
    const missing: string[] = [];
    for (const kind of kinds) {
      const points: Point[] = figures
        .filter((f) => notDrawn(kind, f) === null)
        .map((f) => ({
          cell: f.cell,
          hour: f.hour,
          score: f.score,
          tokens: f.driver_tokens_at_hour,
          cost: f.cost_per_point,
          packaging: packagingOf(f),
          tip: costTooltip(rowOf(f), f).join("\n"),
        }));
      for (const f of figures) {
        const why = notDrawn(kind, f);
        if (why !== null) missing.push(`<li>${kind}: <code>${escapeHtml(f.model_id)}</code>: ${escapeHtml(why)}</li>`);
      }
      const broken = points.filter((p) => p.packaging !== PACKAGING_OK).length;
      const spec = chartSpec(
        kind,
        suite,
        { score: baseline_score, model_id: baselineRow?.model_id ?? "baseline" },
        points,
        scales,
      );
      charts.push(
        `<figure class="chart" data-chart="${kind}" data-points="${points.length - broken}" data-broken="${broken}">${await renderSvg(spec, packagingLegend)}</figure>`,
      );
    }
    sections.push(`<section class="suite" data-suite="${escapeHtml(suite)}"><h2>${escapeHtml(suite)} <small>baseline ${baseline_score}; ${figures.length} scored checkpoint(s)</small></h2>
<div class="charts">
${charts.join("\n")}
</div>
${missing.length ? `<details><summary>not drawn (${missing.length})</summary><ul>${missing.join("")}</ul></details>\n` : ""}</section>`);
  }
  const leftOut = report.excluded.length
    ? `<h2>Left out for broken or unknown packaging (${report.excluded.length})</h2>
<p><code>--include-eos-broken</code> draws them, apart from the others.</p>
<table><tr><th>model_id</th><th>suite</th><th>reason</th></tr>${report.excluded
        .map(
          (r) =>
            `<tr><td><code>${escapeHtml(r.model_id)}</code></td><td>${escapeHtml(r.suite)}</td><td>${escapeHtml(r.reason)}</td></tr>`,
        )
        .join("")}</table>\n`
    : "";
  const unmatched = report.unmatched.length
    ? `<h2>Scores with no row (${report.unmatched.length})</h2>
<table><tr><th>model_id</th><th>suite</th><th>at</th></tr>${report.unmatched
        .map(
          (u) =>
            `<tr><td><code>${escapeHtml(u.model_id)}</code></td><td>${escapeHtml(u.suite)}</td><td>${escapeHtml(u.at)}</td></tr>`,
        )
        .join("")}</table>\n`
    : "";
  const drawnBroken = report.rows.filter((r) => r.eos_ok !== true).length;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>AgentPTB: cost per point of gain</title>
<style>${STYLE}</style></head>
<body><h1>Cost per point of gain</h1>
<p><code>cost_per_point = driver_tokens_at_hour / (score − baseline_score)</code>: the driver tokens spent up to a checkpoint's budget hour per point its score gains over the baseline on the same suite (the dashed line). One line per cell joins its eos_ok checkpoints; hover or focus (Tab) a point for its checkpoint and figures.${
    drawnBroken
      ? ` ${drawnBroken} score(s) of rows with eos_ok false or null are drawn apart (hollow marks, not joined to the lines): eos_ok false means the score is a floor, null that the packaging is unknown.`
      : report.excluded.length
        ? ` ${report.excluded.length} score(s) are left out for broken packaging (listed below).`
        : ""
  }</p>
${sections.join("\n")}
${leftOut}${unmatched}<div id="tooltip" role="tooltip" hidden></div>
<script>${TOOLTIP_SCRIPT}</script>
</body></html>
`;
}
