/**
 * Helpers shared by the five trajectory readers (TRAJECTORIES.md): streaming
 * JSON lines with bad-line warnings, number parsing, and the call record
 * every reader produces (the times of usage lines: `line-times.ts`).
 */
import { constants } from "node:buffer";
import type { Diagnostics, Warning } from "../../diagnostics.js";
import { appendAll } from "../../util/arrays.js";
import {
  LINE_SKIP,
  LINE_TAKE,
  LINE_UNKNOWN,
  scanLines,
  type LineClass,
  type LineScanOptions,
} from "../../util/line-scan.js";
import { LeadingScalarReader } from "../../util/json-prefix.js";
import type { JsonMembers } from "../../util/json-members.js";
import { cmpStr } from "../../util/values.js";
import { fsReason } from "../../util/fs-errors.js";
import type { TokenCall, TokenParts } from "./types.js";

/** One session file to read: its real path and the name used in warnings and calls. */
export interface TrajectoryFile {
  /** Absolute path on disk. */
  path: string;
  /** Path shown in warnings and `TokenCall.file` (relative to the display root, `/` separators). */
  display: string;
}

/** What a format reader returns before the calls are sorted. */
export interface FormatResult {
  calls: TokenCall[];
  warnings: Warning[];
}

/**
 * What one session file gives on its own, before the files of a run are put
 * together: the format's per-file data (plain JSON: it is what the build cache
 * stores) and the warnings found while reading the file, in line order.
 */
export interface FileScan<T> {
  data: T;
  warnings: Warning[];
}

/** Hooks for reading one file: progress. */
export interface ScanIO {
  /** Raw bytes read so far (compressed bytes for `.gz`). */
  onBytes?: (bytes: number) => void;
}

/**
 * A format's counter, split in two so that a file's reading can be cached:
 * `scan` reads one file (streamed; the result depends on nothing but the file,
 * its path and its display name), `merge` applies the cross-file rules of
 * TRAJECTORIES.md (forks, resumes, sub-agents) to the scans of a run, in file
 * order. `merge` returns the scans' warnings (in file order) followed by its own.
 */
export interface FormatCounter<T> {
  scan(file: TrajectoryFile, io?: ScanIO): Promise<FileScan<T>>;
  merge(files: TrajectoryFile[], scans: FileScan<T>[]): FormatResult;
  /** The form the build cache stores `scan` in (plain JSON), when it is not the scan itself. */
  pack?(scan: FileScan<T>): FileScan<unknown>;
  /** A scan of `file` from what {@link pack} stored (just read from the cache: it may be changed). */
  unpack?(stored: FileScan<unknown>, file: TrajectoryFile): FileScan<T>;
}

/** The warnings of `scans`, in file order. */
export function scanWarnings(scans: readonly FileScan<unknown>[]): Warning[] {
  const out: Warning[] = [];
  for (const s of scans) appendAll(out, s.warnings);
  return out;
}

/**
 * What a reader asks of {@link scanTrajectory}: which lines can matter (the
 * fast path; see `LineScanOptions` of `util/line-scan.ts`) and progress.
 * Marker mode (`markers`) suits a format whose type is not at the start of
 * its lines (claude-code, pi, kimi-cli); classify mode (`classify`, with
 * `needles` for undecided lines and `detectGlued`) one whose lines start
 * with their type (codex, kimi-code).
 */
export type TrajectoryScanOptions = Pick<
  LineScanOptions,
  "markers" | "classify" | "needles" | "detectGlued" | "searchLines" | "wantAll" | "onBytes"
>;

let fastPath = true;

/**
 * Turns the fast path of {@link scanTrajectory} on or off (on by default).
 * Off, every line is handed over (and parsed whole by the readers): the
 * tests compare both ways on every sample, and a user who suspects the fast
 * path can compare too.
 */
export function setTrajectoryFastPath(on: boolean): void {
  fastPath = on;
}

/** Whether the fast path is on ({@link setTrajectoryFastPath}): off, readers parse every line whole instead of reading its bytes. */
export function trajectoryFastPath(): boolean {
  return fastPath;
}

/** Lines longer than this (bytes) are not decoded for `JSON.parse`: no string holds them (`buffer.constants.MAX_STRING_LENGTH`). */
let longestParsedLine: number = constants.MAX_STRING_LENGTH;

/** Sets the longest line {@link TrajectoryLine.parse} decodes (the tests use a small one; null: the default). */
export function setLongestParsedLine(bytes: number | null): void {
  longestParsedLine = bytes ?? constants.MAX_STRING_LENGTH;
}

/**
 * One line handed to a reader by {@link scanTrajectory}: its bytes
 * `buf[start, end)` (without the line end; valid only during the visit, the
 * buffer is reused), its 1-based number, and whether it is the file's
 * cut-off last line. One object is reused for every line of a file.
 */
export class TrajectoryLine {
  buf: Buffer = Buffer.alloc(0);
  start = 0;
  end = 0;
  lineNo = 0;
  unterminated = false;

  constructor(
    private readonly file: TrajectoryFile,
    private readonly sink: Diagnostics,
  ) {}

  /**
   * The whole line parsed with `JSON.parse` (decoded as UTF-8 and trimmed
   * first). Undefined for a blank line, and for a line that is not valid
   * JSON, which is warned (`TRAJECTORY_BAD_JSON`, file and line; TRAJECTORIES.md:
   * "The quantity"). Every reader's fallback when a line is not of the shape
   * its fast reading expects.
   */
  parse(): unknown {
    if (this.end - this.start > longestParsedLine) {
      // Decoding it would throw and end the file's reading (every count of the run unknown): this line only is lost.
      const what = this.unterminated ? "cut-off last line" : "line";
      const head = this.buf.toString("utf8", this.start, this.start + 64);
      this.sink.warn(
        "TRAJECTORY_BAD_JSON",
        `${what} of ${this.end - this.start} bytes is longer than the longest text JavaScript can hold, so it cannot be parsed whole (${preview(head)}); skipped`,
        this.file.display,
        this.lineNo,
      );
      return undefined;
    }
    const text = this.buf.toString("utf8", this.start, this.end).trim();
    if (text === "") return undefined;
    try {
      return JSON.parse(text);
    } catch {
      this.bad(text);
      return undefined;
    }
  }

  /**
   * Warns the line as not valid JSON (`TRAJECTORY_BAD_JSON`), as {@link parse}
   * does: for a reader that proved it invalid without `JSON.parse`. `text` is
   * the line's trimmed text (decoded when not given).
   */
  bad(text?: string): void {
    const t = text ?? this.buf.toString("utf8", this.start, Math.min(this.end, this.start + 4096)).trim();
    const what = this.unterminated ? "cut-off last line" : "line";
    this.sink.warn(
      "TRAJECTORY_BAD_JSON",
      `${what} is not valid JSON (${preview(t)}); skipped`,
      this.file.display,
      this.lineNo,
    );
  }
}

/**
 * The scanner core of the trajectory readers: reads `file` in one reused
 * buffer (one synchronous loop per buffer-full; `.gz` too) and calls `visit`,
 * synchronously and in line order, with each line that `opts` says can
 * matter (every line when the fast path is off or `opts` names no filter).
 * A format plugs in with its options (markers, or a classifier) and a
 * visitor that reads what it needs from the line's bytes, falling back to
 * `line.parse()` (whole-line `JSON.parse`, bad lines warned) whenever the
 * line is not the shape it expects. A read error (e.g. a corrupt `.gz`)
 * gives `TRAJECTORY_READ_ERROR` and ends the file after the lines already
 * read (TRAJECTORIES.md: "The quantity"). Never throws.
 */
export async function scanTrajectory(
  file: TrajectoryFile,
  sink: Diagnostics,
  opts: TrajectoryScanOptions,
  visit: (line: TrajectoryLine) => void,
): Promise<void> {
  const line = new TrajectoryLine(file, sink);
  const progress = { lines: 0 };
  let lastLine = 0;
  try {
    const scanOpts: LineScanOptions = fastPath ? opts : { onBytes: opts.onBytes };
    await scanLines(
      file.path,
      scanOpts,
      (buf, start, end, lineNo, unterminated) => {
        line.buf = buf;
        line.start = start;
        line.end = end;
        line.lineNo = lineNo;
        line.unterminated = unterminated;
        lastLine = lineNo;
        visit(line);
      },
      progress,
    );
  } catch (err) {
    lastLine = Math.max(lastLine, progress.lines);
    sink.warn(
      "TRAJECTORY_READ_ERROR",
      lastLine === 0
        ? `could not read the file: ${fsReason(err)}`
        : `could not read past line ${lastLine}: ${fsReason(err)}`,
      file.display,
      lastLine === 0 ? null : lastLine,
    );
  }
}

/**
 * The fast reading of a usage line: the members of the line at `reader`'s
 * paths, as an object shaped like the line (`message.usage` becomes
 * `{ message: { usage: … } }`), each value as `JSON.parse` gives it, after
 * the whole line was proven valid JSON (`JsonMembers.read`). Only the wanted
 * members are decoded. Undefined when the line cannot be read that way (not
 * valid JSON, a wanted member written twice or with a `\u`-escaped name):
 * the caller then parses it whole with `line.parse()`, which also reports a
 * line that is not JSON; also always when the fast path is off. An object on
 * a wanted path is in the result only when one of its wanted members is.
 */
export function pickMembers(reader: JsonMembers, line: TrajectoryLine): Record<string, unknown> | undefined {
  if (!fastPath || !reader.read(line.buf, line.start, line.end)) return undefined;
  const out: Record<string, unknown> = {};
  const paths = reader.paths;
  for (let slot = 0; slot < paths.length; slot += 1) {
    if (!reader.has(slot)) continue;
    const v = reader.first(slot) === 0x22 ? reader.string(slot) : reader.json(slot);
    const parts = pathParts(paths[slot]!);
    let at = out;
    for (let k = 0; k < parts.length - 1; k += 1) {
      const key = parts[k]!;
      let next = at[key] as Record<string, unknown> | undefined;
      if (next === undefined) at[key] = next = {};
      at = next;
    }
    at[parts[parts.length - 1]!] = v;
  }
  return out;
}

const splitPaths = new Map<string, string[]>();
function pathParts(path: string): string[] {
  let parts = splitPaths.get(path);
  if (parts === undefined) splitPaths.set(path, (parts = path.split(".")));
  return parts;
}

/**
 * A line classifier for the fast path from a rule on a few leading scalar
 * members of the line (`LeadingScalarReader`): the rule gets their values, in
 * the order of `paths`, and returns "skip" (the line cannot carry what the
 * reader wants), "take" (parse it) or undefined (let the needles decide). A
 * line whose start cannot be read that way is left to the needles too.
 */
export function classifyBy(
  paths: readonly string[],
  rule: (values: readonly (string | undefined)[]) => "skip" | "take" | undefined,
): (buf: Buffer, start: number, end: number) => LineClass {
  const reader = new LeadingScalarReader(paths);
  return (buf, start, end) => {
    if (!reader.read(buf, start, end)) return LINE_UNKNOWN;
    const r = rule(reader.values);
    return r === "skip" ? LINE_SKIP : r === "take" ? LINE_TAKE : LINE_UNKNOWN;
  };
}

/** The needles of the fast path, as Buffers. */
export function needles(...texts: string[]): Buffer[] {
  return texts.map((t) => Buffer.from(t, "utf8"));
}

function preview(text: string): string {
  const short = text.length > 60 ? `${text.slice(0, 60)}…` : text;
  return JSON.stringify(short);
}

/** True for a plain object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The object at `value[key]`, or undefined. */
export function obj(value: unknown, key: string): Record<string, unknown> | undefined {
  if (!isObject(value)) return undefined;
  const v = value[key];
  return isObject(v) ? v : undefined;
}

/** The string at `value[key]`, or undefined. */
export function str(value: unknown, key: string): string | undefined {
  if (!isObject(value)) return undefined;
  const v = value[key];
  return typeof v === "string" ? v : undefined;
}

/** Builds a call record. */
export function call(parts: TokenParts, timeMs: number | null, file: string, line: number): TokenCall {
  return {
    uncachedInput: parts.uncachedInput,
    cacheRead: parts.cacheRead,
    cacheWrite: parts.cacheWrite,
    output: parts.output,
    timeMs,
    file,
    line,
  };
}

/**
 * Adds one `TRAJECTORY_UNPLACED_CALLS` warning per file that has calls with no
 * time, located at the file's first such call (the count is in the message).
 */
export function warnUnplaced(calls: TokenCall[], sink: Diagnostics, why: string): void {
  const perFile = new Map<string, { n: number; line: number }>();
  for (const c of calls) {
    if (c.timeMs !== null) continue;
    const seen = perFile.get(c.file);
    if (seen) {
      seen.n += 1;
      seen.line = Math.min(seen.line, c.line);
    } else perFile.set(c.file, { n: 1, line: c.line });
  }
  for (const [file, { n, line }] of [...perFile].sort((a, b) => cmpStr(a[0], b[0]))) {
    sink.warn(
      "TRAJECTORY_UNPLACED_CALLS",
      `${n} call(s) have no time (${why}): counted in totals, left out of tokens(t)`,
      file,
      line,
    );
  }
}

/**
 * Whether call `a` was seen before call `b` (TRAJECTORIES.md: a call seen in
 * two files counts once, at its earliest sighting): the earlier `timeMs`
 * (ms since the epoch; a call without a time is after every timed one), then
 * the file (by {@link cmpStr}), then the line.
 */
export function earlierCall(a: TokenCall, b: TokenCall): boolean {
  const ta = a.timeMs ?? Number.POSITIVE_INFINITY;
  const tb = b.timeMs ?? Number.POSITIVE_INFINITY;
  if (ta !== tb) return ta < tb;
  const f = cmpStr(a.file, b.file);
  return f !== 0 ? f < 0 : a.line < b.line;
}

/** The folder part of a `/`-separated path (`""` when there is none). */
export function dirOf(p: string): string {
  const i = p.lastIndexOf("/");
  return i < 0 ? "" : p.slice(0, i);
}
