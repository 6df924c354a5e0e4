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
import { cmpStr } from "../../util/values.js";
import { Diagnostics } from "../../diagnostics.js";
import { basename } from "node:path";
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
import { NoOffsetTimes, RequestTimes } from "./line-times.js";
import { messageUsage, UsageShapeTally } from "./usage-shape.js";
import { appendAll } from "../../util/arrays.js";
import { JsonMembers } from "../../util/json-members.js";
import type { TokenCall, TokenParts } from "./types.js";
import { joinByDisplay } from "./call-order.js";
import { hashCounts, sameParts } from "./counts-map.js";
import { HashIndex, hashString } from "./hash-index.js";
import { withFile, withoutFiles } from "./cached-calls.js";
import { PI_USAGE_SHAPE as USAGE_SHAPE, readPiUsage } from "./pi-usage.js";

/** The session id in a pi file name `<iso-time>_<uuid>.jsonl`, or the whole base name. */
function sessionKeyOfName(name: string): string {
  const base = basename(name)
    .replace(/\.gz$/, "")
    .replace(/\.jsonl$/, "");
  const us = base.lastIndexOf("_");
  return us >= 0 ? base.slice(us + 1) : base;
}

/** What one pi session file gives (plain JSON, cacheable). */
export interface PiScan {
  /** The header's `id`, when the first object line is a `session` header. */
  headerId: string | null;
  /** The header's `parentSession` (older: `branchedFrom`): the file is a branch. */
  parent: string | null;
  /** Usage entries in line order. */
  entries: PiEntry[];
}

/** One usage entry: copies of it have the same `byId`, `key` and counts. */
interface PiEntry {
  /** The entry as the call it counts (the merge returns this object when it counts the entry). */
  call: TokenCall;
  /** The entry's `id` when it has one (`byId`), else its timestamp's text (version 1 files). */
  key: string;
  byId: boolean;
  /** The hash of the entry's key and counts ({@link entryHash}), computed by the scan while the entry's bytes are fresh in the CPU cache. */
  hash: number;
}

/** The hash under which the merge looks up copies of an entry: its key, whether it is an id, and its counts. */
function entryHash(key: string, byId: boolean, p: TokenParts): number {
  return hashCounts(
    hashString(byId ? 0x6a09e667 : 0x3c6ef372, key),
    p.uncachedInput,
    p.cacheRead,
    p.cacheWrite,
    p.output,
  );
}

/** An entry of `call`, keyed by `key` (an id when `byId`). */
function entry(call: TokenCall, key: string, byId: boolean): PiEntry {
  return { call, key, byId, hash: entryHash(key, byId, call) };
}

/**
 * Fast path (marker mode): only an entry with a `usage` key can carry usage
 * (the header is always read); an `assistant` entry without one is read too
 * (it is reported).
 */
const PI_MARKERS = needles('"usage"', '"assistant"');

/** What the rules read of an entry (the fast reading; see `pickMembers`). */
const PI_MEMBERS = new JsonMembers(["type", "id", "timestamp", "message.role", "message.usage", "message.timestamp"]);

/**
 * The pi counter (TRAJECTORIES.md, "pi"): `scan` reads one session file's
 * header and assistant usage entries; `merge` keeps the first sighting of each
 * entry (id + usage) in path order and reports branches whose parent is absent.
 */
export const piCounter: FormatCounter<PiScan> = {
  async scan(file: TrajectoryFile, io: ScanIO = {}): Promise<FileScan<PiScan>> {
    const sink = new Diagnostics();
    const data: PiScan = { headerId: null, parent: null, entries: [] };
    const shape = new UsageShapeTally();
    const times = new NoOffsetTimes();
    let header = true;
    const fast = trajectoryFastPath();
    const wantAll = (): boolean => header;
    // An entry without its own time (the save time) is placed at its request's start, said once per file.
    const early = new RequestTimes();
    await scanTrajectory(
      file,
      sink,
      {
        markers: PI_MARKERS,
        wantAll,
        onBytes: io.onBytes,
      },
      (line) => {
        // The usual usage entry, read from its bytes (proven valid JSON); any other line is read as below.
        const u = fast && !header ? readPiUsage(line.buf, line.start, line.end) : null;
        if (u !== null) {
          const parts: TokenParts = {
            uncachedInput: u.input,
            cacheRead: u.cacheRead,
            cacheWrite: u.cacheWrite,
            output: u.output,
          };
          const timeMs = times.ms(u.timestamp, line.lineNo) ?? early.ms(u.messageTimestamp, line.lineNo);
          data.entries.push(entry(call(parts, timeMs, file.display, line.lineNo), u.id, true));
          return;
        }
        let value: unknown = header ? undefined : pickMembers(PI_MEMBERS, line);
        // An assistant entry without a usage object is reported with its message's keys: read it whole.
        if (
          value === undefined ||
          (isObject(value) &&
            value["type"] === "message" &&
            str(obj(value, "message"), "role") === "assistant" &&
            !obj(obj(value, "message"), "usage"))
        )
          value = line.parse();
        const lineNo = line.lineNo;
        if (!isObject(value)) return;
        if (header) {
          header = false;
          if (value["type"] === "session") {
            data.headerId = str(value, "id") ?? null;
            data.parent = str(value, "parentSession") ?? str(value, "branchedFrom") ?? null;
            return;
          }
        }
        if (value["type"] !== "message") return;
        const message = obj(value, "message");
        if (str(message, "role") !== "assistant") return;
        // pi writes usage on every assistant entry (aborted and errored ones too): none at all is counts that cannot be read.
        const c = messageUsage(message, USAGE_SHAPE, shape, sink, file.display, lineNo);
        if (!c) return;
        const parts: TokenParts = {
          uncachedInput: c.input,
          cacheRead: c.cacheRead,
          cacheWrite: c.cacheWrite,
          output: c.output,
        };
        const timeMs = times.ms(value["timestamp"], lineNo) ?? early.ms(message?.["timestamp"], lineNo);
        const id = str(value, "id");
        const key = id ? id : String(value["timestamp"] ?? message?.["timestamp"] ?? `${file.display}:${lineNo}`);
        data.entries.push(entry(call(parts, timeMs, file.display, lineNo), key, !!id));
      },
    );
    shape.flush(sink, file.display, "message.usage");
    times.flush(sink, file.display);
    early.flush(sink, file.display);
    return { data, warnings: sink.warnings };
  },
  pack(scan: FileScan<PiScan>): FileScan<unknown> {
    return { data: { ...scan.data, entries: withoutFiles(scan.data.entries) }, warnings: scan.warnings };
  },
  unpack(stored: FileScan<unknown>, file: TrajectoryFile): FileScan<PiScan> {
    const data = stored.data as PiScan;
    withFile(data.entries, file.display);
    return { data, warnings: stored.warnings };
  },
  merge(files: TrajectoryFile[], scans: FileScan<PiScan>[]): FormatResult {
    const sink = new Diagnostics();
    appendAll(sink.warnings, scanWarnings(scans));
    let total = 0;
    for (const s of scans) total += s.data.entries.length;
    // Entry k of `seen` is the key of kept[k], the first sighting of its entry.
    const seen = new HashIndex(total);
    const kept: PiEntry[] = [];
    const present = new Set<string>();
    for (const f of files) present.add(sessionKeyOfName(f.path));
    const branches: { file: TrajectoryFile; parent: string; calls: number }[] = [];
    const perFile: TokenCall[][] = [];
    /** The file of kept[k]. */
    const keptFrom: number[] = [];
    for (let i = 0; i < files.length; i += 1) {
      const file = files[i]!;
      const scan = scans[i]!.data;
      if (scan.headerId) present.add(scan.headerId);
      // Files are read in path order: the first sighting of a copied entry is kept.
      const mine: TokenCall[] = [];
      let repeatsHere = 0;
      for (const e of scan.entries) {
        const h = e.hash;
        let k = seen.first(h);
        while (k !== -1 && !sameEntry(kept[k]!, e)) k = seen.next();
        if (k !== -1) {
          if (keptFrom[k] === i) repeatsHere += 1;
          continue;
        }
        seen.add(h, kept.length);
        kept.push(e);
        keptFrom.push(i);
        mine.push(e.call);
      }
      // Its calls: its entries, an entry written twice in it counted once.
      if (scan.parent) branches.push({ file, parent: scan.parent, calls: scan.entries.length - repeatsHere });
      perFile.push(mine);
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
    const calls =
      joinByDisplay(files, perFile) ?? perFile.flat().sort((a, b) => cmpStr(a.file, b.file) || a.line - b.line);
    warnUnplaced(calls, sink, "the entry has no valid timestamp");
    return { calls, warnings: sink.warnings };
  },
};

/** Whether two usage entries are copies of one entry: the same id (or, with none, timestamp text) and usage. */
function sameEntry(a: PiEntry, b: PiEntry): boolean {
  return a.key === b.key && a.byId === b.byId && sameParts(a.call, b.call);
}
