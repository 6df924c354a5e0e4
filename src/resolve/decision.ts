/**
 * The resolver's decision record (docs/resolution.md; MANIFEST.md:
 * provenance.jsonl): per checkpoint, the evidence grouped for it, the time
 * chosen and every time set aside with a typed reason.
 */
import type { HourSource } from "../schema.js";
import type { Observation } from "../observations.js";
import type { HubRepoObservation } from "../extractors/hub-files.js";

/**
 * Why a time was set aside (provenance.jsonl `rejected`): `copy_back` (a STABLE
 * mtime after the run's end), `before_run_start`, `outside_run` (a janitor
 * time), `retry` (a later archive of one checkpoint), `directory_mtime`,
 * `lower_precedence` (a janitor time under a trustworthy mtime),
 * `clock_unknown` (inside a pause never resumed before run_end),
 * `zone_in_doubt` (a v1 janitor time of a cell whose v1 times are off as a
 * whole: janitor-zone.ts), `time_in_doubt` (a janitor line whose time cannot
 * be stood behind: out of time order, or in a repeated local hour whose
 * occurrence cannot be told: janitor-log.ts).
 */
export type RejectReason =
  | "copy_back"
  | "before_run_start"
  | "outside_run"
  | "retry"
  | "directory_mtime"
  | "lower_precedence"
  | "clock_unknown"
  | "zone_in_doubt"
  | "time_in_doubt";

/**
 * The reasons that make a time no evidence of the write at all, so `validate`
 * does not compare it with the row's hour: a copy-back, a retry, a directory
 * mtime, a time outside the run, a v1 janitor time whose zone is in doubt.
 * A time of lower precedence, or one inside an unresumed pause, still is
 * evidence.
 */
export const NOT_WRITE_EVIDENCE: ReadonlySet<RejectReason> = new Set<RejectReason>([
  "copy_back",
  "retry",
  "directory_mtime",
  "outside_run",
  "before_run_start",
  "zone_in_doubt",
  "time_in_doubt",
]);

/** A time set aside: the observation, the reason, and the sentence provenance shows. */
export interface Rejection {
  observation: Observation;
  reason: RejectReason;
  why: string;
}

/** The observation whose time is the write time, and the sentence provenance shows. */
interface Choice {
  observation: Observation;
  why: string;
}

/** One checkpoint (family id, step) and every piece of evidence about it (grouping.ts). */
export interface Candidate {
  family: string;
  step: number;
  /** PVC, janitor and supervisor observations, in reading order. */
  obs: Observation[];
  /** The PVC directories (relative to `pvc_root`) that hold it. */
  pvcDirs: Set<string>;
  published: HubRepoObservation[];
  spares: HubRepoObservation[];
}

/** How a checkpoint's hour was decided. Hours are budget hours; times UTC epoch ms. */
export interface TimeDecision {
  chosen: Choice | null;
  rejected: Rejection[];
  writeMs: number | null;
  /** Unrounded budget hour. */
  hourExact: number | null;
  /** Rounded to 2 decimals. */
  hour: number | null;
  source: HourSource;
  rule: string;
  /** Cadence fit error, hours (extrapolated rows only). */
  errorH: number | null;
  /** Written inside a pause never resumed before run_end: the budget clock is unknown there (no hour, no extrapolation). */
  clockUnknown: boolean;
}

/** Hours of the nearest exactly timed checkpoints of the family below and above (null: none). */
export interface Bounds {
  lower: number | null;
  lowerFrom: number | null;
  upper: number | null;
  upperFrom: number | null;
}

/** A checkpoint that gets a row, with its decisions. */
export interface Decided {
  cand: Candidate;
  time: TimeDecision;
  bounds: Bounds;
}

/** The map key of a checkpoint. */
export const candidateKey = (family: string, step: number): string => `${family}\u0000${step}`;

/** The rejection of `o` in `d`, or undefined. */
export function rejectionOf(d: TimeDecision, o: Observation): Rejection | undefined {
  return d.rejected.find((r) => r.observation === o);
}
