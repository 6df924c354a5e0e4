/**
 * The one reading of a checkpoint's path under `pvc_root` (SOURCES.md: pvc/,
 * janitor, supervisor/): `<family dir>/weights/step_<N>`, where the family
 * dir may be nested (`runs/<family>`), and the files of the step folder below it.
 */

/** A path (relative to `pvc_root`) that lies in, or is, a checkpoint's step folder. */
export interface CheckpointPath {
  /** The folder that holds `weights/` (e.g. `base` or `runs/base`). */
  familyDir: string;
  /** What follows `step_` up to the next `/`, as written: not necessarily a step number. */
  stepText: string;
  /** The name below the step folder; `null` for the folder itself, `""` for the folder written with a trailing `/`. */
  child: string | null;
}

const CHECKPOINT_RE = /^(.+)\/weights\/step_([^/]*)(?:\/([^/]*))?$/;

/**
 * Splits `rel` (a path relative to `pvc_root`, no leading `/`) into family
 * folder, step text and child; `null` when it is not
 * `<family dir>/weights/step_<text>[/<child>]`. When `weights/step_` occurs
 * more than once the last occurrence is the step folder.
 */
export function parseCheckpointPath(rel: string): CheckpointPath | null {
  const m = CHECKPOINT_RE.exec(rel);
  if (!m) return null;
  return { familyDir: m[1]!, stepText: m[2]!, child: m[3] ?? null };
}

/**
 * The step folder a log or an event names (SOURCES.md: janitor, supervisor/):
 * `<family dir>/weights/step_<digits>`, optionally with a trailing `/`, whose
 * family dir has no empty, `.` or `..` part; `null` otherwise. The digits may
 * still be too large for a step (`parseStep` decides).
 */
export function checkpointFolderOf(rel: string): { familyDir: string; stepText: string } | null {
  const cp = parseCheckpointPath(rel);
  if (!cp || (cp.child !== null && cp.child !== "") || !/^\d+$/.test(cp.stepText)) return null;
  if (cp.familyDir.split("/").some((p) => p === "" || p === "." || p === "..")) return null;
  return { familyDir: cp.familyDir, stepText: cp.stepText };
}
