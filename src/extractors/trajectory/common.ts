/**
 * Helpers shared by the five trajectory readers (TRAJECTORIES.md): streaming
 * JSON lines with bad-line warnings, number and time parsing, and the call
 * record every reader produces.
 */
import type { Warning } from "../../diagnostics.js";
import { readLines } from "../../util/lines.js";
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

/** A format reader: reads every file of one run (TRAJECTORIES.md, one section per format). */
export type FormatReader = (files: TrajectoryFile[]) => Promise<FormatResult>;

/** Collects warnings in order. */
export class WarningSink {
  readonly warnings: Warning[] = [];
  warn(code: string, message: string, file: string | null = null, line: number | null = null): void {
    this.warnings.push({ code, message, file, line });
  }
}

/** A parsed JSON line. */
export interface JsonLine {
  value: unknown;
  lineNo: number;
}

/**
 * Streams the JSON lines of `file`. Blank lines are ignored; a line that is not
 * valid JSON gives a `TRAJECTORY_BAD_JSON` warning (file + line) and is skipped;
 * a read error (e.g. a corrupt `.gz`) gives `TRAJECTORY_READ_ERROR` and ends the
 * file after the lines already read (TRAJECTORIES.md: "The quantity").
 */
export async function* jsonLines(file: TrajectoryFile, sink: WarningSink): AsyncGenerator<JsonLine> {
  let lastLine = 0;
  try {
    for await (const line of readLines(file.path)) {
      lastLine = line.lineNo;
      const text = line.text.trim();
      if (text === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        const what = line.unterminated ? "cut-off last line" : "line";
        sink.warn(
          "TRAJECTORY_BAD_JSON",
          `${what} is not valid JSON (${preview(text)}); skipped`,
          file.display,
          line.lineNo,
        );
        continue;
      }
      yield { value, lineNo: line.lineNo };
    }
  } catch (err) {
    sink.warn(
      "TRAJECTORY_READ_ERROR",
      `could not read past line ${lastLine}: ${(err as Error).message}`,
      file.display,
      lastLine === 0 ? null : lastLine,
    );
  }
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

/**
 * A token count: a finite number ≥ 0 (rounded to an integer); `undefined` when
 * absent or null; `NaN` when present but not a usable count (the caller warns).
 */
export function count(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) return Number.NaN;
  return Math.round(value);
}

/** Reads the named count fields of a usage object; missing fields are 0. Null when any is invalid. */
export function counts<K extends string>(usage: Record<string, unknown>, keys: readonly K[]): Record<K, number> | null {
  const out = {} as Record<K, number>;
  for (const k of keys) {
    const c = count(usage[k]);
    if (c !== undefined && Number.isNaN(c)) return null;
    out[k] = c ?? 0;
  }
  return out;
}

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;
const ISO_NO_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/**
 * Epoch ms of an ISO 8601 time. A time with no offset is read as UTC (every
 * format here writes UTC; `Date.parse` would otherwise take local time).
 * Null when absent or unparseable.
 */
export function isoMs(value: unknown): number | null {
  if (typeof value !== "string") return null;
  let s = value.trim();
  if (ISO_NO_ZONE.test(s)) s += "Z";
  else if (!ISO_WITH_ZONE.test(s)) return null;
  const ms = Date.parse(s.replace(" ", "T"));
  return Number.isFinite(ms) ? ms : null;
}

/** Epoch ms of an epoch-seconds float (microseconds rounded, then truncated to ms). */
export function epochSecondsMs(value: unknown): number | null {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) return null;
  return Math.floor(Math.round(value * 1e6) / 1000);
}

/** Epoch ms from an epoch-milliseconds number. */
export function epochMs(value: unknown): number | null {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) return null;
  return Math.round(value);
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

/** A stable key for a set of parts (de-duplication by usage). */
export function partsKey(p: TokenParts): string {
  return `${p.uncachedInput}/${p.cacheRead}/${p.cacheWrite}/${p.output}`;
}

/** Adds one `TRAJECTORY_UNPLACED_CALLS` warning per file that has calls with no time. */
export function warnUnplaced(calls: TokenCall[], sink: WarningSink, why: string): void {
  const perFile = new Map<string, number>();
  for (const c of calls) if (c.timeMs === null) perFile.set(c.file, (perFile.get(c.file) ?? 0) + 1);
  for (const [file, n] of [...perFile].sort((a, b) => cmp(a[0], b[0]))) {
    sink.warn(
      "TRAJECTORY_UNPLACED_CALLS",
      `${n} call(s) have no time (${why}): counted in totals, left out of tokens(t)`,
      file,
      null,
    );
  }
}

/** Plain code-unit string order (locale-independent, deterministic). */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The folder part of a `/`-separated path (`""` when there is none). */
export function dirOf(p: string): string {
  const i = p.lastIndexOf("/");
  return i < 0 ? "" : p.slice(0, i);
}
