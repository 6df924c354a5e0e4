import { distance } from "fastest-levenshtein";
import type { Cell } from "../schema.js";
import type { Diagnostics } from "../diagnostics.js";
import { InputError } from "../errors.js";
import type { Observation, Origin } from "../observations.js";
import { familyIdOf } from "../sources/cells.js";
import type { Line } from "../util/lines.js";
import { clip } from "../util/values.js";
import { checkpointFolderOf } from "./checkpoint-path.js";
import { parseIsoTime, parseStep } from "../util/values.js";
import type { Pause } from "../observations.js";

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

/**
 * Parses a cell's supervisor history, `file` (SOURCES.md: supervisor/), from its lines: `run_start`,
 * `pause`/`resume` (the budget clock), `run_end`, `submit`/`fallback` (roles).
 * Other event types are ignored, as the layout allows.
 *
 * No file system: an error thrown by `lines` (e.g. `ENOENT`) passes through.
 *
 * @throws InputError `SUPERVISOR_NO_RUN_START` (no `run_start` event: no hour can be computed).
 * Warnings: `SUPERVISOR_BAD_LINE` (not JSON, or no valid `ts`),
 * `SUPERVISOR_DUPLICATE_RUN_START` (the first one is used),
 * `SUPERVISOR_UNPAIRED_PAUSE`, `SUPERVISOR_BAD_CHECKPOINT` (a role event whose
 * path is not `<pvc_root>/<family>/weights/step_<N>`),
 * `SUPERVISOR_OUT_OF_ORDER` (an event earlier than one above it: the harness
 * writes in time order, so "the last submit" and pause pairs are in doubt),
 * `SUPERVISOR_DUPLICATE_RUN_END` (the first one is used),
 * `SUPERVISOR_BAD_RUN_END` (a `run_end` before `run_start`: ignored, the run
 * ends at 100 budget hours); `checkRunEnd` is called with a valid `run_end`
 * (where `SUPERVISOR_RUN_END_LATE` is warned, which needs the budget clock:
 * src/pipeline/read-supervisor.ts).
 */
export async function parseSupervisorHistory(
  lines: AsyncIterable<Line> | Iterable<Line>,
  file: string,
  cell: Cell,
  diag: Diagnostics,
  checkRunEnd?: (run: RunEnd) => void,
): Promise<SupervisorHistory> {
  let runStart: { ms: number; origin: Origin } | null = null;
  let runEnd: { ms: number; line: number } | null = null;
  let latest: { ms: number; line: number } | null = null;
  /** A run_start line that could not be read (its line, and why), to name it if no run_start is usable. */
  let badRunStart: { line: number; why: string } | null = null;
  /** The last line that may be a submit but could not be read: a later submit than the last one read would replace it. */
  let unreadSubmit: { line: number; why: string } | null = null;
  const pauses: Pause[] = [];
  const pauseLines: number[] = [];
  const roleEvents: Observation[] = [];
  let eventCount = 0;
  let seq = 0;
  /** Event names the builder does not read, with their first line (named when no submit is found). */
  const unknownEvents = new Map<string, number>();
  for await (const line of lines) {
    if (line.text.trim() === "") continue;
    const origin: Origin = { file, line: line.lineNo, offset: line.offset, raw: line.text };
    let ev: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(line.text);
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
      ev = parsed as Record<string, unknown>;
    } catch (err) {
      const why = `not a JSON object (${(err as Error).message})`;
      if (/run_start/.test(line.text)) badRunStart ??= { line: line.lineNo, why };
      if (mayBeSubmit(line.text)) unreadSubmit = { line: line.lineNo, why: `${why}, and its event may be submit` };
      diag.warn("SUPERVISOR_BAD_LINE", `${why}: ${clip(line.text)}`, file, line.lineNo);
      continue;
    }
    const ms = typeof ev.ts === "string" ? parseIsoTime(ev.ts) : NaN;
    if (Number.isNaN(ms)) {
      const why = 'no valid "ts" (ISO time with an offset)';
      if (ev.event === "run_start") badRunStart ??= { line: line.lineNo, why };
      if (ev.event === "submit") unreadSubmit = { line: line.lineNo, why: `a submit with ${why}` };
      diag.warn(
        "SUPERVISOR_BAD_LINE",
        `event without a valid "ts" (ISO time with offset): ${clip(line.text)}`,
        file,
        line.lineNo,
      );
      continue;
    }
    eventCount += 1;
    if (latest && ms < latest.ms) {
      diag.warn(
        "SUPERVISOR_OUT_OF_ORDER",
        `event at ${ev.ts as string} is earlier than the event on line ${latest.line} (${new Date(latest.ms).toISOString()}); the history is written in time order`,
        file,
        line.lineNo,
      );
    }
    if (!latest || ms >= latest.ms) latest = { ms, line: line.lineNo };
    switch (ev.event) {
      case "run_start":
        if (runStart) {
          diag.warn(
            "SUPERVISOR_DUPLICATE_RUN_START",
            `second run_start at ${ev.ts as string}; the first (line ${runStart.origin.line}) is used`,
            file,
            line.lineNo,
          );
        } else {
          runStart = { ms, origin };
        }
        break;
      case "run_end":
        if (runEnd) {
          diag.warn(
            "SUPERVISOR_DUPLICATE_RUN_END",
            `second run_end at ${ev.ts as string}; the first (line ${runEnd.line}) is used`,
            file,
            line.lineNo,
          );
        } else {
          runEnd = { ms, line: line.lineNo };
        }
        break;
      case "pause": {
        const open = pauses[pauses.length - 1];
        if (open && open.endMs === null) {
          diag.warn("SUPERVISOR_UNPAIRED_PAUSE", "pause while already paused; ignored", file, line.lineNo);
        } else {
          pauses.push({ startMs: ms, endMs: null, line: line.lineNo });
          pauseLines.push(line.lineNo);
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
        const m = path.startsWith(`${root}/`) ? checkpointFolderOf(path.slice(root.length + 1)) : null;
        if (!m || parseStep(m.stepText) === null) {
          if (ev.event === "submit")
            unreadSubmit = { line: line.lineNo, why: "a submit whose checkpoint is not a checkpoint path" };
          diag.warn(
            "SUPERVISOR_BAD_CHECKPOINT",
            `${String(ev.event)} names ${JSON.stringify(ev.checkpoint)}, not <pvc_root>/<family>/weights/step_<N>`,
            file,
            line.lineNo,
          );
          break;
        }
        const { familyDir } = m;
        roleEvents.push({
          cell: cell.cell,
          family: familyIdOf(cell, familyDir.split("/").pop()!),
          step: Number(m.stepText),
          kind: "supervisor_role",
          familyDir,
          utcMs: ms,
          timeNote: "event time (not a write time)",
          origin,
          extractor: "supervisor",
          detail: { role: ev.event === "submit" ? "SUBMITTED" : "fallback", path },
          seq: seq++,
        });
        break;
      }
      default: {
        // Unknown events are not errors (SOURCES.md), but one that is a known event spelt
        // differently (Submit, fall_back, run-end) would silently drop a role or the run's end.
        const name = typeof ev.event === "string" ? ev.event : "";
        const squashed = name.toLowerCase().replace(/[^a-z]/g, "");
        const meant = KNOWN_EVENTS.find((k) => k.replace(/_/g, "") === squashed);
        if (!unknownEvents.has(name)) unknownEvents.set(name, line.lineNo);
        if (meant === "submit")
          unreadSubmit = { line: line.lineNo, why: `an event "${name}", not "submit" as written` };
        const near = meant ?? nearKnownEvent(squashed);
        if (near) {
          diag.warn(
            "SUPERVISOR_MISSPELLED_EVENT",
            meant
              ? `event "${name}" is not "${meant}" as written; ignored like any unknown event`
              : `event "${name}" is not "${near}", though close to it (a tense or a typo?); ignored like any unknown event`,
            file,
            line.lineNo,
          );
        }
        break;
      }
    }
  }
  if (!runStart) {
    throw badRunStart !== null
      ? new InputError(
          "SUPERVISOR_NO_RUN_START",
          `cell "${cell.cell}": its run_start line cannot be read (${badRunStart.why}), so its hours cannot be computed`,
          file,
          badRunStart.line,
        )
      : new InputError(
          "SUPERVISOR_NO_RUN_START",
          `cell "${cell.cell}" has no run_start event: its hours cannot be computed`,
          file,
        );
  }
  pauses.forEach((p, i) => {
    if (p.startMs < runStart!.ms)
      diag.warn(
        "SUPERVISOR_UNPAIRED_PAUSE",
        `pause at ${new Date(p.startMs).toISOString()} is before run_start`,
        file,
        pauseLines[i]!,
      );
  });
  const last = pauses[pauses.length - 1];
  if (last && last.endMs === null && (!runEnd || runEnd.ms < last.startMs)) {
    diag.warn(
      "SUPERVISOR_UNPAIRED_PAUSE",
      `pause at ${new Date(last.startMs).toISOString()} is never resumed and no run_end follows: the budget clock stops there, and so does the run`,
      file,
      pauseLines[pauses.length - 1]!,
    );
  } else if (last && last.endMs === null && runEnd) {
    // A missing (or unreadable) resume freezes the clock until run_end: every later write gets one hour.
    const frozenH = (runEnd.ms - last.startMs) / 3_600_000;
    diag.warn(
      "SUPERVISOR_UNPAIRED_PAUSE",
      `pause at ${new Date(last.startMs).toISOString()} is never resumed: how much of the ${frozenH.toFixed(2)} h of wall time up to run_end the budget clock ran is unknown, so checkpoints written then get no hour (HOUR_IN_UNRESUMED_PAUSE)`,
      file,
      pauseLines[pauses.length - 1]!,
    );
  }
  let runEndMs: number | null = runEnd?.ms ?? null;
  if (runEnd && runEnd.ms < runStart.ms) {
    diag.warn(
      "SUPERVISOR_BAD_RUN_END",
      `run_end at ${new Date(runEnd.ms).toISOString()} is before run_start (line ${runStart.origin.line}); ignored: the run ends at 100 budget hours`,
      file,
      runEnd.line,
    );
    runEndMs = null;
  } else if (runEnd) {
    checkRunEnd?.({ runStartMs: runStart.ms, pauses, runEndMs: runEnd.ms, file, line: runEnd.line });
  }
  const lastSubmit = roleEvents.filter((o) => o.detail.role === "SUBMITTED").pop();
  if (unreadSubmit && lastSubmit && unreadSubmit.line > lastSubmit.origin.line!) {
    // SOURCES.md: a later submit replaces an earlier one. One that cannot be read may be it.
    diag.warn(
      "SUPERVISOR_SUBMIT_UNREADABLE",
      `line ${unreadSubmit.line} may be a later submit but cannot be read (${unreadSubmit.why}): the submit on line ${lastSubmit.origin.line} (${String(lastSubmit.detail.path)}) may be replaced, so none of cell "${cell.cell}"'s rows is SUBMITTED`,
      file,
      unreadSubmit.line,
    );
    // Kept as evidence of their checkpoints (lost ones, SUPERVISOR_UNKNOWN_CHECKPOINT), but none gives the role.
    for (const o of roleEvents) if (o.detail.role === "SUBMITTED") o.detail.inDoubtFromLine = unreadSubmit.line;
    return { runStartMs: runStart.ms, runStartOrigin: runStart.origin, runEndMs, pauses, roleEvents, eventCount };
  }
  if (!lastSubmit) {
    // SOURCES.md: one submit per cell. Without it no row is SUBMITTED, which reads as "this cell submitted nothing".
    const seen = [...unknownEvents].map(([name, at]) => `"${name}" (line ${at})`);
    diag.warn(
      "SUPERVISOR_NO_SUBMIT",
      `cell "${cell.cell}" has no valid submit event, so none of its rows is SUBMITTED${seen.length ? `; events the builder does not read: ${seen.slice(0, 5).join(", ")}${seen.length > 5 ? ", …" : ""}` : ""}`,
      file,
      null,
    );
  }
  return { runStartMs: runStart.ms, runStartOrigin: runStart.origin, runEndMs, pauses, roleEvents, eventCount };
}

/**
 * Whether a line that is not JSON may be a submit: its `"event": "…"` names
 * submit, or the line is cut off inside that value after a beginning of
 * `submit` (`"event":"sub`). A line without a readable event key is not.
 */
function mayBeSubmit(text: string): boolean {
  const m = /"event"\s*:\s*"([^"]*)("?)/.exec(text);
  if (!m) return false;
  const name = m[1]!.toLowerCase().replace(/[^a-z]/g, "");
  return m[2] === '"' ? name.includes("submit") : "submit".startsWith(name) || name.includes("submit");
}

/** The events the builder reads (SOURCES.md: supervisor/). */
const KNOWN_EVENTS = ["run_start", "run_end", "pause", "resume", "submit", "fallback"] as const;

/**
 * The known event an unknown one's name (`squashed`: lower case, letters
 * only) is close to, else null: another form of it (`paused`, `resumed`,
 * `submitted`, `run_started`: the known name and at most 3 more letters) or a
 * typo of it (one letter added, dropped or changed, or two next to each other
 * swapped, in names of 5 letters or more). Unknown events are not errors
 * (SOURCES.md: supervisor), and other words stay silent (`restart`, `result`,
 * `phase`), but these would drop a pause, a role or the run's end.
 */
function nearKnownEvent(squashed: string): string | null {
  for (const k of KNOWN_EVENTS) {
    const known = k.replace(/_/g, "");
    if (squashed.startsWith(known) && squashed.length - known.length <= 3) return k;
    if (squashed.length >= 5 && (distance(squashed, known) <= 1 || swapsTwo(squashed, known))) return k;
  }
  return null;
}

/** True when `a` is `b` with two neighbouring letters swapped (`pasue` for `pause`). */
function swapsTwo(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i += 1;
  return i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}

/** A valid `run_end` (after `run_start`), as {@link parseSupervisorHistory} hands it to its `checkRunEnd`. */
export interface RunEnd {
  runStartMs: number;
  pauses: Pause[];
  runEndMs: number;
  /** The history's layout path and the `run_end` line. */
  file: string;
  line: number;
}
