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
 * two files both have as their own (a session folder copied whole) is one
 * call: counted once, with a `TRAJECTORY_DUPLICATE_RECORDS` warning.
 */
import { cmpStr } from "../../util/values.js";
import { Diagnostics } from "../../diagnostics.js";
import {
  call,
  classifyBy,
  epochMs,
  isObject,
  scanTrajectory,
  trajectoryFastPath,
  needles,
  obj,
  partsKey,
  scanWarnings,
  str,
  warnUnplaced,
  type FileScan,
  type FormatCounter,
  type FormatResult,
  type ScanIO,
  type TrajectoryFile,
} from "./common.js";
import { readUsage, UsageShapeTally } from "./usage-shape.js";
import { KIMI_CODE_USAGE_SHAPE as USAGE_SHAPE, classifyKimiCodeLead, readKimiCodeUsage } from "./kimi-code-usage.js";
import { LINE_UNKNOWN, type LineClass } from "../../util/line-scan.js";
import { appendAll } from "../../util/arrays.js";
import type { TokenCall, TokenParts } from "./types.js";

/** One `usage.record` of a wire file. */
interface KimiCodeRecord {
  parts: TokenParts;
  timeMs: number | null;
  line: number;
  /** Matches copies of the record: time + model + scope + usage. */
  key: string;
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
      const timeMs = epochMs(time);
      const key = [String(time ?? "-"), model ?? "", scope ?? "", partsKey(parts)].join("\u0000");
      records.push({ parts, timeMs, line: lineNo, key, markersBefore: markers });
    };
    const fast = trajectoryFastPath();
    await scanTrajectory(
      file,
      sink,
      {
        needles: KIMI_CODE_NEEDLES,
        classify: classifyKimiCode,
        detectGlued: true,
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
  merge(files: TrajectoryFile[], scans: FileScan<KimiCodeScan>[]): FormatResult {
    const sink = new Diagnostics();
    appendAll(sink.warnings, scanWarnings(scans));
    // Own records (after the file's last 'forked' marker), in file order. A session folder copied whole
    // (a backup beside the original) repeats its records with their times: a timed record that another
    // file already has as its own is the same call, counted once.
    const calls: TokenCall[] = [];
    // Key of every own record -> the first file (index) that has it as a timed record, -1 while none has.
    const own = new Map<string, number>();
    const duplicates = new Map<string, number>();
    files.forEach((file, i) => {
      const { records, markers } = scans[i]!.data;
      for (const r of records) {
        if (r.markersBefore !== markers) continue;
        const first = own.get(r.key);
        if (r.timeMs !== null) {
          if (first === undefined || first === -1) own.set(r.key, i);
          else if (first !== i && files[first]!.display !== file.display) {
            duplicates.set(file.display, (duplicates.get(file.display) ?? 0) + 1);
            continue;
          }
        } else if (first === undefined) own.set(r.key, -1);
        calls.push(call(r.parts, r.timeMs, file.display, r.line));
      }
    });
    for (const [file, n] of duplicates) {
      sink.warn(
        "TRAJECTORY_DUPLICATE_RECORDS",
        `${n} usage record(s) repeat, with the same time and usage, records of another file (a copied session?): counted once`,
        file,
        null,
      );
    }
    // Records before the marker belong to the parent: counted once, only when no file has them as its own.
    const counted = new Set<string>();
    files.forEach((file, i) => {
      const { records, markers } = scans[i]!.data;
      let orphans = 0;
      for (const r of records) {
        if (r.markersBefore >= markers || own.has(r.key) || counted.has(r.key)) continue;
        counted.add(r.key);
        calls.push(call(r.parts, r.timeMs, file.display, r.line));
        orphans += 1;
      }
      if (orphans > 0) {
        sink.warn(
          "TRAJECTORY_PARENT_ABSENT",
          `${orphans} record(s) before the 'forked' marker belong to a parent session that is not among the files: ` +
            `they are the only copy and are counted at their original times`,
          file.display,
          null,
        );
      }
    });
    calls.sort((a, b) => cmpStr(a.file, b.file) || a.line - b.line);
    warnUnplaced(calls, sink, "the usage.record carries no time");
    return { calls, warnings: sink.warnings };
  },
};
