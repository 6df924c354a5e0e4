/**
 * The true answer: every row the rules of docs/resolution.md give for the
 * generated sources, plus the published/spare repos the hub folder holds.
 */
import { Rng, fmtTz, hhh, iso, round2 } from "./lib.js";
import { type Call, type SessionCalls, total } from "./calls.js";
import { type CellModel, type Ckpt, type FitResult, findCkpt, fitFamily, key } from "./model.js";
import { BASELINE, EOS, type EosStyle, ORG, SPARE } from "./spec.js";

export interface PubRepo {
  name: string; // owner/name
  ckpt: Ckpt;
  eos: EosStyle;
  createdAt: string;
  lastModified: string;
  sha: string;
  chatTemplateFile: boolean;
}

export interface SpareRepo {
  name: string;
  ckpt: Ckpt;
  createdAt: string;
  sha: string;
}

export interface TruthRow {
  model_id: string | null;
  cell: string;
  driver: string | null;
  effort: string | null;
  hour: number | null;
  hour_source: string;
  hour_upper_bound: number | null;
  driver_tokens_at_hour: number | null;
  role: string;
  eos_ok: boolean | null;
  eos_token_id: number[] | null;
  source: string;
  family: string | null;
  step: number | null;
  hour_lower_bound: number | null;
  hour_error_h: number | null;
  true_hour: number | null;
  true_write_time: string | null;
}

function eosIds(style: EosStyle): number[] {
  switch (style) {
    case "gen-list-ok":
      return [248044, 248046];
    case "gen-int-bad":
      return [248044];
    case "top-int-ok":
      return [248046];
    case "text-list-ok":
      return [248044, 248046];
    case "text-int-bad":
      return [248044];
    case "gen-bad-top-ok":
      return [248044];
    case "gen-nokey-top-ok":
      return [248046];
  }
}

export interface Resolved {
  model: CellModel;
  rows: TruthRow[];
  lost: Ckpt[];
  published: PubRepo[];
  spares: SpareRepo[];
  curve: [number, number][];
  predictedMs: Map<string, number>;
  fits: Map<string, FitResult>;
}

export interface HourInfo {
  source: "mtime" | "janitor" | "untimed";
  ms: number | null; // chosen evidence time (float ms)
}

/** The exact evidence a checkpoint keeps (docs/resolution.md, "Hour: precedence"). */
export function hourInfo(m: CellModel, c: Ckpt): HourInfo {
  const stableInPvc = "MDCS".includes(c.fate);
  if (stableInPvc && c.fate !== "C") {
    const t = c.trueMs + c.subNs / 1e6;
    if (t >= m.clock.startMs && t <= m.endMs) return { source: "mtime", ms: t };
  }
  if (c.archiveVer !== undefined) return { source: "janitor", ms: c.archiveMs! };
  return { source: "untimed", ms: null };
}

export function anchorTimes(m: CellModel): { c: Ckpt; ms: number; line: string }[] {
  const out: { c: Ckpt; ms: number; line: string }[] = [];
  for (const a of m.spec.anchors ?? []) {
    const c = findCkpt(m, a.key);
    if (!c) throw new Error(`anchor ${a.key}`);
    const ms = c.trueMs + a.deltaMin * 60_000 + 17_000;
    const tz = a.offset && a.offset.includes("/") ? a.offset : "UTC";
    const time = fmtTz(ms, tz, "yyyy-MM-dd'T'HH:mm:ssxxx");
    out.push({ c, ms: Math.floor(ms / 1000) * 1000, line: `${c.fam}\t${c.step}\t${time}\t${a.kind}\t${a.note}` });
  }
  return out;
}

function tokensAt(curve: [number, number][], t: number): number {
  let lo = 0;
  let hi = curve.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (curve[mid]![0] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? 0 : curve[lo - 1]![1];
}

function curveOf(m: CellModel, sessions: SessionCalls[]): [number, number][] {
  const calls: Call[] = sessions.flatMap((s) => s.calls).filter((c) => !c.timeless && c.ms >= m.clock.startMs);
  calls.sort((a, b) => a.ms - b.ms);
  const out: [number, number][] = [];
  let acc = 0;
  for (const c of calls) {
    acc += total(c);
    const last = out[out.length - 1];
    if (last && last[0] === c.ms) last[1] = acc;
    else out.push([c.ms, acc]);
  }
  return out;
}

/** Fits and predicted times, needed before calls are generated (to keep calls clear of them). */
export function fitCell(m: CellModel): Map<string, number> {
  const pred = new Map<string, number>();
  for (const f of m.spec.families) {
    const cs = m.ckpts.filter((c) => c.dir === f.dir && !"LS".includes(c.fate));
    const pts: [number, number][] = [];
    for (const c of cs) {
      const hi = hourInfo(m, c);
      if (hi.source !== "untimed") pts.push([c.step, m.clock.hourOf(hi.ms!)]);
    }
    const anchors = anchorTimes(m)
      .filter((a) => a.c.dir === f.dir)
      .map((a) => [a.c.step, m.clock.hourOf(a.ms)] as [number, number]);
    const fit = fitFamily(pts, anchors);
    m.fits.set(f.dir, fit);
    const untimed = cs.filter((c) => hourInfo(m, c).source === "untimed");
    for (const c of untimed) {
      const wantX = c.fate === "X";
      if (wantX !== fit.validated) throw new Error(`${m.spec.cell} ${key(c)}: intended ${c.fate}, fit ${fit.reason}`);
      if (fit.validated) {
        if (fit.looMax > 1.0 || fit.anchorMax > 1.0)
          throw new Error(`${m.spec.cell} ${f.dir}: fit not comfortably valid ${fit.looMax} ${fit.anchorMax}`);
        let h = fit.slope * c.step + fit.intercept;
        const { lo, hi } = bounds(m, c);
        if (lo !== null && h < lo) h = lo;
        if (hi !== null && h > hi) h = hi;
        if (Math.abs(h - c.trueH) > fit.errH!)
          throw new Error(`${m.spec.cell} ${key(c)}: prediction ${h} vs true ${c.trueH} beyond ${fit.errH}`);
        pred.set(key(c), m.clock.wallOf(h));
      }
    }
  }
  return pred;
}

function exactHour(m: CellModel, c: Ckpt): number | null {
  const hi = hourInfo(m, c);
  return hi.source === "untimed" ? null : round2(m.clock.hourOf(hi.ms!));
}

function bounds(m: CellModel, c: Ckpt): { lo: number | null; hi: number | null } {
  let lo: number | null = null;
  let hi: number | null = null;
  for (const o of m.ckpts) {
    if (o.dir !== c.dir || "LS".includes(o.fate)) continue;
    const h = exactHour(m, o);
    if (h === null) continue;
    if (o.step < c.step) lo = lo === null ? h : Math.max(lo, h);
    if (o.step > c.step) hi = hi === null ? h : Math.min(hi, h);
  }
  return { lo, hi };
}

export function resolveCell(m: CellModel, sessions: SessionCalls[], pred: Map<string, number>): Resolved {
  const { spec, clock } = m;
  const rng = new Rng(`resolve:${spec.cell}`);
  const curve = curveOf(m, sessions);
  const rows: TruthRow[] = [];
  const lost: Ckpt[] = [];
  const published: PubRepo[] = [];
  const spares: SpareRepo[] = [];
  // roles: the last submit in time order wins
  const submits = spec.roles.submits.slice().sort((a, b) => a[1] - b[1]);
  const submitKey = submits[submits.length - 1]?.[0];
  const submitCk = submitKey ? findCkpt(m, submitKey) : undefined;
  const fallbackCks = spec.roles.fallbacks.map(([k]) => findCkpt(m, k)).filter((c): c is Ckpt => !!c);

  for (const c of m.ckpts) {
    if (c.archived)
      spares.push({
        name: `${SPARE}/${spec.cell}.${c.fam}.step_${c.step}`,
        ckpt: c,
        createdAt: iso((c.archiveLineMs ?? c.trueMs + 2 * 3_600_000) + 40_000),
        sha: rng.hex(40),
      });
  }
  if (spec.excluded) return { model: m, rows, lost, published, spares, curve, predictedMs: pred, fits: m.fits };

  const pubBase = Date.parse("2026-12-03T10:00:00Z");
  for (const c of m.ckpts) {
    if ("LS".includes(c.fate)) {
      lost.push(c);
      continue;
    }
    const hi = hourInfo(m, c);
    const hour = hi.source === "untimed" ? null : round2(clock.hourOf(hi.ms!));
    if (hour !== null) {
      const x = Math.abs(clock.hourOf(hi.ms!)) * 100;
      if (Math.abs(x - Math.floor(x) - 0.5) < 1e-4) throw new Error(`${spec.cell} ${key(c)}: hour on a rounding edge`);
    }
    const fit = m.fits.get(c.dir)!;
    const isX = hi.source === "untimed" && fit.validated;
    const hourSource = hi.source === "untimed" ? (isX ? "extrapolated" : "unrecoverable") : hi.source;
    const b = hi.source === "untimed" ? bounds(m, c) : { lo: null, hi: null };
    // published repos
    const unpublished = (spec.unpublished ?? []).includes(key(c));
    let pubEos: EosStyle | null = null;
    let pubName: string | null = null;
    if (!unpublished) {
      let hpart = hhh(hour);
      if (isX) hpart = "hNA";
      if (hi.source === "janitor" && c.archiveVer === 1 && spec.tz !== "UTC") {
        // the old index read the offset-less local time as UTC
        const local = fmtTz(hi.ms!, spec.tz, "yyyy-MM-dd'T'HH:mm:ss'Z'");
        hpart = hhh(round2(clock.hourOf(Date.parse(local))));
      }
      const stale = spec.stalePublished?.[key(c)];
      if (stale) hpart = stale;
      pubName = `${ORG}/${spec.cell}.${hpart}.${c.fam}.${c.step}`;
      const created = pubBase + rng.int(0, 5 * 86_400_000);
      const modified = created + rng.int(3_600_000, 10 * 86_400_000);
      if ((spec.dupPublished ?? []).includes(key(c))) {
        const oldH = hour === null ? "hNA" : hhh(Math.max(0, hour - 1));
        published.push({
          name: `${ORG}/${spec.cell}.${oldH}.${c.fam}.${c.step}`,
          ckpt: c,
          eos: "gen-int-bad",
          createdAt: iso(created - 20 * 86_400_000),
          lastModified: iso(created - 19 * 86_400_000),
          sha: rng.hex(40),
          chatTemplateFile: false,
        });
      }
      published.push({
        name: pubName,
        ckpt: c,
        eos: c.eos,
        createdAt: iso(created),
        lastModified: iso(modified),
        sha: rng.hex(40),
        chatTemplateFile: rng.chance(0.3),
      });
      pubEos = c.eos;
    }
    const eosIdsList = pubEos ? eosIds(pubEos) : null;
    let source: string;
    if ("MDC".includes(c.fate) || c.archiveVer !== undefined) source = c.pvcPath;
    else if (c.archived) source = `${SPARE}/${spec.cell}.${c.fam}.step_${c.step}`;
    else source = pubName!;
    const role = submitCk === c ? "SUBMITTED" : fallbackCks.includes(c) ? "fallback" : "intermediate";
    rows.push({
      model_id: isX ? null : `${ORG}/${spec.cell}.${hhh(hour)}.${c.fam}.${c.step}`,
      cell: spec.cell,
      driver: spec.driver,
      effort: spec.effort,
      hour: isX ? null : hour,
      hour_source: hourSource,
      hour_upper_bound: b.hi,
      driver_tokens_at_hour: hour === null ? null : tokensAt(curve, hi.ms!),
      role,
      eos_ok: eosIdsList ? eosIdsList.includes(EOS) : null,
      eos_token_id: eosIdsList,
      source,
      family: c.fam,
      step: c.step,
      hour_lower_bound: b.lo,
      hour_error_h: null,
      true_hour: c.trueH,
      true_write_time: iso(c.trueMs),
    });
  }
  // order: hour (null last; extrapolated by true_hour), family, step
  const sortH = (r: TruthRow) =>
    r.hour_source === "extrapolated" ? r.true_hour! : r.hour === null ? Infinity : r.hour;
  rows.sort(
    (a, b) => sortH(a) - sortH(b) || (a.family! < b.family! ? -1 : a.family! > b.family! ? 1 : 0) || a.step! - b.step!,
  );
  return { model: m, rows, lost, published, spares, curve, predictedMs: pred, fits: m.fits };
}

export function baselineRow(): TruthRow {
  return {
    model_id: BASELINE,
    cell: "BASELINE",
    driver: null,
    effort: null,
    hour: 0,
    hour_source: "baseline",
    hour_upper_bound: null,
    driver_tokens_at_hour: 0,
    role: "baseline",
    eos_ok: true,
    eos_token_id: [248044, 248046],
    source: BASELINE,
    family: null,
    step: null,
    hour_lower_bound: null,
    hour_error_h: null,
    true_hour: null,
    true_write_time: null,
  };
}
