/**
 * Independent check of the generated sample sources against their truth:
 * prints the tables, re-reads the PVC listings, janitor logs and trajectories
 * with small independent parsers, and compares hours and tokens.
 *
 *   npx tsx scripts/check-sources.ts [--out sources] [--truth test/expected/sources-truth.json]
 */
import { readFileSync, readdirSync, statSync, existsSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { join, resolve } from "node:path";
import { TZDate } from "@date-fns/tz";

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : def;
}
const src = resolve(arg("--out", "sources"));
const truth = JSON.parse(readFileSync(resolve(arg("--truth", "test/expected/sources-truth.json")), "utf8"));
const cells = JSON.parse(readFileSync(join(src, "cells.json"), "utf8"));
let failures = 0;
const fail = (msg: string) => {
  failures++;
  console.log(`FAIL ${msg}`);
};

// ---------------------------------------------------------------- tables
console.log("rows per cell:", JSON.stringify(truth.counts.per_cell));
console.log("hour_source:", JSON.stringify(truth.counts.per_hour_source));
console.log("eos_ok:", JSON.stringify(truth.counts.eos_ok));
console.log("excluded:", JSON.stringify(truth.excluded));
console.log("lost:", JSON.stringify(truth.lost));
const expectCells: Record<string, number> = {
  "sol-high": 57,
  grok: 59,
  "dpsk-v4-flash": 40,
  kimi: 38,
  "opus-max": 13,
  "sol-max": 13,
  "opus-high-v1": 3,
  "sol-max-opusnode": 9,
  "sol-max-v2": 36,
};
for (const [c, n] of Object.entries(expectCells)) if (truth.counts.per_cell[c] !== n) fail(`count ${c}`);
const hs = truth.counts.per_hour_source;
if (hs.mtime !== 222 || hs.janitor !== 24 || hs.extrapolated !== 7 || hs.unrecoverable !== 15) fail("hour sources");
if (truth.counts.eos_ok.grok !== "0/59" || truth.counts.eos_ok["sol-high"] !== "39/57") fail("eos");
const submitted = truth.rows.filter(
  (r: { role: string; cell: string }) => r.role === "SUBMITTED" && r.cell === "sol-max-v2",
)[0];
if (!submitted || submitted.hour < 7 || submitted.hour >= 8) fail("sol-max-v2 submitted hour");
console.log("sol-max-v2 SUBMITTED:", submitted?.model_id);

// ---------------------------------------------------------------- clock
type Run = { run_start: string; run_end: string | null; pauses: [string, string][] };
function hourOf(run: Run, t: number): number {
  const s = Date.parse(run.run_start);
  let p = 0;
  for (const [a, b] of run.pauses) {
    const A = Date.parse(a);
    const B = Date.parse(b);
    if (t <= A) break;
    p += Math.min(t, B) - A;
  }
  return (t - s - p) / 3_600_000;
}
const r2 = (x: number) => (Math.sign(x) * Math.round(Math.abs(x) * 100)) / 100;

// ---------------------------------------------------------------- PVC
function stableTimes(cell: {
  cell: string;
  pvc_root: string;
}): Map<string, { t: number; path: string; shards: boolean }> {
  const out = new Map<string, { t: number; path: string; shards: boolean }>();
  const dirFiles = new Map<string, string[]>();
  const add = (path: string, t: number, type: string) => {
    const m = /^(.*)\/weights\/step_(\d+)\/([^/]+)$/.exec(path);
    if (!m || type !== "f") return;
    const d = `${m[1]}/weights/step_${m[2]}`;
    (dirFiles.get(d) ?? dirFiles.set(d, []).get(d)!).push(m[3]!);
    if (m[3] === "STABLE") out.set(d, { t, path: d, shards: false });
  };
  const f1 = join(src, cell.cell, "pvc/listing.tsv");
  if (existsSync(f1)) {
    for (const line of readFileSync(f1, "utf8").split("\n")) {
      const p = line.split("\t");
      if (p.length < 4) continue;
      add(p.slice(3).join("\t"), Number(p[0]) * 1000, p[1]!);
    }
  } else {
    let cur = "";
    for (const line of readFileSync(join(src, cell.cell, "pvc/ls-lR.txt"), "utf8").split("\n")) {
      if (line.endsWith(":") && line.startsWith("/")) cur = line.slice(0, -1);
      const m = /^(\S)\S+\s+\d+\s+\S+\s+\S+\s+\d+\s+(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)\.(\d{9}) \+0000 (.*)$/.exec(
        line,
      );
      if (!m) continue;
      const t = Date.parse(`${m[2]}T${m[3]}Z`) + Number(m[4]) / 1e6;
      add(`${cur}/${m[5]}`, t, m[1] === "-" ? "f" : m[1] === "d" ? "d" : "l");
    }
  }
  for (const [d, v] of out) v.shards = (dirFiles.get(d) ?? []).some((f) => f.endsWith(".safetensors"));
  return out;
}

// ---------------------------------------------------------------- janitor
function janitorText(cell: string): string {
  const dir = join(src, cell, "janitor");
  const names = readdirSync(dir);
  const num = (n: string) => (n === "ckpt-janitor.log" ? 0 : Number(n.split(".")[2]));
  names.sort((a, b) => num(b) - num(a));
  return names
    .map((n) =>
      n.endsWith(".gz") ? gunzipSync(readFileSync(join(dir, n))).toString("utf8") : readFileSync(join(dir, n), "utf8"),
    )
    .join("");
}
function localCandidates(local: string, tz: string): number[] {
  const naive = Date.parse(`${local.replace(" ", "T")}Z`);
  const out = new Set<number>();
  for (const probe of [naive - 12 * 3_600_000, naive, naive + 12 * 3_600_000]) {
    const off = -new TZDate(probe, tz).getTimezoneOffset() * 60_000;
    const t = naive - off;
    const back = new TZDate(t, tz);
    const s = `${back.getFullYear()}-${String(back.getMonth() + 1).padStart(2, "0")}-${String(back.getDate()).padStart(2, "0")} ${String(back.getHours()).padStart(2, "0")}:${String(back.getMinutes()).padStart(2, "0")}:${String(back.getSeconds()).padStart(2, "0")}`;
    if (s === local) out.add(t);
  }
  return [...out].sort((a, b) => a - b);
}
function janitorTimes(cell: {
  cell: string;
  pvc_root: string;
  janitor_tz: string;
  family_aliases?: Record<string, string>;
}): Map<string, { t: number; path: string }> {
  const out = new Map<string, { t: number; path: string }>();
  let last = -Infinity;
  const alias = (d: string) => cell.family_aliases?.[d] ?? d;
  for (const line of janitorText(cell.cell).split("\n")) {
    const v1 = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) (.*)$/.exec(line);
    const v2 = /^(\d{4}-\d\d-\d\dT\S+) level=\S+ action=(\S+)(.*)$/.exec(line);
    if (v2) {
      last = Date.parse(v2[1]!);
      if (v2[2] !== "archive") continue;
      const kv = Object.fromEntries([...v2[3]!.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
      const k = `${alias(kv.family!)}:${kv.step}`;
      if (!out.has(k))
        out.set(k, { t: Number(kv.src_mtime) * 1000, path: `${cell.pvc_root}/${kv.family}/weights/step_${kv.step}` });
    } else if (v1) {
      const cands = localCandidates(v1[1]!, cell.janitor_tz);
      const t = cands.find((c) => c >= last - 1000) ?? cands[0]!;
      last = t;
      const a = /^archived (.*)\/weights\/step_(\d+) -> /.exec(v1[2]!);
      if (!a) continue;
      const famDir = a[1]!
        .slice(cell.pvc_root.length + 1)
        .split("/")
        .pop()!;
      const k = `${alias(famDir)}:${a[2]}`;
      if (!out.has(k)) out.set(k, { t, path: `${a[1]}/weights/step_${a[2]}` });
    }
  }
  return out;
}

// ---------------------------------------------------------------- tokens
type C = { t: number | null; n: number };
function walk(d: string): string[] {
  const out: string[] = [];
  for (const n of readdirSync(d).sort()) {
    const p = join(d, n);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}
function jl(p: string): unknown[] {
  const out: unknown[] = [];
  for (const l of readFileSync(p, "utf8").split("\n")) {
    if (!l.trim()) continue;
    try {
      out.push(JSON.parse(l));
    } catch {
      /* malformed line: skipped */
    }
  }
  return out;
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type A = any;
function countCodex(files: string[]): C[] {
  const calls: C[] = [];
  for (const f of files) {
    const ls = jl(f) as A[];
    const meta = ls[0].payload;
    const child = !!(meta.forked_from_id || meta.source?.subagent);
    const created = ls[0].timestamp;
    let prev: number[] | null = null;
    for (const o of ls) {
      if (o.type !== "event_msg" || o.payload?.type !== "token_count" || !o.payload.info) continue;
      const u = o.payload.info.total_token_usage;
      const v = [u.input_tokens, u.output_tokens];
      const tot = v[0] + v[1];
      if (child && o.timestamp === created) {
        prev = v;
        continue;
      }
      const ptot = prev ? prev[0]! + prev[1]! : 0;
      if (tot > ptot) calls.push({ t: Date.parse(o.timestamp), n: tot - ptot });
      prev = v;
    }
  }
  return calls;
}
function countClaude(files: string[]): C[] {
  const g = new Map<string, { t: number; u: A; o: number }>();
  for (const f of files)
    for (const o of jl(f) as A[]) {
      if (o.type !== "assistant" || !o.message?.usage || o.message.model === "<synthetic>" || o.isApiErrorMessage)
        continue;
      const k = `${o.message.id}|${o.requestId ?? ""}`;
      const e = g.get(k);
      const t = Date.parse(o.timestamp);
      if (!e) g.set(k, { t, u: o.message.usage, o: o.message.usage.output_tokens });
      else {
        e.t = Math.max(e.t, t);
        e.o = Math.max(e.o, o.message.usage.output_tokens);
      }
    }
  return [...g.values()].map((e) => ({
    t: e.t,
    n: e.u.input_tokens + e.u.cache_creation_input_tokens + e.u.cache_read_input_tokens + e.o,
  }));
}
function countPi(files: string[]): C[] {
  const seen = new Set<string>();
  const calls: C[] = [];
  for (const f of files)
    for (const o of jl(f) as A[]) {
      if (o.type !== "message" || o.message?.role !== "assistant") continue;
      const u = o.message.usage;
      const k = (o.id ?? f + o.timestamp) + JSON.stringify(u);
      if (seen.has(k)) continue;
      seen.add(k);
      calls.push({ t: Date.parse(o.timestamp), n: u.input + u.output + u.cacheRead + u.cacheWrite });
    }
  return calls;
}
function countKimi(files: string[]): C[] {
  const calls: C[] = [];
  for (const f of files) {
    const ls = jl(f) as A[];
    const fi = ls.findIndex((o) => o.type === "forked");
    ls.forEach((o, i) => {
      if (o.type !== "usage.record" || i < fi) return;
      const u = o.usage;
      calls.push({
        t: typeof o.time === "number" ? o.time : null,
        n: u.inputOther + u.output + u.inputCacheRead + u.inputCacheCreation,
      });
    });
  }
  return calls;
}

// ---------------------------------------------------------------- per cell
for (const cell of cells.cells) {
  const run: Run = truth.run[cell.cell];
  const rows = truth.rows.filter((r: A) => r.cell === cell.cell);
  const st = stableTimes(cell);
  const jt = janitorTimes(cell);
  const files = walk(join(src, cell.cell, "trajectory")).filter((f) => f.endsWith(".jsonl"));
  const fmt = cell.trajectory_format;
  const calls =
    fmt === "codex"
      ? countCodex(files)
      : fmt === "claude-code"
        ? countClaude(files)
        : fmt === "pi"
          ? countPi(files)
          : countKimi(files);
  const start = Date.parse(run.run_start);
  const timed = calls.filter((c) => c.t !== null && c.t >= start).sort((a, b) => a.t! - b.t!);
  const tok = (t: number) => timed.filter((c) => c.t! <= t).reduce((s, c) => s + c.n, 0);
  if (cell.excluded) {
    console.log(`${cell.cell}: excluded (${cell.excluded}); ${calls.length} calls, ${st.size} STABLE dirs on disk`);
    continue;
  }
  const curve: [number, number][] = truth.token_curves[cell.cell];
  const curveEnd = curve[curve.length - 1]![1];
  const mine = timed.reduce((s, c) => s + c.n, 0);
  if (mine !== curveEnd) fail(`${cell.cell}: tokens end ${mine} vs truth ${curveEnd}`);
  const endMs = run.run_end ? Date.parse(run.run_end) : NaN;
  let exactOk = 0;
  for (const r of rows) {
    if (r.hour_source !== "mtime" && r.hour_source !== "janitor") continue;
    const dirName = r.source.startsWith("/") ? r.source : "";
    const s = st.get(dirName);
    let t: number | undefined;
    let src2 = "";
    if (s && s.t >= start && (isNaN(endMs) ? hourOf(run, s.t) <= 100 : s.t <= endMs)) {
      t = s.t;
      src2 = "mtime";
    } else {
      const j = jt.get(`${r.family}:${r.step}`);
      if (j) {
        t = j.t;
        src2 = "janitor";
      }
    }
    if (t === undefined) {
      fail(`${cell.cell} ${r.family}:${r.step}: no evidence found`);
      continue;
    }
    if (src2 !== r.hour_source) fail(`${cell.cell} ${r.family}:${r.step}: source ${src2} vs ${r.hour_source}`);
    if (r2(hourOf(run, t)) !== r.hour)
      fail(`${cell.cell} ${r.family}:${r.step}: hour ${r2(hourOf(run, t))} vs ${r.hour}`);
    if (tok(t) !== r.driver_tokens_at_hour)
      fail(`${cell.cell} ${r.family}:${r.step}: tokens ${tok(t)} vs ${r.driver_tokens_at_hour}`);
    exactOk++;
  }
  const untimed = rows
    .filter((r: A) => r.hour_source === "extrapolated" || r.hour_source === "unrecoverable")
    .map((r: A) => `${r.family}:${r.step}(${r.hour_source[0]}, lo=${r.hour_lower_bound}, hi=${r.hour_upper_bound})`);
  const timeless = calls.filter((c) => c.t === null).length;
  console.log(
    `${cell.cell}: ${rows.length} rows, ${exactOk} exact rows re-derived; ${calls.length} calls (${timeless} without time), tokens ${mine}; untimed: ${untimed.join(" ") || "-"}`,
  );
}
console.log(failures === 0 ? "ALL CHECKS PASSED" : `${failures} FAILURES`);
process.exit(failures === 0 ? 0 : 1);
