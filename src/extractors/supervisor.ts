import { join } from "node:path";
import type { Cell } from "../schema.js";
import { InputError, type Diagnostics } from "../diagnostics.js";
import type { Observation, Origin } from "../observations.js";
import { familyIdOf } from "../sources/cells.js";
import { readLines } from "../util/lines.js";
import { clip } from "./pvc-listing.js";

/** A pause of the budget clock, UTC epoch ms; `endMs` null when never resumed. */
export interface Pause {
  startMs: number;
  endMs: number | null;
}

/** What `supervisor/history.jsonl` says about a run (SOURCES.md: supervisor/). */
export interface SupervisorHistory {
  runStartMs: number;
  runStartOrigin: Origin;
  runEndMs: number | null;
  pauses: Pause[];
  /** `submit` and `fallback` events, as observations of kind `supervisor_role` (detail.role). */
  roleEvents: Observation[];
  /** Every event, for `explain`. */
  eventCount: number;
}

const STEP_PATH_RE = /^(.+)\/weights\/step_(\d+)\/?$/;

/**
 * Reads a cell's supervisor history (SOURCES.md: supervisor/): `run_start`,
 * `pause`/`resume` (the budget clock), `run_end`, `submit`/`fallback` (roles).
 * Other event types are ignored, as the layout allows.
 *
 * @throws InputError `SUPERVISOR_MISSING` (no history file) and
 *   `SUPERVISOR_NO_RUN_START` (no `run_start` event: no hour can be computed).
 * Warnings: `SUPERVISOR_BAD_LINE` (not JSON, or no valid `ts`),
 * `SUPERVISOR_DUPLICATE_RUN_START` (the first one is used),
 * `SUPERVISOR_UNPAIRED_PAUSE`, `SUPERVISOR_BAD_CHECKPOINT` (a role event whose
 * path is not `<pvc_root>/<family>/weights/step_<N>`).
 */
export async function readSupervisor(sourcesDir: string, cell: Cell, diag: Diagnostics): Promise<SupervisorHistory> {
  const file = `${cell.cell}/supervisor/history.jsonl`;
  const abs = join(sourcesDir, cell.cell, "supervisor", "history.jsonl");
  let runStart: { ms: number; origin: Origin } | null = null;
  let runEndMs: number | null = null;
  const pauses: Pause[] = [];
  const roleEvents: Observation[] = [];
  let eventCount = 0;
  let seq = 0;
  try {
    for await (const line of readLines(abs)) {
      if (line.text.trim() === "") continue;
      const origin: Origin = { file, line: line.lineNo, offset: line.offset, raw: line.text };
      let ev: Record<string, unknown>;
      try {
        const parsed: unknown = JSON.parse(line.text);
        if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
        ev = parsed as Record<string, unknown>;
      } catch (err) {
        diag.warn("SUPERVISOR_BAD_LINE", `not a JSON object (${(err as Error).message}): ${clip(line.text)}`, file, line.lineNo);
        continue;
      }
      const ms = typeof ev.ts === "string" && /\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/.test(ev.ts) ? Date.parse(ev.ts) : NaN;
      if (Number.isNaN(ms)) {
        diag.warn("SUPERVISOR_BAD_LINE", `event without a valid "ts" (ISO time with offset): ${clip(line.text)}`, file, line.lineNo);
        continue;
      }
      eventCount += 1;
      switch (ev.event) {
        case "run_start":
          if (runStart) {
            diag.warn("SUPERVISOR_DUPLICATE_RUN_START", `second run_start at ${ev.ts as string}; the first (line ${runStart.origin.line}) is used`, file, line.lineNo);
          } else {
            runStart = { ms, origin };
          }
          break;
        case "run_end":
          runEndMs = ms;
          break;
        case "pause": {
          const open = pauses[pauses.length - 1];
          if (open && open.endMs === null) {
            diag.warn("SUPERVISOR_UNPAIRED_PAUSE", "pause while already paused; ignored", file, line.lineNo);
          } else {
            pauses.push({ startMs: ms, endMs: null });
          }
          break;
        }
        case "resume": {
          const open = pauses[pauses.length - 1];
          if (!open || open.endMs !== null) {
            diag.warn("SUPERVISOR_UNPAIRED_PAUSE", "resume without a pause; ignored", file, line.lineNo);
          } else {
            open.endMs = ms;
          }
          break;
        }
        case "submit":
        case "fallback": {
          const path = typeof ev.checkpoint === "string" ? ev.checkpoint : "";
          const root = cell.pvc_root.replace(/\/+$/, "");
          const m = path.startsWith(root + "/") ? STEP_PATH_RE.exec(path.slice(root.length + 1)) : null;
          if (!m || m[1]!.split("/").includes("..")) {
            diag.warn("SUPERVISOR_BAD_CHECKPOINT", `${String(ev.event)} names ${JSON.stringify(ev.checkpoint)}, not <pvc_root>/<family>/weights/step_<N>`, file, line.lineNo);
            break;
          }
          const familyDir = m[1]!;
          roleEvents.push({
            cell: cell.cell, family: familyIdOf(cell, familyDir.split("/").pop()!), step: Number(m[2]),
            kind: "supervisor_role", familyDir, utcMs: ms, timeNote: "event time (not a write time)", origin,
            extractor: "supervisor", detail: { role: ev.event === "submit" ? "SUBMITTED" : "fallback", path }, seq: seq++,
          });
          break;
        }
        default:
          break; // driver_restart and unknown events: not errors (SOURCES.md)
      }
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") {
      throw new InputError("SUPERVISOR_MISSING", `cell "${cell.cell}" has no supervisor/history.jsonl`, file);
    }
    throw new InputError("SUPERVISOR_UNREADABLE", `cannot read: ${(err as Error).message}`, file);
  }
  if (!runStart) {
    throw new InputError("SUPERVISOR_NO_RUN_START", `cell "${cell.cell}" has no run_start event: its hours cannot be computed`, file);
  }
  for (const p of pauses) {
    if (p.startMs < runStart.ms) diag.warn("SUPERVISOR_UNPAIRED_PAUSE", `pause at ${new Date(p.startMs).toISOString()} is before run_start`, file, null);
  }
  return { runStartMs: runStart.ms, runStartOrigin: runStart.origin, runEndMs, pauses, roleEvents, eventCount };
}
