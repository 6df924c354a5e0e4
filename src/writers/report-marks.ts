/**
 * The checkpoint marks of report.html: how `eos_ok` is drawn (MANIFEST.md
 * `eos_ok`: true, false, or null = unknown, never read as broken), and the
 * attributes that make a mark Vega drew a focusable checkpoint with its
 * tooltip, model id, hour_source and eos state.
 */
import type { Row } from "../schema.js";
import { checkpointTooltip } from "./checkpoint-tooltip.js";

/** The three `eos_ok` states a mark shows. */
export type EosState = "ok" | "broken" | "unknown";

/** `eos_ok` of a row as a mark's state: true → ok, false → broken, null → unknown. */
export function eosState(row: Row): EosState {
  return row.eos_ok === null ? "unknown" : row.eos_ok ? "ok" : "broken";
}

/**
 * The symbol of each `eos_ok` state, as SVG paths in a 2×2 box around the
 * origin (Vega's custom symbol shapes, and the page's legend): ok a filled
 * disc, broken a filled ✕, unknown a ring (a disc with a hole).
 */
export const EOS_SHAPES: Record<EosState, string> = {
  ok: "M-1,0A1,1,0,1,1,1,0A1,1,0,1,1,-1,0Z",
  broken: "M-1,-0.6L-0.6,-1L0,-0.4L0.6,-1L1,-0.6L0.4,0L1,0.6L0.6,1L0,0.4L-0.6,1L-1,0.6L-0.4,0Z",
  unknown: "M-1,0A1,1,0,1,1,1,0A1,1,0,1,1,-1,0ZM-0.5,0A0.5,0.5,0,1,0,0.5,0A0.5,0.5,0,1,0,-0.5,0Z",
};

/** The Vega-Lite encoding that shapes a mark by its datum's `eos` state ({@link EOS_SHAPES}), without a legend. */
export const eosShapeEncoding = () => ({
  field: "eos",
  type: "nominal" as const,
  legend: null,
  scale: { domain: Object.keys(EOS_SHAPES), range: Object.values(EOS_SHAPES) },
});

const attr = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/\n/g, "&#10;");

/** The description a spec gives the mark of row `index` of the build, which {@link markCheckpoints} replaces. */
export const markKey = (index: number): string => `ckpt:${index}`;

/**
 * Turns the marks Vega drew with the description {@link markKey}(i) into
 * checkpoint marks of `rows[i]`: its model id as the accessible name,
 * `class="ckpt"`, `data-model-id`, `data-hour-source`, `data-eos`
 * ({@link EosState}) and `data-tip` (the lines of {@link checkpointTooltip},
 * joined by line ends). `focusable` adds `tabindex="0"` (else `-1`: hover
 * and click only). Pure string rewriting of Vega's SVG; other marks are left
 * as they are.
 */
export function markCheckpoints(svg: string, rows: Row[], focusable: boolean): string {
  return svg.replace(/aria-label="ckpt:(\d+)"/g, (_m, i: string) => {
    const row = rows[Number(i)]!;
    return [
      `aria-label="${attr(row.model_id)}"`,
      `class="ckpt"`,
      `tabindex="${focusable ? 0 : -1}"`,
      `data-model-id="${attr(row.model_id)}"`,
      `data-hour-source="${attr(row.hour_source)}"`,
      `data-eos="${eosState(row)}"`,
      `data-tip="${attr(checkpointTooltip(row).join("\n"))}"`,
    ].join(" ");
  });
}

/** The description a spec gives the token curve of `cells[i]`, which {@link markCurves} replaces. */
export const curveKey = (index: number): string => `curve:${index}`;

/** Marks the token curves drawn with {@link curveKey}(i) with `class="curve"` and `data-cell` (cells[i]). */
export function markCurves(svg: string, cells: string[]): string {
  return svg.replace(/aria-label="curve:(\d+)"/g, (_m, i: string) => {
    const cell = attr(cells[Number(i)]!);
    return `aria-label="driver tokens of ${cell}" class="curve" data-cell="${cell}"`;
  });
}
