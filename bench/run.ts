/**
 * `npm run bench`: the performance benchmarks of issue 7.
 *
 * Generates large inputs deterministically (bench/gen.ts) into a scratch
 * folder (`$BENCH_DIR`, default a new folder under the OS temp dir; removed at
 * the end unless `--keep`), runs each of our commands and its reference
 * command in this same session, one after the other on the same files, and
 * writes `bench/results.md` (wall time, MB/s, ratio to the reference, peak RSS,
 * the machine's core count).
 *
 * Options: `--only tokens,listing,tree,janitor,build` (a subset), `--keep`.
 * Environment: `BENCH_GB` (GB of session logs per format, default 2),
 * `BENCH_LISTING_LINES` (default 2000000), `BENCH_TREE_ENTRIES` (500000),
 * `BENCH_JANITOR_GB` (1), `BENCH_BUILD_GB` (GB of trajectories at 4x, default 5),
 * `BENCH_REPEAT` (runs per command, best taken; default 2).
 *
 * Every command runs as a child process under `/usr/bin/time` (peak RSS);
 * our commands run from a copy of `dist/` taken at the start (`npm run build`
 * first, which the npm script does), so that a rebuild of the repository
 * during the run cannot change the code between two measured commands. Inputs sit in the page cache (they were just written, and the
 * reference reads them first), so the ratios compare CPU cost, not the disk.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { cpus, freemem, tmpdir, totalmem } from "node:os";
import { join, relative, resolve } from "node:path";
import {
  FORMATS,
  generateJanitor,
  generateListing,
  generateRun,
  generateTree,
  padSession,
  blobPool,
  prng,
  type Format,
} from "./gen.js";

const REPO = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const only = (() => {
  const i = args.indexOf("--only");
  return i >= 0 ? new Set(args[i + 1]!.split(",")) : null;
})();
const keep = args.includes("--keep");
const want = (name: string): boolean => only === null || only.has(name);
const GB = 1e9;
const env = process.env;
const FORMAT_BYTES = Number(env["BENCH_GB"] ?? 2) * GB;
const LISTING_LINES = Number(env["BENCH_LISTING_LINES"] ?? 2_000_000);
const TREE_ENTRIES = Number(env["BENCH_TREE_ENTRIES"] ?? 500_000);
const JANITOR_BYTES = Number(env["BENCH_JANITOR_GB"] ?? 1) * GB;
const BUILD_BYTES = Number(env["BENCH_BUILD_GB"] ?? 5) * GB;
const REPEAT = Number(env["BENCH_REPEAT"] ?? 2);
const HAS_TIME = existsSync("/usr/bin/time");

const scratch = env["BENCH_DIR"] ? resolve(env["BENCH_DIR"]) : mkdtempSync(join(tmpdir(), "ptb-bench-"));
mkdirSync(scratch, { recursive: true });

// The commands run from a snapshot of the built tool in the scratch folder: other work in the
// repository (a test run rebuilding dist/) must not change the code between two measured runs.
const APP = join(scratch, "app");
for (const d of ["dist", "bin", "templates", join("bench", "tasks")]) {
  if (existsSync(join(REPO, d))) cpSync(join(REPO, d), join(APP, d), { recursive: true });
}
for (const f of ["package.json", "package-lock.json"]) cpSync(join(REPO, f), join(APP, f));
symlinkSync(join(REPO, "node_modules"), join(APP, "node_modules"), "dir");
const BIN = join(APP, "bin", "ptb-manifest.js");
const TASKS = join(APP, "bench", "tasks");
const say = (m: string): void => {
  process.stderr.write(`[bench] ${m}\n`);
};

/** One measured run of a command. */
interface Run {
  wallS: number;
  rssMB: number | null;
  stdout: string;
  code: number;
}

/** Runs `cmd args` under /usr/bin/time; stdout is kept (as text) unless `discard`. */
async function once(
  cmd: string,
  argv: string[],
  opts: { env?: NodeJS.ProcessEnv; discard?: boolean; shell?: boolean } = {},
): Promise<Run> {
  const timeFile = join(scratch, ".time");
  const full = HAS_TIME ? ["/usr/bin/time", "-f", "%M", "-o", timeFile, cmd, ...argv] : [cmd, ...argv];
  const t0 = performance.now();
  const child = spawn(full[0]!, full.slice(1), {
    env: { ...process.env, ...opts.env },
    stdio: ["ignore", opts.discard ? "ignore" : "pipe", "pipe"],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on("data", (c: Buffer) => out.push(c));
  child.stderr?.on("data", (c: Buffer) => err.push(c));
  const code: number = await new Promise((res) => child.on("close", (c) => res(c ?? -1)));
  const wallS = (performance.now() - t0) / 1000;
  let rssMB: number | null = null;
  if (HAS_TIME) {
    const lines = readFileSync(timeFile, "utf8").trim().split("\n");
    rssMB = Number(lines[lines.length - 1]) / 1024;
  }
  if (code !== 0) say(`  exit ${code}: ${cmd} ${argv.join(" ")}\n${Buffer.concat(err).toString().slice(-2000)}`);
  return { wallS, rssMB, stdout: Buffer.concat(out).toString(), code };
}

/** Best (lowest wall time) of `REPEAT` runs; RSS is the largest seen. */
async function best(
  cmd: string,
  argv: string[],
  opts: { env?: NodeJS.ProcessEnv; discard?: boolean } = {},
  repeat = REPEAT,
): Promise<Run> {
  let b: Run | null = null;
  let rss = 0;
  for (let i = 0; i < repeat; i += 1) {
    const r = await once(cmd, argv, opts);
    rss = Math.max(rss, r.rssMB ?? 0);
    if (b === null || r.wallS < b.wallS) b = r;
  }
  return { ...b!, rssMB: HAS_TIME ? rss : null };
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out.push(join(e.parentPath, e.name));
  }
  return out.sort();
}

const bytesOf = (files: string[]): number => files.reduce((a, f) => a + statSync(f).size, 0);
const mb = (bytes: number): string => (bytes / 1e6).toFixed(0);
const s = (x: number): string => x.toFixed(2);
const rss = (r: Run | null): string => (r?.rssMB == null ? "n/a" : r.rssMB.toFixed(0));
const ratio = (a: Run | null, b: Run | null): string => (a && b ? `${(a.wallS / b.wallS).toFixed(2)}x` : "n/a");
const rate = (bytes: number, r: Run | null): string => (r ? (bytes / 1e6 / r.wallS).toFixed(0) : "n/a");

const sections: string[] = [];
/** Measured values the targets of issue 7 are checked against. */
const metrics = {
  tokens: [] as { format: string; vsWc: number; vsCc: number | null; exact: boolean }[],
  listingLinesPerS: null as number | null,
  treeVsFind: null as number | null,
  build: [] as {
    k: number;
    bytes: number;
    coldS: number;
    warmS: number;
    coldRss: number | null;
    warmRss: number | null;
    ncRss: number | null;
    same: boolean;
  }[],
};
const summary: string[][] = [];
const notes: string[] = [];

/** Installs ccusage into the scratch folder (never a project dependency); null when npm cannot. */
function installCcusage(): string | null {
  const dir = join(scratch, "ccusage");
  say("installing ccusage@20.0.24 into the scratch folder");
  const r = spawnSync(
    "npm",
    ["install", "--prefix", dir, "--no-save", "--no-audit", "--no-fund", "--loglevel=error", "ccusage@20.0.24"],
    { encoding: "utf8" },
  );
  const bin = join(dir, "node_modules", "ccusage", "src", "cli.js");
  if (r.status !== 0 || !existsSync(bin)) {
    notes.push(`ccusage could not be installed (${(r.stderr || "").trim().slice(0, 200)}): its columns are n/a.`);
    return null;
  }
  return bin;
}

// ccusage reads these locations (its README): CLAUDE_CONFIG_DIR/projects, CODEX_HOME/sessions,
// PI_AGENT_DIR/sessions, KIMI_DATA_DIR/sessions (its `kimi` source reads both Kimi formats).
const CCUSAGE: Partial<Record<Format, { sub: string; envVar: string }>> = {
  "claude-code": { sub: "claude", envVar: "CLAUDE_CONFIG_DIR" },
  codex: { sub: "codex", envVar: "CODEX_HOME" },
  pi: { sub: "pi", envVar: "PI_AGENT_DIR" },
  "kimi-cli": { sub: "kimi", envVar: "KIMI_DATA_DIR" },
  "kimi-code": { sub: "kimi", envVar: "KIMI_DATA_DIR" },
};

/** Sums the totals ccusage's `session --json` reports (its key names vary a little by source). */
function ccusageTotal(stdout: string): number | null {
  try {
    const j = JSON.parse(stdout) as { totals?: Record<string, number> };
    const t = j.totals ?? {};
    return t["totalTokens"] ?? null;
  } catch {
    return null;
  }
}

async function benchTokens(ccusage: string | null): Promise<void> {
  const rows: string[] = [];
  for (const format of FORMATS) {
    const root = join(scratch, "traj", format);
    say(`tokens/${format}: generating ${mb(FORMAT_BYTES)} MB`);
    const gen = await generateRun(format, root, FORMAT_BYTES, 8);
    const files = gen.files.map((f) => join(root, f));
    const bytes = bytesOf(files);
    say(`tokens/${format}: wc -l`);
    await once("cat", files, { discard: true }); // into the page cache
    const wc = await best("wc", ["-l", ...files], { discard: true });
    say(`tokens/${format}: ptb-manifest tokens`);
    const ours = await best("node", [BIN, "tokens", "--format", format, root, "--json"]);
    let ok = "?";
    try {
      const got = JSON.parse(ours.stdout) as { total: number; calls: number };
      ok =
        got.total === gen.totals.total && got.calls === gen.totals.calls
          ? "yes"
          : `NO (${got.total} vs ${gen.totals.total})`;
    } catch {
      ok = "NO (no JSON)";
    }
    let cc: Run | null = null;
    let ccOk = "";
    const spec = CCUSAGE[format];
    if (ccusage && spec) {
      say(`tokens/${format}: ccusage ${spec.sub} session`);
      const home = join(scratch, "home");
      mkdirSync(home, { recursive: true });
      cc = await best("node", [ccusage, spec.sub, "session", "--json", "--offline"], {
        env: { HOME: home, [spec.envVar]: root, TZ: "UTC", NO_COLOR: "1" },
      });
      const t = ccusageTotal(cc.stdout);
      ccOk =
        t === null ? " (no total read)" : t === gen.totals.total ? "" : ` (ccusage total ${t} ≠ ${gen.totals.total})`;
      if (cc.code !== 0) cc = null;
    }
    metrics.tokens.push({
      format,
      vsWc: ours.wallS / wc.wallS,
      vsCc: cc ? ours.wallS / cc.wallS : null,
      exact: ok === "yes",
    });
    rows.push(
      `| ${format} | ${mb(bytes)} | ${files.length} | ${gen.totals.calls} | ${s(wc.wallS)} | ${s(ours.wallS)} | ${rate(bytes, ours)} | **${ratio(ours, wc)}** | ${cc ? s(cc.wallS) : "n/a"} | ${cc ? `**${ratio(ours, cc)}**${ccOk}` : "n/a"} | ${rss(ours)} | ${rss(cc)} | ${ok} |`,
    );
    summary.push([
      `tokens ${format} (${mb(bytes)} MB)`,
      `${s(ours.wallS)} s, ${rate(bytes, ours)} MB/s`,
      `${ratio(ours, wc)} of wc -l${cc ? `, ${ratio(ours, cc)} of ccusage` : ""}`,
      `${rss(ours)} MB`,
    ]);
    rmSync(root, { recursive: true, force: true });
  }
  sections.push(
    [
      "## Token extraction (`ptb-manifest tokens --format F DIR --json`)",
      "",
      `Session logs generated by \`bench/gen.ts\` (8 files per format), read after \`cat\` put them in the page cache. Reference: \`wc -l\` on the same files; peer: \`ccusage <source> session --json --offline\` (ccusage 20.0.24, its native binary, parallel file loading) pointed at the same folder. "ratio" = our wall time / theirs (< 1 is faster). "exact" = our total and call count equal the generator's.`,
      "",
      "| format | MB | files | calls | wc -l s | ours s | ours MB/s | ours / wc -l | ccusage s | ours / ccusage | ours RSS MB | ccusage RSS MB | exact |",
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
      ...rows,
    ].join("\n"),
  );
}

async function benchListing(): Promise<void> {
  const path = join(scratch, "listing", "listing.tsv");
  say(`listing: generating ${LISTING_LINES} lines`);
  const bytes = await generateListing(path, LISTING_LINES);
  await once("cat", [path], { discard: true });
  const wc = await best("wc", ["-l", path], { discard: true });
  const ours = await best("node", [join(TASKS, "listing.mjs"), path, "/pvc/ptb/bench"]);
  const got = JSON.parse(ours.stdout || "{}") as { entries?: number; observations?: number };
  const lps = (got.entries ?? 0) / ours.wallS;
  metrics.listingLinesPerS = lps;
  sections.push(
    [
      "## PVC listing (`listing.tsv`, read by `readListingTsv` + `observePvcEntry`)",
      "",
      "| lines | MB | wc -l s | ours s | lines/s | MB/s | ours / wc -l | RSS MB | observations |",
      "|---|---|---|---|---|---|---|---|---|",
      `| ${got.entries} | ${mb(bytes)} | ${s(wc.wallS)} | ${s(ours.wallS)} | **${(lps / 1e6).toFixed(2)} M** | ${rate(bytes, ours)} | ${ratio(ours, wc)} | ${rss(ours)} | ${got.observations} |`,
    ].join("\n"),
  );
  summary.push([
    `listing.tsv (${(LISTING_LINES / 1e6).toFixed(0)}M lines, ${mb(bytes)} MB)`,
    `${s(ours.wallS)} s, ${(lps / 1e6).toFixed(2)} M lines/s`,
    `${ratio(ours, wc)} of wc -l`,
    `${rss(ours)} MB`,
  ]);
  rmSync(join(scratch, "listing"), { recursive: true, force: true });
}

async function benchTree(): Promise<void> {
  const dir = join(scratch, "tree", "pvc");
  say(`tree: materialising ${TREE_ENTRIES} entries`);
  const _n = await generateTree(dir, TREE_ENTRIES);
  await once("find", [dir, "-printf", "%T@ %p\\n"], { discard: true }); // warm the dentry and inode caches
  const find = await best("find", [dir, "-printf", "%T@ %p\\n"], { discard: true });
  const ours = await best("node", [join(TASKS, "pvc-live.mjs"), dir, "/pvc/ptb/bench"]);
  const got = JSON.parse(ours.stdout || "{}") as { entries?: number; impl?: string };
  metrics.treeVsFind = ours.wallS / find.wallS;
  const findCount = spawnSync("sh", ["-c", `find '${dir}' | wc -l`], { encoding: "utf8" }).stdout.trim();
  sections.push(
    [
      "## Live PVC scan (a materialised tree)",
      "",
      `Ours: ${got.impl ?? "?"}. Reference: \`find DIR -printf '%T@ %p\\n'\` (output discarded), run first to warm the caches.`,
      "",
      "| entries | find s | ours s | entries/s | ours / find | RSS MB |",
      "|---|---|---|---|---|---|",
      `| ${got.entries ?? "?"} (find: ${findCount}) | ${s(find.wallS)} | ${s(ours.wallS)} | ${((got.entries ?? 0) / ours.wallS / 1e3).toFixed(0)} k | **${ratio(ours, find)}** | ${rss(ours)} |`,
    ].join("\n"),
  );
  summary.push([
    `live PVC scan (${got.entries} entries)`,
    `${s(ours.wallS)} s`,
    `${ratio(ours, find)} of find`,
    `${rss(ours)} MB`,
  ]);
  rmSync(join(scratch, "tree"), { recursive: true, force: true });
}

async function benchJanitor(): Promise<void> {
  const sources = join(scratch, "janitor-src");
  const dir = join(sources, "bench", "janitor");
  say(`janitor: generating ${mb(JANITOR_BYTES)} MB`);
  const gen = await generateJanitor(dir, JANITOR_BYTES);
  const parts = gen.parts.map((p) => join(dir, p));
  const disk = bytesOf(parts);
  await once("cat", parts, { discard: true });
  const plain = parts.filter((p) => !p.endsWith(".gz"));
  const gz = parts.filter((p) => p.endsWith(".gz"));
  const ref = await best(
    "sh",
    ["-c", `{ zcat ${gz.map((p) => `'${p}'`).join(" ")}; cat ${plain.map((p) => `'${p}'`).join(" ")}; } | wc -l`],
    { discard: true },
  );
  const ours = await best("node", [join(TASKS, "janitor.mjs"), sources, "/pvc/ptb/bench"]);
  const got = JSON.parse(ours.stdout || "{}") as { observations?: number; archives?: number };
  sections.push(
    [
      "## Janitor log (rotated: three `.gz` parts, `.1`, the live file)",
      "",
      "Reference: `{ zcat *.gz; cat the rest; } | wc -l` (decompressing is part of both).",
      "",
      "| MB (uncompressed) | MB on disk | reference s | ours s | MB/s (uncompressed) | ours / reference | RSS MB | observations |",
      "|---|---|---|---|---|---|---|---|",
      `| ${mb(gen.bytes)} | ${mb(disk)} | ${s(ref.wallS)} | ${s(ours.wallS)} | ${rate(gen.bytes, ours)} | **${ratio(ours, ref)}** | ${rss(ours)} | ${got.observations} (${got.archives} archives) |`,
    ].join("\n"),
  );
  summary.push([
    `janitor log (${mb(gen.bytes)} MB, rotated)`,
    `${s(ours.wallS)} s, ${rate(gen.bytes, ours)} MB/s`,
    `${ratio(ours, ref)} of zcat+cat | wc -l`,
    `${rss(ours)} MB`,
  ]);
  rmSync(sources, { recursive: true, force: true });
}

/** Copies the embedded sources/ with every read trajectory padded `factor` times (no call changes). */
async function scaleSweep(dst: string, factor: number): Promise<number> {
  cpSync(join(REPO, "sources"), dst, { recursive: true });
  const cells = JSON.parse(readFileSync(join(dst, "cells.json"), "utf8")) as {
    cells: { cell: string; trajectory_format: Format; excluded?: string }[];
  };
  const blobs = blobPool(31, 300, 300, 24_000);
  const r = prng(37);
  let bytes = 0;
  for (const c of cells.cells) {
    if (c.excluded) continue;
    for (const f of filesUnder(join(dst, c.cell, "trajectory"))) {
      bytes += await padSession(c.trajectory_format, readFileSync(f, "utf8"), factor, blobs, r, f);
    }
  }
  return bytes;
}

async function benchBuild(): Promise<void> {
  const cells = JSON.parse(readFileSync(join(REPO, "sources", "cells.json"), "utf8")) as {
    cells: { cell: string; excluded?: string }[];
  };
  let base = 0;
  for (const c of cells.cells)
    if (!c.excluded) base += bytesOf(filesUnder(join(REPO, "sources", c.cell, "trajectory")));
  const rows: string[] = [];
  const ref0 = join(scratch, "out-ref");
  await once("node", [BIN, "build", "--sources", join(REPO, "sources"), "--out", ref0, "--quiet", "--no-cache"], {
    discard: true,
  });
  const refManifest = readFileSync(join(ref0, "manifest.json"), "utf8");
  let first: { bytes: number; wall: number } | null = null;
  for (const k of [1, 2, 4]) {
    const target = (BUILD_BYTES * k) / 4;
    const factor = target / base;
    const src = join(scratch, `sweep-${k}x`);
    say(`build ${k}x: padding the sweep's trajectories ${factor.toFixed(0)} times`);
    const trajBytes = await scaleSweep(src, factor);
    const all = filesUnder(src);
    const inputBytes = bytesOf(all);
    await once("cat", all, { discard: true });
    const wc = await best("wc", ["-l", ...all], { discard: true }, 1);
    const cache = join(scratch, `cache-${k}x`);
    const out = join(scratch, `out-${k}x`);
    say(`build ${k}x: cold build (${mb(inputBytes)} MB)`);
    const cold = await once("node", [BIN, "build", "--sources", src, "--out", out, "--quiet", "--cache-dir", cache], {
      discard: true,
    });
    const manifestOk = readFileSync(join(out, "manifest.json"), "utf8") === refManifest;
    const coldFiles = new Map(readdirSync(out).map((f) => [f, readFileSync(join(out, f))]));
    say(`build ${k}x: warm build`);
    const warm = await best("node", [BIN, "build", "--sources", src, "--out", out, "--quiet", "--cache-dir", cache], {
      discard: true,
    });
    const sameBytes = [...coldFiles].every(([f, b]) => b.equals(readFileSync(join(out, f))));
    const nocache =
      k === 4
        ? await once(
            "node",
            [BIN, "build", "--sources", src, "--out", join(scratch, "out-nc"), "--quiet", "--no-cache"],
            { discard: true },
          )
        : null;
    const perGB = cold.wallS / (inputBytes / GB);
    metrics.build.push({
      k,
      bytes: inputBytes,
      coldS: cold.wallS,
      warmS: warm.wallS,
      coldRss: cold.rssMB,
      warmRss: warm.rssMB,
      ncRss: nocache?.rssMB ?? null,
      same: manifestOk && sameBytes,
    });
    if (first === null) first = { bytes: inputBytes, wall: cold.wallS };
    rows.push(
      `| ${k}x | ${mb(trajBytes)} | ${mb(inputBytes)} | ${s(wc.wallS)} | ${s(cold.wallS)} | ${s(perGB)} | ${rate(inputBytes, cold)} | ${rss(cold)} | ${s(warm.wallS)} | **${(warm.wallS / cold.wallS).toFixed(3)}** | ${rss(warm)} | ${nocache ? `${s(nocache.wallS)} s, ${rss(nocache)} MB` : "-"} | ${manifestOk ? "yes" : "NO"} / ${sameBytes ? "yes" : "NO"} |`,
    );
    if (k === 4) {
      summary.push([
        `build, sweep at ${mb(inputBytes)} MB (4x)`,
        `cold ${s(cold.wallS)} s, ${rate(inputBytes, cold)} MB/s`,
        `warm ${(warm.wallS / cold.wallS).toFixed(3)} of cold`,
        `${rss(cold)} MB`,
      ]);
    }
    rmSync(src, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
    rmSync(join(scratch, "out-nc"), { recursive: true, force: true });
  }
  rmSync(ref0, { recursive: true, force: true });
  sections.push(
    [
      "## End to end: `build` of the embedded sweep, trajectories padded 1x / 2x / 4x",
      "",
      'Every trajectory file of the nine built cells is padded with lines that carry no usage (tool outputs of its own format), so the manifest must not change: "same" checks `manifest.json` against the unpadded build, and that the warm build wrote byte-identical files. Cold = empty cache folder (the build fills it); warm = the same command again, nothing changed. `--no-cache` = no cache read or written. Reference: `wc -l` over every input file.',
      "",
      "| scale | trajectories MB | all inputs MB | wc -l s | cold s | cold s/GB | cold MB/s | cold RSS MB | warm s | warm / cold | warm RSS MB | --no-cache | same manifest / same bytes |",
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
      ...rows,
    ].join("\n"),
  );
}

/** The targets of issue 7, checked against this run's numbers. */
function targets(): string[] {
  const rows: string[] = [];
  const yes = (b: boolean): string => (b ? "yes" : "**no**");
  for (const t of metrics.tokens) {
    rows.push(`| tokens ${t.format}: within 2x of \`wc -l\` | ${t.vsWc.toFixed(2)}x | ${yes(t.vsWc <= 2)} |`);
    if (t.vsCc !== null)
      rows.push(`| tokens ${t.format}: faster than ccusage | ${t.vsCc.toFixed(2)}x of its time | ${yes(t.vsCc < 1)} |`);
    rows.push(
      `| tokens ${t.format}: exact totals | ${t.exact ? "equal to the generator's" : "differ"} | ${yes(t.exact)} |`,
    );
  }
  if (metrics.listingLinesPerS !== null)
    rows.push(
      `| listing parse ≥ 1M lines/s | ${(metrics.listingLinesPerS / 1e6).toFixed(2)} M lines/s | ${yes(metrics.listingLinesPerS >= 1e6)} |`,
    );
  if (metrics.treeVsFind !== null)
    rows.push(
      `| live scan within 1.5x of \`find\` | ${metrics.treeVsFind.toFixed(2)}x | ${yes(metrics.treeVsFind <= 1.5)} |`,
    );
  if (metrics.build.length > 0) {
    const rss = Math.max(...metrics.build.flatMap((b) => [b.coldRss ?? 0, b.warmRss ?? 0, b.ncRss ?? 0]));
    rows.push(
      `| build peak RSS < 300 MB (1x, 2x, 4x; cold, warm, --no-cache) | max ${rss.toFixed(0)} MB | ${yes(rss < 300)} |`,
    );
    const a = metrics.build[0]!;
    const z = metrics.build[metrics.build.length - 1]!;
    const growth = z.coldS / a.coldS;
    const bytesGrowth = z.bytes / a.bytes;
    rows.push(
      `| build time linear in input bytes | ${bytesGrowth.toFixed(2)}x the bytes took ${growth.toFixed(2)}x the time (1x → 4x) | ${yes(growth <= bytesGrowth * 1.25)} |`,
    );
    const w = z.warmS / z.coldS;
    rows.push(
      `| warm rebuild < 1/10 of cold (4x) | ${w.toFixed(3)} (${z.warmS.toFixed(2)} s / ${z.coldS.toFixed(2)} s) | ${yes(w < 0.1)} |`,
    );
    rows.push(
      `| cache never changes an output byte | ${metrics.build.every((b) => b.same) ? "warm = cold, byte for byte, at every scale" : "DIFFERENT"} | ${yes(metrics.build.every((b) => b.same))} |`,
    );
  }
  return rows;
}

function machine(): string {
  const nproc = spawnSync("nproc", [], { encoding: "utf8" }).stdout.trim();
  const cpu = cpus()[0]?.model ?? "?";
  return [
    `- \`nproc\`: **${nproc}** (${cpu})`,
    `- memory: ${(totalmem() / 2 ** 30).toFixed(0)} GiB (${(freemem() / 2 ** 30).toFixed(0)} GiB free at the start)`,
    `- Node.js ${process.version}, ${process.platform}/${process.arch}`,
    `- scratch folder on: ${spawnSync("df", ["-h", "--output=source,fstype", scratch], { encoding: "utf8" }).stdout.trim().split("\n").pop()}`,
    `- repeats: best of ${REPEAT} per command (cold builds: one run each); peak RSS from \`/usr/bin/time -f %M\`${HAS_TIME ? "" : " (not installed: RSS n/a)"}`,
  ].join("\n");
}

async function main(): Promise<void> {
  const notesFile = join(REPO, "bench", "notes.md");
  say(`scratch folder: ${scratch}`);
  const started = new Date();
  const ccusage = want("tokens") ? installCcusage() : null;
  if (want("tokens")) await benchTokens(ccusage);
  if (want("listing")) await benchListing();
  if (want("tree")) await benchTree();
  if (want("janitor")) await benchJanitor();
  if (want("build")) await benchBuild();
  const text = [
    "# Benchmarks (issue 7)",
    "",
    `Written by \`npm run bench\` (bench/run.ts) on ${started.toISOString().slice(0, 10)}; every ratio compares commands run one after the other in that one session, on the same files.`,
    "",
    machine(),
    "",
    "## Targets",
    "",
    "| target | measured | met |",
    "|---|---|---|",
    ...targets(),
    "",
    "## Summary",
    "",
    "| what | ours | ratio | peak RSS |",
    "|---|---|---|---|",
    ...summary.map((r) => `| ${r.join(" | ")} |`),
    "",
    ...sections.flatMap((x) => [x, ""]),
    ...(notes.length ? ["## Notes from this run", "", ...notes.map((n) => `- ${n}`), ""] : []),
    ...(existsSync(notesFile) ? [readFileSync(notesFile, "utf8")] : []),
  ].join("\n");
  const target = join(REPO, "bench", only ? "results.partial.md" : "results.md");
  writeFileSync(target, text);
  say(`wrote ${relative(REPO, target)}`);
  if (!keep && !env["BENCH_DIR"]) rmSync(scratch, { recursive: true, force: true });
  else if (!keep) for (const d of readdirSync(scratch)) rmSync(join(scratch, d), { recursive: true, force: true });
}

try {
  await main();
} finally {
  if (!keep && !env["BENCH_DIR"]) rmSync(scratch, { recursive: true, force: true });
}
