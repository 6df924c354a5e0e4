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
import { epochSecondsMs } from "./line-times.js";
import { displayRanks, sightedBefore } from "./call-order.js";
import { hashCounts, sameParts } from "./counts-map.js";
import { RunNumbering } from "./run-numbering.js";
import { HashIndex, hashNumber, hashString } from "./hash-index.js";
import { withFile, withoutFiles } from "./cached-calls.js";
import { readUsage, UsageShapeTally } from "./usage-shape.js";
import { KIMI_CLI_USAGE_SHAPE as USAGE_SHAPE, readKimiCliUsage } from "./kimi-cli-usage.js";
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

/** The session folder of a wire file: the folder above `subagents/`, else the file's folder. */
function kimiSessionRoot(absPath: string): string {
  const p = absPath.replace(/\\/g, "/");
  const i = p.lastIndexOf("/subagents/");
  return i >= 0 ? p.slice(0, i) : dirOf(p);
}

/** Whether sightings `a` and `u` have the same time text and the same parts (with the same message id: copies). */
function sameTimeAndParts(a: KimiCliUsage, u: KimiCliUsage): boolean {
  return a.timeText === u.timeText && sameParts(a.call, u.call);
}

/** Sets of the numbers 0..n-1; a set's representative is its smallest number. */
class UnionFind {
  /** up[i] = 0: i is a representative; else up[i] - 1 is a number above it in its set (nothing is touched until joined). */
  private readonly up: Int32Array;
  constructor(n: number) {
    this.up = new Int32Array(n);
  }
  find(i: number): number {
    let r = i;
    while (this.up[r] !== 0) r = this.up[r]! - 1;
    while (this.up[i] !== 0 && this.up[i] !== r + 1) {
      const next = this.up[i]! - 1;
      this.up[i] = r + 1;
      i = next;
    }
    return r;
  }
  /** Joins the sets of `a` and `b`; true when they were two sets. */
  union(a: number, b: number): boolean {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return false;
    this.up[Math.max(ra, rb)] = Math.min(ra, rb) + 1;
    return true;
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
  /** Present (true) when the usage was forwarded inside a `SubagentEvent` (a sub-agent's, in its parent's file). */
  forwarded?: true;
}

/**
 * A sub-agent's usage forwarded into its parent's file comes this close (ms) to the sub-agent's own line of it.
 * Within it, the same message id and parts in two session folders, one of them forwarded, are one call.
 */
const FORWARD_WINDOW_MS = 60_000;

/**
 * Whether `a` and `u` (same message id, in two session folders) are a sub-agent's call and its forwarded copy:
 * exactly one of them forwarded, the same parts, times within {@link FORWARD_WINDOW_MS}.
 */
function forwardedCopy(a: KimiCliUsage, u: KimiCliUsage): boolean {
  if ((a.forwarded === true) === (u.forwarded === true) || !sameParts(a.call, u.call)) return false;
  const ta = a.call.timeMs;
  const tu = u.call.timeMs;
  return ta !== null && tu !== null && Math.abs(ta - tu) <= FORWARD_WINDOW_MS;
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
    const fast = trajectoryFastPath();
    await scanTrajectory(
      file,
      sink,
      {
        markers: KIMI_CLI_MARKERS,
        onBytes: io.onBytes,
      },
      (line) => {
        // The usual StatusUpdate line, read from its bytes (proven valid JSON); any other line is read as below.
        const r = fast ? readKimiCliUsage(line.buf, line.start, line.end) : null;
        if (r !== null) {
          const counted: TokenCall = {
            uncachedInput: r.input_other,
            cacheRead: r.input_cache_read,
            cacheWrite: r.input_cache_creation,
            output: r.output,
            timeMs: epochSecondsMs(r.timestamp),
            file: file.display,
            line: line.lineNo,
          };
          data.push({ call: counted, timeText: String(r.timestamp), messageId: r.messageId });
          return;
        }
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
        const forwarded = type === "SubagentEvent";
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
        const messageId = str(payload, "message_id") ?? null;
        data.push({
          call: counted,
          timeText: String(rawTime),
          messageId,
          ...(forwarded ? { forwarded: true as const } : {}),
        });
      },
    );
    shape.flush(sink, file.display, "token_usage");
    return { data, warnings: sink.warnings };
  },
  pack(scan: FileScan<KimiCliUsage[]>): FileScan<unknown> {
    return { data: withoutFiles(scan.data), warnings: scan.warnings };
  },
  unpack(stored: FileScan<unknown>, file: TrajectoryFile): FileScan<KimiCliUsage[]> {
    return { data: withFile(stored.data as KimiCliUsage[], file.display), warnings: stored.warnings };
  },
  merge(files: TrajectoryFile[], scans: FileScan<KimiCliUsage[]>[]): FormatResult {
    const sink = new Diagnostics();
    appendAll(sink.warnings, scanWarnings(scans));
    // Sighting n is the n-th usage in file order (file i's k-th is start[i] + k); a union-find joins the
    // sightings of one call, by session key (session folder + message id) and by copy key (message id, or ""
    // when none, + time text + parts).
    const run = new RunNumbering(scans.map((s) => s.data));
    const { start, total } = run;
    const fileOf = (n: number): number => run.fileOf(n);
    const usageAt = (n: number): KimiCliUsage => run.at(n);
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
    let roots = total;
    const outside: { count: number; first: TokenCall | null } = { count: 0, first: null };
    for (let i = 0; i < files.length; i += 1) {
      const root = rootOf[i]!;
      const data = scans[i]!.data;
      for (let k = 0; k < data.length; k += 1) {
        const u = data[k]!;
        const n = start[i]! + k;
        const id = u.messageId;
        if (id !== null && id !== "") {
          // One look-up finds the earlier sightings of both keys.
          const h = hashString(0x1b873593, id);
          let newSession = true;
          let newCopy = true;
          for (let j = index.first(h); j !== -1; j = index.next()) {
            const a = usageAt(j);
            if (a.messageId !== id) continue;
            if (rootOf[fileOf(j)] === root) {
              newSession = false;
              if (uf.union(n, j)) roots -= 1;
            }
            if (sameTimeAndParts(a, u)) {
              newCopy = false;
              if (uf.union(n, j)) roots -= 1;
            } else if (rootOf[fileOf(j)] !== root && forwardedCopy(a, u) && uf.union(n, j)) {
              // A sub-agent's file outside its session's subagents/ folder, and its usage forwarded in the parent.
              roots -= 1;
              const own = a.forwarded ? u : a;
              outside.count += 1;
              outside.first ??= own.call;
            }
          }
          if (newSession || newCopy) index.add(h, n);
        } else {
          if (id === "") {
            // "" is a message id for the session rule (the copy rule reads it as none).
            const h = hashNumber(0x68e31da4, root);
            let j = index.first(h);
            while (j !== -1 && !(usageAt(j).messageId === "" && rootOf[fileOf(j)] === root)) j = index.next();
            if (j === -1) index.add(h, n);
            else if (uf.union(n, j)) roots -= 1;
          }
          const p = u.call;
          const h = hashCounts(
            hashString(0x7f4a7c15, u.timeText),
            p.uncachedInput,
            p.cacheRead,
            p.cacheWrite,
            p.output,
          );
          let j = index.first(h);
          while (j !== -1 && !((usageAt(j).messageId ?? "") === "" && sameTimeAndParts(usageAt(j), u)))
            j = index.next();
          if (j === -1) index.add(h, n);
          else if (uf.union(n, j)) roots -= 1;
        }
      }
    }
    // A set's root is its first sighting (union keeps the smaller index): best holds the earliest sighting of
    // each set that has several (a set of one is its root).
    const best = new Map<number, number>();
    if (roots < total) {
      const rank = displayRanks(files);
      for (let m = 0; m < total; m += 1) {
        const r = uf.find(m);
        if (r === m) continue;
        const b = best.get(r) ?? r;
        const u = usageAt(m).call;
        const c = usageAt(b).call;
        if (sightedBefore(u.timeMs, rank[fileOf(m)]!, u.line, c.timeMs, rank[fileOf(b)]!, c.line)) best.set(r, m);
      }
    }
    // Each call is its earliest sighting's own object (built by the scan, shown under its file).
    const calls: TokenCall[] = new Array(roots);
    let at = 0;
    for (let i = 0; i < files.length; i += 1) {
      const data = scans[i]!.data;
      for (let k = 0; k < data.length; k += 1) {
        const m = start[i]! + k;
        if (roots < total && uf.find(m) !== m) continue;
        const b = best.get(m);
        calls[at++] = b === undefined ? data[k]!.call : usageAt(b).call;
      }
    }
    if (outside.first !== null)
      sink.warn(
        "TRAJECTORY_SUBAGENT_OUTSIDE_SESSION",
        `${outside.count} call(s) written in a session file are also forwarded in a SubagentEvent of another session folder (the same message_id and usage, within ${FORWARD_WINDOW_MS / 1000} s; the first here): each counted once; a sub-agent's wire.jsonl belongs under <session>/subagents/<id>/`,
        outside.first.file,
        outside.first.line,
      );
    warnUnplaced(calls, sink, "the line has no valid timestamp");
    return { calls, warnings: sink.warnings };
  },
};
