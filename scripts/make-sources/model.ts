/**
 * Ground-truth model of every cell: checkpoints with true write times, the
 * janitor's behaviour (which lines it wrote), and the resolution by the
 * rules of docs/resolution.md (the "true answer").
 */
import { Clock, HOUR_MS, Rng, fmtTz, round2 } from "./lib.js";
import { type CellSpec, type EosStyle, type FamSpec, SPARE } from "./spec.js";

export interface Ckpt {
  cell: string;
  dir: string; // directory name on the PVC
  fam: string; // family id
  relDir: string; // path of the family directory under pvc_root
  idx: number;
  step: number;
  fate: string;
  trueMs: number; // integer ms
  subNs: number; // sub-ms nanoseconds of STABLE's mtime
  trueH: number;
  pvcPath: string;
  eos: EosStyle;
  archived: boolean; // a spare repo exists
  archiveMs?: number; // first successful archive line time (v1: as printed, whole seconds)
  archiveVer?: 1 | 2;
  archiveLineMs?: number;
  copyMs?: number; // copy-back time (fate C)
  shardDeleteMs?: number; // fate D / S
  pruneMs?: number; // fates 1, 2, X, U, P, L: local copy deleted
}

interface JRecord {
  ms: number;
  text: string; // may contain newlines (traceback)
  archiveOf?: string; // ckpt key, for the rotation split
}

export interface CellModel {
  spec: CellSpec;
  clock: Clock;
  root: string;
  endMs: number; // run_end, or 100 budget hours when there is none
  runEndMs: number | null;
  ckpts: Ckpt[];
  incomplete: { relDir: string; step: number; ms: number }[];
  janitor: JRecord[];
  fits: Map<string, FitResult>;
}

export function key(c: { dir: string; idx: number }): string {
  return `${c.dir}:${c.idx}`;
}

export function findCkpt(m: { ckpts: Ckpt[] }, k: string): Ckpt | undefined {
  const [d, i] = k.split(":");
  return m.ckpts.find((c) => (c.dir === d || c.fam === d) && c.idx === Number(i));
}

function famHours(f: FamSpec, n: number, rng: Rng): number[] {
  if (Array.isArray(f.hours)) return f.hours.slice();
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    const exact = f.hours.exactLine && f.fates[k] === "X";
    out.push(f.hours.start + f.hours.cadence * k + (exact ? 0 : rng.uniform(-f.hours.jitter, f.hours.jitter)));
  }
  return out;
}

export function buildCell(spec: CellSpec): CellModel {
  const rng = new Rng(`cell:${spec.cell}`);
  const clock = new Clock(Date.parse(spec.start), spec.pauses);
  const root = `/pvc/ptb/${spec.cell}`;
  const runEndMs = spec.runEnd === null ? null : clock.wallOf(spec.runEnd);
  const endMs = runEndMs ?? clock.wallOf(100);
  const ckpts: Ckpt[] = [];
  for (const f of spec.families) {
    const n = f.fates.length;
    const hours = famHours(f, n, rng);
    for (let i = 0; i < n; i++) {
      const ov = f.at?.[i];
      let ms: number;
      if (typeof ov === "string") ms = Date.parse(ov);
      else ms = Math.round(clock.wallOf(typeof ov === "number" ? ov : hours[i]!));
      ms = Math.floor(ms);
      const relDir = f.nested ? `${f.nested}/${f.dir}` : f.dir;
      const step = f.steps.first + f.steps.every * i;
      const eos = Array.isArray(f.eos) ? f.eos[i % f.eos.length]! : f.eos;
      ckpts.push({
        cell: spec.cell,
        dir: f.dir,
        fam: f.id ?? f.dir,
        relDir,
        idx: i,
        step,
        fate: f.fates[i]!,
        trueMs: ms,
        subNs: rng.int(0, 999_999),
        trueH: clock.hourOf(ms),
        pvcPath: `${root}/${relDir}/weights/step_${step}`,
        eos,
        archived: false,
      });
    }
  }
  // Sanity of the ground truth.
  for (const c of ckpts) {
    if (c.trueMs < clock.startMs || c.trueMs > endMs) throw new Error(`${spec.cell} ${key(c)} outside run`);
    if (clock.inPause(c.trueMs)) throw new Error(`${spec.cell} ${key(c)} inside a pause`);
    for (const [s] of clock.pauses)
      if (Math.abs(c.trueMs - s) < 0.05 * HOUR_MS) throw new Error(`${spec.cell} ${key(c)} too close to a pause`);
    if (spec.diedAt !== undefined && c.trueH > spec.diedAt) throw new Error(`${spec.cell} ${key(c)} after death`);
  }
  for (const f of spec.families) {
    const cs = ckpts.filter((c) => c.dir === f.dir);
    for (let i = 1; i < cs.length; i++)
      if (cs[i]!.trueMs <= cs[i - 1]!.trueMs) throw new Error(`${spec.cell} ${f.dir} not monotonic at ${i}`);
  }
  const incomplete = (spec.incomplete ?? []).map((x) => {
    const f = spec.families.find((g) => g.dir === x.dir)!;
    return { relDir: f.nested ? `${f.nested}/${f.dir}` : f.dir, step: x.step, ms: Math.round(clock.wallOf(x.hour)) };
  });
  const model: CellModel = { spec, clock, root, endMs, runEndMs, ckpts, incomplete, janitor: [], fits: new Map() };
  simulateJanitor(model);
  // Copy-backs and in-place shard deletions.
  const copyBase = Date.parse("2026-11-24T15:40:00Z");
  for (const c of ckpts) {
    if (c.fate === "C") c.copyMs = copyBase + rng.int(0, 3 * HOUR_MS);
    if (c.fate === "D" || c.fate === "S")
      c.shardDeleteMs = Math.min(c.trueMs + rng.uniform(3, 9) * HOUR_MS, endMs + HOUR_MS);
    if ("12XUPL".includes(c.fate)) c.pruneMs = (c.archiveLineMs ?? c.trueMs) + rng.uniform(0.2, 3) * HOUR_MS;
    if ("XU".includes(c.fate)) c.archived = true; // uploaded to the spare by hand, no janitor line
  }
  return model;
}

// ---------------------------------------------------------------- janitor

const TRACEBACK = (dest: string) =>
  [
    "Traceback (most recent call last):",
    '  File "/opt/janitor/janitor.py", line 212, in archive_one',
    '    api.upload_folder(folder_path=src, repo_id=dest, repo_type="model")',
    '  File "/usr/local/lib/python3.11/site-packages/huggingface_hub/utils/_validators.py", line 114, in _inner_fn',
    "    return fn(*args, **kwargs)",
    '  File "/usr/local/lib/python3.11/site-packages/huggingface_hub/hf_api.py", line 4789, in upload_folder',
    "    commit_info = self.create_commit(",
    '  File "/usr/local/lib/python3.11/site-packages/huggingface_hub/utils/_http.py", line 477, in hf_raise_for_status',
    "    raise _format(HfHubHTTPError, str(e), response) from e",
    `huggingface_hub.errors.HfHubHTTPError: 502 Server Error: Bad Gateway for url: https://huggingface.co/api/models/${dest}/preupload/main`,
  ].join("\n");

function simulateJanitor(m: CellModel): void {
  const { spec, clock, root } = m;
  const rng = new Rng(`janitor:${spec.cell}`);
  const j = spec.janitor;
  const tz = spec.tz;
  const stopH = j.stopAt ?? (spec.runEnd ?? 100) + 2;
  const recs: JRecord[] = [];
  const v1ts = (ms: number) => fmtTz(ms, tz, "yyyy-MM-dd HH:mm:ss");
  const v2ts = (ms: number) => fmtTz(ms, tz, "yyyy-MM-dd'T'HH:mm:ss.SSSxxx");
  const dest = (c: Ckpt) => `${SPARE}/${spec.cell}.${c.fam}.step_${c.step}`;
  const pending = m.ckpts.slice().sort((a, b) => a.trueMs - b.trueMs);
  const done = new Set<Ckpt>();
  const errored = new Set<Ckpt>();
  const dupAt = new Map<number, Ckpt[]>();
  const inGap = (h: number) => j.gaps.some(([a, b]) => h >= a && h < b);
  let wasUp = false;
  let lastVer = 0;
  const t0 = clock.startMs + 3 * 60_000 + 7_000;
  let onVolume = 0;
  for (let k = 0; ; k++) {
    const T = t0 + k * 600_000 + rng.int(0, 3500);
    const hT = clock.hourOf(T);
    if (hT > stopH) break;
    if (inGap(hT)) {
      if (wasUp) recs.push({ ms: T - 1, text: "Terminated" });
      wasUp = false;
      continue;
    }
    const ver: 1 | 2 = hT < j.v2From ? 1 : 2;
    if (!wasUp || ver !== lastVer) {
      if (ver === 1) recs.push({ ms: T, text: `ckpt-janitor 1.4.2 starting (watch=${root}, every 600s, tz=${tz})` });
      else {
        recs.push({
          ms: T,
          text: `ckpt-janitor 2.0.1 starting: root=${root} interval=600 spare_owner=${SPARE} log_format=kv`,
        });
        recs.push({
          ms: T,
          text: `loaded state file /var/lib/janitor/${spec.cell}.json (${onVolume} checkpoints seen)`,
        });
      }
      if (k === 0) recs.push({ ms: T, text: "nohup: ignoring input" });
    }
    wasUp = true;
    lastVer = ver;
    let cur = T;
    let wrote = false;
    const emit = (text: string, archiveOf?: string) => {
      recs.push({ ms: cur, text, archiveOf });
      wrote = true;
    };
    const vis = (c: Ckpt) => !(ver === 2 && c.dir.includes(" "));
    // duplicates (a restart lost the state and re-archived)
    for (const c of dupAt.get(k) ?? []) {
      emit(
        ver === 1
          ? `ckpt-janitor 1.4.2 starting (watch=${root}, every 600s, tz=${tz})`
          : `ckpt-janitor 2.0.1 starting: root=${root}`,
      );
      cur += 1000;
      emit(
        ver === 1
          ? `${v1ts(cur)} archived ${c.pvcPath} -> ${dest(c)}`
          : `${v2ts(cur)} level=info action=archive family=${c.dir} step=${c.step} src_mtime=${(c.trueMs / 1000).toFixed(3)} dest=${dest(c)}`,
      );
      cur += rng.int(20_000, 60_000);
    }
    for (const c of pending) {
      if (done.has(c) || c.trueMs > T) continue;
      done.add(c);
      onVolume++;
      if ("XUP".includes(c.fate)) continue;
      if (!vis(c)) continue;
      if (c.fate === "L" || c.fate === "S") {
        emit(
          ver === 1
            ? `${v1ts(cur)} pruned ${c.pvcPath} (keep_last=3, not archived)`
            : `${v2ts(cur)} level=warning action=prune family=${c.dir} step=${c.step} reason=disk_pressure`,
        );
        cur += rng.int(2000, 8000);
        continue;
      }
      if ((j.errorRetry ?? []).includes(key(c)) && !errored.has(c)) {
        errored.add(c);
        done.delete(c);
        onVolume--;
        if (ver !== 2) throw new Error("errorRetry only in v2");
        emit(
          `${v2ts(cur)} level=error action=error family=${c.dir} step=${c.step} dest=${dest(c)} msg="upload failed: 502 Bad Gateway"\n${TRACEBACK(dest(c))}`,
        );
        cur += rng.int(30_000, 90_000);
        continue;
      }
      const text =
        ver === 1
          ? `${v1ts(cur)} archived ${c.pvcPath} -> ${dest(c)}`
          : `${v2ts(cur)} level=info action=archive family=${c.dir} step=${c.step} src_mtime=${(c.trueMs / 1000).toFixed(3)} dest=${dest(c)}`;
      if (c.archiveVer === undefined && clock.hourOf(cur) >= j.logStart) {
        c.archiveVer = ver;
        c.archiveMs = ver === 1 ? Math.floor(cur / 1000) * 1000 : c.trueMs;
        c.archiveLineMs = cur;
      }
      c.archived = true;
      emit(text, key(c));
      cur += rng.int(20_000, 80_000);
      if ((j.dupArchive ?? []).includes(key(c))) {
        const list = dupAt.get(k + 3) ?? [];
        list.push(c);
        dupAt.set(k + 3, list);
      }
    }
    // skip lines: a checkpoint being written right now
    for (const c of pending) {
      if (c.trueMs > T && c.trueMs <= T + 240_000 && !"XUPLS".includes(c.fate) && vis(c)) {
        emit(
          ver === 1
            ? `${v1ts(cur)} skip ${c.pvcPath}: no STABLE yet`
            : `${v2ts(cur)} level=info action=skip family=${c.dir} step=${c.step} reason=incomplete`,
        );
        cur += 500;
      }
    }
    for (const x of m.incomplete) {
      const h0 = clock.hourOf(x.ms);
      if (hT >= h0 && hT <= h0 + 0.7) {
        const dir = x.relDir.split("/").pop()!;
        emit(
          ver === 1
            ? `${v1ts(cur)} skip ${root}/${x.relDir}/weights/step_${x.step}: no STABLE yet`
            : `${v2ts(cur)} level=info action=skip family=${dir} step=${x.step} reason=incomplete`,
        );
        cur += 500;
      }
    }
    if (!wrote) {
      if (ver === 1) emit(`${v1ts(cur)} nothing to archive (${onVolume} checkpoints on volume)`);
      else emit(`${v2ts(cur)} level=debug action=skip reason=idle checkpoints=${onVolume}`);
    }
    if (k === 40)
      recs.push({
        ms: cur + 1,
        text: '  warnings.warn("urllib3 (2.2.1) or chardet (5.2.0) doesn\'t match a supported version!")',
      });
  }
  // Lines before logStart are lost (rotated away long ago).
  m.janitor = recs.filter((r) => clock.hourOf(r.ms) >= j.logStart);
  // every janitor-sourced fate must have its line
  for (const c of m.ckpts) {
    if ("12C".includes(c.fate)) {
      if (c.archiveVer === undefined) throw new Error(`${spec.cell} ${key(c)}: no archive line`);
      if (c.fate === "1" && c.archiveVer !== 1) throw new Error(`${spec.cell} ${key(c)}: not v1`);
      if (c.fate === "2" && c.archiveVer !== 2) throw new Error(`${spec.cell} ${key(c)}: not v2`);
      if (c.fate === "2" && c.relDir !== c.dir) throw new Error(`${spec.cell} ${key(c)}: v2-only nested`);
      if (c.archiveLineMs! - c.trueMs > 20 * 60_000) throw new Error(`${spec.cell} ${key(c)}: janitor far behind`);
    }
    if ("XUP".includes(c.fate) && c.archiveVer !== undefined)
      throw new Error(`${spec.cell} ${key(c)}: untimed has a line`);
  }
}

// ---------------------------------------------------------------- fit

export interface FitResult {
  validated: boolean;
  slope: number;
  intercept: number;
  inliers: number;
  outliers: number[]; // steps
  looMax: number;
  anchorMax: number;
  nAnchors: number;
  errH: number | null;
  reason: string;
}

function median(xs: number[]): number {
  const a = xs.slice().sort((p, q) => p - q);
  const n = a.length;
  return n % 2 ? a[(n - 1) / 2]! : (a[n / 2 - 1]! + a[n / 2]!) / 2;
}

function ols(pts: [number, number][]): [number, number] {
  const n = pts.length;
  const mx = pts.reduce((s, p) => s + p[0], 0) / n;
  const my = pts.reduce((s, p) => s + p[1], 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of pts) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  }
  const b = sxy / sxx;
  return [b, my - b * mx];
}

/** Cadence fit + validation of docs/resolution.md, "Cadence fit". */
export function fitFamily(points: [number, number][], anchors: [number, number][]): FitResult {
  const res: FitResult = {
    validated: false,
    slope: NaN,
    intercept: NaN,
    inliers: 0,
    outliers: [],
    looMax: NaN,
    anchorMax: NaN,
    nAnchors: anchors.length,
    errH: null,
    reason: "",
  };
  if (points.length < 3) return { ...res, reason: "fewer than 3 exact points" };
  const slopes: number[] = [];
  for (let i = 0; i < points.length; i++)
    for (let k = i + 1; k < points.length; k++) {
      const [x1, y1] = points[i]!;
      const [x2, y2] = points[k]!;
      if (x2 !== x1) slopes.push((y2 - y1) / (x2 - x1));
    }
  const m = median(slopes);
  const b = median(points.map(([x, y]) => y - m * x));
  const r = points.map(([x, y]) => y - (m * x + b));
  const mr = median(r);
  const mad = median(r.map((v) => Math.abs(v - mr)));
  const thr = Math.max(0.5, 3 * 1.4826 * mad);
  const inl = points.filter((_, i) => Math.abs(r[i]!) <= thr);
  res.outliers = points.filter((_, i) => Math.abs(r[i]!) > thr).map((p) => p[0]);
  res.inliers = inl.length;
  if (inl.length < 3) return { ...res, reason: "fewer than 3 inliers" };
  const [s, c] = ols(inl);
  res.slope = s;
  res.intercept = c;
  let loo = 0;
  for (let i = 0; i < inl.length; i++) {
    const rest = inl.filter((_, k) => k !== i);
    const [s2, c2] = ols(rest);
    loo = Math.max(loo, Math.abs(s2 * inl[i]![0] + c2 - inl[i]![1]));
  }
  res.looMax = loo;
  if (anchors.length === 0) return { ...res, reason: "no anchors" };
  res.anchorMax = Math.max(...anchors.map(([x, y]) => Math.abs(s * x + c - y)));
  res.validated = res.looMax <= 1.5 && res.anchorMax <= 1.5;
  res.errH = res.validated ? round2(Math.max(res.looMax, res.anchorMax)) : null;
  res.reason = res.validated ? "validated" : "validation failed";
  return res;
}
