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
import {
  call,
  cmp,
  counts,
  dirOf,
  epochSecondsMs,
  isObject,
  jsonLines,
  obj,
  partsKey,
  str,
  warnUnplaced,
  WarningSink,
  type FormatResult,
  type TrajectoryFile,
} from "./common.js";
import type { TokenCall, TokenParts } from "./types.js";

const USAGE_KEYS = ["input_other", "output", "input_cache_read", "input_cache_creation"] as const;

/** The session folder of a wire file: the folder above `subagents/`, else the file's folder. */
export function kimiSessionRoot(absPath: string): string {
  const p = absPath.replace(/\\/g, "/");
  const i = p.lastIndexOf("/subagents/");
  return i >= 0 ? p.slice(0, i) : dirOf(p);
}

interface Sighting {
  call: TokenCall;
  sessionKey: string | null;
  copyKey: string;
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

/**
 * Reads Kimi CLI wire files of one run (TRAJECTORIES.md, "kimi-cli").
 *
 * @returns calls (unsorted) and warnings. Never throws for bad content.
 */
export async function readKimiCli(files: TrajectoryFile[]): Promise<FormatResult> {
  const sink = new WarningSink();
  const sightings: Sighting[] = [];
  for (const file of files) {
    const root = kimiSessionRoot(file.path);
    for await (const { value, lineNo } of jsonLines(file, sink)) {
      const message = obj(value, "message");
      if (!message) continue;
      let type = str(message, "type");
      let payload = obj(message, "payload");
      for (let depth = 0; type === "SubagentEvent" && depth < 16; depth += 1) {
        const event = obj(payload, "event");
        type = str(event, "type");
        payload = obj(event, "payload");
      }
      if (type !== "StatusUpdate") continue;
      const usage = obj(payload, "token_usage");
      if (!usage) continue; // a StatusUpdate without usage (context size only)
      const c = counts(usage, USAGE_KEYS);
      if (!c) {
        sink.warn("TRAJECTORY_BAD_USAGE", "token_usage has a field that is not a count; skipped", file.display, lineNo);
        continue;
      }
      const parts: TokenParts = {
        uncachedInput: c.input_other,
        cacheRead: c.input_cache_read,
        cacheWrite: c.input_cache_creation,
        output: c.output,
      };
      const rawTime = isObject(value) ? value["timestamp"] : undefined;
      const messageId = str(payload, "message_id") ?? null;
      sightings.push({
        call: call(parts, epochSecondsMs(rawTime), file.display, lineNo),
        sessionKey: messageId === null ? null : `${root}\u0000${messageId}`,
        copyKey: `${messageId ?? ""}\u0000${String(rawTime)}\u0000${partsKey(parts)}`,
      });
    }
  }
  const uf = new UnionFind();
  const firstBySession = new Map<string, number>();
  const firstByCopy = new Map<string, number>();
  sightings.forEach((s, i) => {
    uf.add();
    if (s.sessionKey !== null) {
      const j = firstBySession.get(s.sessionKey);
      if (j === undefined) firstBySession.set(s.sessionKey, i);
      else uf.union(i, j);
    }
    const k = firstByCopy.get(s.copyKey);
    if (k === undefined) firstByCopy.set(s.copyKey, i);
    else uf.union(i, k);
  });
  const best = new Map<number, TokenCall>();
  sightings.forEach((s, i) => {
    const r = uf.find(i);
    const cur = best.get(r);
    if (cur === undefined || earlier(s.call, cur)) best.set(r, s.call);
  });
  const calls = [...best.values()];
  warnUnplaced(calls, sink, "the line has no valid timestamp");
  return { calls, warnings: sink.warnings };
}

function earlier(a: TokenCall, b: TokenCall): boolean {
  const ta = a.timeMs ?? Number.POSITIVE_INFINITY;
  const tb = b.timeMs ?? Number.POSITIVE_INFINITY;
  if (ta !== tb) return ta < tb;
  const f = cmp(a.file, b.file);
  return f !== 0 ? f < 0 : a.line < b.line;
}
