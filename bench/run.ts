/**
 * `npm run bench`: the performance benchmark (README: Performance). One run
 * measures every target of the performance work side by side on this
 * machine and writes `bench/results.md` (a targets table, each row met / not
 * met with the measured value, then the measurements) and the README's
 * performance table (the block between `<!-- bench:begin` and
 * `<!-- bench:end -->`, copied from results.md, so the two cannot drift).
 *
 * Sections (`--only a,b` runs some; default: all five of the first line):
 * - `tokens`  `ptb-manifest tokens --format F DIR --json` on 1 GB per format
 *             (bench/gen.ts, 8 sessions) vs `wc -l` and ccusage 20.0.24; the
 *             tool's default threads and `PTB_MANIFEST_THREADS=1`.
 * - `cell`    the same at one cell's realistic size: ~200 MB over ~30 files
 *             (the embedded sweep's cell of the format, its sessions,
 *             sub-agents, forks and resumes padded with lines that carry no
 *             usage, plus generated sessions of assorted sizes).
 * - `tree`    the live PVC walk (readPvcTree) of a 500k-entry tree vs
 *             `find -printf`, on one thread and with the default.
 * - `startup` `--help` and `tokens` on a small file, wall time.
 * - `phases`  through the library (dist/): the per-file scans, the cross-file
 *             merge and the time parsing, each on its own, in one thread.
 * - `listing`, `janitor`, `build` (not in the default run): the listing and
 *   janitor readers and the end-to-end build of the padded sweep.
 *
 * Options: `--scale X` (multiplies every input size: `--scale 0.01` for a
 * quick partial run), `--repeat N` (runs per command, best taken; default 3),
 * `--readme` (only rewrite the README block from bench/results.md),
 * `--clean` (remove the scratch folder and exit). A run with `--only` or a
 * scale other than 1 writes `results.partial.md` in the scratch folder, not
 * bench/results.md.
 *
 * Scratch folder: `$BENCH_DIR`, default `<os tmpdir>/ptb-manifest-bench`.
 * Inputs are generated once into `inputs-<key>/` there (key: a hash of
 * bench/gen.ts, the PRNG it uses and this file's input recipe; the cell
 * inputs also of the sweep files they pad) and kept, so a second run does
 * not regenerate; folders of another key are removed at the start. ccusage
 * is installed there once. Remove it all with `--clean` (or `rm -rf` the
 * folder).
 *
 * Every command runs as a child process under `/usr/bin/time` (peak RSS, CPU
 * time); ours from a copy of `dist/` taken at the start (`npm run build`
 * first, which the npm script does), so a rebuild of the repository during
 * the run cannot change the code measured. The commands of one comparison
 * run interleaved (A B C, A B C, A B C: a change of load hits them alike),
 * best wall time of the rounds, on inputs already in the page cache.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { cpus, freemem, loadavg, tmpdir, totalmem } from "node:os";
import { join, relative, resolve } from "node:path";
import {
  blobPool,
  FORMATS,
  type Format,
  generateJanitor,
  generateListing,
  generateRun,
  generateSessions,
  generateTree,
  padSession,
  prng,
  type Totals,
} from "./gen.js";

const REPO = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const DEFAULT_SECTIONS = ["tokens", "cell", "tree", "startup", "phases"];
const only = opt("--only") ? new Set(opt("--only")!.split(",")) : null;
const want = (name: string): boolean => (only === null ? DEFAULT_SECTIONS.includes(name) : only.has(name));
const SCALE = Number(opt("--scale") ?? 1);
const REPEAT = Number(opt("--repeat") ?? 3);
const FULL = only === null && SCALE === 1;
const GB = 1e9;
const TOKENS_BYTES = Math.round(1 * GB * SCALE);
const CELL_BYTES = Math.round(200e6 * SCALE);
const TREE_ENTRIES = Math.round(500_000 * SCALE);
const LISTING_LINES = Math.round(2_000_000 * SCALE);
const JANITOR_BYTES = Math.round(1 * GB * SCALE);
const BUILD_BYTES = Math.round(5 * GB * SCALE);
const STARTUP_RUNS = Math.max(10, REPEAT);
const HAS_TIME = existsSync("/usr/bin/time");
const HZ = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;
const NPROC = Number(spawnSync("nproc", [], { encoding: "utf8" }).stdout.trim()) || cpus().length;

/** The targets (README: Performance), as ratios of wall times and seconds. */
const T = {
  vsCcusage: 0.9,
  vsCcusageCodex: 1.5,
  vsWc: 10,
  vsWcCodex: 12,
  walkOneThread: 2.5,
  walkDefault: 1.5,
  smallTokensS: 0.25,
  helpS: 0.2,
  /** The default threads "never slower" than one: within this noise margin of it. */
  workersNoise: 1.05,
  /** "A small fraction of the scan": read here as at most this share of the scan's time. */
  phaseShare: 0.1,
  /** A second core counts as free when the rest of the machine used at most this many cores' worth less than all. */
  freeCoreOthersMax: NPROC - 1.5,
};

const scratch = resolve(process.env["BENCH_DIR"] ?? join(tmpdir(), "ptb-manifest-bench"));
const say = (m: string): void => {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${m}\n`);
};

// ---------------------------------------------------------------- running commands

/** One measured run of a command. */
interface Run {
  wallS: number;
  rssMB: number | null;
  /** CPU time of the command (user + system, its children included), s. */
  cpuS: number | null;
  /** Cores' worth the rest of the machine used meanwhile (all busy CPU time minus the command's, over its wall time). */
  othersCores: number | null;
  stdout: string;
  /** stderr of each run (with `rounds`: of every round, in order). */
  stderrs: string[];
  code: number;
}

/** A command to run: name, program, arguments, extra environment, whether its stdout is dropped. */
interface Cmd {
  name: string;
  cmd: string;
  argv: string[];
  env?: NodeJS.ProcessEnv;
  discard?: boolean;
}

/** Busy and total jiffies of all CPUs (/proc/stat), or null where there is none. */
function cpuJiffies(): { busy: number; total: number } | null {
  try {
    const f = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = f as [number, ...number[]];
    const busy = user + nice! + system! + irq! + softirq! + (steal ?? 0);
    return { busy, total: busy + idle! + iowait! };
  } catch {
    return null;
  }
}

/** Runs `c` once under /usr/bin/time. */
async function once(c: Cmd): Promise<Run> {
  const timeFile = join(scratch, ".time");
  const full = HAS_TIME ? ["/usr/bin/time", "-f", "%M %U %S", "-o", timeFile, c.cmd, ...c.argv] : [c.cmd, ...c.argv];
  const j0 = cpuJiffies();
  const t0 = performance.now();
  // An undefined value unsets the variable (PTB_MANIFEST_THREADS unset: the tool decides).
  const env: NodeJS.ProcessEnv = { ...process.env, ...c.env };
  for (const [k, v] of Object.entries(c.env ?? {})) if (v === undefined) delete env[k];
  const child = spawn(full[0]!, full.slice(1), {
    env,
    stdio: ["ignore", c.discard ? "ignore" : "pipe", "pipe"],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on("data", (b: Buffer) => out.push(b));
  child.stderr?.on("data", (b: Buffer) => err.push(b));
  const code: number = await new Promise((res) => child.on("close", (x) => res(x ?? -1)));
  const wallS = (performance.now() - t0) / 1000;
  const j1 = cpuJiffies();
  let rssMB: number | null = null;
  let cpuS: number | null = null;
  if (HAS_TIME) {
    const last = readFileSync(timeFile, "utf8").trim().split("\n").pop()!.split(" ").map(Number);
    rssMB = last[0]! / 1024;
    cpuS = last[1]! + last[2]!;
  }
  const othersCores =
    j0 && j1 && cpuS !== null ? Math.max(0, ((j1.busy - j0.busy) / HZ - cpuS) / Math.max(wallS, 1e-3)) : null;
  if (code !== 0) say(`  exit ${code}: ${c.cmd} ${c.argv.join(" ")}\n${Buffer.concat(err).toString().slice(-2000)}`);
  return {
    wallS,
    rssMB,
    cpuS,
    othersCores,
    stdout: Buffer.concat(out).toString(),
    stderrs: [Buffer.concat(err).toString()],
    code,
  };
}

/** The best (lowest wall time) of `repeat` runs of `c`; RSS is the largest seen. */
async function best(c: Cmd, repeat = REPEAT): Promise<Run> {
  return (await rounds([c], repeat))[0]!;
}

/**
 * Runs `cmds` interleaved, `repeat` rounds (each round every command once,
 * in order), and returns for each its best run (lowest wall time) with the
 * largest RSS seen and the stderr of every round.
 */
async function rounds(cmds: Cmd[], repeat = REPEAT): Promise<Run[]> {
  const bestRuns: (Run | null)[] = cmds.map(() => null);
  const maxRss = cmds.map(() => 0);
  const stderrs: string[][] = cmds.map(() => []);
  for (let k = 0; k < repeat; k += 1) {
    for (let i = 0; i < cmds.length; i += 1) {
      const r = await once(cmds[i]!);
      maxRss[i] = Math.max(maxRss[i]!, r.rssMB ?? 0);
      stderrs[i]!.push(...r.stderrs);
      if (bestRuns[i] === null || r.wallS < bestRuns[i]!.wallS) bestRuns[i] = r;
    }
  }
  return bestRuns.map((r, i) => ({ ...r!, rssMB: HAS_TIME ? maxRss[i]! : null, stderrs: stderrs[i]! }));
}

/**
 * The scan thread counts the tool chose in `r`'s runs (`PTB_MANIFEST_DEBUG`: "scan threads N" on
 * stderr, "(free cores sampled)" after it when it waited for a sample of the cores), one per run.
 */
function scanThreadsOf(r: Run): { threads: number; sampled: boolean }[] {
  return r.stderrs.flatMap((e) =>
    [...e.matchAll(/debug: scan threads (\d+)( \(free cores sampled\))?/g)].map((m) => ({
      threads: Number(m[1]),
      sampled: m[2] !== undefined,
    })),
  );
}

// ---------------------------------------------------------------- formatting

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && !e.name.startsWith(".gen")) out.push(join(e.parentPath, e.name));
  }
  return out.sort();
}
const bytesOf = (files: string[]): number => files.reduce((a, f) => a + statSync(f).size, 0);
const mb = (bytes: number): string => (bytes / 1e6).toFixed(0);
const s = (x: number): string => x.toFixed(2);
const rss = (r: Run | null): string => (r?.rssMB == null ? "n/a" : r.rssMB.toFixed(0));
const x2 = (v: number): string => `${v.toFixed(2)}x`;
const ratio = (a: Run | null, b: Run | null): string => (a && b ? x2(a.wallS / b.wallS) : "n/a");
const rate = (bytes: number, r: Run | null): string => (r ? (bytes / 1e6 / r.wallS).toFixed(0) : "n/a");
const pct = (v: number): string => `${(v * 100).toFixed(1)} %`;
const others = (r: Run | null): string => (r?.othersCores == null ? "n/a" : r.othersCores.toFixed(2));

// ---------------------------------------------------------------- results

/** One row of the targets table. */
interface Target {
  what: string;
  target: string;
  measured: string;
  /** true: met; false: not met; null: not judged (said in `measured`). */
  met: boolean | null;
}
const targets: Target[] = [];
const sections: string[] = [];
const notes: string[] = [];
/** Load average (1 min) at the start and end of each section, and its duration. */
const loads: { name: string; start: number; end: number; s: number }[] = [];

async function section(name: string, fn: () => Promise<void>): Promise<void> {
  if (!want(name)) return;
  const start = loadavg()[0]!;
  const t0 = performance.now();
  say(`section ${name} (load ${start.toFixed(2)})`);
  try {
    await fn();
  } catch (err) {
    notes.push(`section \`${name}\` failed: ${String((err as Error)?.message ?? err).slice(0, 300)}`);
    say(`section ${name} failed: ${(err as Error)?.stack ?? err}`);
  }
  loads.push({ name, start, end: loadavg()[0]!, s: (performance.now() - t0) / 1000 });
  // What is measured so far, in case the run is stopped before its end.
  writeFileSync(join(scratch, "results.partial.md"), report(RUN.started, RUN.startLoad));
}

/** When the run started, and the load then. */
const RUN = { started: new Date(), startLoad: loadavg() };

// ---------------------------------------------------------------- inputs, generated once

const INPUTS_RECIPE =
  "tokens: generateRun 8 sessions seed 7; cell: 35 % padded sweep cell + 26 sessions seed 23; tree seed 17";
const GEN_KEY = createHash("sha256")
  .update(readFileSync(join(REPO, "bench", "gen.ts")))
  .update(readFileSync(join(REPO, "scripts", "make-sources", "lib.ts")))
  .update(INPUTS_RECIPE)
  .digest("hex")
  .slice(0, 12);
const INPUTS = join(scratch, `inputs-${GEN_KEY}`);

/** The input `name` under INPUTS: made by `make(dir)` unless a finished one is there (its `.gen.json`). */
async function input<M>(name: string, make: (dir: string) => Promise<M>): Promise<{ dir: string; meta: M }> {
  const dir = join(INPUTS, name);
  const marker = join(dir, ".gen.json");
  if (existsSync(marker)) return { dir, meta: JSON.parse(readFileSync(marker, "utf8")) as M };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  say(`  generating ${name} (kept for later runs)`);
  const meta = await make(dir);
  writeFileSync(marker, JSON.stringify(meta));
  return { dir, meta };
}

// ---------------------------------------------------------------- the tool and its peers

const APP = join(scratch, "app");
const BIN = join(APP, "bin", "ptb-manifest.js");
const TASKS = join(APP, "bench", "tasks");
let ccusageBin: string | null = null;

function snapshotApp(): void {
  rmSync(APP, { recursive: true, force: true });
  for (const d of ["dist", "bin", "templates", join("bench", "tasks")]) {
    if (existsSync(join(REPO, d))) cpSync(join(REPO, d), join(APP, d), { recursive: true });
  }
  for (const f of ["package.json", "package-lock.json"]) cpSync(join(REPO, f), join(APP, f));
  symlinkSync(join(REPO, "node_modules"), join(APP, "node_modules"), "dir");
}

/** Installs ccusage into the scratch folder once (never a project dependency); null when npm cannot. */
function installCcusage(): string | null {
  const dir = join(scratch, "ccusage");
  const bin = join(dir, "node_modules", "ccusage", "src", "cli.js");
  if (existsSync(bin)) return bin;
  say("installing ccusage@20.0.24 into the scratch folder");
  const r = spawnSync(
    "npm",
    ["install", "--prefix", dir, "--no-save", "--no-audit", "--no-fund", "--loglevel=error", "ccusage@20.0.24"],
    { encoding: "utf8" },
  );
  if (r.status !== 0 || !existsSync(bin)) {
    notes.push(`ccusage could not be installed (${(r.stderr || "").trim().slice(0, 200)}): its columns are n/a.`);
    return null;
  }
  return bin;
}

// ccusage reads these locations (its README): CLAUDE_CONFIG_DIR/projects, CODEX_HOME/sessions,
// PI_AGENT_DIR/sessions, KIMI_DATA_DIR/sessions (its `kimi` source reads both Kimi formats).
const CCUSAGE: Record<Format, { sub: string; envVar: string }> = {
  "claude-code": { sub: "claude", envVar: "CLAUDE_CONFIG_DIR" },
  codex: { sub: "codex", envVar: "CODEX_HOME" },
  pi: { sub: "pi", envVar: "PI_AGENT_DIR" },
  "kimi-cli": { sub: "kimi", envVar: "KIMI_DATA_DIR" },
  "kimi-code": { sub: "kimi", envVar: "KIMI_DATA_DIR" },
};

// The default runs say how many threads they chose (PTB_MANIFEST_DEBUG), so that "never slower than one
// thread" is judged on the runs that used workers, not on noise between two identical runs.
const oursTokens = (name: string, format: Format, root: string, threads?: number): Cmd => ({
  name,
  cmd: "node",
  argv: [BIN, "tokens", "--format", format, root, "--json"],
  env: {
    PTB_MANIFEST_THREADS: threads === undefined ? undefined : String(threads),
    PTB_MANIFEST_DEBUG: threads === undefined ? "1" : undefined,
  },
});

function ccusageCmd(format: Format, root: string): Cmd | null {
  if (!ccusageBin) return null;
  const spec = CCUSAGE[format];
  const home = join(scratch, "home");
  mkdirSync(home, { recursive: true });
  return {
    name: "ccusage",
    cmd: "node",
    argv: [ccusageBin, spec.sub, "session", "--json", "--offline"],
    env: { HOME: home, [spec.envVar]: root, TZ: "UTC", NO_COLOR: "1" },
  };
}

/** Total and calls of `tokens --json` output, or null. */
function oursCount(r: Run): { total: number; calls: number } | null {
  try {
    const j = JSON.parse(r.stdout) as { total: number; calls: number };
    return { total: j.total, calls: j.calls };
  } catch {
    return null;
  }
}

/** The total ccusage's `session --json` reports, or null. */
function ccusageTotal(r: Run | null): number | null {
  if (!r) return null;
  try {
    return (JSON.parse(r.stdout) as { totals?: { totalTokens?: number } }).totals?.totalTokens ?? null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------- tokens (1 GB per format, and one cell)

/** What one tokens case measured, for the targets. */
interface TokensCase {
  format: Format;
  vsWc: number;
  vsCc: number | null;
  /** The Node read floor's time (bench/tasks/read-floor.mjs: start Node, read the files, nothing else) over ccusage's. */
  floorVsCc: number | null;
  workers: number;
  /** The thread counts the default runs chose, one per run, and whether each sampled the free cores. */
  defaultThreads: { threads: number; sampled: boolean }[];
  exact: boolean;
  exactText: string;
}
const tokensCases: Record<"tokens" | "cell", TokensCase[]> = { tokens: [], cell: [] };

/** Expected counts of a tokens case: total and calls, and whether ccusage must read the same. */
interface Expected {
  total: number;
  calls: number;
  ccusageSame: boolean;
  what: string;
}

async function measureTokens(
  kind: "tokens" | "cell",
  format: Format,
  root: string,
  expected: Expected,
  rows: string[],
  extra: string,
): Promise<void> {
  const files = filesUnder(root);
  const bytes = bytesOf(files);
  await once({ name: "cat", cmd: "cat", argv: files, discard: true }); // into the page cache
  const cmds: Cmd[] = [
    { name: "wc", cmd: "wc", argv: ["-l", ...files], discard: true },
    oursTokens("ours", format, root),
    oursTokens("ours1", format, root, 1),
    { name: "floor", cmd: "node", argv: [join(TASKS, "read-floor.mjs"), ...files], discard: true },
  ];
  const cc = ccusageCmd(format, root);
  if (cc) cmds.push(cc);
  say(`  ${kind}/${format}: ${mb(bytes)} MB, ${files.length} files: ${cmds.map((c) => c.name).join(", ")} x${REPEAT}`);
  const [wc, ours, ours1, floor, ccRun0] = await rounds(cmds);
  const ccRun = ccRun0 && ccRun0.code === 0 ? ccRun0 : null;
  const got = oursCount(ours!);
  const got1 = oursCount(ours1!);
  const ccTotal = ccusageTotal(ccRun);
  const eq = (g: { total: number; calls: number } | null): boolean =>
    g !== null && g.total === expected.total && g.calls === expected.calls;
  const ccOk = !expected.ccusageSame || ccRun === null || ccTotal === expected.total;
  const exact = eq(got) && eq(got1) && ccOk;
  const exactText = [
    eq(got) && eq(got1)
      ? `= ${expected.what}`
      : `**differs** (ours ${got?.total}/${got?.calls}, 1 thread ${got1?.total}/${got1?.calls}, expected ${expected.total}/${expected.calls})`,
    ccRun === null
      ? "ccusage n/a"
      : ccTotal === expected.total
        ? "ccusage: same total"
        : `ccusage total ${ccTotal}${expected.ccusageSame ? " **differs**" : " (its rules differ on the sweep's forks, resumes, sub-agents)"}`,
  ].join("; ");
  const vsCc = ccRun ? ours!.wallS / ccRun.wallS : null;
  tokensCases[kind].push({
    format,
    vsWc: ours!.wallS / wc!.wallS,
    vsCc,
    floorVsCc: ccRun ? floor!.wallS / ccRun.wallS : null,
    workers: ours!.wallS / ours1!.wallS,
    defaultThreads: scanThreadsOf(ours!),
    exact,
    exactText,
  });
  rows.push(
    `| ${format} | ${mb(bytes)} | ${files.length}${extra} | ${expected.calls} | ${s(wc!.wallS)} | ${s(ours!.wallS)} | ${rate(bytes, ours!)} | **${ratio(ours!, wc!)}** | ${ccRun ? s(ccRun.wallS) : "n/a"} | **${ratio(ours!, ccRun)}** | ${s(floor!.wallS)} | ${ratio(floor!, ccRun)} | ${s(ours1!.wallS)} | ${ratio(ours!, ours1!)} | ${others(ours!)} | ${rss(ours!)} | ${rss(ours1!)} | ${rss(ccRun)} | ${exactText} |`,
  );
}

const TOKENS_HEADER = [
  "| format | MB | files | calls | `wc -l` s | ours s | ours MB/s | ours / `wc -l` | ccusage s | ours / ccusage | Node read floor s | floor / ccusage | ours, 1 thread s | default / 1 thread | others' cores | ours RSS MB | 1 thread RSS MB | ccusage RSS MB | counts |",
  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
];

const TOKENS_INPUTS: Partial<Record<Format, { dir: string; meta: GenMeta }>> = {};
interface GenMeta {
  totals: Totals;
  usageLines: number;
  files: number;
}

async function tokensInput(format: Format): Promise<{ dir: string; meta: GenMeta }> {
  TOKENS_INPUTS[format] ??= await input(`tokens-${format}-${mb(TOKENS_BYTES)}MB`, async (dir) => {
    const g = await generateRun(format, dir, TOKENS_BYTES, 8);
    return { totals: g.totals, usageLines: g.usageLines, files: g.files.length };
  });
  return TOKENS_INPUTS[format]!;
}

async function benchTokens(): Promise<void> {
  const rows: string[] = [];
  for (const format of FORMATS) {
    const { dir, meta } = await tokensInput(format);
    await measureTokens(
      "tokens",
      format,
      dir,
      { total: meta.totals.total, calls: meta.totals.calls, ccusageSame: true, what: "generator's" },
      rows,
      "",
    );
  }
  sections.push(
    [
      `## Tokens, ${mb(TOKENS_BYTES)} MB per format (\`ptb-manifest tokens --format F DIR --json\`)`,
      "",
      `Session logs generated by \`bench/gen.ts\` (8 files per format, about 100 calls per MB), in the page cache (\`cat\` once before). Interleaved, best of ${REPEAT}: \`wc -l\` on the same files; ours with the default threads (\`PTB_MANIFEST_THREADS\` unset: the tool decides; \`PTB_MANIFEST_DEBUG=1\` makes it say how many it chose, which the workers targets read); ours with \`PTB_MANIFEST_THREADS=1\`; \`ccusage <source> session --json --offline\` (ccusage 20.0.24) pointed at the same folder; and the floor of any Node.js tool here, \`bench/tasks/read-floor.mjs\` (starts Node, reads every file synchronously into one 2 MiB buffer and does nothing with the bytes: no walk, no parse). Ratios are wall-time ratios (< 1: ours is faster). "others' cores": the CPU the rest of the machine used during our best default run (1.00 = one core busy elsewhere). "counts": our total and calls (both runs) against the generator's, and ccusage's total.`,
      "",
      ...TOKENS_HEADER,
      ...rows,
    ].join("\n"),
  );
}

/** The sweep's cell of each format whose trajectory (sessions, sub-agents, forks, resumes) a realistic cell pads. */
const CELL_OF: Record<Format, string | null> = {
  codex: "sol-high",
  "claude-code": "opus-max",
  pi: "grok",
  "kimi-cli": null, // no kimi-cli cell in the sweep: generated sessions only
  "kimi-code": "kimi",
};

interface CellMeta {
  gen: Totals;
  sweepCell: string | null;
  sweepFiles: number;
  sweepBytes: number;
  genFiles: number;
}

async function benchCell(): Promise<void> {
  const rows: string[] = [];
  for (const format of FORMATS) {
    const cell = CELL_OF[format];
    const sweepSrc = cell ? join(REPO, "sources", cell, "trajectory") : null;
    const sweepHash = createHash("sha256");
    if (sweepSrc) for (const f of filesUnder(sweepSrc)) sweepHash.update(relative(sweepSrc, f)).update(readFileSync(f));
    const { dir, meta } = await input(
      `cell-${format}-${mb(CELL_BYTES)}MB-${sweepHash.digest("hex").slice(0, 8)}`,
      async (d): Promise<CellMeta> => {
        let sweepBytes = 0;
        let sweepFiles = 0;
        if (sweepSrc) {
          cpSync(sweepSrc, d, { recursive: true });
          const files = filesUnder(d);
          const factor = (CELL_BYTES * 0.35) / bytesOf(files);
          const blobs = blobPool(31, 300, 300, 24_000);
          const r = prng(37);
          for (const f of files) sweepBytes += await padSession(format, readFileSync(f, "utf8"), factor, blobs, r, f);
          sweepFiles = files.length;
        }
        // Tens of sessions of assorted sizes (log-uniform, 1 to 30 parts) for the rest of the bytes.
        const n = sweepSrc ? 26 : 30;
        const r = prng(41);
        const w = Array.from({ length: n }, () => Math.exp(r() * Math.log(30)));
        const sum = w.reduce((a, b) => a + b, 0);
        const rest = Math.max(CELL_BYTES - sweepBytes, n * 1000);
        const g = await generateSessions(
          format,
          d,
          w.map((x) => (x / sum) * rest),
          23,
        );
        return { gen: g.totals, sweepCell: cell, sweepFiles, sweepBytes, genFiles: g.files.length };
      },
    );
    // The unpadded sweep cell, counted by the tool under test (the tests check that count against the true answer).
    let expected: Expected = { total: meta.gen.total, calls: meta.gen.calls, ccusageSame: !cell, what: "generator's" };
    if (sweepSrc) {
      const base = oursCount(await once(oursTokens("base", format, sweepSrc, 1)));
      if (base === null) throw new Error(`tokens on ${sweepSrc} gave no JSON`);
      expected = {
        total: base.total + meta.gen.total,
        calls: base.calls + meta.gen.calls,
        ccusageSame: false,
        what: "the unpadded sweep cell's + generator's",
      };
    }
    await measureTokens(
      "cell",
      format,
      dir,
      expected,
      rows,
      meta.sweepCell ? ` (${meta.sweepFiles} of \`${meta.sweepCell}\`)` : "",
    );
  }
  sections.push(
    [
      `## Tokens at one cell's size: ${mb(CELL_BYTES)} MB over tens of files`,
      "",
      `A cell's trajectory as a run leaves it: the embedded sweep's cell of the format (its sessions, sub-agents, forks and resumes; the cell is named under "files") padded to about 35 % of the bytes with lines of its own format that carry no usage, plus ${26}–${30} generated sessions of assorted sizes (1 to 30 parts, log-uniform) for the rest; kimi-cli, which has no cell in the sweep, is generated sessions only. Expected counts: the unpadded sweep cell as the tool counts it (the tests check that against the true answer) plus the generator's. ccusage applies its own rules to the sweep's forks, resumes and sub-agents, so its total is shown, not required to match, where a sweep cell is in. Same commands and columns as above.`,
      "",
      ...TOKENS_HEADER,
      ...rows,
    ].join("\n"),
  );
}

// ---------------------------------------------------------------- the live PVC walk

/** What the walk measured: ratios to `find` (one thread, default), default / one thread, others' cores, counts. */
interface WalkResult {
  one: number;
  def: number;
  workers: number;
  othersCores: number | null;
  count: string;
  ok: boolean;
}
let walk: WalkResult | null = null;

async function benchTree(): Promise<void> {
  const { dir } = await input(`tree-${TREE_ENTRIES}`, async (d) => ({
    entries: await generateTree(join(d, "pvc"), TREE_ENTRIES),
  }));
  const root = join(dir, "pvc");
  const findCmd: Cmd = { name: "find", cmd: "find", argv: [root, "-printf", "%T@\\t%y\\t%s\\t%p\\n"], discard: true };
  await once(findCmd); // warm the dentry and inode caches
  const findCount = spawnSync("sh", ["-c", `find '${root}' | wc -l`], { encoding: "utf8" }).stdout.trim();
  const task = (name: string, threads?: number): Cmd => ({
    name,
    cmd: "node",
    argv: [join(TASKS, "pvc-live.mjs"), root, "/pvc/ptb/bench"],
    env: { PTB_MANIFEST_THREADS: threads === undefined ? undefined : String(threads) },
  });
  const [find, one, def] = await rounds([findCmd, task("ours1", 1), task("ours")]);
  const entries = (r: Run): number | null => {
    try {
      return (JSON.parse(r.stdout) as { entries: number }).entries;
    } catch {
      return null;
    }
  };
  const ok = entries(one!) === Number(findCount) && entries(def!) === Number(findCount);
  walk = {
    one: one!.wallS / find!.wallS,
    def: def!.wallS / find!.wallS,
    workers: def!.wallS / one!.wallS,
    othersCores: def!.othersCores,
    count: `${entries(one!)} / ${entries(def!)} (find: ${findCount})`,
    ok,
  };
  sections.push(
    [
      "## Live PVC walk (`readPvcTree`, a materialised tree)",
      "",
      `Reference: \`find DIR -printf '%T@\\t%y\\t%s\\t%p\\n'\` (the listing's own format; output discarded), run once before to warm the caches. Ours: \`bench/tasks/pvc-live.mjs\` (the walk, every entry counted) with \`PTB_MANIFEST_THREADS=1\` and with the default. Interleaved, best of ${REPEAT}. "others' cores": the CPU the rest of the machine used during that best run.`,
      "",
      "| entries (1 thread / default) | find s | ours, 1 thread s | 1 thread / find | ours, default s | default / find | default / 1 thread | others' cores (1 thread, default) | RSS MB (1 thread, default) |",
      "|---|---|---|---|---|---|---|---|---|",
      `| ${walk.count} | ${s(find!.wallS)} | ${s(one!.wallS)} | **${ratio(one!, find!)}** | ${s(def!.wallS)} | **${ratio(def!, find!)}** | ${ratio(def!, one!)} | ${others(one!)}, ${others(def!)} | ${rss(one!)}, ${rss(def!)} |`,
    ].join("\n"),
  );
}

// ---------------------------------------------------------------- start-up

let startup: { help: number; small: number; node: number } | null = null;

async function benchStartup(): Promise<void> {
  const small = join(REPO, "sources", "sol-max", "trajectory");
  const smallFile = filesUnder(small)[0]!;
  const cmds: Cmd[] = [
    { name: "node", cmd: "node", argv: ["-e", ""], discard: true },
    { name: "help", cmd: "node", argv: [BIN, "--help"], discard: true },
    { name: "small", cmd: "node", argv: [BIN, "tokens", "--format", "codex", smallFile, "--json"], discard: true },
  ];
  for (const c of cmds) await once(c); // warm the page cache
  const [node, help, tok] = await rounds(cmds, STARTUP_RUNS);
  startup = { node: node!.wallS, help: help!.wallS, small: tok!.wallS };
  sections.push(
    [
      "## Start-up",
      "",
      `Wall time, best of ${STARTUP_RUNS} interleaved runs; the small file is \`sources/sol-max/trajectory/…\` (${(statSync(smallFile).size / 1e3).toFixed(0)} KB, codex). \`node -e ''\` is the floor.`,
      "",
      "| command | wall s | CPU s | RSS MB |",
      "|---|---|---|---|",
      `| \`node -e ''\` | ${s(node!.wallS)} | ${node!.cpuS?.toFixed(2) ?? "n/a"} | ${rss(node!)} |`,
      `| \`ptb-manifest --help\` | ${s(help!.wallS)} | ${help!.cpuS?.toFixed(2) ?? "n/a"} | ${rss(help!)} |`,
      `| \`ptb-manifest tokens --format codex FILE --json\` | ${s(tok!.wallS)} | ${tok!.cpuS?.toFixed(2) ?? "n/a"} | ${rss(tok!)} |`,
    ].join("\n"),
  );
}

// ---------------------------------------------------------------- merge and time parsing, through the library

const phases: { kind: string; format: Format; merge: number | null; time: number | null; text: string }[] = [];

async function benchPhases(): Promise<void> {
  const rows: string[] = [];
  const cases: { kind: string; format: Format; dir: string; usageLines: number | null }[] = [];
  for (const format of FORMATS) {
    const t = await tokensInput(format);
    cases.push({ kind: `${mb(TOKENS_BYTES)} MB`, format, dir: t.dir, usageLines: t.meta.usageLines });
  }
  for (const format of FORMATS) {
    const d = readdirSync(INPUTS).find((n) => n.startsWith(`cell-${format}-${mb(CELL_BYTES)}MB-`));
    if (d && existsSync(join(INPUTS, d, ".gen.json")))
      cases.push({ kind: `cell, ${mb(CELL_BYTES)} MB`, format, dir: join(INPUTS, d), usageLines: null });
  }
  for (const c of cases) {
    say(`  phases ${c.kind} ${c.format}`);
    const r = await once({
      name: "phases",
      cmd: "node",
      argv: [
        join(TASKS, "phases.mjs"),
        c.format,
        c.dir,
        String(REPEAT),
        ...(c.usageLines ? [String(c.usageLines)] : []),
      ],
    });
    let j: {
      files?: number;
      scanS?: number;
      mergeS?: number;
      timeS?: number;
      timeCalls?: number;
      timeFn?: string;
      calls?: number;
      total?: number;
      error?: string;
    } = {};
    try {
      j = JSON.parse(r.stdout);
    } catch {
      j = { error: `no JSON (exit ${r.code})` };
    }
    if (j.error || j.scanS === undefined) {
      phases.push({ kind: c.kind, format: c.format, merge: null, time: null, text: `n/a: ${j.error}` });
      rows.push(`| ${c.kind} | ${c.format} | n/a: ${(j.error ?? "").split("\n")[0]} |  |  |  |  |  |  |`);
      continue;
    }
    const merge = j.mergeS! / j.scanS;
    const time = c.usageLines && j.timeS !== undefined ? j.timeS / j.scanS : null;
    phases.push({
      kind: c.kind,
      format: c.format,
      merge,
      time,
      text: `merge ${pct(merge)}${time !== null ? `, time parsing ${pct(time)}` : ""}`,
    });
    rows.push(
      `| ${c.kind} | ${c.format} | ${j.files} | ${j.calls} | ${s(j.scanS)} | ${j.mergeS!.toFixed(3)} | **${pct(merge)}** | ${time !== null ? `${j.timeS!.toFixed(3)} (${j.timeCalls} × ${((j.timeS! / j.timeCalls!) * 1e6).toFixed(2)} µs, ${j.timeFn})` : "-"} | ${time !== null ? `**${pct(time)}**` : "-"} | ${rss(r)} |`,
    );
  }
  sections.push(
    [
      "## Merge and time parsing, on their own (through the library)",
      "",
      `\`bench/tasks/phases.mjs\` in one thread, each part the best of ${REPEAT} passes: the per-file scans (\`COUNTERS[format].scan\` of every file, one after the other), the cross-file merge (\`merge\`, then the sort of the calls, as \`readTrajectory\` does) and the time parsing (the format's time reader from dist/, called once per line that carries usage — the generator's count, repeats included — on the run's own times; at the cell size the padded sweep's count is not known, so "-").`,
      "",
      "| input | format | files | calls | scans s | merge s | merge / scans | time parsing s | time parsing / scans | RSS MB |",
      "|---|---|---|---|---|---|---|---|---|---|",
      ...rows,
    ].join("\n"),
  );
}

// ---------------------------------------------------------------- opt-in: listing, janitor, build (earlier targets)

const older: Target[] = [];

async function benchListing(): Promise<void> {
  const path = join(scratch, "listing", "listing.tsv");
  const bytes = await generateListing(path, LISTING_LINES);
  await once({ name: "cat", cmd: "cat", argv: [path], discard: true });
  const [wc, ours] = await rounds([
    { name: "wc", cmd: "wc", argv: ["-l", path], discard: true },
    { name: "ours", cmd: "node", argv: [join(TASKS, "listing.mjs"), path, "/pvc/ptb/bench"] },
  ]);
  const got = JSON.parse(ours!.stdout || "{}") as { entries?: number; observations?: number };
  const lps = (got.entries ?? 0) / ours!.wallS;
  older.push({
    what: "listing.tsv parse",
    target: "≥ 1M lines/s",
    measured: `${(lps / 1e6).toFixed(2)} M lines/s`,
    met: lps >= 1e6,
  });
  sections.push(
    [
      "## PVC listing (`listing.tsv`, read by `readListingTsv` + `observePvcEntry`)",
      "",
      "| lines | MB | wc -l s | ours s | lines/s | MB/s | ours / wc -l | RSS MB | observations |",
      "|---|---|---|---|---|---|---|---|---|",
      `| ${got.entries} | ${mb(bytes)} | ${s(wc!.wallS)} | ${s(ours!.wallS)} | **${(lps / 1e6).toFixed(2)} M** | ${rate(bytes, ours!)} | ${ratio(ours!, wc!)} | ${rss(ours!)} | ${got.observations} |`,
    ].join("\n"),
  );
  rmSync(join(scratch, "listing"), { recursive: true, force: true });
}

async function benchJanitor(): Promise<void> {
  const sources = join(scratch, "janitor-src");
  const dir = join(sources, "bench", "janitor");
  const gen = await generateJanitor(dir, JANITOR_BYTES);
  const parts = gen.parts.map((p) => join(dir, p));
  const disk = bytesOf(parts);
  await once({ name: "cat", cmd: "cat", argv: parts, discard: true });
  const plain = parts.filter((p) => !p.endsWith(".gz"));
  const gz = parts.filter((p) => p.endsWith(".gz"));
  const [ref, ours] = await rounds([
    {
      name: "ref",
      cmd: "sh",
      argv: [
        "-c",
        `{ zcat ${gz.map((p) => `'${p}'`).join(" ")}; cat ${plain.map((p) => `'${p}'`).join(" ")}; } | wc -l`,
      ],
      discard: true,
    },
    { name: "ours", cmd: "node", argv: [join(TASKS, "janitor.mjs"), sources, "/pvc/ptb/bench"] },
  ]);
  const got = JSON.parse(ours!.stdout || "{}") as { observations?: number; archives?: number };
  sections.push(
    [
      "## Janitor log (rotated: three `.gz` parts, `.1`, the live file)",
      "",
      "Reference: `{ zcat *.gz; cat the rest; } | wc -l` (decompressing is part of both).",
      "",
      "| MB (uncompressed) | MB on disk | reference s | ours s | MB/s (uncompressed) | ours / reference | RSS MB | observations |",
      "|---|---|---|---|---|---|---|---|",
      `| ${mb(gen.bytes)} | ${mb(disk)} | ${s(ref!.wallS)} | ${s(ours!.wallS)} | ${rate(gen.bytes, ours!)} | **${ratio(ours!, ref!)}** | ${rss(ours!)} | ${got.observations} (${got.archives} archives) |`,
    ].join("\n"),
  );
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
  const build = (src: string, out: string, cache: string | null): Cmd => ({
    name: "build",
    cmd: "node",
    argv: [
      BIN,
      "build",
      "--sources",
      src,
      "--out",
      out,
      "--quiet",
      ...(cache ? ["--cache-dir", cache] : ["--no-cache"]),
    ],
    discard: true,
  });
  await once(build(join(REPO, "sources"), ref0, null));
  const refManifest = readFileSync(join(ref0, "manifest.json"), "utf8");
  const runs: { bytes: number; coldS: number; warmS: number; maxRss: number; same: boolean }[] = [];
  for (const k of [1, 2, 4]) {
    const factor = (BUILD_BYTES * k) / 4 / base;
    const src = join(scratch, `sweep-${k}x`);
    const trajBytes = await scaleSweep(src, factor);
    const all = filesUnder(src);
    const inputBytes = bytesOf(all);
    await once({ name: "cat", cmd: "cat", argv: all, discard: true });
    const cache = join(scratch, `cache-${k}x`);
    const out = join(scratch, `out-${k}x`);
    const cold = await once(build(src, out, cache));
    const manifestOk = readFileSync(join(out, "manifest.json"), "utf8") === refManifest;
    const coldFiles = new Map(readdirSync(out).map((f) => [f, readFileSync(join(out, f))]));
    const warm = await best(build(src, out, cache));
    const sameBytes = [...coldFiles].every(([f, b]) => b.equals(readFileSync(join(out, f))));
    runs.push({
      bytes: inputBytes,
      coldS: cold.wallS,
      warmS: warm.wallS,
      maxRss: Math.max(cold.rssMB ?? 0, warm.rssMB ?? 0),
      same: manifestOk && sameBytes,
    });
    rows.push(
      `| ${k}x | ${mb(trajBytes)} | ${mb(inputBytes)} | ${s(cold.wallS)} | ${rate(inputBytes, cold)} | ${rss(cold)} | ${s(warm.wallS)} | **${(warm.wallS / cold.wallS).toFixed(3)}** | ${rss(warm)} | ${manifestOk ? "yes" : "NO"} / ${sameBytes ? "yes" : "NO"} |`,
    );
    for (const d of [src, cache, out]) rmSync(d, { recursive: true, force: true });
  }
  rmSync(ref0, { recursive: true, force: true });
  const z = runs[runs.length - 1]!;
  older.push(
    {
      what: "build peak RSS",
      target: "< 300 MB",
      measured: `${Math.max(...runs.map((r) => r.maxRss)).toFixed(0)} MB`,
      met: runs.every((r) => r.maxRss < 300),
    },
    {
      what: "warm rebuild (4x)",
      target: "< 1/10 of cold",
      measured: (z.warmS / z.coldS).toFixed(3),
      met: z.warmS / z.coldS < 0.1,
    },
    {
      what: "cache never changes an output byte",
      target: "same bytes",
      measured: runs.every((r) => r.same) ? "same at every scale" : "DIFFERENT",
      met: runs.every((r) => r.same),
    },
  );
  sections.push(
    [
      "## End to end: `build` of the embedded sweep, trajectories padded 1x / 2x / 4x",
      "",
      'Every trajectory file of the nine built cells is padded with lines that carry no usage, so the manifest must not change ("same": `manifest.json` against the unpadded build, and the warm build wrote byte-identical files). Cold = empty cache folder; warm = the same command again.',
      "",
      "| scale | trajectories MB | all inputs MB | cold s | cold MB/s | cold RSS MB | warm s | warm / cold | warm RSS MB | same manifest / same bytes |",
      "|---|---|---|---|---|---|---|---|---|---|",
      ...rows,
    ].join("\n"),
  );
}

// ---------------------------------------------------------------- targets

function buildTargets(): void {
  targets.length = 0;
  const le = (v: number, t: number): boolean => v <= t;
  for (const kind of ["tokens", "cell"] as const) {
    const size = kind === "tokens" ? `${mb(TOKENS_BYTES)} MB` : `cell, ${mb(CELL_BYTES)} MB`;
    for (const c of tokensCases[kind]) {
      const tc = c.format === "codex" ? T.vsCcusageCodex : T.vsCcusage;
      const tw = c.format === "codex" ? T.vsWcCodex : T.vsWc;
      targets.push({
        what: `tokens ${c.format} (${size}) vs ccusage`,
        target: `≤ ${tc}x`,
        measured:
          c.vsCc === null
            ? "ccusage n/a"
            : `${x2(c.vsCc)} (Node reading the files alone: ${x2(c.floorVsCc!)}${c.floorVsCc! > tc ? ", above the target itself" : ""})`,
        met: c.vsCc === null ? null : le(c.vsCc, tc),
      });
      targets.push({
        what: `tokens ${c.format} (${size}) vs \`wc -l\``,
        target: `≤ ${tw}x`,
        measured: x2(c.vsWc),
        met: le(c.vsWc, tw),
      });
    }
  }
  if (walk) {
    targets.push({
      what: "live PVC walk, one thread, vs `find -printf`",
      target: `≤ ${T.walkOneThread}x`,
      measured: x2(walk.one),
      met: le(walk.one, T.walkOneThread),
    });
    const free = walk.othersCores !== null && walk.othersCores <= T.freeCoreOthersMax;
    targets.push({
      what: "live PVC walk, default threads, vs `find -printf` (a second core free)",
      target: `≤ ${T.walkDefault}x`,
      measured: `${x2(walk.def)}; ${walk.othersCores === null ? "core use not measured" : free ? `a second core was free (the rest of the machine used ${walk.othersCores.toFixed(2)} cores)` : `no second core free: the rest of the machine used ${walk.othersCores.toFixed(2)} of ${NPROC} cores, not judged`}`,
      met: free ? le(walk.def, T.walkDefault) : null,
    });
  }
  if (startup) {
    targets.push({
      what: "`tokens` on a small file, wall",
      target: `≤ ${T.smallTokensS} s`,
      measured: `${s(startup.small)} s (\`node -e ''\`: ${s(startup.node)} s)`,
      met: le(startup.small, T.smallTokensS),
    });
    targets.push({
      what: "`--help`, wall",
      target: `≤ ${T.helpS} s`,
      measured: `${s(startup.help)} s`,
      met: le(startup.help, T.helpS),
    });
  }
  const byFormat = new Map<Format, string[]>();
  const workersOk = new Map<Format, boolean>();
  for (const kind of ["tokens", "cell"] as const)
    for (const c of tokensCases[kind]) {
      // Every default run chose one thread from the input alone (no sample of the cores, no wait): it ran
      // what PTB_MANIFEST_THREADS=1 runs, so the ratio is noise.
      const oneThread = c.defaultThreads.length > 0 && c.defaultThreads.every((t) => t.threads === 1 && !t.sampled);
      const chose =
        c.defaultThreads.length === 0
          ? "threads chosen: not reported"
          : oneThread
            ? `one thread chosen from the input alone in all ${c.defaultThreads.length} runs: the same run`
            : `threads chosen: ${c.defaultThreads.map((t) => `${t.threads}${t.sampled ? " (sampled)" : ""}`).join(", ")}`;
      byFormat.set(c.format, [
        ...(byFormat.get(c.format) ?? []),
        `${kind === "tokens" ? "1 GB" : "cell"} ${x2(c.workers)} (${chose})`,
      ]);
      workersOk.set(c.format, (workersOk.get(c.format) ?? true) && (oneThread || c.workers <= T.workersNoise));
    }
  for (const [format, parts] of byFormat)
    targets.push({
      what: `workers: tokens ${format}, default threads never slower than \`PTB_MANIFEST_THREADS=1\``,
      target: `default / 1 thread ≤ ${T.workersNoise} (noise) where the default used workers`,
      measured: parts.join("; "),
      met: workersOk.get(format)!,
    });
  if (walk)
    targets.push({
      what: "workers: live PVC walk, default threads never slower than one",
      target: `default / 1 thread ≤ ${T.workersNoise} (noise)`,
      measured: x2(walk.workers),
      met: le(walk.workers, T.workersNoise),
    });
  for (const p of phases)
    targets.push({
      what: `merge${p.time !== null ? " and time parsing" : ""}, ${p.format} (${p.kind}), each a small fraction of the scan`,
      target: `each ≤ ${pct(T.phaseShare)}`,
      measured: p.text,
      met: p.merge === null ? null : p.merge <= T.phaseShare && (p.time === null || p.time <= T.phaseShare),
    });
  for (const kind of ["tokens", "cell"] as const)
    for (const c of tokensCases[kind])
      targets.push({
        what: `counts exact: tokens ${c.format} (${kind === "tokens" ? `${mb(TOKENS_BYTES)} MB` : "cell"})`,
        target: "total and calls exact",
        measured: c.exactText,
        met: c.exact,
      });
  targets.push(...older);
}

function machine(startLoad: number[], endLoad: number[]): string {
  const cpu = cpus()[0]?.model ?? "?";
  const la = (l: number[]): string => l.map((v) => v.toFixed(2)).join(" / ");
  return [
    `- \`nproc\`: **${NPROC}** (${cpu}); memory ${(totalmem() / 2 ** 30).toFixed(0)} GiB (${(freemem() / 2 ** 30).toFixed(0)} GiB free at the end)`,
    `- Node.js ${process.version}, ${process.platform}/${process.arch}`,
    `- load average (1 / 5 / 15 min): **${la(startLoad)}** at the start, **${la(endLoad)}** at the end`,
    `- best of ${REPEAT} interleaved runs per command (start-up: ${STARTUP_RUNS}), warm page cache; peak RSS from \`/usr/bin/time -f %M\`${HAS_TIME ? "" : " (not installed: RSS n/a)"}; scale ${SCALE}`,
    `- inputs: \`${INPUTS}\` (kept between runs)`,
  ].join("\n");
}

// ---------------------------------------------------------------- the README block

const README_BEGIN =
  "<!-- bench:begin: copied from bench/results.md by `npm run bench` (bench/run.ts); do not edit by hand -->";
const README_END = "<!-- bench:end -->";

/** The README's performance block, from the text of results.md: its run line, machine lines and targets table. */
function readmeBlock(results: string): string {
  const lines = results.split("\n");
  const run = lines.find((l) => l.startsWith("Written by")) ?? "";
  const bullets = lines.filter(
    (l) => l.startsWith("- `nproc`") || l.startsWith("- load average") || l.startsWith("- Node.js"),
  );
  const start = lines.indexOf("## Targets");
  const table: string[] = [];
  for (let i = start + 1; start >= 0 && i < lines.length; i += 1) {
    if (lines[i]!.startsWith("## ")) break;
    if (lines[i]!.startsWith("|") || table.length > 0) table.push(lines[i]!);
  }
  while (table.length && table[table.length - 1]!.trim() === "") table.pop();
  return [README_BEGIN, run, "", ...bullets, "", ...table, README_END].join("\n");
}

function updateReadme(): void {
  const path = join(REPO, "README.md");
  const readme = readFileSync(path, "utf8");
  const a = readme.indexOf("<!-- bench:begin");
  const b = readme.indexOf(README_END);
  if (a < 0 || b < a) throw new Error("README.md has no <!-- bench:begin … <!-- bench:end --> block");
  const block = readmeBlock(readFileSync(join(REPO, "bench", "results.md"), "utf8"));
  writeFileSync(path, readme.slice(0, a) + block + readme.slice(b + README_END.length));
  say("rewrote the README's performance block from bench/results.md");
}

/** The text of results.md from what the sections measured so far. */
function report(started: Date, startLoad: number[]): string {
  const endLoad = loadavg();
  buildTargets();
  const mark = (m: boolean | null): string => (m === null ? "not judged" : m ? "met" : "**not met**");
  const count = (m: boolean | null): number => targets.filter((t) => t.met === m).length;
  return [
    "# Benchmark results",
    "",
    `Written by \`npm run bench\` (bench/run.ts) on ${started.toISOString().slice(0, 16).replace("T", " ")} UTC in ${((Date.now() - started.getTime()) / 60000).toFixed(1)} min: ${count(true)} targets met, ${count(false)} not met, ${count(null)} not judged. Every ratio compares commands run interleaved in this one run, on the same files.`,
    "",
    machine(startLoad, endLoad),
    "",
    "## Targets",
    "",
    "| what | target | measured | |",
    "|---|---|---|---|",
    ...targets.map((t) => `| ${t.what} | ${t.target} | ${t.measured} | ${mark(t.met)} |`),
    "",
    "## Load per section",
    "",
    "| section | load average (1 min) at start | at end | duration |",
    "|---|---|---|---|",
    ...loads.map((l) => `| ${l.name} | ${l.start.toFixed(2)} | ${l.end.toFixed(2)} | ${l.s.toFixed(0)} s |`),
    "",
    ...sections.flatMap((x) => [x, ""]),
    ...(notes.length ? ["## Notes from this run", "", ...notes.map((n) => `- ${n}`), ""] : []),
  ].join("\n");
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  if (args.includes("--readme")) return updateReadme();
  if (args.includes("--clean")) {
    rmSync(scratch, { recursive: true, force: true });
    say(`removed ${scratch}`);
    return;
  }
  mkdirSync(scratch, { recursive: true });
  for (const d of readdirSync(scratch))
    if (d.startsWith("inputs-") && d !== `inputs-${GEN_KEY}`) {
      say(`removing stale inputs ${d}`);
      rmSync(join(scratch, d), { recursive: true, force: true });
    }
  mkdirSync(INPUTS, { recursive: true });
  say(`scratch folder: ${scratch}; inputs: ${INPUTS}`);
  snapshotApp();
  RUN.started = new Date();
  RUN.startLoad = loadavg();
  const { started, startLoad } = RUN;
  if (want("tokens") || want("cell")) ccusageBin = installCcusage();
  await section("tokens", benchTokens);
  await section("cell", benchCell);
  await section("tree", benchTree);
  await section("startup", benchStartup);
  await section("phases", benchPhases);
  await section("listing", benchListing);
  await section("janitor", benchJanitor);
  await section("build", benchBuild);
  const text = report(started, startLoad);
  const out = FULL ? join(REPO, "bench", "results.md") : join(scratch, "results.partial.md");
  writeFileSync(out, text);
  say(`wrote ${out}`);
  if (FULL) updateReadme();
  rmSync(APP, { recursive: true, force: true });
}

await main();
