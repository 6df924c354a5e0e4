import { readFile } from "node:fs/promises";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { InputError } from "../errors.js";
import type { Row } from "../schema.js";
import { orgOfRows, parseModelId } from "../manifest/model-id.js";
import { cmpStr } from "../util/values.js";

import { fsReason } from "../util/fs-errors.js";
import { escapeCsvText } from "../writers/manifest.js";

/** One eval result: a model's score on a suite. */
export interface Score {
  model_id: string;
  suite: string;
  score: number;
  /** Where it was read, `file:line`. */
  at: string;
}

/** One checkpoint's cost figure on one suite (index-card.md: Cost per point of gain). */
interface CostRow {
  model_id: string;
  /** The id the scores file used, when it differs (a stale or hNA Hub id). */
  scored_as: string | null;
  cell: string;
  role: string;
  hour: number | null;
  suite: string;
  score: number;
  baseline_score: number;
  gain: number;
  driver_tokens_at_hour: number | null;
  /** `driver_tokens_at_hour / gain`; null when the gain is not positive or the tokens are unknown. */
  cost_per_point: number | null;
  eos_ok: boolean | null;
  /** Why `cost_per_point` is null, or why the row is only listed. */
  note: string | null;
}

/** The whole `cost` result, as `--json` prints it. */
export interface CostReport {
  suites: { suite: string; baseline_score: number }[];
  rows: CostRow[];
  /** Rows left out of the figures because their packaging is broken (eos_ok false or null). */
  excluded: (CostRow & { reason: string })[];
  /** Scores whose model id matches no row. */
  unmatched: { model_id: string; suite: string; at: string }[];
}

/** The CSV header's column names, each once: a column named twice would be read from its last copy, in silence. */
function headerOnce(header: string[]): string[] {
  const twice = header.find((name, i) => header.indexOf(name) !== i);
  if (twice !== undefined) throw Object.assign(new Error(`the header names the column "${twice}" twice`), { lines: 1 });
  return header;
}

/**
 * Reads a scores file: CSV with a header (`model_id,suite,score`) or JSONL
 * (`{"model_id","suite","score"}` a line).
 *
 * @throws InputError `COST_BAD_SCORES` naming the file and line (a missing
 *   column, a column named twice, a score that is not a finite number, a
 *   line that is not JSON),
 *   `COST_DUPLICATE_SCORE` (one model scored twice on one suite).
 */
export async function readScores(path: string): Promise<Score[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new InputError("COST_BAD_SCORES", `cannot read the scores file ${path}: ${fsReason(err)}`, path);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const records: { rec: Record<string, unknown>; line: number }[] = [];
  if (path.endsWith(".jsonl") || path.endsWith(".ndjson") || text.trimStart().startsWith("{")) {
    text.split(/\r?\n/).forEach((l, i) => {
      if (l.trim() === "") return;
      try {
        records.push({ rec: JSON.parse(l) as Record<string, unknown>, line: i + 1 });
      } catch {
        throw new InputError("COST_BAD_SCORES", `line ${i + 1} is not JSON`, path, i + 1);
      }
    });
  } else {
    let rows: { record: Record<string, string>; info: { lines: number } }[];
    try {
      rows = parse(text, { columns: headerOnce, skip_empty_lines: true, info: true }) as typeof rows;
    } catch (err) {
      const e = err as Error & { lines?: number };
      throw new InputError(
        "COST_BAD_SCORES",
        `not a CSV of model_id,suite,score: ${e.message.split("\n")[0]}`,
        path,
        e.lines ?? null,
      );
    }
    for (const r of rows) records.push({ rec: r.record, line: r.info.lines });
  }
  if (records.length === 0) throw new InputError("COST_BAD_SCORES", "the scores file holds no scores", path);
  const seen = new Map<string, number>();
  return records.map(({ rec, line }) => {
    const score =
      typeof rec.score === "number"
        ? rec.score
        : typeof rec.score === "string" && /^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(rec.score)
          ? Number(rec.score)
          : NaN;
    if (
      typeof rec.model_id !== "string" ||
      rec.model_id === "" ||
      typeof rec.suite !== "string" ||
      rec.suite === "" ||
      !Number.isFinite(score)
    ) {
      throw new InputError(
        "COST_BAD_SCORES",
        `expected model_id, suite and a numeric score: ${JSON.stringify(rec)}`,
        path,
        line,
      );
    }
    const key = `${rec.model_id}\u0000${rec.suite}`;
    if (seen.has(key))
      throw new InputError(
        "COST_DUPLICATE_SCORE",
        `${rec.model_id} is scored twice on suite ${rec.suite} (lines ${seen.get(key)} and ${line})`,
        path,
        line,
      );
    seen.set(key, line);
    return { model_id: rec.model_id, suite: rec.suite, score, at: `${path}:${line}` };
  });
}

/**
 * Joins scores to the manifest and computes the cost per point of gain
 * (index-card.md: Cost per point of gain):
 * `cost_per_point = driver_tokens_at_hour / (score − baseline_score)`,
 * baseline from the manifest's baseline row on the same suite. Stale or
 * `hNA` Hub ids are mapped to their row by cell, family and step (the rename
 * plan a rebuild implies), and ids under a family's earlier name through
 * `earlierNames` (`"{cell}/{name}"` → family: `earlierNamesBeside` the
 * manifest). Rows with `eos_ok` false or null are left out of
 * the figures and listed with the reason, unless `includeEosBroken` (then
 * kept, with a note). A gain of zero or less gives no cost.
 *
 * `gain` is rounded to the decimals of the two scores (`40.2 − 31` is
 * `9.2`), `cost_per_point` to 2 decimals (tokens per point).
 *
 * @throws InputError `COST_NO_BASELINE` naming a suite without a baseline
 *   score; `COST_UNKNOWN_SUITE` for an `opts.suite` no score is on (listing
 *   the suites there are); `COST_NO_MATCH` when no score names a row of the
 *   manifest (the wrong manifest, or a scores file of other models).
 */
export function computeCost(
  manifest: Row[],
  scores: Score[],
  opts: { suite?: string; includeEosBroken?: boolean; earlierNames?: Map<string, string> } = {},
): CostReport {
  const baseline = manifest.find((r) => r.cell === "BASELINE");
  const cells = [...new Set(manifest.filter((r) => r.cell !== "BASELINE").map((r) => r.cell))];
  const byId = new Map(manifest.map((r) => [r.model_id, r]));
  const byKey = new Map(manifest.filter((r) => r.family !== null).map((r) => [`${r.cell}/${r.family}/${r.step}`, r]));
  const org = orgOfRows(manifest);
  const lookup = (id: string): Row | undefined => {
    const direct = byId.get(id);
    if (direct) return direct;
    if (org === undefined) return undefined;
    const p = parseModelId(id, cells, org);
    // An id under a family's earlier name (family_aliases), as the build matched it: `"{cell}/{name}"` → family.
    return p
      ? byKey.get(`${p.cell}/${opts.earlierNames?.get(`${p.cell}/${p.family}`) ?? p.family}/${p.step}`)
      : undefined;
  };
  const wanted = scores.filter((s) => opts.suite === undefined || s.suite === opts.suite);
  if (wanted.length === 0) {
    const known = [...new Set(scores.map((s) => s.suite))].sort(cmpStr);
    throw new InputError(
      "COST_UNKNOWN_SUITE",
      `--suite ${JSON.stringify(opts.suite)}: no score is on that suite; the scores file has ${known.map((k) => JSON.stringify(k)).join(", ")}`,
      scores[0]?.at.slice(0, scores[0].at.lastIndexOf(":")) ?? null,
    );
  }
  if (!wanted.some((s) => lookup(s.model_id))) {
    const first = wanted[0]!;
    throw new InputError(
      "COST_NO_MATCH",
      `none of the ${wanted.length} score(s) names a model id of the manifest (the first, ${first.model_id} at ${first.at}, has no row): is it the manifest these models come from?`,
      first.at.slice(0, first.at.lastIndexOf(":")),
      Number(first.at.slice(first.at.lastIndexOf(":") + 1)),
    );
  }
  const suites = [...new Set(wanted.map((s) => s.suite))].sort(cmpStr);
  const baselineScore = new Map<string, number>();
  for (const s of wanted) if (baseline && lookup(s.model_id) === baseline) baselineScore.set(s.suite, s.score);
  for (const suite of suites) {
    if (!baselineScore.has(suite)) {
      throw new InputError(
        "COST_NO_BASELINE",
        `suite "${suite}" has no score for the baseline ${baseline?.model_id ?? "(no baseline row)"}: a gain needs its zero point`,
        null,
      );
    }
  }
  const report: CostReport = {
    suites: suites.map((suite) => ({ suite, baseline_score: baselineScore.get(suite)! })),
    rows: [],
    excluded: [],
    unmatched: [],
  };
  const scoredRow = new Map<string, Score>();
  for (const s of wanted) {
    const row = lookup(s.model_id);
    if (row) {
      // A stale id and the current one name one checkpoint: two scores for it on one suite is a conflict.
      const first = scoredRow.get(`${row.model_id}\u0000${s.suite}`);
      if (first)
        throw new InputError(
          "COST_DUPLICATE_SCORE",
          `${row.model_id} is scored twice on suite ${s.suite} (as ${first.model_id} at ${first.at} and as ${s.model_id})`,
          s.at.slice(0, s.at.lastIndexOf(":")),
          Number(s.at.slice(s.at.lastIndexOf(":") + 1)),
        );
      scoredRow.set(`${row.model_id}\u0000${s.suite}`, s);
    }
    if (!row) {
      report.unmatched.push({ model_id: s.model_id, suite: s.suite, at: s.at });
      continue;
    }
    if (row === baseline) continue;
    const base = baselineScore.get(s.suite)!;
    // To the decimals of the scores: 40.2 − 31 is 9.2, not 9.200000000000003.
    const gain = roundTo(s.score - base, Math.max(decimalsOf(s.score), decimalsOf(base)));
    const tokens = row.driver_tokens_at_hour;
    let note: string | null = null;
    let cost: number | null = null;
    if (gain <= 0) note = "no gain over the baseline: no cost";
    else if (tokens === null)
      note = row.hour === null ? "hour unrecoverable: no token count" : "driver tokens unknown (null): no cost";
    else cost = roundTo(tokens / gain, 2);
    const item: CostRow = {
      model_id: row.model_id,
      scored_as: s.model_id === row.model_id ? null : s.model_id,
      cell: row.cell,
      role: row.role,
      hour: row.hour,
      suite: s.suite,
      score: s.score,
      baseline_score: base,
      gain,
      driver_tokens_at_hour: tokens,
      cost_per_point: cost,
      eos_ok: row.eos_ok,
      note,
    };
    if (row.eos_ok !== true) {
      const reason =
        row.eos_ok === false
          ? "eos_ok false: stops without <|im_end|>, so its score is a floor (packaging, not capability)"
          : "eos_ok null: no published repo yet, packaging unknown";
      if (opts.includeEosBroken) report.rows.push({ ...item, note: [reason, note].filter(Boolean).join("; ") });
      else report.excluded.push({ ...item, reason });
      continue;
    }
    report.rows.push(item);
  }
  const order = (a: CostRow, b: CostRow) =>
    cmpStr(a.suite, b.suite) ||
    cmpStr(a.cell, b.cell) ||
    (a.hour ?? Infinity) - (b.hour ?? Infinity) ||
    cmpStr(a.model_id, b.model_id);
  report.rows.sort(order);
  report.excluded.sort(order);
  report.unmatched.sort((a, b) => cmpStr(a.suite, b.suite) || cmpStr(a.model_id, b.model_id));
  return report;
}

/** The number of decimals `x` is written with (`40.25` → 2), at most 12. */
function decimalsOf(x: number): number {
  const m = /^-?\d+(?:\.(\d+))?(?:e([-+]\d+))?$/.exec(String(x));
  if (!m) return 12;
  return Math.min(12, Math.max(0, (m[1]?.length ?? 0) - Number(m[2] ?? 0)));
}

/** `x` rounded to `decimals` places (a binary fraction's noise removed). */
function roundTo(x: number, decimals: number): number {
  return Number(x.toFixed(decimals));
}

const COLUMNS = [
  "model_id",
  "scored_as",
  "cell",
  "role",
  "hour",
  "suite",
  "score",
  "baseline_score",
  "gain",
  "driver_tokens_at_hour",
  "cost_per_point",
  "eos_ok",
  "note",
] as const;

/** The figures as CSV (null as an empty field). */
export function costCsv(report: CostReport): string {
  // Text fields get the manifest's formula escaping, so a suite named `=cmd()` stays text in a spreadsheet.
  return stringify(
    report.rows.map((r) =>
      COLUMNS.map((k) =>
        r[k] === null ? "" : typeof r[k] === "string" ? escapeCsvText(r[k] as string) : String(r[k]),
      ),
    ),
    { header: true, columns: [...COLUMNS], record_delimiter: "\n" },
  );
}

/** The figures as text. */
export function renderCost(report: CostReport): string {
  const out: string[] = [];
  for (const { suite, baseline_score } of report.suites) {
    out.push(`suite ${suite} (baseline ${baseline_score})`);
    for (const r of report.rows.filter((x) => x.suite === suite)) {
      const cost =
        r.cost_per_point === null
          ? `no cost (${r.note})`
          : `${Math.round(r.cost_per_point).toLocaleString("en-US")} tokens/point`;
      out.push(
        `  ${r.model_id}  h ${r.hour ?? "NA"}  ${r.role}  score ${r.score}  gain ${+r.gain.toFixed(6)}  ${cost}${r.scored_as ? `  (scored as ${r.scored_as})` : ""}`,
      );
    }
  }
  if (report.excluded.length) {
    out.push(`left out (${report.excluded.length}; --include-eos-broken keeps them):`);
    for (const r of report.excluded) out.push(`  ${r.model_id} on ${r.suite}: ${r.reason}`);
  }
  if (report.unmatched.length) {
    out.push(`scores whose model id has no row (${report.unmatched.length}):`);
    for (const u of report.unmatched) out.push(`  ${u.model_id} on ${u.suite} (${u.at})`);
  }
  return `${out.join("\n")}\n`;
}
