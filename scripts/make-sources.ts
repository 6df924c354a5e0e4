/**
 * Generates the embedded sample input `sources/` of ptb-manifest (laid out as
 * shared/SOURCES.md describes) and its true answer.
 *
 *   npx tsx scripts/make-sources.ts [--out sources] [--truth test/expected/sources-truth.json]
 *
 * Fully deterministic: seeded PRNG (mulberry32), fixed ordering, no wall clock.
 * The ground truth is modelled first (runs, checkpoints with true write times,
 * which evidence survives) and every file is rendered from it; the true answer
 * follows docs/resolution.md.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { makeCalls } from "./make-sources/calls.js";
import { iso } from "./make-sources/lib.js";
import { buildCell, key } from "./make-sources/model.js";
import {
  cellsJson,
  type Files,
  pvcTree,
  renderAnchors,
  renderFind,
  renderHub,
  renderJanitor,
  renderLs,
  renderSupervisor,
  runlog,
} from "./make-sources/render.js";
import { type Resolved, type TruthRow, baselineRow, fitCell, hourInfo, resolveCell } from "./make-sources/resolve.js";
import { CELLS } from "./make-sources/spec.js";
import { renderClaude, renderCodex, renderKimiCode, renderPi } from "./make-sources/traj.js";
import { Rng } from "./make-sources/lib.js";

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : def;
}

const outDir = resolve(arg("--out", "sources"));
const truthPath = resolve(arg("--truth", "test/expected/sources-truth.json"));

const files: Files = new Map();
const resolved: Resolved[] = [];

for (const spec of CELLS) {
  const m = buildCell(spec);
  const pred = fitCell(m);
  const avoid: number[] = [];
  for (const c of m.ckpts) {
    avoid.push(c.trueMs);
    const hi = hourInfo(m, c);
    if (hi.ms !== null) avoid.push(hi.ms);
    if (c.archiveLineMs) avoid.push(c.archiveLineMs);
  }
  for (const t of pred.values()) avoid.push(t);
  const sessions = makeCalls(m, avoid);
  const base = spec.cell;
  switch (spec.format) {
    case "codex":
      renderCodex(m, sessions, files, `${base}/trajectory`);
      break;
    case "claude-code":
      renderClaude(m, sessions, files, `${base}/trajectory`);
      break;
    case "pi":
      renderPi(m, sessions, files, `${base}/trajectory`);
      break;
    case "kimi-code":
      renderKimiCode(m, sessions, files, `${base}/trajectory`);
      break;
  }
  const r = resolveCell(m, sessions, pred);
  resolved.push(r);
  const tree = pvcTree(m);
  if (spec.pvcFormat === "find") files.set(`${base}/pvc/listing.tsv`, renderFind(tree, new Rng(`find:${spec.cell}`)));
  else files.set(`${base}/pvc/ls-lR.txt`, renderLs(tree));
  renderJanitor(m, files, `${base}/janitor`);
  files.set(`${base}/supervisor/history.jsonl`, renderSupervisor(m));
  const anchors = renderAnchors(m);
  if (anchors) files.set(`${base}/anchors.tsv`, anchors);
  files.set(`${base}/RUNLOG.md`, runlog(spec));
}

files.set("cells.json", cellsJson(CELLS));
renderHub(
  files,
  resolved.flatMap((r) => r.published),
  resolved.flatMap((r) => r.spares),
);

// ---- write sources/
rmSync(outDir, { recursive: true, force: true });
const paths = [...files.keys()].sort();
for (const p of paths) {
  const full = join(outDir, p);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, files.get(p)!);
}

// ---- the true answer
const rows: TruthRow[] = [baselineRow()];
const perCell: Record<string, number> = {};
const perSource: Record<string, number> = { mtime: 0, janitor: 0, extrapolated: 0, unrecoverable: 0 };
const eos: Record<string, string> = {};
for (const r of resolved) {
  const s = r.model.spec;
  if (s.excluded) continue;
  rows.push(...r.rows);
  perCell[s.cell] = r.rows.length;
  for (const x of r.rows) perSource[x.hour_source] = (perSource[x.hour_source] ?? 0) + 1;
  eos[s.cell] = `${r.rows.filter((x) => x.eos_ok === true).length}/${r.rows.length}`;
}
const extrapolation: Record<string, Record<string, unknown>> = {};
for (const r of resolved) {
  for (const [fam, fit] of r.fits) {
    const untimed = r.model.ckpts.filter(
      (c) => c.dir === fam && hourInfo(r.model, c).source === "untimed" && !"LS".includes(c.fate),
    );
    if (untimed.length === 0) continue;
    (extrapolation[r.model.spec.cell] ??= {})[fam] = {
      validated: fit.validated,
      reason: fit.reason,
      inliers: fit.inliers,
      outlier_steps: fit.outliers,
      loo_max: fit.looMax,
      anchor_max: Number.isNaN(fit.anchorMax) ? null : fit.anchorMax,
      hour_error_h: fit.errH,
      predicted: Object.fromEntries(
        untimed
          .filter((c) => r.predictedMs.has(key(c)))
          .map((c) => [c.step, r.model.clock.hourOf(r.predictedMs.get(key(c))!)]),
      ),
    };
  }
}
const truth = {
  about:
    "True answer for the generated sources/ (scripts/make-sources.ts), by the rules of docs/resolution.md. rows: manifest order (baseline first), every manifest field plus true_hour (budget hours of the real write time) and true_write_time. Extrapolated rows have model_id, hour, driver_tokens_at_hour and hour_error_h null: the tool must put hour within its hour_error_h of true_hour, and tokens equal to token_curves at its predicted time; they are sorted by true_hour as a stand-in. token_curves: per cell [epoch_ms, cumulative tokens from run_start] at every counted call (tokens(t) = last point at or before t). extrapolation_reference: the generator's own cadence fit (for orientation, not a contract).",
  counts: { per_cell: perCell, per_hour_source: perSource, total: rows.length - 1, eos_ok: eos },
  excluded: CELLS.filter((s) => s.excluded).map((s) => ({ cell: s.cell, reason: s.excluded })),
  lost: resolved.flatMap((r) => r.lost.map((c) => ({ cell: c.cell, family: c.fam, step: c.step }))),
  rows,
  token_curves: Object.fromEntries(
    resolved.filter((r) => !r.model.spec.excluded).map((r) => [r.model.spec.cell, r.curve]),
  ),
  run: Object.fromEntries(
    resolved.map((r) => [
      r.model.spec.cell,
      {
        run_start: iso(r.model.clock.startMs),
        run_end: r.model.runEndMs === null ? null : iso(r.model.runEndMs),
        pauses: r.model.clock.pauses.map(([a, b]) => [iso(a), iso(b)]),
      },
    ]),
  ),
  extrapolation_reference: extrapolation,
};
mkdirSync(dirname(truthPath), { recursive: true });
writeFileSync(truthPath, `${JSON.stringify(truth, null, 1)}\n`);
console.log(`wrote ${paths.length} files to ${outDir}; ${rows.length - 1} rows (+ baseline) to ${truthPath}`);
console.log(JSON.stringify(truth.counts));
