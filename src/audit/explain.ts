import type { BuildResult } from "../model.js";
import type { Warning } from "../diagnostics.js";
import { INCOMPLETE_READING_CODES } from "../extractors/trajectory/index.js";
import { InputError } from "../errors.js";
import { parseModelId } from "../manifest/model-id.js";
import { familyOfName } from "../resolve/family-names.js";
import type { RowEvidence, EvidenceItem } from "../resolve/resolve-cell.js";
import type { Row } from "../schema.js";
import { type DescribedBuild, describedResult } from "../pipeline/last-build.js";
import { DEFAULT_TOLERANCE_H } from "../resolve/cadence.js";

/** What `explain` shows for one row, as `--json` prints it. */
export interface Explanation {
  query: string;
  row: Row;
  provenance: RowEvidence | BuildResult["provenance"][number];
  run: BuildResult["runs"][string] | null;
  /** Which build this explains: the last one written into `--out`, or one derived now (set by the command). */
  build?: DescribedBuild;
  /**
   * When the row has an hour but null driver tokens: the build's warnings of its cell that make
   * tokens unknown (codes in {@link TOKENS_UNKNOWN}); absent otherwise.
   */
  tokensUnknownBecause?: Warning[];
  /**
   * When the row's repo gives no stop ids (`eos_ok` null with a repo to read): the build's
   * `HUB_NO_EOS` warning of that repo, which says why (an unreadable or broken file, ids that are
   * not token ids, no file giving them); absent otherwise.
   */
  eosUnknownBecause?: Warning[];
}

/** The warnings after which a cell's driver tokens (or some of them) are null: an incomplete reading, no call, the coverage. */
const TOKENS_UNKNOWN = new Set<string>([
  ...INCOMPLETE_READING_CODES,
  "TRAJECTORY_NO_FILES",
  "TRAJECTORY_NO_CALLS",
  "TRAJECTORY_NO_CALLS_IN_RUN",
  "TRAJECTORY_GAP_BEFORE_CHECKPOINT",
  "TRAJECTORY_ENDS_BEFORE_CHECKPOINT",
]);

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
    } else if (slash.length === 2) {
      const p = parseModelId(id, cells, result.registry.org);
      if (p) key = { cell: p.cell, family: p.family, step: p.step };
    }
    if (key) {
      // A directory name or an earlier name of a family (family_aliases) names that family.
      const cell = result.registry.cells.find((c) => c.cell === key!.cell);
      if (cell)
        key.family = familyOfName(
          cell,
          key.family,
          new Set(result.rows.filter((r) => r.cell === cell.cell).map((r) => r.family!)),
        );
      index = result.rows.findIndex((r) => r.cell === key!.cell && r.family === key!.family && r.step === key!.step);
    }
    // A repo named with a family's earlier name (family_aliases): the row the build matched it to.
    if (index < 0)
      index = result.provenance.findIndex(
        (p) =>
          "evidence" in p &&
          p.evidence.some((e) => (e.kind === "published_repo" || e.kind === "spare_repo") && e.raw === id),
      );
  }
  if (index < 0) {
    const excluded = result.excluded.find((e) => id.includes(`/${e.cell}.`) || id.startsWith(`${e.cell}/`));
    const lost = result.lost.find((l) => id === `${l.cell}/${l.family}/${l.step}`);
    const hint = excluded
      ? ` (cell "${excluded.cell}" is excluded: ${excluded.reason})`
      : lost
        ? ` (lost: seen in ${lost.seen_in.join(", ")}, but its weights survive nowhere)`
        : "";
    throw new InputError(
      "EXPLAIN_NOT_FOUND",
      `no row for ${JSON.stringify(id)}${hint}; give a model id or cell/family/step`,
      null,
    );
  }
  return { row: result.rows[index]!, index };
}

/** Builds the explanation of one row from a build result. */
export function explainRow(result: BuildResult, id: string): Explanation {
  const { row, index } = findRow(result, id);
  const x: Explanation = { query: id, row, provenance: result.provenance[index]!, run: result.runs[row.cell] ?? null };
  if (row.hour !== null && row.driver_tokens_at_hour === null) {
    const prefix = `${row.cell}/trajectory`;
    x.tokensUnknownBecause = result.warnings.filter(
      (w) => TOKENS_UNKNOWN.has(w.code) && (w.file === prefix || w.file?.startsWith(`${prefix}/`)),
    );
  }
  const eos = x.provenance.eos;
  if (eos.repo && eos.ids === null)
    x.eosUnknownBecause = result.warnings.filter(
      (w) => w.code === "HUB_NO_EOS" && w.message.startsWith(`${eos.repo}: `),
    );
  return x;
}

/** The explanation's words for where the stop ids were read, or why none were. */
function eosFrom(x: Explanation): string {
  const eos = x.provenance.eos;
  if (eos.from !== null) return eos.from;
  const why = x.eosUnknownBecause?.[0];
  return why ? `unknown (${why.code}: ${why.message})` : "no file gives eos_token_id";
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
  if (x.build) lines.push(x.build.line, ...optionNotes(x.build), "");
  lines.push(row.model_id);
  if (x.query !== row.model_id) lines.push(`  (asked as ${x.query})`);
  lines.push(
    `  cell ${row.cell}${row.driver ? ` (${row.driver}, ${row.effort})` : ""}   family ${row.family ?? "-"}   step ${row.step ?? "-"}`,
  );
  lines.push(`  hour ${fmtH(row.hour)}   hour_source ${row.hour_source}   role ${row.role}`);
  if (row.hour_lower_bound !== null || row.hour_upper_bound !== null)
    lines.push(`  bounds [${fmtH(row.hour_lower_bound)}, ${fmtH(row.hour_upper_bound)}]`);
  if (row.hour_error_h !== null) lines.push(`  hour_error_h ±${row.hour_error_h}`);
  lines.push(
    `  driver_tokens_at_hour ${row.driver_tokens_at_hour ?? "null"}   eos_ok ${row.eos_ok}   eos_token_id ${JSON.stringify(row.eos_token_id)}`,
  );
  lines.push(`  source ${row.source}`);
  const p = x.provenance;
  lines.push("", `Rule: ${p.rule}`);
  if (!("evidence" in p)) {
    lines.push(`eos read from ${p.eos.repo}: ${eosFrom(x)}; chat template in ${p.eos.chatTemplate ?? "none"}`);
    return `${lines.join("\n")}\n`;
  }
  if (x.run) {
    lines.push(
      `Run: run_start ${x.run.run_start}, end ${x.run.run_end} (${x.run.run_end_from}); budget hours exclude paused time.`,
    );
  }
  if (p.write_time)
    lines.push(
      `Write time: ${p.write_time} = budget hour ${fmtH(row.hour)} → h${row.model_id.match(/\.h(\d{3}|NA)\./)?.[1] ?? "?"}`,
    );
  lines.push("", `Evidence considered (${p.evidence.length}):`);
  for (const e of p.evidence) lines.push(...evidenceLine(e));
  if (p.fit) {
    const f = p.fit;
    lines.push(
      "",
      `Cadence fit of family ${f.family}: ${(f.slopeHPerStep * 60).toFixed(3)} min/step, hour(step 0) ${f.interceptH.toFixed(2)}`,
    );
    lines.push(
      `  points used (steps): ${f.used.join(", ") || "none"}; outliers rejected: ${f.outliers.join(", ") || "none"}`,
    );
    lines.push(
      `  leave-one-out error: max ${fmtH(f.looMaxH)} h, p95 ${fmtH(Number.isFinite(f.looP95H) ? f.looP95H : null)} h`,
    );
    for (const a of f.anchors)
      lines.push(
        `  anchor step ${a.step}: anchor h ${a.anchorHour.toFixed(2)}, predicted h ${a.predictedHour.toFixed(2)}, residual ${a.residualH.toFixed(2)} h`,
      );
    lines.push(`  ${f.validated ? "VALIDATED" : "NOT VALIDATED"}: ${f.reason}`);
  }
  if (p.bounds) {
    const b = p.bounds;
    lines.push("", "Bounds from step order (exactly timed checkpoints of the same family):");
    lines.push(
      `  lower ${fmtH(b.lower)}${b.lowerFrom !== null ? ` (step ${b.lowerFrom}, the latest exactly timed lower step)` : " (no exactly timed lower step)"}`,
    );
    lines.push(
      `  upper ${fmtH(b.upper)}${b.upperFrom !== null ? ` (step ${b.upperFrom}, the earliest exactly timed higher step)` : " (no exactly timed higher step)"}`,
    );
  }
  if (p.tokens) {
    const t = p.tokens;
    lines.push(
      "",
      `Driver tokens at ${t.at} (calls from run_start up to it): ${t.total} = uncached ${t.uncachedInput} + cache read ${t.cacheRead} + cache write ${t.cacheWrite} + output ${t.output}, ${t.calls} calls, last ${t.lastCallTime ?? "none"}`,
    );
    for (const c of t.callsAround)
      lines.push(
        `  ${c.counted ? "counted " : "after   "} ${c.time}  +${c.total}  (cumulative ${c.cumulativeTotal})  ${c.file}:${c.line}`,
      );
  } else if (p.write_time === null) lines.push("", "Driver tokens: null (no hour)");
  else if (x.tokensUnknownBecause?.length) {
    lines.push("", "Driver tokens: null (unknown), after the build's warning(s) on the cell's trajectory:");
    for (const w of x.tokensUnknownBecause)
      lines.push(`  ${w.code}${w.file ? ` at ${w.file}${w.line !== null ? `:${w.line}` : ""}` : ""}: ${w.message}`);
  } else {
    lines.push(
      "",
      "Driver tokens: null (unknown: no model call of the cell's trajectory is placed in the run, or a session file could not be read, or the logs end more than 1 budget hour before the write time, or miss more than 1 budget hour of calls before it; see the build's TRAJECTORY_* warnings)",
    );
  }
  lines.push(
    "",
    `Role: ${p.role.role}${p.role.event ? ` from ${p.role.event.file}:${p.role.event.line}: ${p.role.event.raw}` : " (no submit or fallback event names it)"}`,
  );
  lines.push(
    p.eos.repo
      ? `eos: read from ${p.eos.repo}, ${eosFrom(x)}: ${JSON.stringify(p.eos.ids)}; chat template in ${p.eos.chatTemplate ?? "none"}`
      : "eos: no published repo yet (eos_ok null)",
  );
  return `${lines.join("\n")}\n`;
}

/** The notes under the "which build" line: options given that the build in `--out` did not use. */
export function optionNotes(build: DescribedBuild): string[] {
  return build.notes.map((n) => `  note: ${n}`);
}

/**
 * Options of `explain` and `validate` that shape a derivation, checked
 * against the build found in `--out`: one that was given and differs from
 * what that build recorded is reported (it does not change that build's decisions).
 */
export function ignoredOptions(
  build: DescribedBuild,
  given: { flag: string; key: string; value: number; fallback: number }[],
): string[] {
  if (!build.found) return [];
  return given
    .filter((g) => g.value !== (typeof build.arguments[g.key] === "number" ? build.arguments[g.key] : g.fallback))
    .map(
      (g) =>
        `${g.flag} ${g.value} does not apply: the build in ${build.out}/ decided with ${g.flag} ${String(build.arguments[g.key] ?? g.fallback)} (rebuild with ${g.flag} ${g.value}, or give --out a folder without a build to derive now)`,
    );
}

/**
 * {@link describedResult} for the options of `explain` and `validate`
 * (`--out`, `--sources`, `--tolerance-h`, `--outlier-floor-h`; hours):
 * `--sources` counts as given only when typed on the command line, and a
 * missing `--tolerance-h` derives with the default 1.5 h (the build read
 * back is MANIFEST.md: build-report.json). Throws what
 * {@link describedResult} throws.
 */
export function describedResultOf(
  o: { out: string; sources: string; toleranceH?: number; outlierFloorH: number },
  command: { getOptionValueSource(key: string): string | undefined },
): ReturnType<typeof describedResult> {
  return describedResult({
    out: o.out,
    sources: o.sources,
    sourcesGiven: command.getOptionValueSource("sources") === "cli",
    toleranceH: o.toleranceH ?? DEFAULT_TOLERANCE_H,
    outlierFloorH: o.outlierFloorH,
  });
}
