import type { Cell, CellsFile, HourSource, Role, Row } from "../schema.js";
import type { Diagnostics } from "../diagnostics.js";
import { InputError } from "../errors.js";
import type { Observation } from "../observations.js";
import type { SupervisorHistory } from "../extractors/supervisor.js";
import type { HubRepo } from "../extractors/hub-files.js";
import type { TokenCall, TokenTotals } from "../extractors/trajectory/types.js";
import { stepOrderContradictions } from "./step-order.js";
import { BudgetClock, round2 } from "./clock.js";
import { fitCadence, predictHour, DEFAULT_TOLERANCE_H, DEFAULT_OUTLIER_FLOOR_H, type CadenceFit } from "./cadence.js";
import { familyNameProblem, hubNameProblem } from "../schema.js";
import { hourPart, modelId } from "./ids.js";
import { isTimeMs } from "../util/values.js";
import { aliasTable, nfc } from "../sources/family-aliases.js";
import { familyOfName, likelySameFamily } from "./family-names.js";
import { cellTokensAt } from "./cell-tokens.js";
import { cmpStr } from "../util/values.js";

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
  /** Why a time was set aside: `copy_back`, `before_run_start`, `outside_run`, `retry`, `directory_mtime`, `lower_precedence`, `clock_unknown` (inside a pause never resumed before run_end), or null. */
  rejected: string | null;
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

/** A checkpoint seen somewhere whose weights survive nowhere (SOURCES.md, last paragraph). */
export interface LostCheckpoint {
  cell: string;
  family: string;
  step: number;
  seen_in: string[];
}

/** The resolver's output for one cell. */
export interface CellResolution {
  rows: Row[];
  evidence: RowEvidence[];
  lost: LostCheckpoint[];
  fits: Record<string, CadenceFit | null>;
  runStart: string;
  runEnd: string;
  runEndFrom: "run_end" | "100 budget hours" | "a pause never resumed";
}

/** Inputs of {@link resolveCell}. */
export interface CellInputs {
  registry: CellsFile;
  cell: Cell;
  supervisor: SupervisorHistory;
  /** PVC, janitor and anchor observations of this cell. */
  observations: Observation[];
  /** Hub repos of this cell: published (`<org>/...`) and spare (`<spare_owner>/...`). */
  published: { repo: HubRepo; family: string; step: number; hourPart: string }[];
  spares: { repo: HubRepo; family: string; step: number }[];
  /** The cell's token ledger; null when its tokens are unknown (no call placed in time, or an unreadable session file): every row's tokens are then null. */
  tokens: TokensAt | null;
  /** Validation tolerance of the cadence fit and of `HOUR_CONFLICT`, hours (default 1.5). */
  toleranceH?: number;
  /** Floor of the cadence fit's outlier cut, hours (default {@link DEFAULT_OUTLIER_FLOOR_H}). */
  outlierFloorH?: number;
}

interface Candidate {
  family: string;
  step: number;
  obs: Observation[];
  pvcDirs: Set<string>;
  published: CellInputs["published"];
  spares: CellInputs["spares"];
  // decided
  hour: number | null;
  hourExact: number | null; // unrounded budget hour
  writeMs: number | null;
  source: HourSource;
  rule: string;
  errorH: number | null;
  lower: number | null;
  lowerFrom: number | null;
  upper: number | null;
  upperFrom: number | null;
  used: Set<Observation>;
  why: Map<Observation, string>;
  rejected: Map<Observation, string>;
  /** Written inside a pause never resumed before run_end: the budget clock is unknown there (no hour, no extrapolation). */
  clockUnknown: boolean;
}

const key = (family: string, step: number): string => `${family}\u0000${step}`;
// A time no Date can hold (a trajectory's far-future epoch) shows as null rather than crash the build.
const iso = (ms: number | null): string | null => (ms === null || !isTimeMs(ms) ? null : new Date(ms).toISOString());

/**
 * Resolves every checkpoint of one cell into rows (MANIFEST.md: Fields;
 * SOURCES.md: "Where a checkpoint's hour comes from"; docs/resolution.md).
 *
 * Precedence: STABLE mtime within the run > first janitor archive > the
 * family's validated cadence fit > unrecoverable. Bounds from exactly timed
 * rows of the same family; tokens at the write time; roles from the last
 * `submit` and every `fallback`; eos from the published repo.
 *
 * @throws InputError `FAMILY_INVALID_NAME` (a family id not valid in a Hub
 *   repo name, naming the PVC directory: add a `family_aliases` entry),
 *   `DUPLICATE_CHECKPOINT` (one directory name at two PVC paths holds one step),
 *   `FAMILY_ALIAS_COLLISION` (two PVC directories with different names give one
 *   family id and both hold one step; without a shared step they are one
 *   family, e.g. a renamed directory),
 *   `DUPLICATE_MODEL_ID`.
 * Warnings: `PVC_MTIME_AFTER_RUN_END` (copy-back), `PVC_MTIME_BEFORE_RUN_START`,
 *   `JANITOR_TIME_OUTSIDE_RUN`, `HOUR_CONFLICT` (mtime and janitor differ by
 *   more than the tolerance), `SUPERVISOR_UNKNOWN_CHECKPOINT`,
 *   `EXTRAPOLATION_CLAMPED`, `CHECKPOINT_LOST` (at the first evidence of it),
 *   `PVC_DUPLICATE_ENTRY` (one STABLE listed twice with different mtimes),
 *   `HUB_NO_EOS` (a published repo whose files give no stop ids: `eos_ok` null),
 *   `CADENCE_NOT_VALIDATED` (a family with anchors whose fit fails: its
 *   untimed checkpoints stay unrecoverable), `FAMILY_NOT_ON_PVC` and
 *   `HUB_UNKNOWN_FAMILY` (rows of a family no PVC directory shows),
 *   `FAMILY_ALIAS_UNUSED` (a `family_aliases` key that names nothing of the cell),
 *   `FAMILY_DIRS_INTERLEAVED` (PVC directories of one family whose steps interleave),
 *   `FAMILY_STEP_ORDER` (exactly timed checkpoints of one family whose hours contradict their steps, see step-order.ts),
 *   `FAMILY_NAME_AMBIGUOUS` (an alias key that is also another family's id).
 *
 * Family names (family-names.ts): observations carry family ids already;
 * Hub repos' and anchors' family parts are matched by `familyOfName`.
 */
export function resolveCell(input: CellInputs, diag: Diagnostics): CellResolution {
  const { registry, cell, supervisor } = input;
  const toleranceH = input.toleranceH ?? DEFAULT_TOLERANCE_H;
  const clock = new BudgetClock(supervisor.runStartMs, supervisor.pauses);
  // Without run_end, the run ends at 100 budget hours, or where a pause that never ended stopped the clock.
  const { ms: runEndMs, from: runEndFrom } = clock.runEnd(supervisor.runEndMs);
  // A pause never resumed before run_end: how much budget time passed between the two is unknown
  // (the resume is missing), so a write time inside it has no hour the tool can stand behind.
  const stoppedMs = clock.stoppedAtMs();
  const unknownFromMs =
    supervisor.runEndMs !== null && stoppedMs !== null && stoppedMs < supervisor.runEndMs ? stoppedMs : null;
  const clockUnknownAt = (t: number): boolean => unknownFromMs !== null && t > unknownFromMs;

  // 1. Group every piece of evidence by checkpoint.
  const cands = new Map<string, Candidate>();
  const get = (family: string, step: number): Candidate => {
    const k = key(family, step);
    let c = cands.get(k);
    if (!c) {
      c = {
        family,
        step,
        obs: [],
        pvcDirs: new Set(),
        published: [],
        spares: [],
        hour: null,
        hourExact: null,
        writeMs: null,
        source: "unrecoverable",
        rule: "",
        errorH: null,
        lower: null,
        lowerFrom: null,
        upper: null,
        upperFrom: null,
        used: new Set(),
        why: new Map(),
        rejected: new Map(),
        clockUnknown: false,
      };
      cands.set(k, c);
    }
    return c;
  };
  // The families the PVC, janitor and supervisor name (ids after family_aliases, in NFC): a Hub
  // repo or an anchor whose family part is one of these ids, or a directory name (or earlier
  // name) of one, is that family's evidence (family-names.ts: familyOfName).
  const stepsOf = new Map<string, Set<number>>();
  for (const o of [...input.observations, ...supervisor.roleEvents]) {
    if (o.kind !== "anchor") stepsOf.set(o.family, (stepsOf.get(o.family) ?? new Set()).add(o.step));
  }
  const familyIds: ReadonlySet<string> = new Set(stepsOf.keys());
  const familyOf = (name: string, step: number): string => familyOfName(cell, name, familyIds, { step, stepsOf });
  const anchorsByFamily = new Map<string, Observation[]>();
  for (const o of input.observations) {
    if (o.kind === "anchor") {
      const family = familyOf(o.family, o.step);
      const list = anchorsByFamily.get(family) ?? [];
      list.push(o);
      anchorsByFamily.set(family, list);
      continue;
    }
    const c = get(o.family, o.step);
    c.obs.push(o);
    if (isPvc(o) && o.familyDir !== null) c.pvcDirs.add(o.familyDir);
  }
  for (const o of supervisor.roleEvents) get(o.family, o.step).obs.push(o);
  for (const p of input.published) get(familyOf(p.family, p.step), p.step).published.push(p);
  for (const s of input.spares) get(familyOf(s.family, s.step), s.step).spares.push(s);

  // 2. Existence, and the family names that will stand in ids.
  const rowsCands: Candidate[] = [];
  const lost: LostCheckpoint[] = [];
  for (const c of [...cands.values()].sort((a, b) => cmpStr(a.family, b.family) || a.step - b.step)) {
    if (c.pvcDirs.size > 1) {
      // Directories on the PVC are checkpoints there now: two holding one family id and step are two
      // checkpoints (a renamed directory's old name only appears in logs and on the Hub).
      const names = new Set([...c.pvcDirs].map((d) => nfc(d.split("/").pop()!)));
      if (names.size > 1) {
        const shown = [...c.pvcDirs]
          .sort(cmpStr)
          .slice(0, 2)
          .map((d) => {
            const o = c.obs
              .filter((x) => isPvc(x) && x.familyDir === d)
              .sort((x, y) => cmpStr(x.origin.file, y.origin.file) || (x.origin.line ?? 0) - (y.origin.line ?? 0))[0]!;
            return `${JSON.stringify(d.split("/").pop())} (${o.origin.file}:${o.origin.line})`;
          });
        throw new InputError(
          "FAMILY_ALIAS_COLLISION",
          `cell "${cell.cell}": directories ${shown.join(" and ")} both give family "${c.family}" and both hold step ${c.step}: two training runs would be merged; fix family_aliases`,
          "cells.json",
        );
      }
      throw new InputError(
        "DUPLICATE_CHECKPOINT",
        `cell "${cell.cell}": directories ${[...c.pvcDirs]
          .map((d) => JSON.stringify(d))
          .sort()
          .join(" and ")} both give family "${c.family}" step ${c.step}`,
        `${cell.cell}/pvc`,
      );
    }
    const stable = c.obs.some((o) => o.kind === "pvc_stable");
    const weightsOnPvc = stable && c.obs.some((o) => o.kind === "pvc_weights");
    const survives = weightsOnPvc || c.spares.length > 0 || c.published.length > 0;
    if (!survives) {
      // Evidence that a *complete* checkpoint existed: a janitor `skip` (e.g. "no STABLE yet") is not.
      const seen = [
        ...new Set(
          c.obs
            .filter((o) => !(o.kind === "janitor_other" && /^skip/.test(String(o.detail.action))))
            .map((o) => o.kind),
        ),
      ].filter((k) => k !== "pvc_dir" && k !== "pvc_weights");
      if (seen.length > 0) {
        lost.push({ cell: cell.cell, family: c.family, step: c.step, seen_in: seen.sort() });
        const first = c.obs.find((o) => (seen as string[]).includes(o.kind));
        diag.warn(
          "CHECKPOINT_LOST",
          `${cell.cell} ${c.family} step ${c.step}: seen in ${seen.join(", ")} but its weights survive nowhere (no row)`,
          first?.origin.file ?? null,
          first?.origin.line ?? null,
        );
      }
      for (const o of c.obs.filter((o) => o.kind === "supervisor_role")) {
        diag.warn(
          "SUPERVISOR_UNKNOWN_CHECKPOINT",
          `${o.detail.role} names ${o.detail.path}, which has no row`,
          o.origin.file,
          o.origin.line,
        );
      }
      continue;
    }
    const problem = familyNameProblem(c.family);
    if (problem) {
      // Name the first line that shows the directory (the listing, else a janitor or supervisor line).
      const first = [...c.obs]
        .filter((o) => o.familyDir !== null)
        .sort((x, y) => cmpStr(x.origin.file, y.origin.file) || (x.origin.line ?? 0) - (y.origin.line ?? 0))[0];
      const dir = [...c.pvcDirs][0] ?? first?.familyDir ?? c.family;
      throw new InputError(
        "FAMILY_INVALID_NAME",
        `cell "${cell.cell}": family directory ${JSON.stringify(dir)} ${problem}, so it cannot stand in a Hub repo name; map it in cells.json family_aliases`,
        first?.origin.file ?? "cells.json",
        first?.origin.line ?? null,
      );
    }
    rowsCands.push(c);
  }

  // 2a. An alias key no evidence of the cell uses (a typo, or a directory that does not exist) changes nothing: say so.
  // One that is also the id of another family (a swap, a chain) makes Hub repos of that name ambiguous.
  warnUnusedAliases(input, diag);
  for (const [key, id] of aliasTable(cell.family_aliases)) {
    if (key !== nfc(id) && familyIds.has(key)) {
      diag.warn(
        "FAMILY_NAME_AMBIGUOUS",
        `cell "${cell.cell}": "${key}" is the id of a family and, as a family_aliases key, an earlier name of family "${id}": a Hub repo or anchor named "${key}" is taken as "${id}"'s only when its step is one of "${id}"'s and not of "${key}"'s; give the families distinct names`,
        "cells.json",
        null,
      );
    }
  }

  // 2a'. Several PVC directories of one family (a renamed directory) follow each other in steps; interleaved
  // steps look like two training runs merged by family_aliases.
  warnInterleavedDirectories(cell.cell, [...cands.values()], diag);

  // 2b. Families no PVC directory shows: a renamed directory whose old name the logs or the Hub still
  // use, or an alias changed after publishing. Their rows are kept (the weights survive), never silently.
  warnUnknownFamilies(cell.cell, rowsCands, [...cands.values()], diag);

  // 2c. An anchor validates the hour of a checkpoint some source shows (a row or a lost checkpoint): one
  // naming a step no source knows (a typo) would validate a fit on nothing (SOURCES.md: anchors.tsv).
  const shownKeys = new Set([
    ...rowsCands.map((c) => key(c.family, c.step)),
    ...lost.map((l) => key(l.family, l.step)),
  ]);
  const shownFamilies = new Set([...rowsCands.map((c) => c.family), ...lost.map((l) => l.family)]);
  for (const [family, list] of [...anchorsByFamily.entries()].sort((a, b) => cmpStr(a[0], b[0]))) {
    if (!shownFamilies.has(family)) {
      for (const a of list)
        diag.warn(
          "ANCHOR_UNKNOWN_FAMILY",
          `anchor for family "${family}", which has no checkpoint in cell "${cell.cell}"; not used`,
          a.origin.file,
          a.origin.line,
        );
      anchorsByFamily.delete(family);
      continue;
    }
    const known = list.filter((a) => shownKeys.has(key(family, a.step)));
    for (const a of list.filter((x) => !shownKeys.has(key(family, x.step)))) {
      diag.warn(
        "ANCHOR_UNKNOWN_STEP",
        `anchor for ${family} step ${a.step}, a checkpoint no source of cell "${cell.cell}" shows (no row, not a lost checkpoint); not used`,
        a.origin.file,
        a.origin.line,
      );
    }
    anchorsByFamily.set(family, known);
  }

  // 3. Exact hours: STABLE mtime within the run, else the first janitor archive.
  for (const c of rowsCands) {
    const stables = c.obs.filter((o) => o.kind === "pvc_stable").sort((a, b) => a.seq - b.seq);
    // One directory holds one STABLE file: a second entry for it with another mtime is a listing fault.
    for (const o of stables.slice(1)) {
      if (o.utcMs !== stables[0]!.utcMs) {
        diag.warn(
          "PVC_DUPLICATE_ENTRY",
          `${c.family} step ${c.step}: STABLE listed again with mtime ${iso(o.utcMs)} (line ${stables[0]!.origin.line} says ${iso(stables[0]!.utcMs)}); the first one within the run is used`,
          o.origin.file,
          o.origin.line,
        );
      }
    }
    let chosen: Observation | null = null;
    for (const o of stables) {
      const t = o.utcMs!;
      if (t > runEndMs) {
        c.rejected.set(o, "copy_back");
        c.why.set(o, `copy-back: STABLE mtime ${iso(t)} is after the run's end ${iso(runEndMs)} (${runEndFrom})`);
        diag.warn(
          "PVC_MTIME_AFTER_RUN_END",
          `${c.family} step ${c.step}: STABLE mtime ${iso(t)} is after the run ended (${iso(runEndMs)}); treated as a copy-back, not a write time`,
          o.origin.file,
          o.origin.line,
        );
      } else if (t < supervisor.runStartMs) {
        c.rejected.set(o, "before_run_start");
        c.why.set(o, `STABLE mtime ${iso(t)} is before run_start`);
        diag.warn(
          "PVC_MTIME_BEFORE_RUN_START",
          `${c.family} step ${c.step}: STABLE mtime ${iso(t)} is before run_start`,
          o.origin.file,
          o.origin.line,
        );
      } else if (!chosen) {
        chosen = o;
      }
    }
    for (const o of c.obs.filter((o) => o.kind === "pvc_dir")) {
      c.rejected.set(o, "directory_mtime");
      c.why.set(
        o,
        "a directory's mtime moves when entries inside it change (e.g. shards deleted by pruning): never a write time",
      );
    }
    const archives = c.obs.filter((o) => o.kind === "janitor_archive").sort((a, b) => a.seq - b.seq);
    let firstArchive: Observation | null = null;
    for (const o of archives) {
      const t = o.utcMs!;
      if (t < supervisor.runStartMs || t > runEndMs) {
        c.rejected.set(o, "outside_run");
        c.why.set(o, `janitor time ${iso(t)} is outside the run`);
        diag.warn(
          "JANITOR_TIME_OUTSIDE_RUN",
          `${c.family} step ${c.step}: janitor time ${iso(t)} is outside the run`,
          o.origin.file,
          o.origin.line,
        );
      } else if (!firstArchive) {
        firstArchive = o;
      } else {
        c.rejected.set(o, "retry");
        c.why.set(
          o,
          `a later archive of the same checkpoint (retry); the first, ${firstArchive.origin.file}:${firstArchive.origin.line}, counts`,
        );
      }
    }
    if (chosen) {
      c.used.add(chosen);
      c.why.set(chosen, "STABLE mtime within the run: the write time (precedence 1, mtime)");
      c.writeMs = chosen.utcMs;
      c.source = "mtime";
      c.rule = "mtime: STABLE file mtime within the run";
      if (firstArchive) {
        c.rejected.set(firstArchive, "lower_precedence");
        c.why.set(firstArchive, "janitor evidence is lower in precedence than a trustworthy mtime");
        // A v1 time is when the janitor acted, so it may only be later than the write (SOURCES.md: janitor).
        const diffH = clock.hourAt(firstArchive.utcMs!) - clock.hourAt(chosen.utcMs!);
        const actionOnly = firstArchive.detail.version === "v1";
        if (actionOnly ? diffH < -toleranceH : Math.abs(diffH) > toleranceH) {
          diag.warn(
            "HOUR_CONFLICT",
            `${c.family} step ${c.step}: STABLE mtime and janitor ${actionOnly ? "action time (before the write!)" : "src_mtime"} differ by ${diffH.toFixed(2)} h`,
            firstArchive.origin.file,
            firstArchive.origin.line,
          );
        }
      }
    } else if (firstArchive) {
      c.used.add(firstArchive);
      c.why.set(
        firstArchive,
        `first janitor archive of this checkpoint (precedence 2, janitor): ${firstArchive.timeNote}`,
      );
      c.writeMs = firstArchive.utcMs;
      c.source = "janitor";
      c.rule = `janitor: first archive line, ${firstArchive.timeNote}`;
    }
    if (c.writeMs !== null && clockUnknownAt(c.writeMs)) {
      const at = chosen ?? firstArchive!;
      c.used.delete(at);
      c.rejected.set(at, "clock_unknown");
      c.why.set(
        at,
        `written at ${iso(c.writeMs)}, inside the pause begun ${iso(unknownFromMs)} that is never resumed before run_end: the budget clock is unknown there`,
      );
      c.clockUnknown = true;
      c.writeMs = null;
      c.source = "unrecoverable";
      c.rule = `unrecoverable: written inside a pause (from ${iso(unknownFromMs)}) never resumed before run_end, so its budget hour is unknown`;
    }
    if (c.writeMs !== null) {
      c.hourExact = clock.hourAt(c.writeMs);
      c.hour = round2(c.hourExact);
    }
  }
  const unknownHours = rowsCands.filter((c) => c.clockUnknown);
  if (unknownHours.length > 0) {
    const pause = supervisor.pauses.filter((p) => p.endMs === null).pop();
    diag.warn(
      "HOUR_IN_UNRESUMED_PAUSE",
      `cell "${cell.cell}": ${unknownHours.length} checkpoint(s) written after the pause at ${iso(unknownFromMs)}, which is never resumed before run_end (${iso(supervisor.runEndMs)}), get no hour (unrecoverable, with bounds): the budget clock there is unknown (${unknownHours
        .slice(0, 3)
        .map((c) => `${c.family} step ${c.step}`)
        .join(", ")}${unknownHours.length > 3 ? ", ..." : ""})`,
      `${cell.cell}/supervisor/history.jsonl`,
      pause?.line ?? null,
    );
  }

  // 4. Families: cadence fits for untimed checkpoints, then bounds.
  const byFamily = new Map<string, Candidate[]>();
  for (const c of rowsCands) byFamily.set(c.family, [...(byFamily.get(c.family) ?? []), c]);
  // 4a. A family is one run, written in step order: a higher step written earlier is two runs merged
  // (a wrong family_aliases entry) or a wrong time. The rule validate checks, on the same hours.
  for (const [family, members] of [...byFamily.entries()].sort((a, b) => cmpStr(a[0], b[0]))) {
    const bad = stepOrderContradictions(
      members.filter((m) => m.hour !== null).map((m) => ({ step: m.step, hour: m.hour!, item: m })),
    );
    if (bad.length === 0) continue;
    const shown = bad
      .slice(0, 3)
      .map((b) => `step ${b.lower.step} at h ${b.lower.hour} but step ${b.higher.step} at h ${b.higher.hour}`)
      .join("; ");
    const at = [...bad[0]!.higher.item.used][0] ?? bad[0]!.higher.item.obs[0];
    diag.warn(
      "FAMILY_STEP_ORDER",
      `cell "${cell.cell}" family "${family}": ${bad.length} exactly timed checkpoint(s) written before a lower step (${shown}${bad.length > 3 ? "; ..." : ""}): one training run writes in step order, so these look like two runs merged (check family_aliases) or a wrong time`,
      at?.origin.file ?? "cells.json",
      at?.origin.line ?? null,
    );
  }
  const fits: Record<string, CadenceFit | null> = Object.create(null); // keyed by family: "__proto__" is a valid one
  const fitByFamily = new Map<string, CadenceFit | null>();
  for (const [family, members] of [...byFamily.entries()].sort((a, b) => cmpStr(a[0], b[0]))) {
    const exact = members.filter((m) => m.hourExact !== null);
    for (const m of members.filter((m) => m.hourExact === null)) {
      const lower = exact.filter((e) => e.step < m.step).sort((a, b) => b.hour! - a.hour!)[0];
      const upper = exact.filter((e) => e.step > m.step).sort((a, b) => a.hour! - b.hour!)[0];
      m.lower = lower?.hour ?? null;
      m.lowerFrom = lower?.step ?? null;
      m.upper = upper?.hour ?? null;
      m.upperFrom = upper?.step ?? null;
    }
    const untimed = members.filter((m) => m.hourExact === null);
    // An anchor inside the unresumed pause has no known budget hour either.
    const anchors = (anchorsByFamily.get(family) ?? [])
      .filter((a) => !clockUnknownAt(a.utcMs!))
      .map((a) => ({ step: a.step, hour: clock.hourAt(a.utcMs!) }));
    const fit = fitCadence(
      exact.map((e) => ({ step: e.step, hour: e.hourExact! })),
      anchors,
      toleranceH,
      input.outlierFloorH ?? DEFAULT_OUTLIER_FLOOR_H,
    );
    fits[family] = fit;
    fitByFamily.set(family, fit);
    for (const m of untimed) {
      if (m.clockUnknown) continue; // its rule says why; no prediction can map to a clock that is unknown
      if (fit && fit.validated) {
        let h = predictHour(fit, m.step);
        let clampNote = "";
        if (m.lower !== null && h < m.lower) {
          clampNote = ` (prediction ${h.toFixed(2)} h clamped up to the lower bound)`;
          h = m.lower;
        } else if (m.upper !== null && h > m.upper) {
          clampNote = ` (prediction ${h.toFixed(2)} h clamped down to the upper bound)`;
          h = m.upper;
        }
        if (clampNote) diag.warn("EXTRAPOLATION_CLAMPED", `${family} step ${m.step}${clampNote}`, null, null);
        m.source = "extrapolated";
        m.hourExact = h;
        m.hour = round2(h);
        const t = clock.timeAt(h);
        m.writeMs = Number.isFinite(t) ? t : runEndMs; // a clock stopped for good never reads a later hour
        m.errorH = round2(fit.errorH);
        m.rule = `extrapolated: cadence fit of family ${family} on ${fit.used.length} exact points, validated (${fit.reason})${clampNote}`;
      } else {
        m.source = "unrecoverable";
        m.rule = fit
          ? `unrecoverable: no mtime or janitor time survives, and the cadence fit does not validate (${fit.reason})`
          : `unrecoverable: no mtime or janitor time survives, and family ${family} has ${exact.length} exactly timed checkpoints (a fit needs 3)`;
      }
    }
    // A family with anchors was meant to be checked: say why its untimed checkpoints get no hour.
    const familyAnchors = anchorsByFamily.get(family) ?? [];
    if (untimed.length > 0 && familyAnchors.length > 0 && !(fit && fit.validated)) {
      diag.warn(
        "CADENCE_NOT_VALIDATED",
        `${cell.cell} family ${family}: ${untimed.length} untimed checkpoint(s) stay unrecoverable: ${fit ? fit.reason : `only ${exact.length} exactly timed checkpoint(s), a fit needs 3`}`,
        familyAnchors[0]!.origin.file,
        familyAnchors[0]!.origin.line,
      );
    }
  }

  // 5. Roles: the last submit wins; every fallback.
  const roleOf = new Map<string, { role: Role; event: Observation }>();
  const roleEvents = [...supervisor.roleEvents].sort((a, b) => a.seq - b.seq);
  for (const ev of roleEvents.filter((e) => e.detail.role === "fallback"))
    roleOf.set(key(ev.family, ev.step), { role: "fallback", event: ev });
  const submits = roleEvents.filter((e) => e.detail.role === "SUBMITTED");
  const lastSubmit = submits[submits.length - 1];
  if (lastSubmit) roleOf.set(key(lastSubmit.family, lastSubmit.step), { role: "SUBMITTED", event: lastSubmit });
  const rowKeys = new Set(rowsCands.map((c) => key(c.family, c.step)));
  for (const ev of roleEvents) {
    const k = key(ev.family, ev.step);
    if (cands.has(k) && !rowKeys.has(k)) continue; // already reported with the lost checkpoint
    if (!cands.has(k))
      diag.warn(
        "SUPERVISOR_UNKNOWN_CHECKPOINT",
        `${ev.detail.role} names ${ev.detail.path}, which has no row`,
        ev.origin.file,
        ev.origin.line,
      );
  }

  // 6. Rows.
  const rows: Row[] = [];
  const evidence: RowEvidence[] = [];
  // The PVC directories of each family (a renamed directory: several), for janitor v2 lines naming only `family=`.
  const familyDirsOf = new Map<string, string[]>();
  for (const c of rowsCands) {
    for (const dir of c.pvcDirs) {
      const dirs = familyDirsOf.get(c.family) ?? [];
      if (!dirs.includes(dir)) dirs.push(dir);
      familyDirsOf.set(c.family, dirs);
    }
  }
  const pvcDirFor = (family: string, named: string): string => {
    const dirs = familyDirsOf.get(family) ?? [];
    const base = nfc(named.split("/").pop()!);
    return dirs.find((d) => d === named) ?? dirs.find((d) => nfc(d.split("/").pop()!) === base) ?? named;
  };
  for (const c of rowsCands) {
    const id = modelId(registry.org, cell.cell, c.hour, c.family, c.step);
    const problem = hubNameProblem(id.slice(registry.org.length + 1));
    if (problem) {
      throw new InputError(
        "FAMILY_INVALID_NAME",
        `model id ${id} ${problem}; map the family in cells.json family_aliases`,
        "cells.json",
      );
    }
    // source (MANIFEST.md): the PVC path when the listing or a janitor line shows it, else the spare, else the published repo.
    const janitorObs = c.obs.filter((o) => o.kind.startsWith("janitor") && o.familyDir !== null);
    const v1Dir = janitorObs.find((o) => o.detail.version === "v1")?.familyDir ?? undefined;
    // A v1 path is the path; a v2 `family=` is the directory's name (it may sit under runs/): the family's
    // PVC directory of that name, else the name as the line gives it (the directory was renamed since).
    const pvcDir =
      [...c.pvcDirs][0] ??
      (janitorObs.length > 0 ? (v1Dir ?? pvcDirFor(c.family, janitorObs[0]!.familyDir!)) : undefined);
    const source =
      pvcDir !== undefined
        ? `${cell.pvc_root.replace(/\/+$/, "")}/${pvcDir}/weights/step_${c.step}`
        : c.spares.length > 0
          ? c.spares[0]!.repo.id
          : [...c.published].sort((a, b) => cmpStr(a.repo.id, b.repo.id))[0]!.repo.id;
    // The repo at the row's own id is the one users download; else the most recently changed one.
    const pub =
      c.published.find((p) => p.repo.id === id) ??
      [...c.published].sort(
        (a, b) => cmpStr(b.repo.lastModified ?? "", a.repo.lastModified ?? "") || cmpStr(a.repo.id, b.repo.id),
      )[0];
    if (c.published.length > 1) {
      // One checkpoint, one published repo: a second one is a copy (a rename that left the old repo), whatever its stop ids.
      const differ = new Set(c.published.map((p) => JSON.stringify(p.repo.eos.ids))).size > 1;
      diag.warn(
        "HUB_DUPLICATE_REPO",
        `${c.published.length} published repos hold ${cell.cell} ${c.family} step ${c.step}${differ ? " with different stop ids" : " (same stop ids)"} (${[
          ...c.published,
        ]
          .sort((a, b) => cmpStr(a.repo.id, b.repo.id))
          .map((p) => `${p.repo.id}: ${JSON.stringify(p.repo.eos.ids)}`)
          .join("; ")}); eos is read from ${pub!.repo.id}`,
        pub!.repo.dir,
        null,
      );
    }
    const eosIds = pub ? pub.repo.eos.ids : null;
    // No file of the published repo gives stop ids: unknown, not a packaging defect (null, with a warning).
    const eosOk = pub && eosIds !== null ? eosIds.includes(registry.required_eos_token_id) : null;
    if (pub && eosIds === null) {
      diag.warn(
        "HUB_NO_EOS",
        `${pub.repo.id}: no generation_config.json or config.json gives eos_token_id, so eos_ok is unknown (null)`,
        pub.repo.dir,
        null,
      );
    }
    const role = roleOf.get(key(c.family, c.step));
    const ledger = input.tokens;
    // Null past the logs' end too (resolve/token-coverage.ts): cellTokensAt is the rule `tokens --cell` uses.
    const tokens = c.writeMs !== null ? cellTokensAt(ledger, c.writeMs, supervisor.runStartMs) : null;
    const untimed = c.source === "extrapolated" || c.source === "unrecoverable";
    rows.push({
      model_id: id,
      cell: cell.cell,
      driver: cell.driver,
      effort: cell.effort,
      hour: c.hour,
      hour_source: c.source,
      hour_upper_bound: untimed ? c.upper : null,
      driver_tokens_at_hour: tokens ? tokens.total : null,
      role: role?.role ?? "intermediate",
      eos_ok: eosOk,
      eos_token_id: pub ? eosIds : null,
      source,
      family: c.family,
      step: c.step,
      hour_lower_bound: untimed ? c.lower : null,
      hour_error_h: c.source === "extrapolated" ? c.errorH : null,
    });
    const fit = fitByFamily.get(c.family);
    evidence.push({
      model_id: id,
      cell: cell.cell,
      family: c.family,
      step: c.step,
      hour_source: c.source,
      rule: c.rule,
      write_time: iso(c.writeMs),
      evidence: [...c.obs, ...(anchorsByFamily.get(c.family) ?? []).filter((a) => a.step === c.step)]
        .sort((a, b) => cmpStr(a.origin.file, b.origin.file) || (a.origin.line ?? 0) - (b.origin.line ?? 0))
        .map((o) => item(o, clock, c)),
      fit:
        untimed && fit ? { ...fit, family: c.family, looMaxH: finite(fit.looMaxH), errorH: finite(fit.errorH) } : null,
      bounds: untimed ? { lower: c.lower, lowerFrom: c.lowerFrom, upper: c.upper, upperFrom: c.upperFrom } : null,
      tokens:
        tokens && ledger !== null && c.writeMs !== null
          ? {
              ...tokens,
              at: iso(c.writeMs)!,
              lastCallTime: iso(tokens.lastCallTimeMs),
              callsAround: ledger.around(c.writeMs).map((call) => ({
                time: iso(call.timeMs),
                file: call.file,
                line: call.line,
                total: call.uncachedInput + call.cacheRead + call.cacheWrite + call.output,
                cumulativeTotal:
                  call.timeMs === null || call.timeMs < supervisor.runStartMs
                    ? 0
                    : ledger.at(call.timeMs, supervisor.runStartMs).total,
                counted: call.timeMs !== null && call.timeMs <= c.writeMs! && call.timeMs >= supervisor.runStartMs,
              })),
            }
          : null,
      role: { role: role?.role ?? "intermediate", event: role ? item(role.event, clock, c) : null },
      eos: {
        repo: pub?.repo.id ?? null,
        from: pub?.repo.eos.from ?? null,
        chatTemplate: pub?.repo.eos.chatTemplate ?? null,
        ids: eosIds,
      },
      source,
    });
  }

  // Published and spare repos are evidence too.
  for (const ev of evidence) {
    const c = cands.get(key(ev.family, ev.step))!;
    for (const s of c.spares)
      ev.evidence.push(
        repoItem(
          "spare_repo",
          s.repo,
          "the archived copy: its weights survive here (existence only; repo dates are never hours)",
        ),
      );
    for (const p of c.published) {
      const stale = p.hourPart !== hourPart(c.hour);
      const renamed = p.repo.id !== ev.model_id;
      const why = stale
        ? `published under h${p.hourPart}: a rebuild renames it to ${ev.model_id}`
        : renamed
          ? `published as ${p.repo.id}${nfc(p.family) !== c.family ? ` (family name "${p.family}", now "${c.family}")` : ""}: a rebuild renames it to ${ev.model_id}`
          : "published repo: eos files read here (names and dates are never hours)";
      ev.evidence.push(repoItem("published_repo", p.repo, why));
    }
  }

  // Ids are unique (MANIFEST.md: "Two checkpoints may never get the same id").
  // The Hub compares repo names without case, so `dpo` and `DPO` would be one repo there.
  const seenIds = new Map<string, Row>();
  for (const r of rows) {
    const other = seenIds.get(r.model_id.toLowerCase());
    if (other) {
      throw new InputError(
        "DUPLICATE_MODEL_ID",
        other.model_id === r.model_id
          ? `two checkpoints get the id ${r.model_id}`
          : `ids ${other.model_id} and ${r.model_id} differ only in case, and the Hub treats repo names case-insensitively (family directories ${JSON.stringify(other.family)} and ${JSON.stringify(r.family)}): map one in family_aliases`,
        "cells.json",
      );
    }
    seenIds.set(r.model_id.toLowerCase(), r);
  }
  return {
    rows,
    evidence,
    lost,
    fits,
    runStart: iso(supervisor.runStartMs)!,
    runEnd: iso(runEndMs)!,
    runEndFrom,
  };
}

/**
 * Warns `FAMILY_ALIAS_UNUSED` for every `family_aliases` key that names no
 * directory of the cell's PVC, janitor or supervisor evidence, no family part
 * of its Hub repos and no `anchors.tsv` family (compared in NFC): the alias
 * has no effect, so an intended rename did not happen.
 */
function warnUnusedAliases(input: CellInputs, diag: Diagnostics): void {
  const aliases = input.cell.family_aliases;
  if (!aliases || Object.keys(aliases).length === 0) return;
  const used = new Set<string>();
  for (const o of [...input.observations, ...input.supervisor.roleEvents]) {
    if (o.familyDir !== null) used.add(nfc(o.familyDir.split("/").pop()!));
    else if (o.kind === "anchor") used.add(nfc(o.family));
  }
  for (const p of [...input.published, ...input.spares]) used.add(nfc(p.family));
  const dirs = [
    ...new Set(
      input.observations.filter((o) => isPvc(o) && o.familyDir !== null).map((o) => o.familyDir!.split("/").pop()!),
    ),
  ].sort(cmpStr);
  for (const key of Object.keys(aliases)) {
    if (used.has(nfc(key))) continue;
    diag.warn(
      "FAMILY_ALIAS_UNUSED",
      `cell "${input.cell.cell}": family_aliases key ${JSON.stringify(key)} names no directory, log line, event or Hub repo of the cell, so it maps nothing to "${aliases[key]}"${dirs.length ? ` (the PVC's family directories: ${dirs.map((d) => JSON.stringify(d)).join(", ")})` : ""}`,
      "cells.json",
      null,
    );
  }
}

/**
 * Warns `FAMILY_DIRS_INTERLEAVED` once per family whose PVC directories'
 * step ranges overlap (e.g. `sft` holds 100 and 300, `sft-b` holds 200): a
 * renamed directory continues where the old one stopped, so overlapping
 * ranges look like two training runs that `family_aliases` merged. Named at
 * the first listing line of the later directory.
 */
function warnInterleavedDirectories(cellName: string, all: Candidate[], diag: Diagnostics): void {
  const ranges = new Map<string, Map<string, { min: number; max: number; first: Observation }>>();
  for (const c of all) {
    for (const o of c.obs) {
      if (!isPvc(o) || o.familyDir === null) continue;
      const dirs = ranges.get(c.family) ?? new Map<string, { min: number; max: number; first: Observation }>();
      const r = dirs.get(o.familyDir);
      if (!r) dirs.set(o.familyDir, { min: c.step, max: c.step, first: o });
      else {
        r.min = Math.min(r.min, c.step);
        r.max = Math.max(r.max, c.step);
        if (byOrigin(o, r.first) < 0) r.first = o;
      }
      ranges.set(c.family, dirs);
    }
  }
  for (const [family, dirs] of [...ranges.entries()].sort((a, b) => cmpStr(a[0], b[0]))) {
    if (dirs.size < 2) continue;
    const sorted = [...dirs.entries()].sort((a, b) => a[1].min - b[1].min || cmpStr(a[0], b[0]));
    for (let i = 1; i < sorted.length; i++) {
      const [prevDir, prev] = sorted[i - 1]!;
      const [dir, r] = sorted[i]!;
      if (r.min > prev.max) continue;
      diag.warn(
        "FAMILY_DIRS_INTERLEAVED",
        `cell "${cellName}": directories ${JSON.stringify(prevDir)} (steps ${prev.min}-${prev.max}) and ${JSON.stringify(dir)} (steps ${r.min}-${r.max}) both give family "${family}" and their steps interleave: a renamed directory continues where the old one stopped, so these look like two training runs merged; check family_aliases`,
        r.first.origin.file,
        r.first.origin.line,
      );
      break;
    }
  }
}

const isPvc = (o: Observation): boolean => o.kind === "pvc_stable" || o.kind === "pvc_weights" || o.kind === "pvc_dir";

const byOrigin = (x: Observation, y: Observation): number =>
  cmpStr(x.origin.file, y.origin.file) || (x.origin.line ?? 0) - (y.origin.line ?? 0);

/**
 * Warns about the families of `rowsCands` that no PVC directory shows
 * (SOURCES.md: cells.json `family_aliases`): `FAMILY_NOT_ON_PVC` once per
 * family that janitor lines or supervisor events name while the cell's PVC
 * shows other families (at the first such line), and `HUB_UNKNOWN_FAMILY`
 * per checkpoint known only from the Hub whose family no other evidence of
 * the cell names (at its repo's `.hub.json`). Each suggests the
 * `family_aliases` entry that would join it to the family sharing the most
 * steps with it. Neither when the PVC shows no family at all (an empty
 * listing is its own warning).
 */
function warnUnknownFamilies(cellName: string, rowsCands: Candidate[], all: Candidate[], diag: Diagnostics): void {
  const pvcSteps = new Map<string, Set<number>>();
  const namedSteps = new Map<string, Set<number>>();
  for (const c of all) {
    if (c.obs.some(isPvc)) pvcSteps.set(c.family, (pvcSteps.get(c.family) ?? new Set()).add(c.step));
    if (c.obs.length > 0) namedSteps.set(c.family, (namedSteps.get(c.family) ?? new Set()).add(c.step));
  }
  const byFamily = new Map<string, Candidate[]>();
  for (const c of rowsCands)
    if (!pvcSteps.has(c.family)) byFamily.set(c.family, [...(byFamily.get(c.family) ?? []), c]);
  const known = [...pvcSteps.keys()].sort(cmpStr);
  if (known.length === 0) return; // the PVC shows no family at all (an empty listing, warned): nothing to compare with
  for (const [family, members] of [...byFamily.entries()].sort((a, b) => cmpStr(a[0], b[0]))) {
    const named = namedSteps.has(family);
    const others = new Map([...(named ? pvcSteps : namedSteps)].filter(([f]) => f !== family));
    const like = likelySameFamily(
      members.map((m) => m.step),
      others,
    );
    const fix = `if it is an earlier name of a family, add it to family_aliases in cells.json ("${family}": "${like ?? "<family>"}")`;
    if (named) {
      const first = members.flatMap((m) => m.obs).sort(byOrigin)[0]!;
      diag.warn(
        "FAMILY_NOT_ON_PVC",
        `cell "${cellName}": family "${family}" (${members.length} row${members.length === 1 ? "" : "s"}) is named in ${first.kind.startsWith("janitor") ? "the janitor log" : "supervisor history"} but no PVC directory holds it (the PVC has ${known.map((f) => `"${f}"`).join(", ")}); a renamed directory? ${fix}; a deleted one leaves its rows as they are`,
        first.origin.file,
        first.origin.line,
      );
      continue;
    }
    for (const m of members) {
      const repo =
        m.published.length > 0
          ? [...m.published].sort((a, b) => cmpStr(a.repo.id, b.repo.id))[0]!.repo
          : [...m.spares].sort((a, b) => cmpStr(a.repo.id, b.repo.id))[0]!.repo;
      diag.warn(
        "HUB_UNKNOWN_FAMILY",
        `${repo.id}: family "${family}" step ${m.step} is known only from the Hub, and no family of cell "${cellName}" has that name (the PVC has ${known.map((f) => `"${f}"`).join(", ")}); ${fix}`,
        `${repo.dir}/.hub.json`,
        null,
      );
    }
  }
}

function finite(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

function item(o: Observation, clock: BudgetClock, c: Candidate): EvidenceItem {
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
    timeIs:
      o.utcMs === null || o.kind === "pvc_dir" || o.kind === "pvc_weights" || o.kind === "supervisor_role"
        ? null
        : o.kind === "janitor_archive" && o.detail.version === "v1"
          ? "after_write"
          : "write",
    used: c.used.has(o),
    rejected: c.rejected.get(o) ?? null,
    why: c.why.get(o) ?? defaultWhy(o),
  };
}

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

function repoItem(kind: "spare_repo" | "published_repo", repo: HubRepo, why: string): EvidenceItem {
  return {
    kind,
    extractor: "hub-files",
    file: `${repo.dir}/.hub.json`,
    line: null,
    offset: null,
    raw: repo.id,
    utc: null,
    budgetHour: null,
    timeNote: null,
    timeIs: null,
    used: false,
    rejected: null,
    why,
  };
}
