/**
 * claude-code: Claude Code transcripts (TRAJECTORIES.md, section "claude-code").
 *
 * One API response is written as several `assistant` lines repeating its
 * `message.id`, `requestId` and usage; it is counted once, across all files,
 * with the largest `output_tokens` of its lines. `<synthetic>` and API-error
 * lines carry no usage. Sub-agent files count. Usage copied into `progress`
 * lines (agent_progress) is never read: only top-level `assistant` lines are.
 */
import { cmpStr } from "../../util/values.js";
import { Diagnostics } from "../../diagnostics.js";
import {
  call,
  isObject,
  NoOffsetTimes,
  scanTrajectory,
  needles,
  obj,
  scanWarnings,
  str,
  warnUnplaced,
  type FileScan,
  type FormatCounter,
  type FormatResult,
  type ScanIO,
  type TrajectoryFile,
} from "./common.js";
import { messageUsage, UsageShapeTally, type UsageShape } from "./usage-shape.js";
import { appendAll } from "../../util/arrays.js";
import type { TokenParts } from "./types.js";

/** A response whose largest `output_tokens` is below this kept its streaming-start value. */
const CLAUDE_STREAMING_OUTPUT_MAX = 9;

/**
 * `message.usage` of Claude Code: input and output always; the cache counts
 * are left out by some API gateways (0 then), but a usage that carries the
 * `cache_creation` breakdown is of a version that writes both cache counts:
 * one absent is unreadable, never 0, and a `cache_creation_input_tokens` other
 * than the breakdown's sum is a mismatch (warned). `cache_creation`,
 * `server_tool_use`, `service_tier`, `inference_geo`, `iterations` and `speed`
 * are written by real logs and not counted.
 */
const USAGE_SHAPE: UsageShape<
  "input_tokens" | "output_tokens" | "cache_read_input_tokens" | "cache_creation_input_tokens"
> = {
  required: ["input_tokens", "output_tokens"] as const,
  optional: ["cache_read_input_tokens", "cache_creation_input_tokens"] as const,
  known: ["cache_creation", "server_tool_use", "service_tier", "inference_geo", "iterations", "speed"],
  breakdowns: [
    {
      object: "cache_creation",
      total: "cache_creation_input_tokens",
      requires: ["cache_creation_input_tokens", "cache_read_input_tokens"],
    },
  ],
};

interface Group {
  parts: TokenParts;
  /** Time of the group's last line (the latest timestamp of its lines), or null. */
  timeMs: number | null;
  file: string;
  line: number;
  /** Order of first sighting, for a stable tie-break. */
  seq: number;
}

/** One usage line of a file: its response key, parts and time. */
export interface ClaudeUsageLine {
  key: string;
  parts: TokenParts;
  timeMs: number | null;
  line: number;
}

/**
 * Fast path (marker mode: the type comes late in a line): only a line with a
 * `usage` key can carry usage, and an `assistant` line without one is read
 * too (it is reported: every model response carries usage).
 */
const CLAUDE_MARKERS = needles('"usage"', '"assistant"');

/**
 * The claude-code counter (TRAJECTORIES.md, "claude-code"): `scan` reads the
 * usage lines of one transcript; `merge` groups them into responses across
 * every file of the run (by `message.id` + `requestId`), keeping the largest
 * value of each part and the time of the response's last line.
 * A response's time is the timestamp of its last line (the latest of its lines).
 */
export const claudeCodeCounter: FormatCounter<ClaudeUsageLine[]> = {
  async scan(file: TrajectoryFile, io: ScanIO = {}): Promise<FileScan<ClaudeUsageLine[]>> {
    const sink = new Diagnostics();
    const data: ClaudeUsageLine[] = [];
    const shape = new UsageShapeTally();
    const times = new NoOffsetTimes();
    await scanTrajectory(
      file,
      sink,
      {
        markers: CLAUDE_MARKERS,
        onBytes: io.onBytes,
      },
      (line) => {
        const value = line.parse();
        const lineNo = line.lineNo;
        if (!isObject(value) || value["type"] !== "assistant") return;
        const message = obj(value, "message");
        if (str(message, "model") === "<synthetic>" || value["isApiErrorMessage"] === true) {
          return; // a local notice (rate limit, API error), not a model call
        }
        // Every model response's lines carry its usage: none at all is counts that cannot be read.
        const c = messageUsage(message, USAGE_SHAPE, shape, sink, file.display, lineNo);
        if (!c) return;
        const id = str(message, "id");
        const requestId = str(value, "requestId");
        const uuid = str(value, "uuid");
        const key = id ? `${id}|${requestId ?? ""}` : uuid ? `uuid:${uuid}` : `line:${file.display}:${lineNo}`;
        const parts: TokenParts = {
          uncachedInput: c.input_tokens,
          cacheRead: c.cache_read_input_tokens,
          cacheWrite: c.cache_creation_input_tokens,
          output: c.output_tokens,
        };
        data.push({ key, parts, timeMs: times.ms(value["timestamp"], lineNo), line: lineNo });
      },
    );
    shape.flush(sink, file.display, "message.usage");
    times.flush(sink, file.display);
    return { data, warnings: sink.warnings };
  },
  merge(files: TrajectoryFile[], scans: FileScan<ClaudeUsageLine[]>[]): FormatResult {
    const sink = new Diagnostics();
    appendAll(sink.warnings, scanWarnings(scans));
    const groups = new Map<string, Group>();
    let seq = 0;
    files.forEach((file, i) => {
      for (const { key, parts, timeMs, line: lineNo } of scans[i]?.data ?? []) {
        const g = groups.get(key);
        if (!g) {
          groups.set(key, { parts, timeMs, file: file.display, line: lineNo, seq: seq++ });
          continue;
        }
        g.parts = {
          uncachedInput: Math.max(g.parts.uncachedInput, parts.uncachedInput),
          cacheRead: Math.max(g.parts.cacheRead, parts.cacheRead),
          cacheWrite: Math.max(g.parts.cacheWrite, parts.cacheWrite),
          output: Math.max(g.parts.output, parts.output),
        };
        if (timeMs !== null && (g.timeMs === null || timeMs > g.timeMs)) {
          g.timeMs = timeMs;
          g.file = file.display;
          g.line = lineNo;
        }
      }
    });
    const list = [...groups.values()].sort((a, b) => a.seq - b.seq);
    const calls = list.map((g) => call(g.parts, g.timeMs, g.file, g.line));
    const streaming = list.filter((g) => g.parts.output <= CLAUDE_STREAMING_OUTPUT_MAX);
    if (streaming.length > 0) {
      const firstFile = [...new Set(streaming.map((g) => g.file))].sort(cmpStr);
      // Located at the first affected response (by file, then line); the count and the files are in the message.
      const first = streaming.reduce((a, g) =>
        cmpStr(g.file, a.file) < 0 || (g.file === a.file && g.line < a.line) ? g : a,
      );
      sink.warn(
        "TRAJECTORY_OUTPUT_UNDERCOUNT",
        `${streaming.length} of ${list.length} responses kept a streaming-size output_tokens ` +
          `(≤ ${CLAUDE_STREAMING_OUTPUT_MAX}; the final count was never written): output is under-recorded ` +
          `and counted as logged (files: ${firstFile.join(", ")})`,
        first.file,
        first.line,
      );
    }
    warnUnplaced(calls, sink, "no valid timestamp on any line of the response");
    return { calls, warnings: sink.warnings };
  },
};
