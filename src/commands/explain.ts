import { resolve } from "node:path";
import type { Command } from "commander";
import { buildManifest, type BuildResult } from "../build.js";
import { InputError } from "../diagnostics.js";
import { parsePublishedName } from "../extractors/hub-files.js";
import type { RowEvidence, EvidenceItem } from "../resolve/resolve-cell.js";
import type { Row } from "../schema.js";

/** What `explain` shows for one row, as `--json` prints it. */
export interface Explanation {
  query: string;
  row: Row;
  provenance: RowEvidence | BuildResult["provenance"][number];
  run: BuildResult["runs"][string] | null;
}

/**
 * Finds the row an ID names: a model id (current, or a stale or `hNA` one as
 * published on the Hub), or `cell/family/step`.
 *
 * @throws InputError `EXPLAIN_NOT_FOUND` naming the id.
 */
export function findRow(result: BuildResult, id: string): { row: Row; index: number } {
  let index = result.rows.findIndex((r) => r.model_id === id);
  if (index < 0) {
    const cells = result.registry.cells.map((c) => c.cell);
    let key: { cell: string; family: string; step: number } | null = null;
    const slash = id.split("/");
    if (slash.length === 3 && /^\d+$/.test(slash[2]!)) {
      key = { cell: slash[0]!, family: slash[1]!, step: Number(slash[2]) };
    } else if (slash.length === 2 && slash[0] === result.registry.org) {
      const p = parsePublishedName(slash[1]!, cells);
      if (p) key = { cell: p.cell, family: p.family, step: p.step };
    }
    if (key) index = result.rows.findIndex((r) => r.cell === key.cell && r.family === key.family && r.step === key.step);
  }
  if (index < 0) {
    const excluded = result.excluded.find((e) => id.includes(`/${e.cell}.`) || id.startsWith(`${e.cell}/`));
    const lost = result.lost.find((l) => id === `${l.cell}/${l.family}/${l.step}`);
    const hint = excluded
      ? ` (cell "${excluded.cell}" is excluded: ${excluded.reason})`
      : lost
        ? ` (lost: seen in ${lost.seen_in.join(", ")}, but its weights survive nowhere)`
        : "";
    throw new InputError("EXPLAIN_NOT_FOUND", `no row for ${JSON.stringify(id)}${hint}; give a model id or cell/family/step`, null);
  }
  return { row: result.rows[index]!, index };
}

/** Builds the explanation of one row from a build result. */
export function explainRow(result: BuildResult, id: string): Explanation {
  const { row, index } = findRow(result, id);
  return { query: id, row, provenance: result.provenance[index]!, run: result.runs[row.cell] ?? null };
}

const fmtH = (h: number | null) => (h === null ? "null" : h.toFixed(2));

function evidenceLine(e: EvidenceItem): string[] {
  const mark = e.used ? "USED" : e.rejected ? "set aside" : "    ";
  const at = e.line !== null ? `${e.file}:${e.line}` : e.file;
  const time = e.utc ? `  ${e.utc}  (budget h ${fmtH(e.budgetHour)})` : "";
  const out = [`  [${mark}] ${e.kind.padEnd(15)} ${at}${time}`];
  out.push(`           raw: ${e.raw.length > 200 ? `${e.raw.slice(0, 200)}…` : e.raw}`);
  if (e.timeNote) out.push(`           time: ${e.timeNote}`);
  out.push(`           ${e.used ? "why" : e.rejected ? "why not" : "role"}: ${e.why}`);
  return out;
}

/** Renders an explanation as text: enough to answer "why is this checkpoint at h042?". */
export function renderExplanation(x: Explanation): string {
  const { row } = x;
  const lines: string[] = [];
  lines.push(row.model_id);
  if (x.query !== row.model_id) lines.push(`  (asked as ${x.query})`);
  lines.push(`  cell ${row.cell}${row.driver ? ` (${row.driver}, ${row.effort})` : ""}   family ${row.family ?? "-"}   step ${row.step ?? "-"}`);
  lines.push(`  hour ${fmtH(row.hour)}   hour_source ${row.hour_source}   role ${row.role}`);
  if (row.hour_lower_bound !== null || row.hour_upper_bound !== null) lines.push(`  bounds [${fmtH(row.hour_lower_bound)}, ${fmtH(row.hour_upper_bound)}]`);
  if (row.hour_error_h !== null) lines.push(`  hour_error_h ±${row.hour_error_h}`);
  lines.push(`  driver_tokens_at_hour ${row.driver_tokens_at_hour ?? "null"}   eos_ok ${row.eos_ok}   eos_token_id ${JSON.stringify(row.eos_token_id)}`);
  lines.push(`  source ${row.source}`);
  const p = x.provenance;
  lines.push("", `Rule: ${p.rule}`);
  if (!("evidence" in p)) {
    lines.push(`eos read from ${p.eos.repo}: ${p.eos.from ?? "no file gives eos_token_id"}; chat template in ${p.eos.chatTemplate ?? "none"}`);
    return `${lines.join("\n")}\n`;
  }
  if (x.run) {
    lines.push(`Run: run_start ${x.run.run_start}, end ${x.run.run_end} (${x.run.run_end_from}); budget hours exclude paused time.`);
  }
  if (p.write_time) lines.push(`Write time: ${p.write_time} = budget hour ${fmtH(row.hour)} → h${row.model_id.match(/\.h(\d{3}|NA)\./)?.[1] ?? "?"}`);
  lines.push("", `Evidence considered (${p.evidence.length}):`);
  for (const e of p.evidence) lines.push(...evidenceLine(e));
  if (p.fit) {
    const f = p.fit;
    lines.push("", `Cadence fit of family ${f.family}: ${(f.slopeHPerStep * 60).toFixed(3)} min/step, hour(step 0) ${f.interceptH.toFixed(2)}`);
    lines.push(`  points used (steps): ${f.used.join(", ") || "none"}; outliers rejected: ${f.outliers.join(", ") || "none"}`);
    lines.push(`  leave-one-out error: max ${fmtH(f.looMaxH)} h, p95 ${fmtH(Number.isFinite(f.looP95H) ? f.looP95H : null)} h`);
    for (const a of f.anchors) lines.push(`  anchor step ${a.step}: anchor h ${a.anchorHour.toFixed(2)}, predicted h ${a.predictedHour.toFixed(2)}, residual ${a.residualH.toFixed(2)} h`);
    lines.push(`  ${f.validated ? "VALIDATED" : "NOT VALIDATED"}: ${f.reason}`);
  }
  if (p.bounds) {
    const b = p.bounds;
    lines.push("", "Bounds from step order (exactly timed checkpoints of the same family):");
    lines.push(`  lower ${fmtH(b.lower)}${b.lowerFrom !== null ? ` (step ${b.lowerFrom}, the latest exactly timed lower step)` : " (no exactly timed lower step)"}`);
    lines.push(`  upper ${fmtH(b.upper)}${b.upperFrom !== null ? ` (step ${b.upperFrom}, the earliest exactly timed higher step)` : " (no exactly timed higher step)"}`);
  }
  if (p.tokens) {
    const t = p.tokens;
    lines.push("", `Driver tokens at ${t.at} (calls from run_start up to it): ${t.total} = uncached ${t.uncachedInput} + cache read ${t.cacheRead} + cache write ${t.cacheWrite} + output ${t.output}, ${t.calls} calls, last ${t.lastCallTime ?? "none"}`);
    for (const c of t.callsAround) lines.push(`  ${c.counted ? "counted " : "after   "} ${c.time}  +${c.total}  (cumulative ${c.cumulativeTotal})  ${c.file}:${c.line}`);
  } else {
    lines.push("", p.write_time === null ? "Driver tokens: null (no hour)" : "Driver tokens: null (the cell's session files could not all be read: TRAJECTORY_READ_ERROR)");
  }
  lines.push("", `Role: ${p.role.role}${p.role.event ? ` from ${p.role.event.file}:${p.role.event.line}: ${p.role.event.raw}` : " (no submit or fallback event names it)"}`);
  lines.push(
    p.eos.repo
      ? `eos: read from ${p.eos.repo}, ${p.eos.from ?? "no file gives eos_token_id"}: ${JSON.stringify(p.eos.ids)}; chat template in ${p.eos.chatTemplate ?? "none"}`
      : "eos: no published repo yet (eos_ok null)",
  );
  return `${lines.join("\n")}\n`;
}

/** Registers `ptb-manifest explain`. */
export function registerExplain(program: Command): void {
  program
    .command("explain")
    .description("Explain one row: every observation considered, the rule that chose its hour, why the others lost, fit, bounds, tokens, role, eos.")
    .argument("<id>", "a model id (also a stale or hNA id as published on the Hub), or cell/family/step")
    .option("--sources <dir>", "the sources folder to read", "sources")
    .option("--json", "print one JSON object {query, row, provenance, run}", false)
    .action(async (id: string, o: { sources: string; json: boolean }) => {
      const result = await buildManifest({ sourcesDir: resolve(o.sources) });
      const x = explainRow(result, id);
      process.stdout.write(o.json ? `${JSON.stringify(x, null, 2)}\n` : renderExplanation(x));
    });
}
