/**
 * pi: the pi coding agent's session files (TRAJECTORIES.md, section "pi").
 *
 * Every assistant `message` entry with a `usage` is a call, timed by the
 * entry's own `timestamp` (save time), including aborted and errored entries.
 * A fork copies entries with the same ids and times: entries are
 * de-duplicated across files by id + usage (version 1 files, which have no
 * ids, by timestamp + usage). A branch whose parent file is absent is the
 * only copy, so all its calls count.
 */
import { basename } from "node:path";
import {
  call,
  cmp,
  counts,
  epochMs,
  isObject,
  isoMs,
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

const USAGE_KEYS = ["input", "output", "cacheRead", "cacheWrite"] as const;

/** The session id in a pi file name `<iso-time>_<uuid>.jsonl`, or the whole base name. */
function sessionKeyOfName(name: string): string {
  const base = basename(name).replace(/\.gz$/, "").replace(/\.jsonl$/, "");
  const us = base.lastIndexOf("_");
  return us >= 0 ? base.slice(us + 1) : base;
}

/**
 * Reads pi session files of one run (TRAJECTORIES.md, "pi").
 *
 * @returns calls (unsorted) and warnings. Never throws for bad content.
 */
export async function readPi(files: TrajectoryFile[]): Promise<FormatResult> {
  const sink = new WarningSink();
  const byKey = new Map<string, TokenCall>();
  const present = new Set<string>();
  for (const f of files) present.add(sessionKeyOfName(f.path));
  const branches: { file: TrajectoryFile; parent: string; calls: number }[] = [];
  for (const file of files) {
    let header = true;
    let branch: { file: TrajectoryFile; parent: string; calls: number } | null = null;
    for await (const { value, lineNo } of jsonLines(file, sink)) {
      if (!isObject(value)) continue;
      if (header) {
        header = false;
        if (value["type"] === "session") {
          const id = str(value, "id");
          if (id) present.add(id);
          const parent = str(value, "parentSession") ?? str(value, "branchedFrom");
          if (parent) {
            branch = { file, parent, calls: 0 };
            branches.push(branch);
          }
          continue;
        }
      }
      if (value["type"] !== "message") continue;
      const message = obj(value, "message");
      if (str(message, "role") !== "assistant") continue;
      const usage = obj(message, "usage");
      if (!usage) continue;
      const c = counts(usage, USAGE_KEYS);
      if (!c) {
        sink.warn("TRAJECTORY_BAD_USAGE", "message.usage has a field that is not a count; skipped", file.display, lineNo);
        continue;
      }
      const parts: TokenParts = {
        uncachedInput: c.input,
        cacheRead: c.cacheRead,
        cacheWrite: c.cacheWrite,
        output: c.output,
      };
      const timeMs = isoMs(value["timestamp"]) ?? epochMs(message?.["timestamp"]);
      const id = str(value, "id");
      const key = id
        ? `id:${id}|${partsKey(parts)}`
        : `ts:${String(value["timestamp"] ?? message?.["timestamp"] ?? `${file.display}:${lineNo}`)}|${partsKey(parts)}`;
      if (branch) branch.calls += 1;
      // Files are read in path order: the first sighting of a copied entry is kept.
      if (!byKey.has(key)) byKey.set(key, call(parts, timeMs, file.display, lineNo));
    }
  }
  for (const b of branches) {
    const parentKey = sessionKeyOfName(b.parent);
    if (!present.has(parentKey) && !present.has(b.parent)) {
      sink.warn(
        "TRAJECTORY_PARENT_ABSENT",
        `branch of ${basename(b.parent)}, which is not among the files: this is the only copy, all its ${b.calls} call(s) count`,
        b.file.display,
        1,
      );
    }
  }
  const calls = [...byKey.values()];
  calls.sort((a, b) => cmp(a.file, b.file) || a.line - b.line);
  warnUnplaced(calls, sink, "the entry has no valid timestamp");
  return { calls, warnings: sink.warnings };
}
