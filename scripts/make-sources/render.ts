/**
 * Renderers for everything but the trajectories: PVC listings, janitor logs,
 * supervisor history, anchors, RUNLOG, hub repos, cells.json.
 */
import { gzipSync } from "node:zlib";
import { Rng, isoSec } from "./lib.js";
import { type CellModel, type Ckpt, findCkpt } from "./model.js";
import { type PubRepo, type SpareRepo, anchorTimes } from "./resolve.js";
import { BASELINE, type CellSpec, EOS, type EosStyle, ORG, SPARE } from "./spec.js";

export type Files = Map<string, string | Buffer>;

// ---------------------------------------------------------------- PVC

interface Entry {
  name: string;
  type: "d" | "f" | "l";
  size: number;
  ms: number;
  ns: number; // sub-ms nanoseconds
  target?: string;
  children?: Entry[];
}

function dir(name: string, ms: number): Entry {
  return { name, type: "d", size: 4096, ms, ns: 0, children: [] };
}

function child(parent: Entry, name: string, make: () => Entry): Entry {
  let e = parent.children!.find((c) => c.name === name);
  if (!e) {
    e = make();
    parent.children!.push(e);
  }
  return e;
}

function mkdirs(root: Entry, rel: string, ms: number): Entry {
  let cur = root;
  for (const part of rel.split("/")) {
    const e = child(cur, part, () => dir(part, ms));
    e.ms = Math.max(e.ms, ms);
    cur = e;
  }
  return cur;
}

const SHARDS = [4_967_372_816, 4_932_880_712, 4_991_215_424, 3_318_421_648];

function weightFiles(
  rng: Rng,
  c: Ckpt,
  baseMs: number,
  withShards: boolean,
  stableMs: number,
  stableNs: number,
): Entry[] {
  const out: Entry[] = [];
  const f = (name: string, size: number, ms: number) =>
    out.push({ name, type: "f", size, ms: Math.floor(ms), ns: rng.int(0, 999_999) });
  f("config.json", 1873, baseMs - 230_000);
  if (c.eos.startsWith("gen")) f("generation_config.json", 214, baseMs - 229_000);
  f("tokenizer_config.json", 9731, baseMs - 228_000);
  f("tokenizer.json", 11_422_654, baseMs - 227_000);
  f("model.safetensors.index.json", 65_841, baseMs - 3_000);
  if (withShards)
    SHARDS.forEach((s, i) =>
      f(`model-0000${i + 1}-of-00004.safetensors`, s + rng.int(0, 4096), baseMs - 220_000 + i * 52_000),
    );
  out.push({ name: "STABLE", type: "f", size: 0, ms: Math.floor(stableMs), ns: stableNs });
  return out;
}

export function pvcTree(m: CellModel): Entry {
  const rng = new Rng(`pvc:${m.spec.cell}`);
  const start = m.clock.startMs;
  const root = dir(m.root, start - 600_000);
  child(root, "lost+found", () => dir("lost+found", start - 86_400_000 * 3));
  const data = mkdirs(root, "data", start + 1_200_000);
  data.children!.push({
    name: "mix-v3.jsonl",
    type: "f",
    size: 734_003_212,
    ms: start + 1_150_000,
    ns: rng.int(0, 999_999),
  });
  data.children!.push({
    name: "eval prompts (held out).jsonl",
    type: "f",
    size: 2_113_407,
    ms: start + 1_190_000,
    ns: rng.int(0, 999_999),
  });
  for (const f of m.spec.families) {
    const cs = m.ckpts.filter((c) => c.dir === f.dir);
    const rel = f.nested ? `${f.nested}/${f.dir}` : f.dir;
    const famStart = cs[0]!.trueMs - 1.1 * 3_600_000;
    const famDir = mkdirs(root, rel, famStart);
    const weights = child(famDir, "weights", () => dir("weights", famStart + 60_000));
    let wMs = weights.ms;
    let lastListed: Ckpt | null = null;
    for (const c of cs) {
      wMs = Math.max(wMs, c.trueMs - 240_000);
      if (c.pruneMs) wMs = Math.max(wMs, c.pruneMs);
      if (!"MDCS".includes(c.fate)) continue;
      lastListed = c;
      let files: Entry[];
      let dMs: number;
      if (c.fate === "C") {
        const cp = c.copyMs!;
        files = weightFiles(rng, c, cp + 240_000, true, cp + 241_000, rng.int(0, 999_999));
        dMs = cp + 241_000;
        wMs = Math.max(wMs, cp);
      } else {
        const keep = c.fate === "M";
        files = weightFiles(rng, c, c.trueMs, keep, c.trueMs, c.subNs);
        dMs = keep ? c.trueMs : c.shardDeleteMs!;
      }
      weights.children!.push({
        name: `step_${c.step}`,
        type: "d",
        size: 4096,
        ms: Math.floor(dMs),
        ns: rng.int(0, 999_999),
        children: files,
      });
    }
    for (const x of m.incomplete.filter((y) => y.relDir === rel)) {
      weights.children!.push({
        name: `step_${x.step}`,
        type: "d",
        size: 4096,
        ms: x.ms,
        ns: 0,
        children: [
          { name: "config.json", type: "f", size: 1873, ms: x.ms - 60_000, ns: 0 },
          {
            name: "model-00001-of-00004.safetensors",
            type: "f",
            size: 2_147_418_112,
            ms: x.ms,
            ns: rng.int(0, 999_999),
          },
        ],
      });
      wMs = Math.max(wMs, x.ms);
    }
    if (f.latestLink && lastListed)
      weights.children!.push({
        name: "latest",
        type: "l",
        size: `step_${lastListed.step}`.length,
        ms: lastListed.trueMs + 1000,
        ns: 0,
        target: `step_${lastListed.step}`,
      });
    weights.ms = Math.floor(Math.min(wMs, Date.parse("2026-11-25T08:00:00Z")));
    weights.ns = rng.int(0, 999_999);
    // trainer state (not checkpoints): the last two steps, plus one step whose weights are gone
    const ckDir = child(famDir, "checkpoints", () => dir("checkpoints", famStart + 30_000));
    const stateSteps = cs.slice(-2).concat(cs.length > 4 ? [cs[1]!] : []);
    for (const c of stateSteps) {
      ckDir.children!.push({
        name: `step_${c.step}`,
        type: "d",
        size: 4096,
        ms: c.trueMs - 30_000,
        ns: 0,
        children: [
          { name: "trainer_state.pt", type: "f", size: 1_204_331, ms: c.trueMs - 31_000, ns: rng.int(0, 999_999) },
          { name: "optimizer.pt", type: "f", size: 35_921_044_480, ms: c.trueMs - 35_000, ns: rng.int(0, 999_999) },
        ],
      });
      ckDir.ms = Math.max(ckDir.ms, c.trueMs - 30_000);
    }
    if (f.rollouts) {
      const ro = child(famDir, "rollouts", () => dir("rollouts", famStart + 40_000));
      for (const c of cs) {
        ro.children!.push({
          name: `step_${c.step}`,
          type: "d",
          size: 4096,
          ms: c.trueMs - 400_000,
          ns: 0,
          children: [
            {
              name: "rollouts.jsonl",
              type: "f",
              size: rng.int(20_000_000, 90_000_000),
              ms: c.trueMs - 401_000,
              ns: rng.int(0, 999_999),
            },
          ],
        });
        ro.ms = Math.max(ro.ms, c.trueMs - 400_000);
      }
    }
    const logs = child(famDir, "logs", () => dir("logs", famStart + 10_000));
    const attempts = f.logs?.attempts ?? 1;
    const lastMs = cs[cs.length - 1]!.trueMs;
    for (let a = 0; a < attempts; a++) {
      const aStart = famStart + ((lastMs - famStart) * a) / attempts + 5_000;
      const files: Entry[] = [
        {
          name: "trainer.log",
          type: "f",
          size: rng.int(200_000, 9_000_000),
          ms: Math.floor(a === attempts - 1 ? lastMs + 400_000 : aStart + (lastMs - famStart) / attempts - 60_000),
          ns: rng.int(0, 999_999),
        },
        {
          name: "stdout.log",
          type: "f",
          size: rng.int(20_000, 900_000),
          ms: Math.floor(aStart + 1_000),
          ns: rng.int(0, 999_999),
        },
      ];
      if (a === attempts - 1)
        files.push({
          name: "eval results.txt",
          type: "f",
          size: rng.int(900, 9000),
          ms: Math.floor(lastMs + 900_000),
          ns: rng.int(0, 999_999),
        });
      logs.children!.push({
        name: `attempt_${a}`,
        type: "d",
        size: 4096,
        ms: Math.floor(aStart),
        ns: 0,
        children: files,
      });
      logs.ms = Math.max(logs.ms, Math.floor(aStart));
    }
  }
  return root;
}

function nsOf(e: Entry): number {
  return e.ns !== 0 || e.type !== "d" ? e.ns : (e.ms * 7919 + e.name.length * 104729) % 999_983;
}

function tsFind(e: Entry): string {
  const sec = Math.floor(e.ms / 1000);
  const frac = `${String(e.ms % 1000).padStart(3, "0") + String(nsOf(e)).padStart(6, "0")}0`;
  return `${sec}.${frac}`;
}

export function renderFind(root: Entry, rng: Rng): string {
  const lines: string[] = [];
  const walk = (e: Entry, path: string) => {
    lines.push(`${tsFind(e)}\t${e.type}\t${e.size}\t${path}`);
    if (!e.children) return;
    let kids = rng.shuffle(e.children);
    // readdir order is arbitrary; keep logs and data last so the capture ends in harmless entries
    kids = kids
      .filter((k) => k.name !== "logs" && k.name !== "data")
      .concat(
        kids.filter((k) => k.name === "logs"),
        kids.filter((k) => k.name === "data"),
      );
    for (const k of kids) walk(k, `${path}/${k.name}`);
  };
  walk(root, root.name);
  // a few lines cut short where the capture was interrupted
  const cand = lines.map((l, i) => [l, i] as const).filter(([l]) => /\/(logs|rollouts)\/.*\.(log|jsonl)$/.test(l));
  for (let k = 0; k < 2 && cand.length > 0; k++) {
    const [l, i] = cand[Math.floor((cand.length * (k + 1)) / 3)]!;
    lines[i] = l.slice(0, Math.max(12, Math.floor(l.length * (0.35 + 0.2 * k))));
  }
  const last = lines[lines.length - 1]!;
  lines[lines.length - 1] = last.slice(0, last.length - 9);
  return lines.join("\n"); // no trailing newline: the capture was interrupted
}

function tsLs(e: Entry): string {
  const d = new Date(e.ms);
  const s = d.toISOString();
  return `${s.slice(0, 10)} ${s.slice(11, 19)}.${String(e.ms % 1000).padStart(3, "0")}${String(nsOf(e)).padStart(6, "0")} +0000`;
}

export function renderLs(root: Entry): string {
  const blocks: string[] = [];
  const cmp = (a: Entry, b: Entry) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name));
  const walk = (e: Entry, path: string) => {
    const kids = e.children!.slice().sort(cmp);
    const blocksK = kids.reduce(
      (s, k) => s + (k.type === "d" ? 4 : k.type === "l" ? 0 : Math.ceil(k.size / 4096) * 4),
      0,
    );
    const nl = (k: Entry) => (k.type === "d" ? 2 + k.children!.filter((x) => x.type === "d").length : 1);
    const wl = Math.max(1, ...kids.map((k) => String(nl(k)).length));
    const ws = Math.max(1, ...kids.map((k) => String(k.size).length));
    const lines = [`${path}:`, `total ${blocksK}`];
    for (const k of kids) {
      const perm = k.type === "d" ? "drwxr-xr-x" : k.type === "l" ? "lrwxrwxrwx" : "-rw-r--r--";
      lines.push(
        `${perm} ${String(nl(k)).padStart(wl)} root root ${String(k.size).padStart(ws)} ${tsLs(k)} ${k.name}${k.type === "l" ? ` -> ${k.target}` : ""}`,
      );
    }
    blocks.push(lines.join("\n"));
    for (const k of kids) if (k.type === "d") walk(k, `${path}/${k.name}`);
  };
  walk(root, root.name);
  return `${blocks.join("\n\n")}\n`;
}

// ---------------------------------------------------------------- janitor files

export function renderJanitor(m: CellModel, files: Files, base: string): void {
  const recs = m.janitor;
  const bounds: { idx: number; split: boolean }[] = [];
  for (const r of m.spec.janitor.rotations) {
    if (typeof r === "number") {
      const t = m.clock.wallOf(r);
      const idx = recs.findIndex((x) => x.ms >= t);
      if (idx > 0) bounds.push({ idx, split: false });
    } else {
      const c = findCkpt(m, r)!;
      const idx = recs.findIndex((x) => x.archiveOf === `${c.dir}:${c.idx}`);
      if (idx < 0) throw new Error(`split line ${r} not found`);
      bounds.push({ idx, split: true });
    }
  }
  bounds.sort((a, b) => a.idx - b.idx);
  const parts: string[] = [];
  let from = 0;
  let carry = "";
  for (const b of bounds) {
    const body = recs
      .slice(from, b.idx)
      .map((r) => `${r.text}\n`)
      .join("");
    if (b.split) {
      const t = recs[b.idx]!.text;
      const cut = Math.floor(t.length * 0.55);
      parts.push(carry + body + t.slice(0, cut)); // no trailing newline
      carry = `${t.slice(cut)}\n`;
      from = b.idx + 1;
    } else {
      parts.push(carry + body);
      carry = "";
      from = b.idx;
    }
  }
  parts.push(
    carry +
      recs
        .slice(from)
        .map((r) => `${r.text}\n`)
        .join(""),
  );
  // parts[0] is the oldest
  const n = parts.length;
  parts.forEach((p, i) => {
    const num = n - 1 - i;
    if (num === 0) files.set(`${base}/ckpt-janitor.log`, p);
    else if (num >= m.spec.janitor.gzFrom)
      files.set(`${base}/ckpt-janitor.log.${num}.gz`, gzipSync(Buffer.from(p, "utf8"), { level: 9 }));
    else files.set(`${base}/ckpt-janitor.log.${num}`, p);
  });
}

// ---------------------------------------------------------------- supervisor, anchors, runlog

export function renderSupervisor(m: CellModel): string {
  const { spec, clock } = m;
  const ev: { ms: number; o: Record<string, unknown> }[] = [];
  ev.push({ ms: clock.startMs, o: { event: "run_start", run_id: spec.runId } });
  for (const [s, e] of clock.pauses) {
    ev.push({ ms: s, o: { event: "pause", reason: "cluster maintenance" } });
    ev.push({ ms: e, o: { event: "resume" } });
  }
  const path = (k: string) => {
    const c = findCkpt(m, k);
    if (c) return c.pvcPath;
    const [d, i] = k.split(":");
    return `${m.root}/${d}/weights/step_${i}`;
  };
  for (const [k, h] of spec.roles.fallbacks)
    ev.push({ ms: clock.wallOf(h), o: { event: "fallback", checkpoint: path(k) } });
  for (const [k, h] of spec.roles.submits)
    ev.push({ ms: clock.wallOf(h), o: { event: "submit", checkpoint: path(k) } });
  for (const e of spec.events ?? []) ev.push({ ms: clock.wallOf(e.hour), o: e.event });
  if (m.runEndMs !== null) ev.push({ ms: m.runEndMs, o: { event: "run_end" } });
  ev.sort((a, b) => a.ms - b.ms);
  return `${ev.map((e) => JSON.stringify({ ts: isoSec(e.ms), ...e.o })).join("\n")}\n`;
}

export function renderAnchors(m: CellModel): string | null {
  const a = anchorTimes(m);
  if (a.length === 0) return null;
  return `family\tstep\ttime\tkind\tnote\n${a.map((x) => x.line).join("\n")}\n`;
}

// ---------------------------------------------------------------- hub

const CHAT_TEMPLATE =
  "{%- for message in messages %}{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n<think>\\n' }}{%- endif %}";

function configJson(style: EosStyle | "base", raw = false): string {
  const text: Record<string, unknown> = {
    model_type: "qwen3_5_text",
    hidden_size: 4096,
    intermediate_size: 12288,
    num_hidden_layers: 32,
    num_attention_heads: 16,
    num_key_value_heads: 4,
    vocab_size: 248320,
    max_position_embeddings: 262144,
    torch_dtype: "bfloat16",
  };
  const top: Record<string, unknown> = {
    architectures: ["Qwen3_5ForConditionalGeneration"],
    model_type: "qwen3_5",
    image_token_id: 248056,
    video_token_id: 248057,
  };
  if (style === "base") text.eos_token_id = 248044;
  if (style === "top-int-ok" || style === "gen-bad-top-ok") top.eos_token_id = EOS;
  if (style === "gen-nokey-top-ok") top.eos_token_id = [EOS];
  if (style === "text-list-ok") text.eos_token_id = [248046, 248044];
  if (style === "text-int-bad") text.eos_token_id = 248044;
  if (raw) text.eos_token_id = 248044;
  top.text_config = text;
  top.vision_config = { model_type: "qwen3_5_vision", depth: 27, hidden_size: 1152, out_hidden_size: 4096 };
  top.tie_word_embeddings = false;
  top.transformers_version = "4.57.1";
  return `${JSON.stringify(top, null, 2)}\n`;
}

function genConfig(style: EosStyle | "base"): string | null {
  const g: Record<string, unknown> = { bos_token_id: 248044, do_sample: true, temperature: 0.7, top_p: 0.8, top_k: 20 };
  if (style === "base" || style === "gen-list-ok") g.eos_token_id = [248044, 248046];
  else if (style === "gen-int-bad") g.eos_token_id = 248044;
  else if (style === "gen-bad-top-ok") g.eos_token_id = [248044];
  else if (style !== "gen-nokey-top-ok") return null;
  g.transformers_version = "4.57.1";
  return `${JSON.stringify(g, null, 2)}\n`;
}

function tokConfig(withTemplate: boolean): string {
  const t: Record<string, unknown> = {
    tokenizer_class: "Qwen2Tokenizer",
    bos_token: null,
    eos_token: "<|im_end|>",
    pad_token: "<|endoftext|>",
    model_max_length: 262144,
    clean_up_tokenization_spaces: false,
  };
  if (withTemplate) t.chat_template = CHAT_TEMPLATE;
  return `${JSON.stringify(t, null, 2)}\n`;
}

export function renderHub(files: Files, published: PubRepo[], spares: SpareRepo[]): void {
  const base = "hub";
  {
    const d = `${base}/${BASELINE}`;
    files.set(
      `${d}/.hub.json`,
      `${JSON.stringify({
        id: BASELINE,
        sha: "8c5e1f0a2b9d4e6f7a1c3b5d7e9f0a2c4e6b8d0f",
        lastModified: "2026-08-14T09:12:44.000Z",
        createdAt: "2026-08-11T16:03:27.000Z",
      })}\n`,
    );
    files.set(`${d}/config.json`, configJson("base"));
    files.set(`${d}/generation_config.json`, genConfig("base")!);
    files.set(`${d}/tokenizer_config.json`, tokConfig(true));
  }
  for (const p of published) {
    const d = `${base}/${p.name}`;
    if (files.has(`${d}/.hub.json`)) throw new Error(`duplicate published ${p.name}`);
    files.set(
      `${d}/.hub.json`,
      `${JSON.stringify({ id: p.name, sha: p.sha, lastModified: p.lastModified, createdAt: p.createdAt })}\n`,
    );
    files.set(`${d}/config.json`, configJson(p.eos));
    const g = genConfig(p.eos);
    if (g) files.set(`${d}/generation_config.json`, g);
    files.set(`${d}/tokenizer_config.json`, tokConfig(!p.chatTemplateFile));
    if (p.chatTemplateFile) files.set(`${d}/chat_template.jinja`, `${CHAT_TEMPLATE}\n`);
  }
  for (const s of spares) {
    const d = `${base}/${s.name}`;
    files.set(
      `${d}/.hub.json`,
      `${JSON.stringify({ id: s.name, sha: s.sha, lastModified: s.createdAt, createdAt: s.createdAt })}\n`,
    );
    if ("XU".includes(s.ckpt.fate) || s.ckpt.idx % 5 === 0) files.set(`${d}/config.json`, configJson(s.ckpt.eos, true));
  }
}

export function cellsJson(specs: CellSpec[]): string {
  const cells = specs.map((s) => {
    const o: Record<string, unknown> = {
      cell: s.cell,
      driver: s.driver,
      effort: s.effort,
      trajectory_format: s.format,
      pvc_root: `/pvc/ptb/${s.cell}`,
      janitor_tz: s.tz,
    };
    if (s.plotted !== undefined) o.plotted = s.plotted;
    if (s.excluded) o.excluded = s.excluded;
    const aliases = Object.fromEntries(s.families.filter((f) => f.id).map((f) => [f.dir, f.id!]));
    if (Object.keys(aliases).length) o.family_aliases = aliases;
    return o;
  });
  return (
    JSON.stringify({ org: ORG, spare_owner: SPARE, baseline: BASELINE, required_eos_token_id: EOS, cells }, null, 2) +
    "\n"
  );
}

export function runlog(s: CellSpec): string {
  return `${s.runlog.join("\n")}\n`;
}
