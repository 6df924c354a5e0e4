/**
 * Observations: what extractors emit, never a final answer (DESIGN.md: the flow).
 * Each says exactly where it came from so that provenance and `explain` can
 * show the raw text behind every hour.
 */

/** Where an observation was read. `file` is relative to the sources folder, with `/`. */
export interface Origin {
  file: string;
  /** 1-based line number, or null for whole-file evidence (a hub repo folder). */
  line: number | null;
  /** Byte offset of the line in the (decompressed) file, or null. */
  offset: number | null;
  /** The raw text the observation was parsed from (a line, or a short description). */
  raw: string;
}

/** A checkpoint key: `family` is the family id (after `family_aliases`). */
interface CheckpointKey {
  cell: string;
  family: string;
  step: number;
}

/** The kinds of evidence (the `timestamp_desc` of plaso). */
type ObservationKind =
  | "pvc_stable" // STABLE file of weights/step_N: its mtime is the write time
  | "pvc_weights" // a *.safetensors file in weights/step_N: the weights survive on the PVC
  | "pvc_dir" // the weights/step_N directory itself: its mtime is not a write time
  | "janitor_archive" // janitor archived it (v1: action time; v2: src_mtime)
  | "janitor_other" // prune / skip / error naming the checkpoint: existence only
  | "supervisor_role" // submit / fallback naming it
  | "spare_repo" // a msr-spare repo holds it
  | "published_repo" // a published agentic-ptb repo holds it
  | "anchor"; // anchors.tsv: validation only, never an hour

/** One piece of evidence about one checkpoint. */
export interface Observation extends CheckpointKey {
  kind: ObservationKind;
  /** The PVC directory path of the family, relative to `pvc_root` (e.g. `runs/sft 3`), where the source shows it. */
  familyDir: string | null;
  /** The time this evidence gives (UTC epoch ms), or null. */
  utcMs: number | null;
  /** How the time was read, e.g. `mtime`, `src_mtime`, `action-time UTC`, `local America/Los_Angeles (second occurrence)`. */
  timeNote: string | null;
  origin: Origin;
  /** Extractor name, e.g. `pvc-listing`, `janitor-log`. */
  extractor: string;
  /** Kind-specific details: janitor `action`, `dest`, `version`; repo id; role. */
  detail: Record<string, string | number | null>;
  /** Order of reading within its extractor (log order for the janitor). */
  seq: number;
}

/** A pause of the budget clock, UTC epoch ms; `endMs` null when never resumed. */
export interface Pause {
  startMs: number;
  endMs: number | null;
  /** The `pause` event's line in history.jsonl (absent for pauses made by code). */
  line?: number;
}
