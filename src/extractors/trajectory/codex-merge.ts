/**
 * codex across files: a child's replayed prefix is not recounted, a call seen
 * in two files counts once (TRAJECTORIES.md, section "codex"). The rules that
 * need every rollout at once, on what the scan of each gives (codex.ts): a
 * forked or sub-agent child does not recount the parent's replayed prefix,
 * and the same call seen in two files (a copy, a resume) counts once.
 */
import { Diagnostics } from "../../diagnostics.js";
import { appendAll } from "../../util/arrays.js";
import {
  call,
  earlierCall,
  scanWarnings,
  warnUnplaced,
  type FileScan,
  type FormatResult,
  type TrajectoryFile,
} from "./common.js";
import { CountsMap } from "./counts-map.js";
import type { TokenCall, TokenParts } from "./types.js";
import { UsageShapeTally } from "./usage-shape.js";

/** A usage vector: input (including cached and cache write), cached, cache write, output. */
export interface Vec {
  input: number;
  cached: number;
  cacheWrite: number;
  output: number;
}

/** A running total (`total_token_usage`) seen on a `token_count` line. */
interface Observation {
  timeMs: number | null;
  line: number;
  ordinal: number | null;
  threadId: string | null;
  total: Vec;
  last: Vec | null;
  /** In the child's replayed burst (time-based evidence). */
  inBurst: boolean;
}

/** A per-response `token_usage_record`. */
interface UsageRecord {
  timeMs: number | null;
  line: number;
  ordinal: number | null;
  key: string;
  usage: Vec;
  inBurst: boolean;
}

/** What one rollout file gives (plain JSON, cacheable). */
export interface CodexScan {
  file: TrajectoryFile;
  ownId: string | null;
  parentId: string | null;
  /** First ordinal of the child's own history (`subagent_history_start_ordinal` and kin). */
  ownStartOrdinal: number | null;
  observations: Observation[];
  records: UsageRecord[];
}

const ZERO: Vec = { input: 0, cached: 0, cacheWrite: 0, output: 0 };

/** The running total's size: input (which includes the cached parts) + output. */
const vecTotal = (v: Vec): number => v.input + v.output;
const vecEqual = (a: Vec, b: Vec): boolean =>
  a.input === b.input && a.cached === b.cached && a.cacheWrite === b.cacheWrite && a.output === b.output;

/**
 * Parts of one call from an input-inclusive usage vector (uncached = input −
 * cached − cache write). Callers pass only vectors that do not contradict the
 * format (cached + cache write ≤ input): nothing is clamped here.
 */
function partsOf(v: Vec): TokenParts {
  return {
    uncachedInput: v.input - v.cached - v.cacheWrite,
    cacheRead: v.cached,
    cacheWrite: v.cacheWrite,
    output: v.output,
  };
}

/**
 * The earliest sighting of each call across files (the same growth of the
 * same thread seen in two files, a copy or a resume that replays its history
 * into a new file, is one call): growths keyed by their running total,
 * per-response records by their key, both per thread. `calls` is in the
 * order calls were first seen.
 */
class Sightings {
  /** The calls, in `list[0..count)` (room for the run's usage lines is made at once). */
  private readonly list: TokenCall[];
  private count = 0;
  private readonly growths = new Map<string, CountsMap<number>>();
  private readonly records = new Map<string, Map<string, number>>();

  /** @param bound at most this many calls are kept. */
  constructor(bound: number) {
    this.list = new Array(bound);
  }

  /** The calls kept, in the order first seen. */
  get calls(): TokenCall[] {
    this.list.length = this.count;
    return this.list;
  }

  /** The growths of `thread` (by running total → index in `calls`), made with room for `expected` entries. */
  growthsOf(thread: string, expected: number): CountsMap<number> {
    let m = this.growths.get(thread);
    if (m === undefined) this.growths.set(thread, (m = new CountsMap<number>(expected)));
    return m;
  }

  /** The records of `thread` (by key → index in `calls`). */
  recordsOf(thread: string): Map<string, number> {
    let m = this.records.get(thread);
    if (m === undefined) this.records.set(thread, (m = new Map<string, number>()));
    return m;
  }

  /** Keeps `c` at slot `at` (undefined: a new call) when it is the earlier sighting; returns the slot. */
  keep(at: number | undefined, c: TokenCall): number {
    if (at === undefined) {
      this.list[this.count] = c;
      return this.count++;
    }
    if (earlierCall(c, this.list[at]!)) this.list[at] = c;
    return at;
  }
}

/**
 * True when running total `o` fell below `prev` (the baseline) without being
 * a context reset (TRAJECTORIES.md, "codex": a reset writes an all-zero
 * `last_token_usage`, and later calls grow from the lower value), and the next
 * line's total `next` is back at or above `prev`: a glitch of one line.
 */
function isDip(o: Observation, prev: Vec, next: Observation | undefined): boolean {
  if (next === undefined || vecTotal(o.total) >= vecTotal(prev) || isReset(o)) return false;
  return vecTotal(next.total) >= vecTotal(prev);
}

/** True when `o` is written as a context reset (TRAJECTORIES.md, "codex"): an all-zero `last_token_usage`. */
function isReset(o: Observation): boolean {
  return o.last !== null && vecTotal(o.last) === 0;
}

/** Is this item of a child file part of the parent's replayed prefix? */
function inherited(
  scan: CodexScan,
  item: { ordinal: number | null; inBurst: boolean },
  parentTotals: CountsMap<true> | undefined,
  total: Vec | null,
): boolean {
  if (scan.parentId === null) return false;
  if (scan.ownStartOrdinal !== null && item.ordinal !== null) return item.ordinal < scan.ownStartOrdinal;
  if (item.inBurst) return true;
  return total !== null && parentTotals !== undefined && parentTotals.get(total) !== undefined;
}

function resolveFile(
  scan: CodexScan,
  parentTotals: CountsMap<true> | undefined,
  sink: Diagnostics,
  out: Sightings,
): void {
  const display = scan.file.display;
  const thread = scan.ownId ?? `file:${display}`;
  if (scan.observations.length === 0) {
    // No running total in this file: count the per-response records instead (never both).
    let prefixOpen = true;
    const records = out.recordsOf(thread);
    for (const r of scan.records) {
      if (prefixOpen && inherited(scan, r, parentTotals, null)) continue;
      prefixOpen = false;
      records.set(r.key, out.keep(records.get(r.key), call(partsOf(r.usage), r.timeMs, display, r.line)));
    }
    return;
  }
  let baseline: Vec = ZERO;
  let prefixOpen = scan.parentId !== null;
  let inheritedCount = 0;
  let foreign = 0;
  let inconsistent = 0;
  // Growths whose cached part exceeds their input part: each total may be consistent while the calls are not.
  const contradicting = new UsageShapeTally();
  const growths = out.growthsOf(thread, scan.observations.length);
  let dips = 0;
  let firstDip: number | null = null;
  let drops = 0;
  let firstDrop: number | null = null;
  const observations = scan.observations;
  for (let k = 0; k < observations.length; k += 1) {
    const o = observations[k]!;
    const foreignThread = o.threadId !== null && scan.ownId !== null && o.threadId !== scan.ownId;
    if (prefixOpen) {
      if (foreignThread || inherited(scan, o, parentTotals, o.total)) {
        baseline = o.total;
        inheritedCount += 1;
        continue;
      }
      prefixOpen = false;
    }
    if (foreignThread) {
      foreign += 1;
      continue;
    }
    const prev = baseline;
    if (vecEqual(o.total, prev)) continue; // an unchanged repeat
    if (isDip(o, prev, observations[k + 1])) {
      // One line's total fell and the next is back: not a reset (the baseline stays), else the whole
      // history would be counted again from the fallen value.
      dips += 1;
      firstDip ??= o.line;
      continue;
    }
    baseline = o.total;
    if (vecTotal(o.total) <= vecTotal(prev)) {
      // A drop is a context reset, a new baseline and not a call, when the line says so (an all-zero
      // last_token_usage); any other lasting drop cannot be told from lines out of order, two sessions
      // joined in one file or a damaged total, each of which counts calls again or loses them.
      if (vecTotal(o.total) < vecTotal(prev) && !isReset(o)) {
        drops += 1;
        firstDrop ??= o.line;
      }
      continue;
    }
    // The growth of each part (allocated only as the call).
    let dIn = o.total.input - prev.input;
    let dCached = o.total.cached - prev.cached;
    let dWrite = o.total.cacheWrite - prev.cacheWrite;
    let dOut = o.total.output - prev.output;
    if (dIn < 0 || dCached < 0 || dWrite < 0 || dOut < 0) {
      inconsistent += 1;
      if (o.last && vecTotal(o.last) > 0) {
        dIn = o.last.input;
        dCached = o.last.cached;
        dWrite = o.last.cacheWrite;
        dOut = o.last.output;
      } else {
        dIn = Math.max(0, dIn);
        dCached = Math.max(0, dCached);
        dWrite = Math.max(0, dWrite);
        dOut = Math.max(0, dOut);
      }
    }
    // Cached and cache-write parts exceeding the input that includes them: the format forbids it.
    if (dCached + dWrite > dIn) {
      contradicting.contradiction(
        "a growth of cached_input_tokens + cache_write_input_tokens > the growth of input_tokens",
        o.line,
      );
      continue;
    }
    const t = o.total;
    const at = growths.get(t);
    const c: TokenCall = {
      uncachedInput: dIn - dCached - dWrite,
      cacheRead: dCached,
      cacheWrite: dWrite,
      output: dOut,
      timeMs: o.timeMs,
      file: display,
      line: o.line,
    };
    const slot = out.keep(at, c);
    if (at === undefined) growths.set(t, slot);
  }
  contradicting.flush(
    sink,
    display,
    "token_count",
    "these calls are left out of every token count (the totals are short of them)",
  );
  if (scan.parentId !== null && parentTotals === undefined && inheritedCount > 0) {
    sink.warn(
      "TRAJECTORY_PARENT_ABSENT",
      `forked/sub-agent rollout of thread ${scan.parentId}, which is not among the files: its replayed prefix ` +
        `(${inheritedCount} token_count line(s), up to ${vecTotal(baseline)} tokens) belongs to the parent and is not counted`,
      display,
      null,
    );
  }
  if (foreign > 0) {
    sink.warn(
      "TRAJECTORY_FOREIGN_THREAD",
      `${foreign} token_count line(s) name another thread than the file's own (${scan.ownId}); skipped`,
      display,
      null,
    );
  }
  if (dips > 0) {
    sink.warn(
      "TRAJECTORY_INCONSISTENT_TOTAL",
      `${dips} running total(s) fell for one line and were back at or above the total before on the next, without the all-zero last_token_usage of a context reset: skipped as glitches (the first at this line), not counted as resets`,
      display,
      firstDip,
    );
  }
  if (drops > 0) {
    sink.warn(
      "TRAJECTORY_TOTAL_DROP",
      `${drops} running total(s) fell and stayed lower without the all-zero last_token_usage of a context reset (the first at this line): lines out of order, two sessions joined in one file, or a damaged total; which calls were counted once cannot be told, so the run's tokens are unknown`,
      display,
      firstDrop,
    );
  }
  if (inconsistent > 0) {
    sink.warn(
      "TRAJECTORY_INCONSISTENT_TOTAL",
      `${inconsistent} growth(s) of the running total had a shrinking part; counted from last_token_usage (or clamped at 0)`,
      display,
      null,
    );
  }
}

/**
 * The cross-file rules of codex (TRAJECTORIES.md, "codex"), on every
 * rollout's scan: drops the replayed prefixes of forks and sub-agents (by
 * ordinal, by the replayed burst's times, or by the parent's running totals),
 * turns growths of each thread's running total into calls (a drop resets the
 * baseline; a shrinking part is read from `last_token_usage`), reads
 * `token_usage_record`s only for a file with no running total, and keeps one
 * sighting, the earliest, of each call seen in several files. Calls are in
 * the order first seen; times are UTC epoch ms.
 *
 * Warnings: the scans' own, then `TRAJECTORY_PARENT_ABSENT`,
 * `TRAJECTORY_FOREIGN_THREAD`, `TRAJECTORY_INCONSISTENT_TOTAL`,
 * `TRAJECTORY_UNREADABLE_USAGE` (growths that contradict the format),
 * `TRAJECTORY_UNPLACED_CALLS`.
 */
export function mergeCodexScans(fileScans: FileScan<CodexScan>[]): FormatResult {
  const sink = new Diagnostics();
  appendAll(sink.warnings, scanWarnings(fileScans));
  const scans = fileScans.map((s) => s.data);
  // The running totals of each thread, for telling a child's replayed prefix (only children need them).
  const wanted = new Set<string>();
  for (const s of scans) if (s.parentId !== null) wanted.add(s.parentId);
  const totalsByThread = new Map<string, CountsMap<true>>();
  for (const s of scans) {
    if (s.ownId === null || !wanted.has(s.ownId)) continue;
    let set = totalsByThread.get(s.ownId);
    if (set === undefined) totalsByThread.set(s.ownId, (set = new CountsMap<true>(s.observations.length)));
    for (const o of s.observations) set.set(o.total, true);
  }
  // The same growth of the same thread seen in two files (a copy, a resume that
  // replays its history into a new file) is one call: keep its earliest sighting.
  let bound = 0;
  for (const s of scans) bound += s.observations.length + s.records.length;
  const sightings = new Sightings(bound);
  for (const s of scans) {
    const parentTotals = s.parentId !== null ? totalsByThread.get(s.parentId) : undefined;
    resolveFile(s, parentTotals, sink, sightings);
  }
  const calls = sightings.calls;
  warnUnplaced(calls, sink, "the token_count line has no valid timestamp");
  return { calls, warnings: sink.warnings };
}
