/**
 * The chart of one cell in report.html: its checkpoints on the budget-hour
 * axis, one lane per family, over its cumulative driver-token curve.
 */
import type { TopLevelSpec } from "vega-lite";
import type { Row } from "../schema.js";
import { EOS_SHAPES, eosShapeEncoding, eosState, markKey } from "./report-marks.js";

/** Colours of the hour sources, fixed so every chart and the legend agree. */
export const HOUR_SOURCE_COLOURS: Record<string, string> = {
  mtime: "#1b9e77",
  janitor: "#7570b3",
  extrapolated: "#d95f02",
  unrecoverable: "#999999",
};

/** The Vega-Lite encoding that colours a mark by its datum's `hour_source` ({@link HOUR_SOURCE_COLOURS}), without a legend. */
export const hourSourceColour = () => ({
  field: "hour_source",
  type: "nominal" as const,
  legend: null,
  scale: { domain: Object.keys(HOUR_SOURCE_COLOURS), range: Object.values(HOUR_SOURCE_COLOURS) },
});

/** What a cell's chart draws, counted so a test can check the rendered page. */
export interface CellChartCounts {
  /** Checkpoint marks: one per row (timed at its hour, untimed on its interval). */
  checkpoints: number;
  /** Interval lines of unrecoverable rows (one per row, dashed toward an open side). */
  intervals: number;
  /** Arrowheads at the axis edge, one per open side of an unrecoverable row's interval. */
  openEnds: number;
  /** Error bars of extrapolated rows. */
  errorBars: number;
  /** SUBMITTED and fallback markers. */
  roles: number;
}

/**
 * A Vega expression for the list `names` (a lane's label is `LIST[datum.value]`).
 * Each name is spelt one character per string literal joined by `+`: Vega fails
 * ("Operator not defined") on an expression holding a string literal such as
 * "constructor", and a cell or family may be named that.
 */
export function vegaNameList(names: string[]): string {
  const lit = (s: string): string => (s.length === 0 ? '""' : [...s].map((ch) => JSON.stringify(ch)).join("+"));
  return `[${names.map(lit).join(",")}]`;
}

/** The y position of each row: its family's lane, untimed rows of a lane spread apart (steps in order) so none hides another. */
function lanes(rows: Row[]): { families: string[]; y: Map<Row, number> } {
  const families = [...new Set(rows.map((r) => r.family!))].sort();
  const y = new Map<Row, number>();
  for (const [lane, family] of families.entries()) {
    const mine = rows.filter((r) => r.family === family);
    for (const r of mine) if (r.hour !== null) y.set(r, lane);
    const untimed = mine.filter((r) => r.hour === null).sort((a, b) => (a.step ?? 0) - (b.step ?? 0));
    const gap = untimed.length > 1 ? Math.min(0.2, 0.6 / (untimed.length - 1)) : 0;
    for (const [j, r] of untimed.entries()) y.set(r, lane + (j - (untimed.length - 1) / 2) * gap);
  }
  return { families, y };
}

/**
 * Where an unrecoverable row is drawn (MANIFEST.md `hour_lower_bound`,
 * `hour_upper_bound`: null = no bound on that side): its interval, an open
 * side running to the axis edge (`0` or `maxHour`) and flagged open; its mark
 * in the middle of a closed interval, else at its one known bound, else in
 * the middle of the axis.
 */
export function untimedPlacement(
  row: Row,
  maxHour: number,
): { lo: number; hi: number; loOpen: boolean; hiOpen: boolean; at: number } {
  const l = row.hour_lower_bound;
  const u = row.hour_upper_bound;
  const at = l !== null && u !== null ? (l + u) / 2 : (u ?? l ?? maxHour / 2);
  return { lo: l ?? 0, hi: u ?? maxHour, loOpen: l === null, hiOpen: u === null, at };
}

/** The layers of the checkpoints lane chart (x and y shared encodings given). */
function laneLayers(
  entries: { row: Row; index: number }[],
  y: Map<Row, number>,
  maxHour: number,
  x: object,
  yEnc: object,
): { layer: object[]; counts: CellChartCounts } {
  const untimed = entries
    .filter((e) => e.row.hour === null)
    .map((e) => ({ ...untimedPlacement(e.row, maxHour), lane: y.get(e.row)!, hour_source: e.row.hour_source }));
  const intervals = untimed.map((u) => ({ ...u, open: u.loOpen || u.hiOpen ? "open" : "closed" }));
  const openEnds = untimed.flatMap((u) => [
    ...(u.loOpen ? [{ x: 0, lane: u.lane, dir: "left" }] : []),
    ...(u.hiOpen ? [{ x: maxHour, lane: u.lane, dir: "right" }] : []),
  ]);
  const errorBars = entries
    .filter((e) => e.row.hour_source === "extrapolated" && e.row.hour !== null && e.row.hour_error_h !== null)
    .map(({ row: r }) => ({
      lane: y.get(r)!,
      hour_source: r.hour_source,
      lo: Math.max(0, r.hour! - r.hour_error_h!),
      hi: Math.min(maxHour, r.hour! + r.hour_error_h!),
    }));
  const marks = entries.map(({ row: r, index }) => ({
    key: markKey(index),
    x: r.hour ?? untimedPlacement(r, maxHour).at,
    lane: y.get(r)!,
    hour_source: r.hour_source,
    eos: eosState(r),
  }));
  const roles = entries.flatMap(({ row: r }, i) =>
    r.role === "SUBMITTED" || r.role === "fallback" ? [{ x: marks[i]!.x, lane: marks[i]!.lane, role: r.role }] : [],
  );
  const layer = [
    ...(["closed", "open"] as const).map((kind) => ({
      data: { values: intervals.filter((i) => i.open === kind) },
      mark: {
        type: "rule",
        strokeCap: "butt",
        opacity: 0.7,
        strokeWidth: kind === "closed" ? 5 : 1.5,
        strokeDash: kind === "closed" ? [1, 0] : [4, 3],
        description: kind === "closed" ? "interval" : "open interval",
      },
      encoding: { x: { field: "lo", ...x }, x2: { field: "hi" }, ...yEnc, color: hourSourceColour() },
    })),
    ...(["left", "right"] as const).map((dir) => ({
      data: { values: openEnds.filter((o) => o.dir === dir) },
      mark: {
        type: "point",
        filled: true,
        size: 60,
        shape: `triangle-${dir}`,
        color: HOUR_SOURCE_COLOURS.unrecoverable,
        description: "open end",
      },
      encoding: { x: { field: "x", ...x }, ...yEnc },
    })),
    {
      data: { values: errorBars },
      mark: { type: "rule", strokeWidth: 2, description: "error bar" },
      encoding: { x: { field: "lo", ...x }, x2: { field: "hi" }, ...yEnc, color: hourSourceColour() },
    },
    {
      data: { values: marks },
      mark: { type: "point", filled: true, size: 70, opacity: 0.95, stroke: "#fff", strokeWidth: 0.6 },
      encoding: {
        x: { field: "x", ...x },
        ...yEnc,
        fill: hourSourceColour(),
        shape: eosShapeEncoding(),
        description: { field: "key" },
      },
    },
    {
      data: { values: roles },
      mark: {
        type: "point",
        shape: "diamond",
        size: 300,
        filled: false,
        strokeWidth: 2,
        description: "submitted or fallback",
      },
      encoding: {
        x: { field: "x", ...x },
        ...yEnc,
        stroke: {
          field: "role",
          type: "nominal",
          legend: null,
          scale: { domain: ["SUBMITTED", "fallback"], range: ["#e7298a", "#e6ab02"] },
        },
      },
    },
  ];
  return {
    layer,
    counts: {
      checkpoints: marks.length,
      intervals: intervals.length,
      openEnds: openEnds.length,
      errorBars: errorBars.length,
      roles: roles.length,
    },
  };
}

/**
 * The Vega-Lite spec of one cell: its checkpoints on the budget-hour axis
 * (0 to at least 100), one lane per family; each row one mark coloured by
 * `hour_source` and shaped by `eos_ok` ({@link EOS_SHAPES}), described by
 * {@link markKey} of its index in the build's rows; an unrecoverable row's
 * interval drawn only over what its bounds support (an open side dashed to
 * the axis edge, with an arrowhead there: never a bar from hour 0);
 * extrapolated rows with their error bar; SUBMITTED and fallback marked.
 * Under it, the cumulative driver-token curve on the same axis.
 */
export function cellChartSpec(
  entries: { row: Row; index: number }[],
  curve: [number, number][],
  runHours: number,
): { spec: TopLevelSpec; counts: CellChartCounts } {
  const rows = entries.map((e) => e.row);
  const maxHour = Math.max(100, Math.ceil(runHours), ...rows.map((r) => Math.ceil(r.hour ?? 0)));
  const { families, y } = lanes(rows);
  const x = { type: "quantitative" as const, scale: { domain: [0, maxHour], nice: false }, title: "budget hour" };
  // Lanes by index, labelled by name: no list of family names in a scale (Vega mishandles one named "constructor").
  const yEnc = {
    y: {
      field: "lane",
      type: "quantitative" as const,
      title: "family",
      scale: { domain: [-0.5, families.length - 0.5], reverse: true, nice: false, zero: false },
      axis: {
        values: families.map((_f, i) => i),
        labelExpr: `${vegaNameList(families)}[datum.value]`,
        grid: false,
        tickCount: families.length,
      },
    },
  };
  const { layer, counts } = laneLayers(entries, y, maxHour, x, yEnc);
  const spec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    config: { font: "sans-serif", view: { stroke: "#ddd" } },
    vconcat: [
      { width: 680, height: Math.max(60, families.length * 30), layer },
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
  } as TopLevelSpec;
  return { spec, counts };
}
