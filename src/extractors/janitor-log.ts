import { readdir } from "node:fs/promises";
import type { Cell } from "../schema.js";
import type { Diagnostics } from "../diagnostics.js";
import type { Observation, Origin } from "../observations.js";
import { missingJanitorParts, orderJanitorParts, JANITOR_LOG as LOG } from "../sources/layout.js";
import { snapshotSources, type JanitorInput } from "../sources/sources.js";
import { clip } from "../util/values.js";
import { fsReason, warnUnreadable } from "../util/fs-errors.js";
import { handleLine, type JanitorState, type LineContext } from "./janitor-line.js";

/**
 * Lists a cell's janitor log parts in the folder `dir`, oldest first
 * (`orderJanitorParts`, SOURCES.md: janitor); none when it cannot be listed.
 */
export async function janitorParts(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  return orderJanitorParts(names);
}

/** Most lines a rotation (copytruncate) can write into both parts; see {@link rotationOverlap}. */
const ROTATION_OVERLAP_LINES = 64;

/**
 * How many lines at the start of a part (`head`) repeat the last lines of the
 * part before it (`tail`): the largest k with `tail`'s last k lines equal to
 * `head`'s first k (copytruncate's duplicate, SOURCES.md: janitor), or 0.
 */
export function rotationOverlap(tail: readonly string[], head: readonly string[]): number {
  for (let k = Math.min(tail.length, head.length); k > 0; k -= 1) {
    let same = true;
    for (let i = 0; i < k && same; i += 1) same = tail[tail.length - k + i] === head[i];
    // Blank lines alone are no evidence of a repeat.
    if (same && head.slice(0, k).some((t) => t.trim() !== "")) return k;
  }
  return 0;
}

/** Longest unterminated last line that is joined with the next rotated part (a janitor line is far shorter). */
const MAX_CARRY_CHARS = 64 * 1024;

/**
 * Reads a cell's janitor log, every rotated part in order, and emits one
 * observation per line that names a checkpoint (SOURCES.md: janitor).
 *
 * - v2 lines (`<ISO time with offset> level=... action=... key=value...`):
 *   `archive` gives the write time `src_mtime` (exact); other actions give
 *   existence only.
 * - v1 lines (`YYYY-MM-DD HH:MM:SS archived <path> -> <dest>`): the action
 *   time, read in `janitor_tz`; in a repeated hour the occurrence that keeps
 *   the log's clock monotonic is taken, with the rule recorded in `timeNote`.
 * - A line split around a rotation (the older part without a line end) is
 *   joined with the first line of the next part. The log's last line without
 *   a line end (in the newest part, or an older part's with nothing after
 *   it) was cut off while being written: skipped with `JANITOR_CUT_LINE`,
 *   since a cut value still parses (`step_210` → `step_21`).
 * - Lines that open a part and repeat the last lines of the part before it
 *   (copytruncate's duplicate, see {@link rotationOverlap}) are read once,
 *   without a warning; any other line earlier than the one before it is
 *   `JANITOR_OUT_OF_ORDER`.
 * - Traceback lines after an `error` line, and time-stamped lines without an
 *   action (startup messages), are skipped silently.
 *
 * Free-form lines without a time (startup banners, `Terminated`) are skipped
 * silently. Warnings: `JANITOR_JUNK_LINE` (binary garbage),
 * `JANITOR_UNPARSED_LINE` (a line naming a checkpoint or an action that fits
 * neither format), `JANITOR_BAD_FIELD`,
 * `JANITOR_NONEXISTENT_LOCAL_TIME` (a time in the skipped hour of a DST
 * start), `JANITOR_AMBIGUOUS_LOCAL_TIME` (times in the repeated hour of a
 * DST end, with no line showing the clock set back), `JANITOR_OUT_OF_ORDER`
 * (a line earlier than the one before it), `JANITOR_OUTSIDE_ROOT`, `JANITOR_UNREADABLE` (a corrupt `.gz`
 * part, or a part or the folder that cannot be read: the lines read before the fault, and the other parts, are kept), `JANITOR_MISSING` (no
 * `ckpt-janitor.log` nor any rotated part, or only empty ones: the janitor
 * writes a line at least every 10 minutes, so that is lost evidence),
 * `JANITOR_PART_MISSING` (a rotation number skipped, or no current log beside
 * rotated parts: {@link missingJanitorParts}).
 */
export async function readJanitorLog(
  sourcesDir: string,
  cell: Cell,
  diag: Diagnostics,
  opts: { onBytes?: (bytes: number) => void } = {},
): Promise<Observation[]> {
  return parseJanitorLog(await snapshotSources(sourcesDir).janitor(cell.cell), cell, diag, opts);
}

/**
 * The janitor log's observations from its parts as the sources give them
 * (`Sources.janitor`): the rules and warnings of {@link readJanitorLog}. No
 * file system of its own: the parts' lines come from `input`, and a part that
 * fails while read is `JANITOR_UNREADABLE`.
 */
export async function parseJanitorLog(
  input: JanitorInput,
  cell: Cell,
  diag: Diagnostics,
  opts: { onBytes?: (bytes: number) => void } = {},
): Promise<Observation[]> {
  const relDir = input.dir;
  const parts = input.parts.map((p) => p.rel.slice(p.rel.lastIndexOf("/") + 1));
  const out: Observation[] = [];
  const state: JanitorState = {
    lastUtcMs: null,
    freeForm: 0,
    inTraceback: false,
    seq: 0,
    anyLine: false,
    repeated: { pending: [], all: [], backward: 0 },
    lastOrigin: null,
    doubtful: [],
  };
  const ctx: LineContext = { cell, state, diag, out };
  let carry: { text: string; origin: Origin } | null = null;
  // copytruncate writes a few lines into both parts around a rotation (SOURCES.md: janitor): the
  // lines that open a part and repeat the end of the part before it are read once, in silence.
  let previousTail: string[] = [];
  for (const [partIndex, name] of parts.entries()) {
    const file = `${relDir}/${name}`;
    const newest = partIndex === parts.length - 1;
    const tail: string[] = [];
    const take = (text: string, origin: Origin): void => {
      handleLine(text, origin, ctx);
      tail.push(text);
      if (tail.length > 2 * ROTATION_OVERLAP_LINES) tail.splice(0, tail.length - ROTATION_OVERLAP_LINES);
    };
    // The part's first lines wait until they can be compared with the end of the part before.
    let head: { text: string; origin: Origin }[] | null = previousTail.length > 0 && carry === null ? [] : null;
    const flushHead = (): void => {
      if (head === null) return;
      const texts = head.map((h) => h.text);
      const k = rotationOverlap(previousTail, texts);
      for (const h of head.slice(k)) take(h.text, h.origin);
      head = null;
    };
    try {
      // Lines come a buffer-full at a time: a log can hold millions of them.
      for await (const batch of input.parts[partIndex]!.lineBatches(opts)) {
        for (const line of batch) {
          let text = line.text;
          let origin: Origin = { file, line: line.lineNo, offset: line.offset, raw: text };
          if (carry) {
            text = carry.text + text;
            origin = { ...carry.origin, raw: text };
            carry = null;
          }
          // A line split by a rotation is short; a huge unterminated tail is junk of its own part,
          // never glued onto the next part's first line (which it would take down with it).
          if (line.unterminated && text.length <= MAX_CARRY_CHARS) {
            flushHead();
            carry = { text, origin };
            continue;
          }
          // The newest part's unterminated last line was cut off while being written: it is no
          // evidence (a cut "step_210" reads as step 21), whatever its length.
          if (line.unterminated && newest) {
            flushHead();
            cutLine(text, origin, state, diag);
            continue;
          }
          if (head !== null) {
            head.push({ text, origin });
            if (head.length >= Math.min(previousTail.length, ROTATION_OVERLAP_LINES)) flushHead();
            continue;
          }
          take(text, origin);
        }
      }
    } catch (err) {
      diag.warn(
        "JANITOR_UNREADABLE",
        `cannot read the rest of ${name}: ${fsReason(err)}; the other parts are used`,
        file,
        null,
      );
    }
    flushHead();
    previousTail = tail.slice(-ROTATION_OVERLAP_LINES);
  }
  // A line still without its end after the newest part: the log was cut off mid-line (a copy taken
  // while the janitor wrote, or a rotated part whose continuation is gone). Not evidence.
  if (carry) cutLine(carry.text, carry.origin, state, diag);
  warnRepeatedHour(state, cell, diag);
  // Each line's first doubt, looked up once per observation.
  const doubts = new Map<string, string>();
  for (const d of state.doubtful) {
    const at = `${d.origin.file}:${d.origin.line}`;
    if (!doubts.has(at)) doubts.set(at, d.why);
  }
  for (const o of out) {
    // A v2 archive's time is its src_mtime, the weights' own: no line's order puts it in doubt.
    if (o.detail.version === "v2" || o.utcMs === null) continue;
    const why = doubts.get(`${o.origin.file}:${o.origin.line}`);
    if (why === undefined) continue;
    o.utcMs = null;
    o.timeNote = `time unknown: ${why}`;
  }
  const missing = missingJanitorParts(parts);
  if (missing.length > 0 && state.anyLine) {
    diag.warn(
      "JANITOR_PART_MISSING",
      `cell "${cell.cell}": the janitor log's parts skip ${missing.join(" and ")} (found: ${parts.join(", ")}): the lines it held are lost, so the checkpoints only they time lose that hour`,
      `${relDir}/${parts[parts.length - 1]}`,
      null,
    );
  }
  // A folder that cannot be listed is not a missing log: say why there is no janitor evidence.
  const folderError = parts.length === 0 ? input.listError : null;
  if (folderError !== null) {
    warnUnreadable(diag, "JANITOR_UNREADABLE", relDir, folderError, "no janitor evidence");
  } else if (!state.anyLine) {
    const what = parts.length === 0 ? `no ${LOG} (nor a rotated part)` : `an empty janitor log (${parts.join(", ")})`;
    diag.warn(
      "JANITOR_MISSING",
      `cell "${cell.cell}" has ${what}: no janitor evidence`,
      `${relDir}/${parts.length === 0 ? LOG : parts[parts.length - 1]}`,
      null,
    );
  }
  return out;
}

/** Skips the log's cut-off last line with `JANITOR_CUT_LINE` (a blank one in silence). */
function cutLine(text: string, origin: Origin, state: JanitorState, diag: Diagnostics): void {
  if (text.trim() === "") return;
  state.anyLine = true;
  diag.warn(
    "JANITOR_CUT_LINE",
    `last line has no line end (the log was cut off while being written); skipped: ${clip(text.trim())}`,
    origin.file,
    origin.line,
  );
}

/**
 * The order of the lines tells the two occurrences of a repeated local hour
 * apart only where a later line of sure time shows it (the clock set back,
 * or any later time before the second occurrence), and the log goes back in
 * time there at most once (SOURCES.md: janitor). Lines no later line
 * settles, or every line of the hour where the log goes back more than once,
 * cannot be placed: warns `JANITOR_AMBIGUOUS_LOCAL_TIME` and marks their
 * times in doubt (not used).
 */
function warnRepeatedHour(state: JanitorState, cell: Cell, diag: Diagnostics): void {
  const r = state.repeated;
  const unsettled = r.pending.map((p) => p.origin);
  if (unsettled.length === 0 && r.backward === 0) return;
  const lines = r.backward > 0 ? r.all : unsettled;
  const cause =
    r.backward > 0 ? "where the log goes back in time more than once" : "and no line shows the clock set back";
  const why = `a local time in the hour that ${cell.janitor_tz} repeats at the end of daylight saving time, ${cause}: which occurrence it is cannot be told`;
  for (const origin of lines) state.doubtful.push({ origin, why });
  const at = lines[0]!;
  diag.warn(
    "JANITOR_AMBIGUOUS_LOCAL_TIME",
    `${lines.length} line(s) fall in the hour that ${cell.janitor_tz} repeats at the end of daylight saving time, and ${r.backward > 0 ? "the log goes back in time there more than once (the clock is set back once)" : "no line shows the clock set back"}: which occurrence each is cannot be told, so their times are not used`,
    at.file,
    at.line,
  );
}
