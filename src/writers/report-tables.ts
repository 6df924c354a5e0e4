/**
 * The tables of report.html besides the index card's: the build's warnings
 * grouped by code, and the checkpoints the manifest has no row for (lost,
 * and the excluded cells'). MANIFEST.md: build-report.json.
 */
import { where, type Warning } from "../diagnostics.js";
import type { BuildResult } from "../model.js";

const esc = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * An HTML table: `head` cells, then `rows` of cells (text, escaped here);
 * `attrs[i]`, when given, is added to row i's `<tr>` as is (already escaped).
 */
export function htmlTable(head: string[], rows: (string | number)[][], attrs: string[] = []): string {
  const th = head.map((h) => `<th>${esc(h)}</th>`).join("");
  const tr = rows
    .map((r, i) => `<tr${attrs[i] ? ` ${attrs[i]}` : ""}>${r.map((c) => `<td>${esc(String(c))}</td>`).join("")}</tr>`)
    .join("\n");
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${tr}\n</tbody></table>`;
}

/**
 * The warnings grouped by code: per code its count, the first warning's
 * `file:line` and message (the build's order), most frequent first, then by
 * code. Each `<tr>` carries `data-code` and `data-count`.
 */
export function warningsTable(warnings: Warning[]): string {
  if (warnings.length === 0) return "<p>No warnings.</p>";
  const groups = new Map<string, Warning[]>();
  for (const w of warnings) groups.set(w.code, [...(groups.get(w.code) ?? []), w]);
  const order = [...groups.entries()].sort(([a, wa], [b, wb]) => wb.length - wa.length || (a < b ? -1 : a > b ? 1 : 0));
  return htmlTable(
    ["code", "count", "first at", "first message"],
    order.map(([code, ws]) => [code, ws.length, where(ws[0]!.file, ws[0]!.line) || "-", ws[0]!.message]),
    order.map(([code, ws]) => `class="warning" data-code="${esc(code)}" data-count="${ws.length}"`),
  );
}

/**
 * The checkpoints with no row: every lost one (seen in some source, weights
 * survive nowhere) with where it was seen, and every excluded cell with its
 * reason. Each `<tr>` carries `data-kind` (`lost` or `excluded`).
 */
export function lostExcludedTable(result: Pick<BuildResult, "lost" | "excluded">): string {
  if (result.lost.length === 0 && result.excluded.length === 0) return "<p>None lost, none excluded.</p>";
  const rows: (string | number)[][] = [
    ...result.lost.map((l) => [
      "lost",
      l.cell,
      l.family,
      l.step,
      `seen in ${l.seen_in.join(", ")}; its weights survive nowhere (no row)`,
    ]),
    ...result.excluded.map((e) => ["excluded", e.cell, "-", "-", `whole cell excluded: ${e.reason}`]),
  ];
  return htmlTable(
    ["", "cell", "family", "step", "why"],
    rows,
    rows.map((r) => `data-kind="${r[0]}"`),
  );
}
