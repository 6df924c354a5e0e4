/**
 * The resolver of one cell (docs/resolution.md), a sequence of small steps,
 * each in its own file named for its rule: grouping.ts (observations →
 * checkpoint candidates), existence.ts, family-warnings.ts, known-anchors.ts,
 * janitor-zone.ts, exact-time.ts (precedence; hour-conflict.ts), step-order.ts, cadence-hours.ts
 * (cadence fit and validation; bounds.ts), roles.ts, row-source.ts, eos.ts,
 * ids.ts, provenance.ts. Their decisions are typed records (decision.ts).
 */
import type { Cell, CellsFile, Row } from "../schema.js";
import type { Diagnostics } from "../diagnostics.js";
import type { Observation } from "../observations.js";
import type { SupervisorHistory } from "../extractors/supervisor.js";
import type { HubRepoObservation } from "../extractors/hub-files.js";
import { type CadenceFit, DEFAULT_OUTLIER_FLOOR_H, DEFAULT_TOLERANCE_H } from "./cadence.js";
import { cadenceHours } from "./cadence-hours.js";
import { cellTokensAt } from "./cell-tokens.js";
import { candidateKey, type Decided } from "./decision.js";
import { eosOf } from "./eos.js";
import { exactTime, warnUnresumedPause } from "./exact-time.js";
import { type LostCheckpoint, splitByExistence } from "./existence.js";
import {
  warnAmbiguousAliases,
  warnInterleavedDirectories,
  warnUnknownFamilies,
  warnUnusedAliases,
} from "./family-warnings.js";
import { groupCandidates } from "./grouping.js";
import { janitorZoneDoubt } from "./janitor-zone.js";
import { checkUniqueIds, rowModelId } from "./ids.js";
import { knownAnchors } from "./known-anchors.js";
import { type RowEvidence, rowEvidence, type TokensAt } from "./provenance.js";
import { familyDirectories, rowSource } from "./row-source.js";
import { type RoleOf, rolesOf } from "./roles.js";
import { iso, type RunWindow, runWindow } from "./run-window.js";
import { warnStepOrder } from "./step-order.js";

export type { EvidenceItem, RowEvidence } from "./provenance.js";
export type { LostCheckpoint } from "./existence.js";

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
  /** Hub repo observations of this cell (hub-files.ts: `hubRepoObservation`): published (`<org>/...`) and spare (`<spare_owner>/...`). */
  published: HubRepoObservation[];
  spares: HubRepoObservation[];
  /** The cell's token ledger; null when its tokens are unknown (no call placed in time, or an unreadable session file): every row's tokens are then null. */
  tokens: TokensAt | null;
  /** Validation tolerance of the cadence fit and of `HOUR_CONFLICT`, hours (default 1.5). */
  toleranceH?: number;
  /** Floor of the cadence fit's outlier cut, hours (default {@link DEFAULT_OUTLIER_FLOOR_H}). */
  outlierFloorH?: number;
}

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
 *   more than the tolerance), `JANITOR_ZONE_MISMATCH` (the cell's v1 janitor
 *   times lag its STABLE mtimes by hours: none is used, janitor-zone.ts), `SUPERVISOR_UNKNOWN_CHECKPOINT`,
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
  const { cell, supervisor } = input;
  const w = runWindow(supervisor, input.toleranceH ?? DEFAULT_TOLERANCE_H);
  // 1. Group every piece of evidence by checkpoint.
  const g = groupCandidates(cell, input.observations, supervisor.roleEvents, input.published, input.spares);
  // 2. Existence, and the family names that will stand in ids.
  const { rowsCands, lost } = splitByExistence(cell, g.cands.values(), diag);
  warnUnusedAliases(input, diag);
  warnAmbiguousAliases(cell, g.familyIds, diag);
  warnInterleavedDirectories(cell.cell, [...g.cands.values()], diag);
  warnUnknownFamilies(cell.cell, rowsCands, [...g.cands.values()], diag);
  const anchorsByFamily = knownAnchors(cell.cell, g.anchorsByFamily, rowsCands, lost, diag);
  // 3. Exact hours: STABLE mtime within the run, else the first janitor archive (v1 times only when their zone holds).
  const zoneDoubt = janitorZoneDoubt(cell.cell, cell.janitor_tz, rowsCands, w, diag);
  const timed = rowsCands.map((cand) => ({ cand, time: exactTime(cand, w, diag, zoneDoubt) }));
  warnUnresumedPause(cell.cell, timed, w, supervisor, diag);
  // 4. Families: step order, then cadence fits for untimed checkpoints, with bounds.
  warnStepOrder(
    cell.cell,
    timed.map(({ cand, time }) => ({
      family: cand.family,
      step: cand.step,
      hour: time.hour,
      at: time.chosen?.observation.origin ?? cand.obs[0]?.origin ?? null,
    })),
    diag,
  );
  const { decided, fits } = cadenceHours(
    cell.cell,
    timed,
    anchorsByFamily,
    w,
    input.outlierFloorH ?? DEFAULT_OUTLIER_FLOOR_H,
    diag,
  );
  // 5. Roles: the last submit wins; every fallback.
  const roleOf = rolesOf(supervisor.roleEvents, new Set(g.cands.keys()), diag);
  // 6. Rows, with their provenance; ids are unique.
  const familyDirs = familyDirectories(rowsCands);
  const rows: Row[] = [];
  const evidence: RowEvidence[] = [];
  for (const d of decided) {
    const r = resolveRow(input, d, { w, fits, anchorsByFamily, familyDirs, roleOf }, diag);
    rows.push(r.row);
    evidence.push(r.evidence);
  }
  checkUniqueIds(rows);
  return {
    rows,
    evidence,
    lost,
    fits,
    runStart: iso(supervisor.runStartMs)!,
    runEnd: iso(w.runEndMs)!,
    runEndFrom: w.runEndFrom,
  };
}

/** What every row of a cell shares. */
interface CellFacts {
  w: RunWindow;
  fits: Record<string, CadenceFit | null>;
  anchorsByFamily: ReadonlyMap<string, Observation[]>;
  familyDirs: ReadonlyMap<string, string[]>;
  roleOf: ReadonlyMap<string, RoleOf>;
}

/** The row and provenance of one decided checkpoint: id, source, eos, tokens at the write time, role. */
function resolveRow(
  input: CellInputs,
  d: Decided,
  f: CellFacts,
  diag: Diagnostics,
): { row: Row; evidence: RowEvidence } {
  const { registry, cell } = input;
  const { cand: c, time: t } = d;
  const id = rowModelId(registry.org, cell.cell, t.hour, c.family, c.step);
  const source = rowSource(cell, c, f.familyDirs);
  const eos = eosOf(`${cell.cell} ${c.family} step ${c.step}`, id, c.published, registry.required_eos_token_id, diag);
  const role = f.roleOf.get(candidateKey(c.family, c.step));
  // Null past the logs' end too (resolve/token-coverage.ts): cellTokensAt is the rule `tokens --cell` uses.
  const tokens = t.writeMs !== null ? cellTokensAt(input.tokens, t.writeMs, input.supervisor.runStartMs) : null;
  const untimed = t.source === "extrapolated" || t.source === "unrecoverable";
  const row: Row = {
    model_id: id,
    cell: cell.cell,
    driver: cell.driver,
    effort: cell.effort,
    hour: t.hour,
    hour_source: t.source,
    hour_upper_bound: untimed ? d.bounds.upper : null,
    driver_tokens_at_hour: tokens ? tokens.total : null,
    role: role?.role ?? "intermediate",
    eos_ok: eos.ok,
    eos_token_id: eos.pub ? eos.ids : null,
    source,
    family: c.family,
    step: c.step,
    hour_lower_bound: untimed ? d.bounds.lower : null,
    hour_error_h: t.source === "extrapolated" ? t.errorH : null,
  };
  const evidence = rowEvidence(d, {
    modelId: id,
    cell: cell.cell,
    source,
    anchors: f.anchorsByFamily.get(c.family) ?? [],
    fit: f.fits[c.family],
    tokens,
    ledger: input.tokens,
    role,
    eos,
    clock: f.w.clock,
    runStartMs: input.supervisor.runStartMs,
  });
  return { row, evidence };
}
