/**
 * kimi-code: Kimi Code (TypeScript) `agents/<agent>/wire.jsonl` files
 * (TRAJECTORIES.md, section "kimi-code").
 *
 * A call is a `usage.record` line (either `usageScope`), timed by its `time`
 * (epoch ms). `step.end` loop events repeat the same usage and are not read.
 *
 * Forks: a fork rewrites its parent's records (original times kept) and then
 * writes `{"type":"forked"}`. Records before a file's LAST `forked` marker are
 * inherited; those after it (or in a file with no marker) are the file's own.
 * - An inherited record that some file has as its own (the parent is present)
 *   is not counted again.
 * - An inherited record that no file has as its own (the parent is absent) is
 *   counted once, however many sibling forks copy it: it is the only record of
 *   a real call, and its original time places it correctly (the same choice
 *   TRAJECTORIES.md makes for pi). A `TRAJECTORY_PARENT_ABSENT` warning says so.
 * Records are matched by time + model + scope + usage. A timed record that
 * two files both have as their own (a session folder copied whole), or that
 * one file has twice (a line written twice), is one call: counted once, with
 * a `TRAJECTORY_DUPLICATE_RECORDS` warning.
 */
import { Diagnostics } from "../../diagnostics.js";
import {
  call,
  classifyBy,
  isObject,
  scanTrajectory,
  trajectoryFastPath,
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
import { epochMs } from "./line-times.js";
import { readUsage, UsageShapeTally } from "./usage-shape.js";
import { KIMI_CODE_USAGE_SHAPE as USAGE_SHAPE, classifyKimiCodeLead, readKimiCodeUsage } from "./kimi-code-usage.js";
import { LINE_UNKNOWN, type LineClass } from "../../util/line-scan.js";
import { appendAll } from "../../util/arrays.js";
import type { TokenCall, TokenParts } from "./types.js";
import { displayOrder } from "./call-order.js";
import { cmpStr } from "../../util/values.js";
import { hashCounts, sameParts } from "./counts-map.js";
import { RunNumbering } from "./run-numbering.js";
import { HashIndex, hashNumber, hashString } from "./hash-index.js";
import { withFile, withoutFiles } from "./cached-calls.js";
import { timeKey } from "./record-key.js";

/** One `usage.record` of a wire file. */
interface KimiCodeRecord {
  /** The record as the call it counts (the merge returns this object when it counts the record). */
  call: TokenCall;
  /** With `model`, `scope` and the counts, matches copies of the record: the time's key ({@link timeKey}). */
  time: number | string;
  /** The line's `model` ("" when absent). */
  model: string;
  /** The line's `usageScope` ("" when absent). */
  scope: string;
  /** Number of `forked` markers seen before this record in its file. */
  markersBefore: number;
}

/** What one kimi-code wire file gives (plain JSON, cacheable). */
export interface KimiCodeScan {
  records: KimiCodeRecord[];
  /** Number of `forked` markers in the file. */
  markers: number;
}

/** Fast path: a line matters when it is a `usage.record` or a `forked` marker. */
const KIMI_CODE_NEEDLES = needles("usage.record", '"forked"');
const KIMI_CODE_CLASSIFY = classifyBy(["type"], ([type]) => {
  if (type === undefined) return undefined;
  return type === "usage.record" || type === "forked" ? "take" : "skip";
});

/** The fixed-layout classifier first (kimi-code-usage.ts), the member reader when the line is laid out otherwise. */
function classifyKimiCode(buf: Buffer, start: number, end: number): LineClass {
  const c = classifyKimiCodeLead(buf, start, end);
  return c === LINE_UNKNOWN ? KIMI_CODE_CLASSIFY(buf, start, end) : c;
}

/**
 * The kimi-code counter (TRAJECTORIES.md, "kimi-code"): `scan` reads one wire
 * file's `usage.record` lines and `forked` markers; `merge` counts each file's
 * own records, and an inherited record only when no file has it as its own.
 */
export const kimiCodeCounter: FormatCounter<KimiCodeScan> = {
  async scan(file: TrajectoryFile, io: ScanIO = {}): Promise<FileScan<KimiCodeScan>> {
    const sink = new Diagnostics();
    const records: KimiCodeRecord[] = [];
    let markers = 0;
    const shape = new UsageShapeTally();
    /** One readable record: its counts, the line's `time` (any JSON value) and its `model` and `usageScope` strings. */
    const record = (
      parts: TokenParts,
      time: unknown,
      model: string | undefined,
      scope: string | undefined,
      lineNo: number,
    ): void => {
      records.push({
        call: call(parts, epochMs(time), file.display, lineNo),
        time: timeKey(time),
        model: model ?? "",
        scope: scope ?? "",
        markersBefore: markers,
      });
    };
    const fast = trajectoryFastPath();
    await scanTrajectory(
      file,
      sink,
      {
        needles: KIMI_CODE_NEEDLES,
        classify: classifyKimiCode,
        detectGlued: true,
        searchLines: true,
        onBytes: io.onBytes,
      },
      (line) => {
        // The usual usage.record line, read from its bytes (proven valid JSON); any other line is parsed whole.
        const u = fast ? readKimiCodeUsage(line.buf, line.start, line.end) : null;
        if (u !== null) {
          const parts: TokenParts = {
            uncachedInput: u.inputOther,
            cacheRead: u.inputCacheRead,
            cacheWrite: u.inputCacheCreation,
            output: u.output,
          };
          record(parts, u.time, u.model, u.scope, line.lineNo);
          return;
        }
        const value = line.parse();
        if (value === undefined || !isObject(value)) return;
        const lineNo = line.lineNo;
        const type = value["type"];
        if (type === "forked") {
          markers += 1;
          return;
        }
        if (type !== "usage.record") return;
        const usage = obj(value, "usage");
        if (!usage) {
          shape.missing(USAGE_SHAPE.required, [], lineNo); // a usage.record with no usage object
          return;
        }
        const read = readUsage(usage, USAGE_SHAPE);
        if (read.kind === "bad-value") {
          sink.warn("TRAJECTORY_BAD_USAGE", "usage has a field that is not a count; skipped", file.display, lineNo);
          return;
        }
        const c = shape.note(read, usage, lineNo);
        if (!c) return;
        const parts: TokenParts = {
          uncachedInput: c.inputOther,
          cacheRead: c.inputCacheRead,
          cacheWrite: c.inputCacheCreation,
          output: c.output,
        };
        record(parts, value["time"], str(value, "model"), str(value, "usageScope"), lineNo);
      },
    );
    shape.flush(sink, file.display, "usage.record");
    return { data: { records, markers }, warnings: sink.warnings };
  },
  pack(scan: FileScan<KimiCodeScan>): FileScan<unknown> {
    return { data: { records: withoutFiles(scan.data.records), markers: scan.data.markers }, warnings: scan.warnings };
  },
  unpack(stored: FileScan<unknown>, file: TrajectoryFile): FileScan<KimiCodeScan> {
    const data = stored.data as KimiCodeScan;
    withFile(data.records, file.display);
    return { data, warnings: stored.warnings };
  },
  merge(files: TrajectoryFile[], scans: FileScan<KimiCodeScan>[]): FormatResult {
    const sink = new Diagnostics();
    appendAll(sink.warnings, scanWarnings(scans));
    // Records are numbered across the run, in file order: file i's k-th record is number start[i] + k.
    const run = new RunNumbering(scans.map((s) => s.data.records));
    const { start, total } = run;
    const fileOfRecord = (n: number): number => run.fileOf(n);
    const recordAt = (n: number): KimiCodeRecord => run.at(n);
    // Own records (after the file's last 'forked' marker), in file order. A session folder copied whole
    // (a backup beside the original) repeats its records with their times: a timed record that another
    // file already has as its own is the same call, counted once.
    // `own` holds each own key once, as the number of its first record. The first file that has the key as
    // a timed own record: that record's file when it is timed, else laterOwner's (none while absent).
    const own = new HashIndex(total);
    const laterOwner = new Map<number, number>();
    const duplicates = new Map<string, number>();
    const repeatedInFile = new Map<string, number>();
    const skipped = new Set<number>();
    const unplaced: TokenCall[] = [];
    const untimedCopies = copiesOfUntimed(scans);
    const untimedDuplicates = new Map<string, number>();
    let counted = 0;
    for (let i = 0; i < files.length; i += 1) {
      const display = files[i]!.display;
      const { records, markers } = scans[i]!.data;
      for (let k = 0; k < records.length; k += 1) {
        const r = records[k]!;
        if (r.markersBefore !== markers) continue;
        if (r.call.timeMs === null && untimedCopies.has(i)) {
          // An untimed record can only be told a copy by its file's whole sequence (copiesOfUntimed).
          untimedDuplicates.set(display, (untimedDuplicates.get(display) ?? 0) + 1);
          skipped.add(start[i]! + k);
          continue;
        }
        const h = keyHash(r);
        let e = own.first(h);
        while (e !== -1 && !sameKey(recordAt(e), r)) e = own.next();
        const timed = r.call.timeMs !== null;
        if (e === -1) own.add(h, start[i]! + k);
        else if (timed) {
          const first = recordAt(e).call.timeMs !== null ? fileOfRecord(e) : (laterOwner.get(e) ?? -1);
          if (first === -1) laterOwner.set(e, i);
          else {
            // The same record twice in one file (a line written twice) is one call too, said apart.
            const where = first === i || files[first]!.display === display ? repeatedInFile : duplicates;
            where.set(display, (where.get(display) ?? 0) + 1);
            skipped.add(start[i]! + k);
            continue;
          }
        }
        if (!timed) unplaced.push(r.call);
        counted += 1;
      }
    }
    for (const [file, n] of duplicates) {
      sink.warn(
        "TRAJECTORY_DUPLICATE_RECORDS",
        `${n} usage record(s) repeat, with the same time and usage, records of another file (a copied session?): counted once`,
        file,
        null,
      );
    }
    for (const [file, n] of untimedDuplicates) {
      sink.warn(
        "TRAJECTORY_DUPLICATE_RECORDS",
        `${n} usage record(s) without a time are, in order, those of another file (a copied session?): counted once`,
        file,
        null,
      );
    }
    for (const [file, n] of repeatedInFile) {
      sink.warn(
        "TRAJECTORY_DUPLICATE_RECORDS",
        `${n} usage record(s) repeat an earlier record of the same file, with the same time (to the ms), model, scope and usage (a line written twice?): counted once`,
        file,
        null,
      );
    }
    // Records before the marker belong to the parent: counted once, only when no file has them as its own.
    const counts = new HashIndex();
    const countedKeys: KimiCodeRecord[] = [];
    const inherited: TokenCall[][] = files.map(() => []);
    for (let i = 0; i < files.length; i += 1) {
      const file = files[i]!;
      const { records, markers } = scans[i]!.data;
      if (markers === 0) continue; // no marker: every record is the file's own
      const orphans = inherited[i]!;
      for (const r of records) {
        if (r.markersBefore >= markers) continue;
        const h = keyHash(r);
        let e = own.first(h);
        while (e !== -1 && !sameKey(recordAt(e), r)) e = own.next();
        if (e !== -1) continue;
        let c = counts.first(h);
        while (c !== -1 && !sameKey(countedKeys[c]!, r)) c = counts.next();
        if (c !== -1) continue;
        counts.add(h, countedKeys.length);
        countedKeys.push(r);
        orphans.push(r.call);
        if (r.call.timeMs === null) unplaced.push(r.call);
      }
      counted += orphans.length;
      if (orphans.length > 0) {
        sink.warn(
          "TRAJECTORY_PARENT_ABSENT",
          `${orphans.length} record(s) before the 'forked' marker belong to a parent session that is not among the files: ` +
            `they are the only copy and are counted at their original times`,
          file.display,
          null,
        );
      }
    }
    // By file, then line: a file's inherited records are before its last marker, its own ones after it.
    const ownCalls = (i: number, out: TokenCall[], at: number): number => {
      const { records, markers } = scans[i]!.data;
      for (let k = 0; k < records.length; k += 1) {
        const r = records[k]!;
        if (r.markersBefore === markers && (skipped.size === 0 || !skipped.has(start[i]! + k))) out[at++] = r.call;
      }
      return at;
    };
    const order = displayOrder(files);
    let calls: TokenCall[] = new Array(counted);
    if (order !== null) {
      let at = 0;
      for (const i of order) {
        for (const c of inherited[i]!) calls[at++] = c;
        at = ownCalls(i, calls, at);
      }
    } else {
      let at = 0;
      for (let i = 0; i < files.length; i += 1) at = ownCalls(i, calls, at);
      for (const list of inherited) for (const c of list) calls[at++] = c;
      calls = calls.sort((a, b) => cmpStr(a.file, b.file) || a.line - b.line);
    }
    warnUnplaced(unplaced, sink, "the usage.record carries no time");
    return { calls, warnings: sink.warnings };
  },
};

/** The hash of a record's copy key (time + usage; the model and scope are compared, not hashed). */
function keyHash(r: KimiCodeRecord): number {
  const p = r.call;
  const t = r.time;
  const seed = typeof t === "number" ? hashNumber(0x3c6ef372, t) : hashString(0x3c6ef373, t);
  return hashCounts(seed, p.uncachedInput, p.cacheRead, p.cacheWrite, p.output);
}

/**
 * The files whose own untimed records (those of older files that carry no
 * time: TRAJECTORIES.md, "kimi-code") are, in order, the first own untimed
 * records of another file that has more of them, or of an earlier file with
 * as many: a copy of that session (a backup, a copied folder), whose calls
 * that file already counts. Without a time two records with the same usage
 * may be two calls, so a copy is told by the whole sequence, never by one
 * record.
 */
function copiesOfUntimed(scans: FileScan<KimiCodeScan>[]): Set<number> {
  const untimed = scans.map((s) =>
    s.data.records.filter((r) => r.markersBefore === s.data.markers && r.call.timeMs === null),
  );
  const copies = new Set<number>();
  for (let i = 0; i < untimed.length; i += 1) {
    const mine = untimed[i]!;
    if (mine.length === 0) continue;
    for (let f = 0; f < untimed.length; f += 1) {
      const theirs = untimed[f]!;
      // The shorter of the two is the copy (a backup taken earlier); of two equal ones, the later file.
      if (f === i || theirs.length < mine.length || (theirs.length === mine.length && f > i)) continue;
      if (mine.every((r, k) => sameKey(r, theirs[k]!))) {
        copies.add(i);
        break;
      }
    }
  }
  return copies;
}

/** Whether two records have the same copy key: time + model + scope + usage. */
function sameKey(a: KimiCodeRecord, b: KimiCodeRecord): boolean {
  return a.time === b.time && a.model === b.model && a.scope === b.scope && sameParts(a.call, b.call);
}
