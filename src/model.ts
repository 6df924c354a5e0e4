/**
 * The shape of a whole build in memory (MANIFEST.md: the outputs it is
 * written to): what the pipeline returns and the writers render. Types only.
 */
import type { Warning } from "./diagnostics.js";
import type { CadenceFit } from "./resolve/cadence.js";
import type { LostCheckpoint, RowEvidence } from "./resolve/resolve-cell.js";
import type { CellsFile, Row } from "./schema.js";
import type { InputsRead } from "./sources/unread-inputs.js";

/** A whole build, in memory, before any file is written. */
export interface BuildResult {
  registry: CellsFile;
  rows: Row[];
  /** One per row, baseline included (MANIFEST.md: provenance.jsonl). */
  provenance: (RowEvidence | BaselineEvidence)[];
  warnings: Warning[];
  excluded: { cell: string; reason: string }[];
  lost: LostCheckpoint[];
  fits: Record<string, Record<string, CadenceFit | null>>;
  runs: Record<string, { run_start: string; run_end: string; run_end_from: string; trajectory_calls: number }>;
  /** Per cell, the cumulative driver tokens on the budget-hour axis: `[hour, tokens]` points (at most ~500); empty when the tokens are unknown. */
  tokenCurves: Record<string, [number, number][]>;
  /**
   * The files of the sources folder that the readers consumed, and the folders
   * counted as read whole (a used Hub repo, an excluded cell, what a live source
   * replaces): for `unreadInputWarnings` (src/sources/unread-inputs.ts). Absent
   * from a result rebuilt from a previous build's files.
   */
  inputsRead?: InputsRead;
}

/** The baseline row's provenance. */
interface BaselineEvidence {
  model_id: string;
  cell: "BASELINE";
  hour_source: "baseline";
  rule: string;
  eos: { repo: string; from: string | null; chatTemplate: string | null; ids: number[] | null };
}
