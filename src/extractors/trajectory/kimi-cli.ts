/**
 * kimi-cli: Kimi CLI (Python) `wire.jsonl` files (TRAJECTORIES.md, section "kimi-cli").
 *
 * A call is a `StatusUpdate` with `token_usage` (also when forwarded inside a
 * `SubagentEvent`), timed by its line's `timestamp` (epoch seconds).
 *
 * De-duplication, never across unrelated sessions:
 * - within one session folder and its `subagents/<id>/` files, by `message_id`
 *   (a sub-agent's usage is both in its own file and forwarded into the parent's);
 * - across sessions only for verbatim copies (`/fork`): same `message_id`, same
 *   line timestamp and same usage.
 * Sightings linked by either rule are one call (its earliest sighting).
 */
import { Diagnostics } from "../../diagnostics.js";
import {
  call,
  dirOf,
  epochSecondsMs,
  isObject,
  pickMembers,
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
  earlierCall,
} from "./common.js";
import { readUsage, UsageShapeTally } from "./usage-shape.js";
import { appendAll } from "../../util/arrays.js";
import { JsonMembers } from "../../util/json-members.js";
import type { TokenCall, TokenParts } from "./types.js";

/** The members of a `StatusUpdate` payload other than `token_usage` (Kimi CLI's `StatusUpdate`). */
const STATUS_KEYS = new Set([
  "token_usage",
  "context_usage",
  "context_tokens",
  "max_context_tokens",
  "message_id",
  "plan_mode",
]);

/** Kimi CLI writes all four counts of every `token_usage`. */
const USAGE_SHAPE = {
  required: ["input_other", "output", "input_cache_read", "input_cache_creation"] as const,
  optional: [] as const,
  known: [] as const,
};

/** The session folder of a wire file: the folder above `subagents/`, else the file's folder. */
function kimiSessionRoot(absPath: string): string {
  const p = absPath.replace(/\\/g, "/");
  const i = p.lastIndexOf("/subagents/");
  return i >= 0 ? p.slice(0, i) : dirOf(p);
}

/** A first sighting by copy key (message id, time text, parts), chained per message id (or time text). */
interface CopySighting {
  timeText: string;
  parts: TokenParts;
  n: number;
  next: CopySighting | undefined;
}

/** The first sighting in the chain with `u`'s time text and parts (its index), or undefined. */
function sameCopy(head: CopySighting | undefined, u: KimiCliUsage): number | undefined {
  const p = u.parts;
  for (let e = head; e !== undefined; e = e.next) {
    const q = e.parts;
    if (
      e.timeText === u.timeText &&
      q.uncachedInput === p.uncachedInput &&
      q.cacheRead === p.cacheRead &&
      q.cacheWrite === p.cacheWrite &&
      q.output === p.output
    )
      return e.n;
  }
  return undefined;
}

class UnionFind {
  private readonly parent: number[] = [];
  add(): number {
    this.parent.push(this.parent.length);
    return this.parent.length - 1;
  }
  find(i: number): number {
    let r = i;
    while (this.parent[r] !== r) r = this.parent[r]!;
    while (this.parent[i] !== r) {
      const next = this.parent[i]!;
      this.parent[i] = r;
      i = next;
    }
    return r;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

/** One usage sighting of a wire file (plain JSON, cacheable). */
export interface KimiCliUsage {
  parts: TokenParts;
  /** The line's time (its `timestamp`, epoch seconds), epoch ms, or null. */
  timeMs: number | null;
  /** The line's `timestamp` as text (`String(value)`, "undefined" when absent): part of the copy key. */
  timeText: string;
  messageId: string | null;
  line: number;
}

/** Fast path (marker mode): a usage line is a `StatusUpdate` (also forwarded inside a `SubagentEvent`). */
const KIMI_CLI_MARKERS = needles('"StatusUpdate"');

/** What the rules read of a line (the fast reading; see `pickMembers`). */
const KIMI_CLI_MEMBERS = new JsonMembers([
  "timestamp",
  "message.type",
  "message.payload.token_usage",
  "message.payload.message_id",
]);

/**
 * The kimi-cli counter (TRAJECTORIES.md, "kimi-cli"): `scan` reads the
 * `StatusUpdate` usages of one wire file; `merge` links sightings of one call
 * (same `message_id` within a session and its sub-agents, or a verbatim copy)
 * and keeps the earliest sighting of each.
 */
export const kimiCliCounter: FormatCounter<KimiCliUsage[]> = {
  async scan(file: TrajectoryFile, io: ScanIO = {}): Promise<FileScan<KimiCliUsage[]>> {
    const sink = new Diagnostics();
    const data: KimiCliUsage[] = [];
    const shape = new UsageShapeTally();
    await scanTrajectory(
      file,
      sink,
      {
        markers: KIMI_CLI_MARKERS,
        onBytes: io.onBytes,
      },
      (line) => {
        let value: unknown = pickMembers(KIMI_CLI_MEMBERS, line);
        // A forwarded event, or a StatusUpdate without a usage object (reported with its payload's keys): read it whole.
        if (value !== undefined) {
          const type = str(obj(value, "message"), "type");
          if (
            type === "SubagentEvent" ||
            (type === "StatusUpdate" && !obj(obj(obj(value, "message"), "payload"), "token_usage"))
          )
            value = undefined;
        }
        value ??= line.parse();
        const lineNo = line.lineNo;
        const message = obj(value, "message");
        if (!message) return;
        let type = str(message, "type");
        let payload = obj(message, "payload");
        for (let depth = 0; type === "SubagentEvent" && depth < 16; depth += 1) {
          const event = obj(payload, "event");
          type = str(event, "type");
          payload = obj(event, "payload");
        }
        if (type !== "StatusUpdate") return;
        const usage = obj(payload, "token_usage");
        if (!usage) {
          // A StatusUpdate without usage (context size only) is ordinary; one holding an object under another
          // key (a renamed `token_usage`?) may carry counts that would otherwise be lost without a word.
          const other = Object.keys(payload ?? {}).filter((k) => !STATUS_KEYS.has(k) && isObject(payload![k]));
          if (other.length > 0) shape.missing(USAGE_SHAPE.required, other, lineNo);
          return;
        }
        const read = readUsage(usage, USAGE_SHAPE);
        if (read.kind === "bad-value") {
          sink.warn(
            "TRAJECTORY_BAD_USAGE",
            "token_usage has a field that is not a count; skipped",
            file.display,
            lineNo,
          );
          return;
        }
        const c = shape.note(read, usage, lineNo);
        if (!c) return;
        const parts: TokenParts = {
          uncachedInput: c.input_other,
          cacheRead: c.input_cache_read,
          cacheWrite: c.input_cache_creation,
          output: c.output,
        };
        const rawTime = isObject(value) ? value["timestamp"] : undefined;
        data.push({
          parts,
          timeMs: epochSecondsMs(rawTime),
          timeText: String(rawTime),
          messageId: str(payload, "message_id") ?? null,
          line: lineNo,
        });
      },
    );
    shape.flush(sink, file.display, "token_usage");
    return { data, warnings: sink.warnings };
  },
  merge(files: TrajectoryFile[], scans: FileScan<KimiCliUsage[]>[]): FormatResult {
    const sink = new Diagnostics();
    appendAll(sink.warnings, scanWarnings(scans));
    // Sighting i is calls[i]; a union-find joins the sightings of one call, by session key
    // (session folder + message id) and by copy key (message id + time text + parts).
    const sightings: TokenCall[] = [];
    const uf = new UnionFind();
    const bySession = new Map<string, Map<string, number>>();
    // First sightings by copy key, chained per message id (per time text for lines with no message id).
    const byCopy = new Map<string, CopySighting>();
    const byCopyNoId = new Map<string, CopySighting>();
    files.forEach((file, i) => {
      const root = kimiSessionRoot(file.path);
      let session = bySession.get(root);
      if (session === undefined) bySession.set(root, (session = new Map()));
      for (const u of scans[i]!.data) {
        const n = sightings.push(call(u.parts, u.timeMs, file.display, u.line)) - 1;
        uf.add();
        if (u.messageId !== null) {
          const j = session.get(u.messageId);
          if (j === undefined) session.set(u.messageId, n);
          else uf.union(n, j);
        }
        const id = u.messageId ?? "";
        const chains = id === "" ? byCopyNoId : byCopy;
        const chainKey = id === "" ? u.timeText : id;
        const head = chains.get(chainKey);
        const k = sameCopy(head, u);
        if (k === undefined) chains.set(chainKey, { timeText: u.timeText, parts: u.parts, n, next: head });
        else uf.union(n, k);
      }
    });
    // A set's root is its first sighting (union keeps the smaller index): best[r] is its earliest call.
    const best: TokenCall[] = [];
    for (let n = 0; n < sightings.length; n += 1) {
      const r = uf.find(n);
      const c = sightings[n]!;
      if (r === n) best[n] = c;
      else if (earlierCall(c, best[r]!)) best[r] = c;
    }
    const calls: TokenCall[] = [];
    for (let n = 0; n < sightings.length; n += 1) if (uf.find(n) === n) calls.push(best[n]!);
    warnUnplaced(calls, sink, "the line has no valid timestamp");
    return { calls, warnings: sink.warnings };
  },
};
