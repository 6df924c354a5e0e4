// The cross-file merges of kimi-cli and kimi-code against the plain reading of their rules
// (TRAJECTORIES.md: string keys in maps, every sighting a call), on random in-memory scans:
// the same calls (same objects' values, same order) and the same warnings.
import { describe, expect, it } from "vitest";
import { Diagnostics } from "../src/diagnostics.js";
import { earlierCall, type FileScan, type TrajectoryFile, warnUnplaced } from "../src/extractors/trajectory/common.js";
import { type KimiCliUsage, kimiCliCounter } from "../src/extractors/trajectory/kimi-cli.js";
import { type KimiCodeScan, kimiCodeCounter } from "../src/extractors/trajectory/kimi-code.js";
import { timeKey } from "../src/extractors/trajectory/record-key.js";
import type { TokenCall } from "../src/extractors/trajectory/types.js";
import { cmpStr } from "../src/util/values.js";

/** A small deterministic generator (mulberry32). */
function rng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n) as number;
  };
}

const callAt = (r: (n: number) => number, timeMs: number | null, file: string, line: number): TokenCall => ({
  uncachedInput: r(3),
  cacheRead: r(2) * 100,
  cacheWrite: 0,
  output: r(2) + 1,
  timeMs,
  file,
  line,
});
const shown = (calls: TokenCall[]) => calls.map((c) => ({ ...c }));

// ---------------------------------------------------------------- kimi-cli, as first written

function sessionRoot(p: string): string {
  const i = p.lastIndexOf("/subagents/");
  return i >= 0 ? p.slice(0, i) : p.slice(0, p.lastIndexOf("/"));
}

function kimiCliReference(files: TrajectoryFile[], scans: FileScan<KimiCliUsage[]>[]): TokenCall[] {
  const sightings: TokenCall[] = [];
  const parent: number[] = [];
  const find = (i: number): number => (parent[i] === i ? i : find(parent[i]!));
  const union = (a: number, b: number) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };
  const bySession = new Map<string, number>();
  const byCopy = new Map<string, number>();
  files.forEach((file, i) => {
    for (const u of scans[i]!.data) {
      const n = sightings.push({ ...u.call }) - 1;
      parent.push(n);
      if (u.messageId !== null) {
        const k = JSON.stringify([sessionRoot(file.path), u.messageId]);
        const j = bySession.get(k);
        if (j === undefined) bySession.set(k, n);
        else union(n, j);
      }
      const c = u.call;
      const k = JSON.stringify([u.messageId ?? "", u.timeText, c.uncachedInput, c.cacheRead, c.cacheWrite, c.output]);
      const j = byCopy.get(k);
      if (j === undefined) byCopy.set(k, n);
      else union(n, j);
    }
  });
  const best: TokenCall[] = [];
  for (let n = 0; n < sightings.length; n += 1) {
    const r = find(n);
    if (r === n) best[n] = sightings[n]!;
    else if (earlierCall(sightings[n]!, best[r]!)) best[r] = sightings[n]!;
  }
  return sightings
    .map((_c, n) => n)
    .filter((n) => find(n) === n)
    .map((n) => best[n]!);
}

function kimiCliRun(seed: number): { files: TrajectoryFile[]; scans: FileScan<KimiCliUsage[]>[] } {
  const r = rng(seed);
  const paths = ["/r/s1/wire.jsonl", "/r/s1/subagents/a/wire.jsonl", "/r/s2/wire.jsonl", "/r/s3/subagents/b/wire.jsonl"]
    .filter(() => r(4) > 0)
    .sort(cmpStr);
  const files = paths.map((path) => ({ path, display: path.slice(3) }));
  const ids = [null, "", "m1", "m2", "m3", "m4"];
  const times = ["1772359201.5", "1772359202", "undefined", "1772359201.5 "];
  const scans = files.map((f) => {
    const data: KimiCliUsage[] = [];
    const n = r(12);
    for (let line = 1; line <= n; line += 1) {
      const timeText = times[r(times.length)]!;
      const t = Number(timeText);
      const timeMs = timeText === "undefined" ? null : Math.floor(t * 1000);
      data.push({ call: callAt(r, timeMs, f.display, line), timeText, messageId: ids[r(ids.length)]! });
    }
    return { data, warnings: [] };
  });
  return { files, scans };
}

// ---------------------------------------------------------------- kimi-code, as first written

type Raw = { time: unknown; model: string | undefined; scope: string | undefined };

function kimiCodeReference(files: TrajectoryFile[], scans: FileScan<KimiCodeScan>[], raw: Map<object, Raw>) {
  const sink = new Diagnostics();
  const keyOf = (r: KimiCodeScan["records"][number]) => {
    const x = raw.get(r)!;
    const c = r.call;
    return [
      String(x.time ?? "-"),
      x.model ?? "",
      x.scope ?? "",
      `${c.uncachedInput}/${c.cacheRead}/${c.cacheWrite}/${c.output}`,
    ].join("\u0000");
  };
  const calls: TokenCall[] = [];
  const own = new Map<string, number>();
  const duplicates = new Map<string, number>();
  const untimedCopies = new Map<string, number>();
  const repeated = new Map<string, number>();
  // A file whose own untimed records are, in order, the first of another's with more (or as many, earlier): a copy.
  const untimed = scans.map((s) =>
    s.data.records.filter((r) => r.markersBefore === s.data.markers && r.call.timeMs === null).map(keyOf),
  );
  const isCopy = (i: number) =>
    untimed[i]!.length > 0 &&
    untimed.some(
      (theirs, f) =>
        f !== i &&
        (theirs.length > untimed[i]!.length || (theirs.length === untimed[i]!.length && f < i)) &&
        untimed[i]!.every((k, n) => theirs[n] === k),
    );
  files.forEach((file, i) => {
    const { records, markers } = scans[i]!.data;
    const copy = isCopy(i);
    for (const r of records) {
      if (r.markersBefore !== markers) continue;
      if (copy && r.call.timeMs === null) {
        untimedCopies.set(file.display, (untimedCopies.get(file.display) ?? 0) + 1);
        continue;
      }
      const key = keyOf(r);
      const first = own.get(key);
      if (r.call.timeMs !== null) {
        if (first === undefined || first === -1) own.set(key, i);
        else {
          // Another file's record (a copied session), or the same file's again (a line written twice): once.
          const where = first !== i && files[first]!.display !== file.display ? duplicates : repeated;
          where.set(file.display, (where.get(file.display) ?? 0) + 1);
          continue;
        }
      } else if (first === undefined) own.set(key, -1);
      calls.push(r.call);
    }
  });
  for (const [file, n] of duplicates) sink.warn("TRAJECTORY_DUPLICATE_RECORDS", `${n}`, file, null);
  for (const [file, n] of untimedCopies) sink.warn("TRAJECTORY_DUPLICATE_RECORDS", `${n}`, file, null);
  for (const [file, n] of repeated) sink.warn("TRAJECTORY_DUPLICATE_RECORDS", `${n}`, file, null);
  const counted = new Set<string>();
  files.forEach((file, i) => {
    const { records, markers } = scans[i]!.data;
    let orphans = 0;
    for (const r of records) {
      const key = keyOf(r);
      if (r.markersBefore >= markers || own.has(key) || counted.has(key)) continue;
      counted.add(key);
      calls.push(r.call);
      orphans += 1;
    }
    if (orphans > 0) sink.warn("TRAJECTORY_PARENT_ABSENT", `${orphans}`, file.display, null);
  });
  calls.sort((a, b) => cmpStr(a.file, b.file) || a.line - b.line);
  warnUnplaced(calls, sink, "x");
  return { calls, warnings: sink.warnings };
}

function kimiCodeRun(seed: number) {
  const r = rng(seed);
  const paths = [
    "/r/a/agents/main/wire.jsonl",
    "/r/a/agents/sub/wire.jsonl",
    "/r/b/agents/main/wire.jsonl",
    "/r/c/wire.jsonl",
  ]
    .filter(() => r(4) > 0)
    .sort(cmpStr);
  const files = paths.map((path) => ({ path, display: path.slice(3) }));
  const rawTimes: unknown[] = [1772359201000, "1772359201000", 1772359202000, null, undefined, "-", -0, 0, "x"];
  const raw = new Map<object, Raw>();
  const scans = files.map((f) => {
    const records: KimiCodeScan["records"] = [];
    let markers = 0;
    const n = r(14);
    for (let line = 1; line <= n; line += 1) {
      if (r(6) === 0) {
        markers += 1;
        continue;
      }
      const time = rawTimes[r(rawTimes.length)];
      const timeMs = typeof time === "number" && time > 0 ? time : null;
      const model = [undefined, "kimi-k3", ""][r(3)];
      const scope = [undefined, "turn"][r(2)];
      const rec = {
        call: callAt(r, timeMs, f.display, line),
        time: timeKey(time),
        model: model ?? "",
        scope: scope ?? "",
        markersBefore: markers,
      };
      raw.set(rec, { time, model, scope });
      records.push(rec);
    }
    return { data: { records, markers }, warnings: [] };
  });
  return { files, scans, raw };
}

describe("cross-file merges against their rules read plainly", () => {
  it("kimi-cli: the same calls (earliest sighting of each linked set), in the same order", () => {
    let linked = 0;
    for (let seed = 1; seed <= 400; seed += 1) {
      const { files, scans } = kimiCliRun(seed);
      const got = kimiCliCounter.merge(files, scans);
      const want = kimiCliReference(files, scans);
      expect(shown(got.calls), `seed ${seed}`).toEqual(shown(want));
      const sightings = scans.reduce((a, s) => a + s.data.length, 0);
      if (want.length < sightings) linked += 1;
    }
    expect(linked).toBeGreaterThan(100); // the runs do link sightings
  });

  it("kimi-code: the same calls, order and warnings (copies, forks, absent parents, no times)", () => {
    let kinds = 0;
    for (let seed = 1; seed <= 400; seed += 1) {
      const { files, scans, raw } = kimiCodeRun(seed);
      const got = kimiCodeCounter.merge(files, scans);
      const want = kimiCodeReference(files, scans, raw);
      expect(shown(got.calls), `seed ${seed}`).toEqual(shown(want.calls));
      expect(
        got.warnings.map((w) => [w.code, w.file, w.line, w.code === "TRAJECTORY_UNPLACED_CALLS" ? w.message : ""]),
        `seed ${seed}`,
      ).toEqual(
        want.warnings.map((w) => [
          w.code,
          w.file,
          w.line,
          w.code === "TRAJECTORY_UNPLACED_CALLS" ? w.message.replace("(x)", "(the usage.record carries no time)") : "",
        ]),
      );
      const counts = (code: string, ws: { code: string; message: string }[]) =>
        ws.filter((w) => w.code === code).map((w) => Number.parseInt(w.message, 10));
      for (const code of ["TRAJECTORY_DUPLICATE_RECORDS", "TRAJECTORY_PARENT_ABSENT"])
        expect(counts(code, got.warnings), `seed ${seed}`).toEqual(counts(code, want.warnings));
      if (want.warnings.some((w) => w.code !== "TRAJECTORY_UNPLACED_CALLS")) kinds += 1;
    }
    expect(kinds).toBeGreaterThan(50);
  });
});
