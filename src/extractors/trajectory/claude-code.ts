/**
 * claude-code: Claude Code transcripts (TRAJECTORIES.md, section "claude-code").
 *
 * One API response is written as several `assistant` lines repeating its
 * `message.id`, `requestId` and usage; it is counted once, across all files,
 * with the largest `output_tokens` of its lines. `<synthetic>` and API-error
 * lines carry no usage. Sub-agent files count. Usage copied into `progress`
 * lines (agent_progress) is never read: only top-level `assistant` lines are;
 * a sub-agent whose responses a session forwards there but whose own file
 * (`subagents/agent-<agentId>.jsonl`) is not among the files makes the
 * reading incomplete (`TRAJECTORY_SUBAGENT_MISSING`).
 */
import { cmpStr } from "../../util/values.js";
import { Diagnostics } from "../../diagnostics.js";
import {
  call,
  isObject,
  pickMembers,
  scanTrajectory,
  needles,
  obj,
  scanWarnings,
  str,
  trajectoryFastPath,
  warnUnplaced,
  type FileScan,
  type FormatCounter,
  type FormatResult,
  type ScanIO,
  type TrajectoryFile,
} from "./common.js";
import { NoOffsetTimes } from "./line-times.js";
import { messageUsage, UsageShapeTally } from "./usage-shape.js";
import { appendAll } from "../../util/arrays.js";
import { JsonMembers } from "../../util/json-members.js";
import type { TokenCall, TokenParts } from "./types.js";
import { HashIndex, hashString } from "./hash-index.js";
import { CLAUDE_CODE_USAGE_SHAPE as USAGE_SHAPE, readClaudeCodeUsage } from "./claude-code-usage.js";

/** The hash of a usage line's response key (its `message.id`: lines with and without a `requestId` meet, {@link sameResponse}). */
function lineHash(u: ClaudeUsageLine): number {
  return hashString(0x510e527f, u.key);
}

/**
 * True when usage lines `a` and `b` are of one response (TRAJECTORIES.md,
 * "claude-code": grouped by `message.id` + `requestId`, by `message.id` alone
 * where `requestId` is missing): the same key, and the same `requestId` or
 * none on one of them (a gateway, or a writer, that left it off some lines).
 */
function sameResponse(a: ClaudeUsageLine, b: ClaudeUsageLine): boolean {
  if (a.key !== b.key) return false;
  if (a.request === b.request) return true;
  return a.request !== null && b.request !== null && (a.request === "" || b.request === "");
}

/**
 * What one transcript gives: its usage lines, and the sub-agents whose model responses it forwards
 * in `agent_progress` lines, as [agentId, first such line], in the order first seen.
 */
interface ClaudeScan {
  lines: ClaudeUsageLine[];
  agents: [string, number][];
}

/** The agentId of a sub-agent's own transcript, from its name (`<session>/subagents/agent-<agentId>.jsonl`), else null. */
const SUBAGENT_FILE_RE = /(?:^|[\\/])agent-([^\\/]+)\.jsonl(?:\.gz)?$/;

/** A response whose largest `output_tokens` is below this kept its streaming-start value. */
const CLAUDE_STREAMING_OUTPUT_MAX = 9;

/** A response's counts as its lines are folded in (see {@link fold}): the largest parts, the time and line of its latest line. */
type Folded = TokenParts & { timeMs: number | null; line: number };

/**
 * One usage line of a file (or several consecutive ones of the same
 * response, folded): its response key, parts and time.
 */
interface ClaudeUsageLine extends Folded {
  /** The response: `message.id`, with `request` (else the line's `uuid:<uuid>`, else `line:<file>:<line>`, with null). */
  key: string;
  /** The line's `requestId` ("" when absent) when `key` is a `message.id`, else null. */
  request: string | null;
}

/**
 * Folds line `u` of a response into `into`, the response so far
 * (TRAJECTORIES.md, "claude-code": counted once, with the largest value of
 * each part, at the time of its latest line): each part the larger, and
 * `u`'s time and line when its time is later (a null time never is; an
 * equal one keeps the earlier line). True when `u` became the latest line.
 * Folding lines in file order, a few at a time or all at once, gives the
 * same response: the largest of each part and the first line of the latest time.
 */
function fold(into: Folded, u: Folded): boolean {
  into.uncachedInput = Math.max(into.uncachedInput, u.uncachedInput);
  into.cacheRead = Math.max(into.cacheRead, u.cacheRead);
  into.cacheWrite = Math.max(into.cacheWrite, u.cacheWrite);
  into.output = Math.max(into.output, u.output);
  if (u.timeMs === null || (into.timeMs !== null && u.timeMs <= into.timeMs)) return false;
  into.timeMs = u.timeMs;
  into.line = u.line;
  return true;
}

/**
 * Fast path (marker mode: the type comes late in a line): only a line with a
 * `usage` key can carry usage, and an `assistant` line without one is read
 * too (it is reported: every model response carries usage).
 */
const CLAUDE_MARKERS = needles('"usage"', '"assistant"');

/** What the rules read of a line (the fast reading; see `pickMembers`). */
const CLAUDE_MEMBERS = new JsonMembers([
  "type",
  "isApiErrorMessage",
  "requestId",
  "uuid",
  "timestamp",
  "message.model",
  "message.id",
  "message.usage",
  "data.type",
  "data.agentId",
  "data.message.type",
  "data.message.agentId",
]);

/**
 * The sub-agent whose model response a `progress` line forwards (`data.type` `agent_progress`
 * with an `assistant` message): its `data.agentId` (else the message's `agentId`), else null.
 */
function forwardedAgent(value: Record<string, unknown>): string | null {
  const data = obj(value, "data");
  const message = obj(data, "message");
  if (str(data, "type") !== "agent_progress" || str(message, "type") !== "assistant") return null;
  return str(data, "agentId") ?? str(message, "agentId") ?? null;
}

/**
 * The claude-code counter (TRAJECTORIES.md, "claude-code"): `scan` reads the
 * usage lines of one transcript; `merge` groups them into responses across
 * every file of the run (by `message.id` + `requestId`, or `message.id` alone
 * on a line without `requestId`: {@link sameResponse}), keeping the largest
 * value of each part and the time of the response's last line.
 * A response's time is the timestamp of its last line (the latest of its lines).
 */
export const claudeCodeCounter: FormatCounter<ClaudeScan> = {
  async scan(file: TrajectoryFile, io: ScanIO = {}): Promise<FileScan<ClaudeScan>> {
    const sink = new Diagnostics();
    const data: ClaudeUsageLine[] = [];
    const agents: [string, number][] = [];
    const agentSeen = new Set<string>();
    const shape = new UsageShapeTally();
    const times = new NoOffsetTimes();
    const fast = trajectoryFastPath();
    /** Keeps usage line `u`: folded into the file's last record when it is of the same response (they mostly follow one another). */
    const keep = (u: ClaudeUsageLine): void => {
      const last = data[data.length - 1];
      if (last !== undefined && sameResponse(last, u)) fold(last, u);
      else data.push(u);
    };
    await scanTrajectory(
      file,
      sink,
      {
        markers: CLAUDE_MARKERS,
        onBytes: io.onBytes,
      },
      (line) => {
        // The usual usage line, read from its bytes (proven valid JSON); any other line is read as below.
        const r = fast ? readClaudeCodeUsage(line.buf, line.start, line.end) : null;
        if (r !== null) {
          keep({
            key: r.id,
            request: r.requestId ?? "",
            uncachedInput: r.input_tokens,
            cacheRead: r.cache_read_input_tokens,
            cacheWrite: r.cache_creation_input_tokens,
            output: r.output_tokens,
            timeMs: times.ms(r.timestamp, line.lineNo),
            line: line.lineNo,
          });
          return;
        }
        let value: unknown = pickMembers(CLAUDE_MEMBERS, line);
        // An assistant line without a usage object is reported with its message's keys: read it whole.
        if (
          value === undefined ||
          (isObject(value) && value["type"] === "assistant" && !obj(obj(value, "message"), "usage"))
        )
          value = line.parse();
        const lineNo = line.lineNo;
        if (isObject(value) && value["type"] === "progress") {
          const agent = forwardedAgent(value);
          if (agent !== null && !agentSeen.has(agent)) {
            agentSeen.add(agent);
            agents.push([agent, lineNo]);
          }
          return;
        }
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
        const key = id ? id : uuid ? `uuid:${uuid}` : `line:${file.display}:${lineNo}`;
        const request = id ? (requestId ?? "") : null;
        keep({
          key,
          request,
          uncachedInput: c.input_tokens,
          cacheRead: c.cache_read_input_tokens,
          cacheWrite: c.cache_creation_input_tokens,
          output: c.output_tokens,
          timeMs: times.ms(value["timestamp"], lineNo),
          line: lineNo,
        });
      },
    );
    shape.flush(sink, file.display, "message.usage");
    times.flush(sink, file.display);
    return { data: { lines: data, agents }, warnings: sink.warnings };
  },
  merge(files: TrajectoryFile[], scans: FileScan<ClaudeScan>[]): FormatResult {
    const sink = new Diagnostics();
    appendAll(sink.warnings, scanWarnings(scans));
    warnMissingSubagents(files, scans, sink);
    let total = 0;
    for (const s of scans) total += s?.data.lines.length ?? 0;
    // Response g (in order of first sighting) is list[g]: its largest parts, the time of its latest line and
    // where that line is; firstLine[g] holds its key.
    const groups = new HashIndex(total);
    const firstLine: ClaudeUsageLine[] = [];
    const list: TokenCall[] = [];
    for (let i = 0; i < files.length; i += 1) {
      const display = files[i]!.display;
      for (const u of scans[i]?.data.lines ?? []) {
        const h = lineHash(u);
        let g = groups.first(h);
        while (g !== -1 && !sameResponse(firstLine[g]!, u)) g = groups.next();
        if (g === -1) {
          groups.add(h, list.length);
          firstLine.push(u);
          list.push(call(u, u.timeMs, display, u.line));
          continue;
        }
        const c = list[g]!;
        if (fold(c, u)) c.file = display;
      }
    }
    const streaming = list.filter((g) => g.output <= CLAUDE_STREAMING_OUTPUT_MAX);
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
    warnUnplaced(list, sink, "no valid timestamp on any line of the response");
    return { calls: list, warnings: sink.warnings };
  },
};

/**
 * Warns `TRAJECTORY_SUBAGENT_MISSING` (which makes the reading incomplete) once per transcript that
 * forwards model responses of sub-agents none of whose own files (`subagents/agent-<agentId>.jsonl`,
 * TRAJECTORIES.md "claude-code": they count) is among `files`: their calls are in no file read.
 */
function warnMissingSubagents(files: TrajectoryFile[], scans: FileScan<ClaudeScan>[], sink: Diagnostics): void {
  const present = new Set<string>();
  for (const f of files) {
    const m = SUBAGENT_FILE_RE.exec(f.path);
    if (m) present.add(m[1]!);
  }
  for (let i = 0; i < files.length; i += 1) {
    const missing = (scans[i]?.data.agents ?? []).filter(([agent]) => !present.has(agent));
    if (missing.length === 0) continue;
    const [agent, line] = missing[0]!;
    sink.warn(
      "TRAJECTORY_SUBAGENT_MISSING",
      `forwards model responses of ${missing.length} sub-agent(s) (agentId ${missing.map(([a]) => a).join(", ")}) whose own file (subagents/agent-${agent}.jsonl beside the session) is not among the files: their calls are not all in the logs read, so the run's tokens are unknown`,
      files[i]!.display,
      line,
    );
  }
}
