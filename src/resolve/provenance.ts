/**
 * Provenance (MANIFEST.md: provenance.jsonl; DESIGN.md: the flow): everything
 * behind one row, every observation with what it said and whether and why it
 * was used, as `explain` shows it.
 */
import type { HourSource, Role } from "../schema.js";
import type { Observation } from "../observations.js";
import type { HubRepoObservation } from "../extractors/hub-files.js";
import type { TokenCall, TokenTotals } from "../extractors/trajectory/types.js";
import { nfc } from "../sources/family-aliases.js";
import { cmpStr } from "../util/values.js";
import { type BudgetClock, round2 } from "./clock.js";
import type { CadenceFit } from "./cadence.js";
import { type Decided, type RejectReason, rejectionOf, type TimeDecision } from "./decision.js";
import { timeIsOf } from "./hour-conflict.js";
import { hourPart } from "./ids.js";
import type { RoleOf } from "./roles.js";
import type { EosDecision } from "./eos.js";
import { iso } from "./run-window.js";

/** Cumulative tokens at a moment: the build passes the cell's token ledger. */
export interface TokensAt {
  at(tMs: number, fromMs?: number): TokenTotals;
  around(tMs: number, before?: number, after?: number): TokenCall[];
}

/** One observation as provenance shows it: what it said, and whether and why it was used. */
export interface EvidenceItem {
  kind: Observation["kind"];
  extractor: string;
  file: string;
  line: number | null;
  offset: number | null;
  raw: string;
  utc: string | null;
  budgetHour: number | null;
  timeNote: string | null;
  used: boolean;
  /** `write`: the time is the write time; `after_write`: an action after the write (janitor v1), so only an upper bound; null: no time. */
  timeIs: "write" | "after_write" | null;
  /** Why a time was set aside (see {@link RejectReason}), or null. */
  rejected: RejectReason | null;
  why: string;
}

/** Everything behind one row (MANIFEST.md: provenance.jsonl). */
export interface RowEvidence {
  model_id: string;
  cell: string;
  family: string;
  step: number;
  hour_source: HourSource;
  rule: string;
  write_time: string | null;
  evidence: EvidenceItem[];
  fit:
    | (Omit<CadenceFit, "looMaxH" | "errorH"> & { looMaxH: number | null; errorH: number | null; family: string })
    | null;
  bounds: { lower: number | null; lowerFrom: number | null; upper: number | null; upperFrom: number | null } | null;
  tokens:
    | (TokenTotals & {
        at: string;
        lastCallTime: string | null;
        callsAround: {
          time: string | null;
          file: string;
          line: number;
          total: number;
          cumulativeTotal: number;
          counted: boolean;
        }[];
      })
    | null;
  role: { role: Role; event: EvidenceItem | null };
  eos: { repo: string | null; from: string | null; chatTemplate: string | null; ids: number[] | null };
  source: string;
}

/** One observation as provenance shows it: `why` is the decision's sentence, else the kind's default. */
export function evidenceItem(o: Observation, clock: BudgetClock, d: TimeDecision, why?: string): EvidenceItem {
  return {
    kind: o.kind,
    extractor: o.extractor,
    file: o.origin.file,
    line: o.origin.line,
    offset: o.origin.offset,
    raw: o.origin.raw,
    utc: iso(o.utcMs),
    budgetHour: o.utcMs === null ? null : round2(clock.hourAt(o.utcMs)),
    timeNote: o.timeNote,
    timeIs: timeIsOf(o),
    used: d.chosen?.observation === o,
    rejected: rejectionOf(d, o)?.reason ?? null,
    why: why ?? (d.chosen?.observation === o ? d.chosen.why : undefined) ?? rejectionOf(d, o)?.why ?? defaultWhy(o),
  };
}

/** The sentence of an observation no decision names. */
function defaultWhy(o: Observation): string {
  switch (o.kind) {
    case "pvc_weights":
      return "weight file on the PVC: the checkpoint's weights survive there";
    case "janitor_other":
      return `janitor ${o.detail.action}: existence only, no write time`;
    case "supervisor_role":
      return `${o.detail.role} event: gives the role, never the hour`;
    case "anchor":
      return "anchor: validates the hour, never a source of it";
    default:
      return "not used";
  }
}

/** The sentence of a spare repo observation. */
export const SPARE_WHY = "the archived copy: its weights survive here (existence only; repo dates are never hours)";

/**
 * The sentence of a published repo observation of the row `modelId` (hour
 * `hour`, family id `family`): a stale hour or an old name will be renamed by
 * a rebuild; else its eos files are read here.
 */
export function publishedWhy(p: HubRepoObservation, modelId: string, hour: number | null, family: string): string {
  if (p.detail.hourPart !== hourPart(hour))
    return `published under h${p.detail.hourPart}: a rebuild renames it to ${modelId}`;
  if (p.repo.id !== modelId)
    return `published as ${p.repo.id}${nfc(p.family) !== family ? ` (family name "${p.family}", now "${family}")` : ""}: a rebuild renames it to ${modelId}`;
  return "published repo: eos files read here (names and dates are never hours)";
}

/** The tokens part of provenance: the totals at the write time and the calls around it. */
function tokensEvidence(
  tokens: TokenTotals | null,
  ledger: TokensAt | null,
  writeMs: number | null,
  runStartMs: number,
): RowEvidence["tokens"] {
  if (!(tokens && ledger !== null && writeMs !== null)) return null;
  return {
    ...tokens,
    at: iso(writeMs)!,
    lastCallTime: iso(tokens.lastCallTimeMs),
    callsAround: ledger.around(writeMs).map((call) => ({
      time: iso(call.timeMs),
      file: call.file,
      line: call.line,
      total: call.uncachedInput + call.cacheRead + call.cacheWrite + call.output,
      cumulativeTotal: call.timeMs === null || call.timeMs < runStartMs ? 0 : ledger.at(call.timeMs, runStartMs).total,
      counted: call.timeMs !== null && call.timeMs <= writeMs && call.timeMs >= runStartMs,
    })),
  };
}

/** What {@link rowEvidence} renders besides the decision. */
export interface RowFacts {
  modelId: string;
  cell: string;
  source: string;
  anchors: readonly Observation[];
  fit: CadenceFit | null | undefined;
  tokens: TokenTotals | null;
  ledger: TokensAt | null;
  role: RoleOf | undefined;
  eos: EosDecision;
  clock: BudgetClock;
  runStartMs: number;
}

/**
 * The provenance of one row: its decision, its observations and the cell's
 * anchors of its step (by file, then line), then its spare and published
 * repos; fit and bounds for untimed rows only.
 */
export function rowEvidence(d: Decided, f: RowFacts): RowEvidence {
  const { cand: c, time: t } = d;
  const untimed = t.source === "extrapolated" || t.source === "unrecoverable";
  const item = (o: Observation, why?: string): EvidenceItem => evidenceItem(o, f.clock, t, why);
  const fit = f.fit;
  return {
    model_id: f.modelId,
    cell: f.cell,
    family: c.family,
    step: c.step,
    hour_source: t.source,
    rule: t.rule,
    write_time: iso(t.writeMs),
    evidence: [
      ...[...c.obs, ...f.anchors.filter((a) => a.step === c.step)]
        .sort((a, b) => cmpStr(a.origin.file, b.origin.file) || (a.origin.line ?? 0) - (b.origin.line ?? 0))
        .map((o) => item(o)),
      ...c.spares.map((s) => item(s, SPARE_WHY)),
      ...c.published.map((p) => item(p, publishedWhy(p, f.modelId, t.hour, c.family))),
    ],
    fit: untimed && fit ? { ...fit, family: c.family, looMaxH: finite(fit.looMaxH), errorH: finite(fit.errorH) } : null,
    bounds: untimed ? { ...d.bounds } : null,
    tokens: tokensEvidence(f.tokens, f.ledger, t.writeMs, f.runStartMs),
    role: { role: f.role?.role ?? "intermediate", event: f.role ? item(f.role.event) : null },
    eos: {
      repo: f.eos.pub?.repo.id ?? null,
      from: f.eos.pub?.repo.eos.from ?? null,
      chatTemplate: f.eos.pub?.repo.eos.chatTemplate ?? null,
      ids: f.eos.ids,
    },
    source: f.source,
  };
}

function finite(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}
