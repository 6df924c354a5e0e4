/**
 * Reads a cell's supervisor history through the sources (SOURCES.md:
 * supervisor/): opens the file, hands its lines to the extractor
 * (`parseSupervisorHistory`), and adds the rule that needs the budget clock,
 * `SUPERVISOR_RUN_END_LATE`.
 */
import type { Diagnostics } from "../diagnostics.js";
import { InputError } from "../errors.js";
import { parseSupervisorHistory, type RunEnd, type SupervisorHistory } from "../extractors/supervisor.js";
import { BudgetClock } from "../resolve/clock.js";
import type { Cell } from "../schema.js";
import { snapshotSources, type SourceFile } from "../sources/sources.js";
import { isAbsent, unreadableError } from "../util/fs-errors.js";

/** A `run_end` later than this many budget hours after `run_start` is warned about (a run lasts 100 h; the harness ends it within minutes). */
const RUN_END_LATE_H = 101;

/**
 * Warns `SUPERVISOR_RUN_END_LATE` for a `run_end` more than
 * {@link RUN_END_LATE_H} budget hours after `run_start`: it is kept, but a
 * copy-back mtime before it would pass as a write time (SOURCES.md: supervisor/).
 */
export function checkRunEndLate(run: RunEnd, diag: Diagnostics): void {
  const h = new BudgetClock(run.runStartMs, run.pauses).hourAt(run.runEndMs);
  if (h > RUN_END_LATE_H) {
    diag.warn(
      "SUPERVISOR_RUN_END_LATE",
      `run_end at ${new Date(run.runEndMs).toISOString()} is ${h.toFixed(2)} budget hours after run_start (a run lasts 100): copy-back mtimes before it would pass as write times`,
      run.file,
      run.line,
    );
  }
}

/**
 * A cell's supervisor history (`parseSupervisorHistory` with
 * {@link checkRunEndLate}), from `history` (a {@link SourceFile}; a sources
 * folder reads `<cell>/supervisor/history.jsonl`).
 *
 * @throws InputError `SUPERVISOR_MISSING` (no history file),
 *   `SUPERVISOR_UNREADABLE` (it cannot be read), and those of `parseSupervisorHistory`.
 */
export async function readSupervisor(
  history: SourceFile | string,
  cell: Cell,
  diag: Diagnostics,
): Promise<SupervisorHistory> {
  const file = typeof history === "string" ? snapshotSources(history).supervisorHistory(cell.cell) : history;
  try {
    return await parseSupervisorHistory(file.lines(), file.rel, cell, diag, (run) => checkRunEndLate(run, diag));
  } catch (err) {
    if (err instanceof InputError) throw err;
    if (isAbsent(err)) {
      throw new InputError("SUPERVISOR_MISSING", `cell "${cell.cell}" has no supervisor/history.jsonl`, file.rel);
    }
    throw unreadableError("SUPERVISOR_UNREADABLE", file.rel, err);
  }
}
