/**
 * The sweep overview at the top of report.html: every plotted cell's
 * cumulative driver-token curve on one shared axis, and each cell's timed
 * checkpoints over the budget hours.
 */
import type { TopLevelSpec } from "vega-lite";
import type { Row } from "../schema.js";
import { hourSourceColour, vegaNameList } from "./report-cell-chart.js";
import { curveKey, eosShapeEncoding, eosState, markKey } from "./report-marks.js";

/** One plotted cell of the overview: its name, token curve (`[hour, tokens]`, empty when unknown) and rows with their index in the build. */
export interface OverviewCell {
  cell: string;
  curve: [number, number][];
  entries: { row: Row; index: number }[];
}

/**
 * The Vega-Lite spec of the overview (MANIFEST.md `driver_tokens_at_hour`,
 * `hour`): on top, one line per cell with a known curve (driver tokens
 * against budget hour, one y axis for all, coloured per cell and described
 * by {@link curveKey} of its position in `cells`); under it, one lane per
 * cell with a mark per timed checkpoint, coloured by `hour_source`, shaped
 * by `eos_ok` as in the cell charts, and
 * described by {@link markKey} of its row index (untimed rows have no hour
 * to place here; the cell charts draw their intervals). Hours 0 to at least 100.
 */
export function overviewSpec(cells: OverviewCell[]): { spec: TopLevelSpec; curves: number; ticks: number } {
  const maxHour = Math.max(
    100,
    ...cells.flatMap((c) => [
      ...c.curve.map(([h]) => Math.ceil(h)),
      ...c.entries.map((e) => Math.ceil(e.row.hour ?? 0)),
    ]),
  );
  const names = cells.map((c) => c.cell);
  const points = cells.flatMap((c, i) =>
    c.curve.map(([hour, tokens]) => ({ hour, tokens, c: String(i), key: curveKey(i) })),
  );
  const ticks = cells.flatMap((c, i) =>
    c.entries
      .filter((e) => e.row.hour !== null)
      .map((e) => ({
        hour: e.row.hour,
        lane: i,
        hour_source: e.row.hour_source,
        eos: eosState(e.row),
        key: markKey(e.index),
      })),
  );
  const x = { type: "quantitative" as const, scale: { domain: [0, maxHour], nice: false }, title: "budget hour" };
  // Cells by index, labelled by name (no list of cell names in a scale: see cellChartSpec).
  const label = `${vegaNameList(names)}[datum.value]`;
  const spec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    config: { font: "sans-serif", view: { stroke: "#ddd" } },
    vconcat: [
      {
        width: 680,
        height: 220,
        data: { values: points },
        mark: { type: "line", interpolate: "step-after", strokeWidth: 1.6 },
        encoding: {
          x: { field: "hour", ...x },
          y: { field: "tokens", type: "quantitative", title: "cumulative driver tokens", axis: { format: "~s" } },
          color: {
            field: "c",
            type: "nominal",
            title: "cell",
            scale: { domain: names.map((_n, i) => String(i)), scheme: "tableau10" },
            legend: { labelExpr: `${vegaNameList(names)}[+datum.value]` },
          },
          description: { field: "key" },
        },
      },
      {
        width: 680,
        height: cells.length * 22,
        data: { values: ticks },
        mark: { type: "point", filled: true, size: 34, opacity: 0.9 },
        encoding: {
          x: { field: "hour", ...x },
          y: {
            field: "lane",
            type: "quantitative",
            title: "checkpoints per cell",
            scale: { domain: [-0.5, cells.length - 0.5], reverse: true, nice: false, zero: false },
            axis: { values: names.map((_n, i) => i), labelExpr: label, grid: false },
          },
          fill: hourSourceColour(),
          shape: eosShapeEncoding(),
          description: { field: "key" },
        },
      },
    ],
    resolve: { scale: { color: "independent" } },
  } as TopLevelSpec;
  return { spec, curves: cells.filter((c) => c.curve.length > 0).length, ticks: ticks.length };
}
