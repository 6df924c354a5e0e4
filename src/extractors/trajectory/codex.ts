/**
 * codex: OpenAI Codex CLI rollout files (TRAJECTORIES.md, section "codex").
 *
 * A call is where the thread's running total (`total_token_usage`) grows; its
 * parts are the growth of each running part. Heartbeats (`info: null`) and
 * unchanged repeats are skipped; a drop resets the baseline; a forked or
 * sub-agent child does not recount the parent's replayed prefix; and
 * `token_usage_record` lines are read only for a file that has no running total.
 * This file reads one rollout; the rules across files are in codex-merge.ts.
 */
import { Diagnostics } from "../../diagnostics.js";
import {
  classifyBy,
  isObject,
  scanTrajectory,
  trajectoryFastPath,
  needles,
  obj,
  str,
  type FileScan,
  type FormatCounter,
  type FormatResult,
  type ScanIO,
  type TrajectoryFile,
} from "./common.js";
import { isoMs, NoOffsetTimes } from "./line-times.js";
import { readUsage, UsageShapeTally } from "./usage-shape.js";
import { CODEX_USAGE_SHAPE as USAGE_SHAPE, classifyCodexLead, readCodexTokenCount } from "./codex-usage.js";
import { readCodexLineTime } from "./codex-line-time.js";
import { LINE_UNKNOWN, type LineClass } from "../../util/line-scan.js";
import { isBlankLine } from "../../util/line-steps.js";
import { appendAll } from "../../util/arrays.js";
import { type CodexScan, mergeCodexScans, type Vec } from "./codex-merge.js";

/**
 * Lines of a child written within this many ms of the line before them, in an
 * unbroken chain from the child's first `session_meta`, are the replayed burst
 * (used when the file has no `ordinal`s to say where its own history starts).
 */
const CODEX_REPLAY_GAP_MS = 1000;

function vecOf(
  c: Record<"input_tokens" | "cached_input_tokens" | "output_tokens" | "cache_write_input_tokens", number>,
): Vec {
  return {
    input: c.input_tokens,
    cached: c.cached_input_tokens,
    cacheWrite: c.cache_write_input_tokens,
    output: c.output_tokens,
  };
}

/**
 * Reads a usage vector into `shape` (the file's tally): undefined when the
 * counts cannot be read (tallied), null when a value is not a count (the
 * caller warns `TRAJECTORY_BAD_USAGE`).
 */
function readVec(
  u: unknown,
  shape: UsageShapeTally,
  line: number,
  container: Record<string, unknown>,
  key: string,
): Vec | null | undefined {
  if (!isObject(u)) {
    // A usage line with no usage object: its counts cannot be read.
    shape.missing(
      USAGE_SHAPE.required,
      Object.keys(container).filter((k) => k !== key),
      line,
    );
    return undefined;
  }
  const read = readUsage(u, USAGE_SHAPE);
  if (read.kind === "bad-value") return null;
  const c = shape.note(read, u, line);
  return c ? vecOf(c) : undefined;
}

/** `last_token_usage` (only a fallback): its vector when readable, else null; never tallied (the total is). */
function readLast(u: unknown): Vec | null {
  if (!isObject(u)) return null;
  const read = readUsage(u, USAGE_SHAPE);
  return read.kind === "ok" ? vecOf(read.counts) : null;
}

function ordinalOf(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) ? value : null;
}

/**
 * Fast path: a line matters only when it holds `token_count` or
 * `token_usage_record`; every line is read until the first `session_meta`,
 * and in a forked or sub-agent file (whose replayed burst is told by the
 * times of all its lines).
 */
const CODEX_NEEDLES = needles("token_count", "token_usage_record");
const CODEX_CLASSIFY = classifyBy(["type", "payload.type"], ([type, inner]) => {
  if (type === undefined) return undefined;
  if (type === "session_meta" || type === "token_usage_record") return "take";
  if (type !== "event_msg") return "skip";
  return inner === undefined ? undefined : inner === "token_count" ? "take" : "skip";
});

/** The fixed-layout classifier first (codex-usage.ts), the member reader when the line is laid out otherwise. */
function classifyCodex(buf: Buffer, start: number, end: number): LineClass {
  const c = classifyCodexLead(buf, start, end);
  return c === LINE_UNKNOWN ? CODEX_CLASSIFY(buf, start, end) : c;
}

async function scanFile(file: TrajectoryFile, sink: Diagnostics, io: ScanIO = {}): Promise<CodexScan> {
  const scan: CodexScan = {
    file,
    ownId: null,
    parentId: null,
    ownStartOrdinal: null,
    observations: [],
    records: [],
  };
  let sawMeta = false;
  let bornMs: number | null = null;
  let chainMs: number | null = null;
  let burstOpen = false;
  const wantAll = (): boolean => !sawMeta || scan.parentId !== null;
  const shape = new UsageShapeTally();
  // Only the times of usage lines are counted: which other lines are read depends on the fast path.
  const times = new NoOffsetTimes();
  // token_usage_record lines count only in a file with no running total: their problems are reported only then.
  const recordShape = new UsageShapeTally();
  const recordSink = new Diagnostics();
  /** Time-based evidence of the replayed burst of a child: is a line at `timeMs` in it? */
  const burst = (timeMs: number | null): boolean => {
    if (scan.parentId === null || timeMs === null) return false;
    if (bornMs !== null && timeMs < bornMs) return true;
    if (burstOpen && chainMs !== null && timeMs - chainMs <= CODEX_REPLAY_GAP_MS) {
      chainMs = Math.max(chainMs, timeMs);
      return true;
    }
    burstOpen = false;
    return false;
  };
  const fast = trajectoryFastPath();
  // Whether the file's first line is its session_meta (null: no line yet). Every line is handed over until one is.
  let firstIsMeta: boolean | null = null;
  await scanTrajectory(
    file,
    sink,
    {
      needles: CODEX_NEEDLES,
      classify: classifyCodex,
      detectGlued: true,
      wantAll,
      onBytes: io.onBytes,
    },
    (line) => {
      // A blank line before any other (an editor's, a concatenation's) is no line lost: the next one is the first.
      if (firstIsMeta === null && isBlankLine(line.buf, line.start, line.end)) return;
      const first = firstIsMeta === null;
      if (first) firstIsMeta = false; // until the line proves to be the session_meta
      // The usual token_count line, read from its bytes (proven valid JSON); any other line is parsed whole.
      const tc = fast ? readCodexTokenCount(line.buf, line.start, line.end) : null;
      if (tc !== null) {
        const usage = tc.usage;
        if (usage === null && scan.parentId === null) return; // a heartbeat outside a child's burst: nothing to note
        const timeMs = usage !== null ? times.ms(tc.timestamp, line.lineNo) : isoMs(tc.timestamp);
        const inBurst = burst(timeMs);
        if (usage === null) return;
        scan.observations.push({
          timeMs,
          line: line.lineNo,
          ordinal: tc.ordinal,
          threadId: tc.threadId ?? null,
          total: usage.total,
          last: usage.last,
          inBurst,
        });
        return;
      }
      // Any other line is handed over for its time only (a child's replayed burst), unless its type is one read further.
      const other = fast ? readCodexLineTime(line.buf, line.start, line.end) : null;
      if (other !== null) {
        burst(isoMs(other.timestamp));
        return;
      }
      const value = line.parse();
      if (value === undefined || !isObject(value)) return;
      const lineNo = line.lineNo;
      const type = str(value, "type");
      const payload = obj(value, "payload");
      const timeMs = isoMs(value["timestamp"]);
      const ordinal = ordinalOf(value["ordinal"]);
      if (type === "session_meta" && payload && !sawMeta) {
        // Only the first session_meta owns the file: a child copies its ancestors' after it.
        sawMeta = true;
        if (first) firstIsMeta = true;
        scan.ownId = str(payload, "id") ?? str(payload, "session_id") ?? null;
        const spawn = obj(obj(obj(payload, "source"), "subagent"), "thread_spawn");
        scan.parentId =
          str(payload, "forked_from_id") ?? str(spawn, "parent_thread_id") ?? str(payload, "parent_thread_id") ?? null;
        const start =
          ordinalOf(payload["subagent_history_start_ordinal"]) ??
          ordinalOf(obj(payload, "history_base")?.["end_ordinal_exclusive"]) ??
          ordinalOf(payload["forked_from_ordinal_exclusive"]);
        scan.ownStartOrdinal = start;
        bornMs = timeMs ?? isoMs(payload["timestamp"]);
        chainMs = bornMs;
        burstOpen = scan.parentId !== null && bornMs !== null;
        return;
      }
      const inBurst = burst(timeMs);
      if (type === "event_msg" && payload && str(payload, "type") === "token_count") {
        const info = payload["info"];
        if (!isObject(info)) return; // info: null is a rate-limit heartbeat
        const total = readVec(info["total_token_usage"], shape, lineNo, info, "total_token_usage");
        if (total === undefined) return;
        if (total === null) {
          sink.warn(
            "TRAJECTORY_BAD_USAGE",
            "token_count has an unreadable total_token_usage; skipped",
            file.display,
            lineNo,
          );
          return;
        }
        const last = readLast(info["last_token_usage"]);
        times.ms(value["timestamp"], lineNo);
        scan.observations.push({
          timeMs,
          line: lineNo,
          ordinal,
          threadId: str(payload, "thread_id") ?? null,
          total,
          last,
          inBurst,
        });
      } else if (type === "token_usage_record" && payload) {
        // The usage of the one response: `usage` (or `token_usage`), else the `info.last_token_usage` some versions write.
        const own = payload["usage"] ?? payload["token_usage"];
        const info = obj(payload, "info");
        const [u, container, key] =
          own === undefined && info ? [info["last_token_usage"], info, "last_token_usage"] : [own, payload, "usage"];
        const usage = readVec(u, recordShape, lineNo, container, key);
        if (usage === undefined) return;
        if (usage === null) {
          recordSink.warn(
            "TRAJECTORY_BAD_USAGE",
            "token_usage_record has a usage field that is not a count; skipped",
            file.display,
            lineNo,
          );
          return;
        }
        const id = str(payload, "response_id") ?? `line:${lineNo}`;
        times.ms(value["timestamp"], lineNo);
        scan.records.push({
          timeMs,
          line: lineNo,
          ordinal,
          key: `${str(payload, "thread_id") ?? ""}|${id}`,
          usage,
          inBurst,
        });
      }
    },
  );
  if (scan.observations.length === 0) {
    appendAll(sink.warnings, recordSink.warnings);
    recordShape.flush(sink, file.display, "token_usage_record");
  }
  // TRAJECTORIES.md, "codex": a fork's or sub-agent's session_meta names its parent, and its replayed
  // history must not be counted again; without its session_meta a rollout cannot be told from a session.
  if (firstIsMeta === false && (scan.observations.length > 0 || scan.records.length > 0)) {
    sink.warn(
      "TRAJECTORY_NO_SESSION_META",
      "the rollout's first line is not its session_meta (codex writes it first: a line lost or damaged?): whether the file is a fork or a sub-agent, " +
        "whose replayed history would be counted again, cannot be told, so the run's tokens are unknown (null)",
      file.display,
      1,
    );
  }
  times.flush(sink, file.display);
  shape.flush(
    sink,
    file.display,
    "token_count",
    "skipped: the next readable running total still holds their tokens (counted at its time); with none after them, they are not counted",
  );
  return scan;
}

/**
 * The codex counter (TRAJECTORIES.md, "codex"): `scan` reads one rollout file
 * (its thread, parent, running totals and usage records); `merge`
 * (codex-merge.ts) drops replayed prefixes of forks and sub-agents, turns
 * growths of the running totals into calls and keeps one sighting of each
 * call across files.
 */
export const codexCounter: FormatCounter<CodexScan> = {
  async scan(file: TrajectoryFile, io?: ScanIO): Promise<FileScan<CodexScan>> {
    const sink = new Diagnostics();
    const data = await scanFile(file, sink, io);
    return { data, warnings: sink.warnings };
  },
  merge(_files: TrajectoryFile[], fileScans: FileScan<CodexScan>[]): FormatResult {
    return mergeCodexScans(fileScans);
  },
};
