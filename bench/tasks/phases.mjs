// Bench task: the parts of `tokens` measured on their own, in this one thread, through the library
// (dist/): the per-file scans (FormatCounter.scan), the cross-file merge (FormatCounter.merge, then
// the sort of the calls, as readTrajectory does), and the time parsing (the format's time reader,
// its cost per call measured over at least 300k calls on the run's own times, times the usage lines).
// Usage: node bench/tasks/phases.mjs FORMAT ROOT REPEAT [USAGE_LINES]   (prints one JSON line;
// each part: the best of REPEAT passes).
import { readFileSync } from "node:fs";
import { relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import fg from "fast-glob";

const [format, root, repeatArg, usageLinesArg] = process.argv.slice(2);
const repeat = Number(repeatArg ?? 3);
const DIST = resolve(import.meta.dirname, "..", "..", "dist");
const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/** The exported function `name` of dist/: from trajectory/common.js, else the first dist file that exports it. */
async function libFunction(name) {
  const common = await import(pathToFileURL(resolve(DIST, "extractors/trajectory/common.js")).href);
  if (typeof common[name] === "function") return { fn: common[name], where: "extractors/trajectory/common.js" };
  for (const f of (await fg("**/*.js", { cwd: DIST })).sort(cmp)) {
    if (!readFileSync(resolve(DIST, f), "utf8").includes(`export function ${name}(`)) continue;
    const m = await import(pathToFileURL(resolve(DIST, f)).href);
    if (typeof m[name] === "function") return { fn: m[name], where: f };
  }
  return null;
}

const out = { format };
try {
  const { COUNTERS } = await import(pathToFileURL(resolve(DIST, "extractors/trajectory/counters.js")).href);
  const counter = COUNTERS[format];
  const abs = resolve(root);
  const patterns = format.startsWith("kimi") ? ["**/wire.jsonl", "**/wire.jsonl.gz"] : ["**/*.jsonl", "**/*.jsonl.gz"];
  const files = (await fg(patterns, { cwd: abs, onlyFiles: true, dot: true }))
    .map((e) => resolve(abs, e))
    .sort(cmp)
    .map((path) => ({ path, display: relative(abs, path).split(sep).join("/") }));
  out.files = files.length;
  let calls = [];
  let scanS = Infinity;
  let mergeS = Infinity;
  for (let k = 0; k < repeat; k += 1) {
    const t0 = performance.now();
    const scans = [];
    for (const f of files) scans.push(await counter.scan(f));
    const t1 = performance.now();
    const merged = counter.merge(files, scans);
    calls = [...merged.calls].sort((a, b) => {
      if (a.timeMs !== b.timeMs) {
        if (a.timeMs === null) return 1;
        if (b.timeMs === null) return -1;
        return a.timeMs - b.timeMs;
      }
      return cmp(a.file, b.file) || a.line - b.line;
    });
    const t2 = performance.now();
    scanS = Math.min(scanS, (t1 - t0) / 1000);
    mergeS = Math.min(mergeS, (t2 - t1) / 1000);
  }
  out.scanS = scanS;
  out.mergeS = mergeS;
  out.calls = calls.length;
  out.total = calls.reduce((a, c) => a + c.uncachedInput + c.cacheRead + c.cacheWrite + c.output, 0);
  // Time parsing: the reader of this format's times, once per usage line, on the run's own times.
  const name = format === "kimi-cli" ? "epochSecondsMs" : format === "kimi-code" ? "epochMs" : "isoMs";
  const found = await libFunction(name);
  const ms = calls.map((c) => c.timeMs).filter((t) => t !== null);
  if (found && ms.length > 0) {
    const values =
      name === "isoMs"
        ? ms.map((t) => new Date(t).toISOString())
        : name === "epochSecondsMs"
          ? ms.map((t) => (t + 0.4567) / 1000)
          : ms;
    const n = Number(usageLinesArg ?? calls.length) || calls.length;
    // Warmed up first, then timed over at least 300k calls (a short loop times the JIT, not the parser).
    const m = Math.max(n, 300_000);
    let sink = 0;
    for (let i = 0; i < 50_000; i += 1) sink += found.fn(values[i % values.length]) ?? 0;
    let perCall = Infinity;
    for (let k = 0; k < repeat; k += 1) {
      const t0 = performance.now();
      for (let i = 0; i < m; i += 1) sink += found.fn(values[i % values.length]) ?? 0;
      perCall = Math.min(perCall, (performance.now() - t0) / 1000 / m);
    }
    out.timeS = perCall * n;
    out.timeCalls = n;
    out.timeFn = `${name} (${found.where})`;
    out.sink = sink > 0;
  } else out.timeFn = `${name}: not found in dist/`;
} catch (err) {
  out.error = String(err?.stack ?? err).slice(0, 500);
}
process.stdout.write(`${JSON.stringify(out)}\n`);
