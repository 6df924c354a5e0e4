/**
 * One line of a janitor log (SOURCES.md: janitor): the v1 and v2 formats, the
 * actions they write, and the startup banner. Reading the parts in order,
 * rotation and cut lines are in janitor-log.ts.
 */
import type { Cell } from "../schema.js";
import type { Diagnostics } from "../diagnostics.js";
import type { Observation, Origin } from "../observations.js";
import { familyIdOf } from "../sources/cells.js";
import { localToUtcCandidates, pickMonotonic } from "../util/local-time.js";
import { clip } from "../util/values.js";
import { checkpointFolderOf } from "./checkpoint-path.js";
import { isTimeMs, parseIsoTime, parseStep } from "../util/values.js";

const V2_RE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2}))\s+(.*)$/;
const V1_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?\s+(.*)$/;
// A quoted value ends at a space or the line's end: `step="55"00` (a line joined wrong) is one unquoted value, not 55.
const KV_RE = /([A-Za-z_][\w.]*)=("(?:[^"\\]|\\.)*"(?=\s|$)|\S*)/g;

/** What reading one janitor log carries from line to line. */
export interface JanitorState {
  lastUtcMs: number | null;
  /** Free-form lines without a time, skipped silently. */
  freeForm: number;
  inTraceback: boolean;
  seq: number;
  /** Whether any non-blank line was read (JANITOR_MISSING when none). */
  anyLine: boolean;
  /** The zone the janitor's last v1 startup line states (`tz=...`) and where: given to the v1 lines after it. */
  statedTz?: { tz: string; at: string };
  /**
   * v1 times in a repeated hour: those read as the first occurrence that no later line settles yet
   * (with the instant of their second occurrence), every such line, and how many went back in time
   * (after the set-back, a second time).
   */
  repeated: { pending: { origin: Origin; secondMs: number }[]; all: Origin[]; backward: number };
  /** The last line with a time (the other line of a pair out of time order). */
  lastOrigin: Origin | null;
  /** Lines whose time cannot be stood behind (out of time order: either of a pair may be the wrong one), with why. */
  doubtful: { origin: Origin; why: string }[];
}

/**
 * A line whose instant is sure (a v2 time, a v1 time outside a repeated
 * hour, one read as the second occurrence) at `utcMs` settles the lines
 * read as a first occurrence before it: were the last of them the second
 * occurrence, it would be later than this line, and the log does not go
 * back in time (SOURCES.md: janitor); then so are the ones before it.
 */
function settleRepeated(state: JanitorState, utcMs: number): void {
  const pending = state.repeated.pending;
  if (pending.length > 0 && pending[pending.length - 1]!.secondMs > utcMs) pending.length = 0;
}

/** Marks the time of line `origin` and of the timed line before it as in doubt: they are out of time order. */
function doubtPair(state: JanitorState, origin: Origin): void {
  const why =
    "out of time order with the line before it or after it (the janitor writes in time order): which of the two is wrong cannot be told";
  if (state.lastOrigin) state.doubtful.push({ origin: state.lastOrigin, why });
  state.doubtful.push({ origin, why });
}

/** What the line handlers read and write: the cell, the reading's state, the warnings, the observations. */
export interface LineContext {
  cell: Cell;
  state: JanitorState;
  diag: Diagnostics;
  out: Observation[];
}

/**
 * Reads one janitor line (SOURCES.md: janitor): a v2 line (ISO time with an
 * offset, `key=value` pairs), a v1 line (offset-less time read in the cell's
 * `janitor_tz`, an action and a checkpoint path), a traceback line after an
 * error, a startup banner (v1: the zone it states is kept for the lines
 * after it), or a free-form line; pushes the observation of a line that names
 * a checkpoint to `ctx.out` and warns on the rest as readJanitorLog
 * (janitor-log.ts) lists.
 */
export function handleLine(text: string, origin: Origin, ctx: LineContext): void {
  const { cell, state, diag } = ctx;
  const trimmed = text.trim();
  if (trimmed === "") return;
  state.anyLine = true;
  const v2 = V2_RE.exec(trimmed);
  if (v2) {
    state.inTraceback = false;
    const utc = parseIsoTime(v2[1]!);
    if (Number.isNaN(utc)) {
      diag.warn("JANITOR_BAD_FIELD", `bad time ${v2[1]}`, origin.file, origin.line);
      return;
    }
    settleRepeated(state, utc);
    if (state.lastUtcMs !== null && utc < state.lastUtcMs - 1000) {
      diag.warn(
        "JANITOR_OUT_OF_ORDER",
        `time ${v2[1]} is earlier than the line before it (${new Date(state.lastUtcMs).toISOString()}); the janitor writes in time order, so a v1 local time of either line is not used (a v2 src_mtime, the weights' own, still is)`,
        origin.file,
        origin.line,
      );
      doubtPair(state, origin);
    }
    state.lastUtcMs = utc;
    state.lastOrigin = origin;
    handleV2(v2[2]!, utc, origin, ctx);
    return;
  }
  const v1 = V1_RE.exec(trimmed);
  if (v1) {
    state.inTraceback = false;
    const [, y, mo, d, h, mi, s, frac = "0", rest] = v1 as unknown as string[];
    const wallMs = Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!) + Number(`0.${frac}`) * 1000;
    const candidates = localToUtcCandidates(wallMs, cell.janitor_tz);
    const picked = pickMonotonic(candidates, state.lastUtcMs, cell.janitor_tz);
    if (!picked) {
      diag.warn(
        "JANITOR_NONEXISTENT_LOCAL_TIME",
        `local time ${trimmed.slice(0, 19)} never happened in ${cell.janitor_tz} (skipped hour); line ignored`,
        origin.file,
        origin.line,
      );
      return;
    }
    if (state.lastUtcMs !== null && picked.utcMs < state.lastUtcMs - 1000) {
      diag.warn(
        "JANITOR_OUT_OF_ORDER",
        `local time ${trimmed.slice(0, 19)} (${cell.janitor_tz}) is earlier than the line before it (${new Date(state.lastUtcMs).toISOString()}) in every reading; the janitor writes in time order, so neither line's time is used`,
        origin.file,
        origin.line,
      );
      doubtPair(state, origin);
      if (candidates.utcMs.length === 2) state.repeated.backward += 1;
    } else if (candidates.utcMs.length === 2 && picked.utcMs === candidates.utcMs[0]) {
      // Read as the first occurrence only because nothing before says otherwise: a later line may settle it.
      state.repeated.pending.push({ origin, secondMs: candidates.utcMs[1]! });
    } else {
      settleRepeated(state, picked.utcMs); // a time this line's reading is sure of
    }
    if (candidates.utcMs.length === 2) state.repeated.all.push(origin);
    state.lastUtcMs = picked.utcMs;
    state.lastOrigin = origin;
    handleV1(rest!, picked.utcMs, picked.note, origin, ctx);
    return;
  }
  if (
    state.inTraceback &&
    (/^\s/.test(text) ||
      /^Traceback \(most recent call last\):/.test(trimmed) ||
      /^[\w.]+(Error|Exception)\b/.test(trimmed))
  ) {
    return;
  }
  // Free-form lines without a time (startup banners, "Terminated", library warnings) carry no
  // evidence (SOURCES.md: janitor). Warn only where something may be lost: garbage, or a line
  // that names a checkpoint or an action but fits neither format.
  if (/[\u0000-\u0008\u000e-\u001f\ufffd]/.test(text)) {
    diag.warn(
      "JANITOR_JUNK_LINE",
      `binary or garbled line skipped: ${clip(JSON.stringify(trimmed))}`,
      origin.file,
      origin.line,
    );
  } else if (/weights\/step_|action=|\barchived?\b|\bstep=/.test(trimmed)) {
    diag.warn(
      "JANITOR_UNPARSED_LINE",
      `names a checkpoint or action but fits neither janitor format: ${clip(trimmed)}`,
      origin.file,
      origin.line,
    );
  } else {
    state.freeForm += 1;
    const banner = V1_BANNER.exec(trimmed);
    if (banner) state.statedTz = { tz: banner[1]!, at: `${origin.file}:${origin.line}` };
  }
}

/** The actions a v1 line starts with (SOURCES.md: janitor, and the logs seen): any other before a checkpoint path is warned. */
const V1_VERBS: ReadonlySet<string> = new Set([
  "archived",
  "archive",
  "pruned",
  "prune",
  "skip",
  "skipped",
  "error",
  "ERROR",
]);
/** The `action=` values of v2 lines (SOURCES.md: janitor). */
const V2_ACTIONS: ReadonlySet<string> = new Set(["archive", "prune", "skip", "error"]);

/**
 * Why a v2 line cannot be read though it names a checkpoint or an archive, or
 * null: an `action=` the janitor never writes (`ARCHIVE`) on a line with a
 * `family=` or `step=`, an archive without its `family=` or `step=`, or a
 * `family=` and `step=` with no `action=`. An idle `action=skip reason=idle`
 * names nothing and is no evidence.
 */
function unreadV2(action: string | undefined, family: boolean, step: boolean): string | null {
  if (action !== undefined && !V2_ACTIONS.has(action) && (family || step || /archiv/i.test(action)))
    return `action=${clip(action)} is not an action the v2 janitor writes (${[...V2_ACTIONS].join(", ")})`;
  if (action === "archive" && (!family || !step)) return `an archive line without ${family ? "step=" : "family="}`;
  if (action === undefined && family && step) return "names a checkpoint (family=, step=) but no action=";
  return null;
}

/** A logfmt quoted value (`"b c"`, with JSON escapes) decoded, or null when it is not one (`"55"00`, `"bad\q"`). */
function quotedValue(v: string): string | null {
  try {
    const decoded: unknown = JSON.parse(v);
    return typeof decoded === "string" ? decoded : null;
  } catch {
    return null;
  }
}

/** The v1 janitor's startup line, which states the zone of its times: `ckpt-janitor 1.4.2 starting (watch=/pvc/ptb/kimi, every 600s, tz=America/Los_Angeles)`. */
const V1_BANNER = /^ckpt-janitor \S+ starting \(.*\btz=([^,\s)]+)/;

function handleV2(body: string, utcMs: number, origin: Origin, ctx: LineContext): void {
  const { cell, state, diag, out } = ctx;
  // No `action=` (nor `step=`) means no action (the line is skipped below); without a `"` there is no
  // quoted value whose decoding could throw either: nothing to parse.
  if (!body.includes("action=") && !body.includes('"') && !body.includes("step=")) return;
  // Only the keys read below are kept (a fixed shape is much faster than a dictionary
  // of every key); a later duplicate wins, as before. Quoted values are still decoded:
  // a broken one is JANITOR_BAD_FIELD for its line.
  const kv: { action?: string; family?: string; step?: string; src_mtime?: string; dest?: string } = {
    action: undefined,
    family: undefined,
    step: undefined,
    src_mtime: undefined,
    dest: undefined,
  };
  KV_RE.lastIndex = 0;
  for (let m = KV_RE.exec(body); m !== null; m = KV_RE.exec(body)) {
    let v = m[2]!;
    const key = m[1]!;
    if (v.startsWith('"')) {
      const decoded = quotedValue(v);
      if (decoded === null) {
        // One bad value is this line's fault, never the rest of the log's.
        diag.warn("JANITOR_BAD_FIELD", `${key}=${clip(v)} is not a well-formed value`, origin.file, origin.line);
        return;
      }
      v = decoded;
    }
    if (key === "action" || key === "family" || key === "step" || key === "src_mtime" || key === "dest") kv[key] = v;
  }
  const action = kv.action;
  if (action === "error") state.inTraceback = true;
  const unread = unreadV2(action, kv.family !== undefined, kv.step !== undefined);
  if (unread !== null) {
    diag.warn("JANITOR_UNPARSED_LINE", `${unread}: ${clip(body)}`, origin.file, origin.line);
    return;
  }
  if (!action || !kv.family || kv.step === undefined) return; // startup or summary lines (action=skip reason=idle)
  const step = parseStep(kv.step);
  if (step === null) {
    diag.warn("JANITOR_BAD_FIELD", `step=${kv.step} is not a step number`, origin.file, origin.line);
    return;
  }
  const familyDir = kv.family;
  if (familyDir.startsWith("/") || familyDir.split("/").some((p) => p === "" || p === "." || p === "..")) {
    diag.warn(
      "JANITOR_BAD_FIELD",
      `family=${JSON.stringify(familyDir)} is not a directory name under pvc_root`,
      origin.file,
      origin.line,
    );
    return;
  }
  const family = familyIdOf(cell, familyDir.split("/").pop()!);
  if (action === "archive") {
    if (kv.src_mtime === undefined || !/^\d+(\.\d+)?$/.test(kv.src_mtime) || !isTimeMs(Number(kv.src_mtime) * 1000)) {
      diag.warn(
        "JANITOR_BAD_FIELD",
        `archive line without a usable src_mtime (${kv.src_mtime ?? "missing"})`,
        origin.file,
        origin.line,
      );
      return;
    }
    const srcMs = Number(kv.src_mtime) * 1000;
    out.push({
      cell: cell.cell,
      family,
      step,
      kind: "janitor_archive",
      familyDir,
      utcMs: srcMs,
      timeNote: "v2 src_mtime (exact write time)",
      origin,
      extractor: "janitor-log",
      detail: { version: "v2", action, dest: kv.dest ?? null, actionUtc: new Date(utcMs).toISOString() },
      seq: state.seq++,
    });
  } else {
    out.push({
      cell: cell.cell,
      family,
      step,
      kind: "janitor_other",
      familyDir,
      utcMs: null,
      timeNote: null,
      origin,
      extractor: "janitor-log",
      detail: { version: "v2", action, dest: kv.dest ?? null, actionUtc: new Date(utcMs).toISOString() },
      seq: state.seq++,
    });
  }
}

function handleV1(body: string, utcMs: number, note: string, origin: Origin, ctx: LineContext): void {
  const { cell, state, diag, out } = ctx;
  const m = /^(\w+)\s+(\/.*?\/weights\/step_\d+)\/?(?:\s+->\s+(\S+))?(?:\s+.*)?$/.exec(body);
  const verb = m?.[1] ?? body.split(/\s+/)[0] ?? "";
  if (/^(error|ERROR)/.test(verb)) state.inTraceback = true;
  if (!V1_VERBS.has(verb) && body.includes("/weights/step_")) {
    // A checkpoint named with an action the janitor never writes (`INFO archived`, `Archived`, `archived:`):
    // it may be an archive, so it is said, never skipped in silence.
    diag.warn(
      "JANITOR_UNPARSED_LINE",
      `names a checkpoint, but "${clip(verb)}" is not an action the v1 janitor writes (${[...V1_VERBS].join(", ")}): ${clip(body)}`,
      origin.file,
      origin.line,
    );
    return;
  }
  if (!m) {
    // A checkpoint path whose step is not a number would otherwise vanish without a word.
    const bad = [...body.matchAll(/\/weights\/step_([^\s/:,;]*)/g)].find((x) => parseStep(x[1]!) === null);
    if (bad)
      diag.warn("JANITOR_BAD_FIELD", `step_${bad[1]} is not a step number: ${clip(body)}`, origin.file, origin.line);
    return; // startup or free-form message with a time
  }
  const path = m[2]!;
  const root = cell.pvc_root.replace(/\/+$/, "");
  if (!path.startsWith(`${root}/`)) {
    diag.warn("JANITOR_OUTSIDE_ROOT", `path ${path} is not under pvc_root ${root}`, origin.file, origin.line);
    return;
  }
  const rel = path.slice(root.length + 1);
  const sm = checkpointFolderOf(rel);
  if (!sm) {
    diag.warn("JANITOR_BAD_FIELD", `path ${path} is not <family>/weights/step_<N>`, origin.file, origin.line);
    return;
  }
  const { familyDir } = sm;
  const step = parseStep(sm.stepText);
  if (step === null) {
    diag.warn("JANITOR_BAD_FIELD", `step_${sm.stepText} in ${path} is not a step number`, origin.file, origin.line);
    return;
  }
  const family = familyIdOf(cell, familyDir.split("/").pop()!);
  const archived = verb === "archived" || verb === "archive";
  out.push({
    cell: cell.cell,
    family,
    step,
    kind: archived ? "janitor_archive" : "janitor_other",
    familyDir,
    utcMs: archived ? utcMs : null,
    timeNote: archived ? `v1 action time, ${note}` : null,
    origin,
    extractor: "janitor-log",
    detail: {
      version: "v1",
      action: verb,
      dest: m[3] ?? null,
      actionUtc: new Date(utcMs).toISOString(),
      // The zone the janitor said it wrote in, checked against janitor_tz (resolve/janitor-zone.ts).
      statedTz: state.statedTz?.tz ?? null,
      statedTzAt: state.statedTz?.at ?? null,
    },
    seq: state.seq++,
  });
}
