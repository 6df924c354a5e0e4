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
} from "./common.js";
import { displayRanks, sightedBefore } from "./call-order.js";
import { hashCounts } from "./counts-map.js";
import { HashIndex, hashNumber, hashString } from "./hash-index.js";
import { readUsage, UsageShapeTally } from "./usage-shape.js";
import { appendAll } from "../../util/arrays.js";
import { JsonMembers } from "../../util/json-members.js";
import type { TokenCall } from "./types.js";

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

/** Whether sightings `a` and `u` have the same time text and the same parts (with the same message id: copies). */
function sameTimeAndParts(a: KimiCliUsage, u: KimiCliUsage): boolean {
  const p = u.call;
  const q = a.call;
  return (
    a.timeText === u.timeText &&
    q.uncachedInput === p.uncachedInput &&
    q.cacheRead === p.cacheRead &&
    q.cacheWrite === p.cacheWrite &&
    q.output === p.output
  );
}

/** Sets of the numbers 0..n-1; a set's representative is its smallest number. */
class UnionFind {
  private readonly parent: Int32Array;
  constructor(n: number) {
    this.parent = new Int32Array(n);
    for (let i = 0; i < n; i += 1) this.parent[i] = i;
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
  /**
   * The sighting as the call it counts (its time: the line's `timestamp`, epoch seconds, as epoch ms, or
   * null): the merge returns the earliest sighting's own object.
   */
  call: TokenCall;
  /** The line's `timestamp` as text (`String(value)`, "undefined" when absent): part of the copy key. */
  timeText: string;
  messageId: string | null;
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
        const rawTime = isObject(value) ? value["timestamp"] : undefined;
        const counted: TokenCall = {
          uncachedInput: c.input_other,
          cacheRead: c.input_cache_read,
          cacheWrite: c.input_cache_creation,
          output: c.output,
          timeMs: epochSecondsMs(rawTime),
          file: file.display,
          line: lineNo,
        };
        data.push({ call: counted, timeText: String(rawTime), messageId: str(payload, "message_id") ?? null });
      },
    );
    shape.flush(sink, file.display, "token_usage");
    return { data, warnings: sink.warnings };
  },
  merge(files: TrajectoryFile[], scans: FileScan<KimiCliUsage[]>[]): FormatResult {
    const sink = new Diagnostics();
    appendAll(sink.warnings, scanWarnings(scans));
    // Sighting n is the n-th usage in file order; a union-find joins the sightings of one call, by session
    // key (session folder + message id) and by copy key (message id, or "" when none, + time text + parts).
    let total = 0;
    for (const s of scans) total += s.data.length;
    const usages: KimiCliUsage[] = new Array(total);
    const fileOf = new Int32Array(total);
    const uf = new UnionFind(total);
    const rootIds = new Map<string, number>();
    const rootOf = files.map((f) => {
      const root = kimiSessionRoot(f.path);
      let id = rootIds.get(root);
      if (id === undefined) rootIds.set(root, (id = rootIds.size));
      return id;
    });
    // Sightings by key: every first sighting of a session key or of a copy key is stored, under its message id
    // (both keys hold it), or, with no message id, under the time text + parts (and an empty id under its session).
    const index = new HashIndex(total);
    let n = 0;
    for (let i = 0; i < files.length; i += 1) {
      const root = rootOf[i]!;
      for (const u of scans[i]!.data) {
        usages[n] = u;
        fileOf[n] = i;
        const id = u.messageId;
        if (id !== null && id !== "") {
          // One look-up finds the earlier sightings of both keys.
          const h = hashString(0x1b873593, id);
          let newSession = true;
          let newCopy = true;
          for (let j = index.first(h); j !== -1; j = index.next()) {
            const a = usages[j]!;
            if (a.messageId !== id) continue;
            if (rootOf[fileOf[j]!] === root) {
              newSession = false;
              uf.union(n, j);
            }
            if (sameTimeAndParts(a, u)) {
              newCopy = false;
              uf.union(n, j);
            }
          }
          if (newSession || newCopy) index.add(h, n);
        } else {
          if (id === "") {
            // "" is a message id for the session rule (the copy rule reads it as none).
            const h = hashNumber(0x68e31da4, root);
            let j = index.first(h);
            while (j !== -1 && !(usages[j]!.messageId === "" && rootOf[fileOf[j]!] === root)) j = index.next();
            if (j === -1) index.add(h, n);
            else uf.union(n, j);
          }
          const p = u.call;
          const h = hashCounts(
            hashString(0x7f4a7c15, u.timeText),
            p.uncachedInput,
            p.cacheRead,
            p.cacheWrite,
            p.output,
          );
          let k = index.first(h);
          while (k !== -1 && !((usages[k]!.messageId ?? "") === "" && sameTimeAndParts(usages[k]!, u)))
            k = index.next();
          if (k === -1) index.add(h, n);
          else uf.union(n, k);
        }
        n += 1;
      }
    }
    // A set's root is its first sighting (union keeps the smaller index): best[r] is its earliest sighting.
    const rank = displayRanks(files);
    const best = new Int32Array(total);
    for (let m = 0; m < total; m += 1) {
      const r = uf.find(m);
      if (r === m) {
        best[m] = m;
        continue;
      }
      const u = usages[m]!.call;
      const b = usages[best[r]!]!.call;
      if (sightedBefore(u.timeMs, rank[fileOf[m]!]!, u.line, b.timeMs, rank[fileOf[best[r]!]!]!, b.line)) best[r] = m;
    }
    // Each call is its earliest sighting's own object (built by the scan, shown under its file).
    const calls: TokenCall[] = [];
    for (let m = 0; m < total; m += 1) if (uf.find(m) === m) calls.push(usages[best[m]!]!.call);
    warnUnplaced(calls, sink, "the line has no valid timestamp");
    return { calls, warnings: sink.warnings };
  },
};
