import { InvalidArgumentError, type Command } from "commander";
import { parseHours } from "./validate.js";
import { resolve } from "node:path";
import { buildManifest, type BuildResult } from "../build.js";
import { ExitCodeError, EXIT } from "../cli.js";
import { manifestCsv, manifestJson, modelIdsTxt, provenanceJsonl } from "../writers/manifest.js";
import { buildReportJson, countRows, hashInputs } from "../writers/report.js";
import { writeFilesAtomically } from "../util/atomic.js";
import { checkOutFolder, outPathOption } from "../util/out-folder.js";
import { indexCard } from "../writers/card.js";
import { dataPackage, manifestJsonSchema } from "../writers/datapackage.js";
import { DEFAULT_TOLERANCE_H } from "../resolve/cadence.js";
import { hubOptionsFrom, readLiveHub } from "../hub/live-hub.js";
import { redactUrl, type RetryPolicy } from "../hub/fetch.js";
import type { HubRepo } from "../extractors/hub-files.js";
import type { CellsFile } from "../schema.js";
import type { Diagnostics } from "../diagnostics.js";
import { parseCount } from "./snapshot.js";
import { defaultCacheDir, FileCache } from "../cache/file-cache.js";
import { cachedOutputs, cachedSha256 } from "../cache/build-cache.js";
import { byteProgress } from "../util/progress.js";
import { inputBytes } from "../util/input-bytes.js";
import { mdCell } from "../util/markdown.js";
import { fsReason } from "../util/fs-errors.js";
import { assertSourcesFolder } from "../sources/sources-folder.js";

/** Options of the `build` command. */
export interface BuildCommandOptions {
  sources: string;
  out: string;
  strict?: boolean;
  toleranceH?: number;
  quiet?: boolean;
  /** Live PVC trees, cell → local directory (`--pvc CELL=DIR`; issue 4). */
  pvc?: Record<string, string>;
  /** Read the Hub itself instead of `hub/` (`--hub`; issue 4). */
  hub?: boolean;
  /** `--hub-url` (else `HF_ENDPOINT`, else the public Hub). */
  hubUrl?: string;
  /** `--cache-dir` (else `$XDG_CACHE_HOME/ptb-manifest`): the Hub cache and the build cache (issue 7). */
  cacheDir?: string;
  /** `--no-cache`: neither read nor write the build cache (per-file extractor results and input hashes). */
  noCache?: boolean;
  /** `--concurrency`: Hub repos fetched at once (default 8). */
  concurrency?: number;
  /** Retry policy of the Hub client (tests shorten the waits; the CLI uses the defaults). */
  hubRetry?: Partial<RetryPolicy>;
  /** Environment for `HF_TOKEN`, `HF_ENDPOINT`, `XDG_CACHE_HOME` (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Builds and writes the manifest (MANIFEST.md: Files written to the output
 * folder): `manifest.json`, `manifest.csv`, `model-ids.txt`,
 * `provenance.jsonl`, `build-report.json`, `report.html`, and the index
 * dataset's `README.md`, `datapackage.json` and `manifest.schema.json`, all
 * atomically.
 *
 * @returns the build result and the summary text printed.
 * @throws InputError (fatal input: nothing written), among them
 *   `OUT_NOT_A_FOLDER`, `OUT_UNWRITABLE` and `OUT_INSIDE_SOURCES` for an
 *   `out` that cannot take the outputs or lies in the sources folder (checked
 *   before anything is read); ExitCodeError with exit code 2 under `strict`
 *   when there are warnings, 64 for an empty `out` (nothing written).
 */
export async function runBuild(opts: BuildCommandOptions): Promise<{ result: BuildResult; summary: string }> {
  const sourcesDir = resolve(opts.sources);
  // Before anything is read: a --sources that is no sources folder, then an --out that cannot take the
  // outputs or that lies in the sources, is refused at once.
  await assertSourcesFolder(sourcesDir);
  await checkOutFolder(opts.out, { sources: opts.sources });
  const progress = byteProgress({ quiet: opts.quiet });
  try {
    return await buildAndWrite(opts, sourcesDir, progress);
  } finally {
    progress.stop();
  }
}

async function buildAndWrite(
  opts: BuildCommandOptions,
  sourcesDir: string,
  progress: ReturnType<typeof byteProgress>,
): Promise<{ result: BuildResult; summary: string }> {
  const log = opts.quiet ? undefined : (m: string) => progress.log(m);
  // The build cache trusts a file's size, mtime, head and tail (issue 7); the release gate reads every byte.
  const cache = opts.noCache || opts.strict ? undefined : new FileCache(opts.cacheDir !== undefined ? resolve(opts.cacheDir) : defaultCacheDir(opts.env));
  const onBytes = progress.active ? (n: number) => progress.add(n) : undefined;
  if (progress.active) progress.stage("reading", (await inputBytes(sourcesDir)).extracted);
  const hubOpts = opts.hub ? hubOptionsFrom({ hubUrl: opts.hubUrl, cacheDir: opts.cacheDir, concurrency: opts.concurrency }, opts.env) : null;
  let liveRepos: HubRepo[] = [];
  const readHub = hubOpts
    ? async (registry: CellsFile, diag: Diagnostics): Promise<HubRepo[]> =>
        (liveRepos = await readLiveHub(registry, { ...hubOpts, retry: opts.hubRetry, log }, diag))
    : undefined;
  const result = await buildManifest({ sourcesDir, toleranceH: opts.toleranceH, log, pvcDirs: opts.pvc, readHub, cache, onBytes });
  const args = {
    sources: opts.sources, out: opts.out, strict: Boolean(opts.strict), tolerance_h: opts.toleranceH ?? DEFAULT_TOLERANCE_H,
    ...(opts.pvc && Object.keys(opts.pvc).length > 0 ? { pvc: opts.pvc } : {}),
    ...(hubOpts ? { hub: redactUrl(hubOpts.hubUrl) } : {}),
  };
  const inputs = liveInputs(await hashAll(sourcesDir, cache, progress, result), opts.pvc, hubOpts ? liveRepos : null);
  if (opts.strict && result.warnings.length > 0) {
    const lines = result.warnings.slice(0, 20).map((w) => `  ${w.code} ${w.file ?? ""}${w.line ? `:${w.line}` : ""} ${w.message}`);
    throw new ExitCodeError(
      EXIT.strictWarnings,
      `--strict: ${result.warnings.length} warning(s); nothing written\n${lines.join("\n")}${result.warnings.length > 20 ? "\n  ..." : ""}`,
    );
  }
  // The files are a function of (result, args, inputs): a warm build with nothing changed takes them from the cache.
  const files = await cachedOutputs(cache, { result, args, inputs }, async () => {
    const made = new Map<string, string>([
      ["manifest.json", manifestJson(result.rows)],
      ["manifest.csv", manifestCsv(result.rows)],
      ["model-ids.txt", modelIdsTxt(result.rows)],
      ["provenance.jsonl", provenanceJsonl(result.provenance)],
      ["build-report.json", buildReportJson(result, args, inputs)],
      // Loaded only when rendering (Vega is the heaviest module of the tool).
      ["report.html", await (await import("../writers/report-html.js")).reportHtml(result)],
    ]);
    const csv = made.get("manifest.csv")!;
    made.set("README.md", indexCard(result));
    made.set("datapackage.json", dataPackage(csv, { name: `${result.registry.org}-index`, title: "AgentPTB checkpoint index" }));
    made.set("manifest.schema.json", manifestJsonSchema());
    return made;
  });
  await writeFilesAtomically(resolve(opts.out), files);
  return { result, summary: summarise(result, opts.out) };
}

/**
 * `hashInputs` through the build cache, with a "hashing" stage on the progress
 * bar. A file or folder that cannot be read and that no extractor has warned
 * about (no `*_UNREADABLE` or `*_READ_ERROR` warning on it or on a folder
 * above it: a `RUNLOG.md`, a folder no reader lists) adds an `INPUT_UNREADABLE`
 * warning to `result`: its hash is missing from the report.
 */
async function hashAll(
  sourcesDir: string,
  cache: FileCache | undefined,
  progress: ReturnType<typeof byteProgress>,
  result: BuildResult,
): Promise<Record<string, string>> {
  if (progress.active) progress.stage("hashing", (await inputBytes(sourcesDir)).all);
  const warned = new Set(result.warnings.filter((w) => /_(UNREADABLE|READ_ERROR)$/.test(w.code)).map((w) => w.file).filter((f): f is string => f !== null));
  const covered = (rel: string): boolean => {
    const path = rel.replace(/\/$/, "");
    return [...warned].some((f) => f === path || f.startsWith(`${path}/`) || path.startsWith(`${f}/`));
  };
  return hashInputs(sourcesDir, cachedSha256(cache, progress.active ? (n) => progress.add(n) : undefined), (rel, err) => {
    if (!covered(rel)) {
      result.warnings.push({ code: "INPUT_UNREADABLE", message: `cannot read ${rel}: ${fsReason(err)}; build-report.json has no hash of it`, file: rel.replace(/\/$/, ""), line: null });
    }
  });
}

/**
 * The short summary printed on success: rows per cell, per hour_source,
 * warnings. Text from `cells.json` in its tables goes through `mdCell`, so a
 * `|` or a line break in a driver or effort cannot break them.
 */
export function summarise(result: BuildResult, out: string): string {
  const c = countRows(result.rows);
  const lines = [`wrote ${out}/: manifest.json, manifest.csv, model-ids.txt, provenance.jsonl, build-report.json, report.html, README.md, datapackage.json, manifest.schema.json`];
  lines.push(`${c.rows} rows: ${c.checkpoints} checkpoints + 1 baseline`);
  lines.push("", "| cell | driver | effort | checkpoints | eos_ok |", "|---|---|---|---|---|");
  for (const cell of result.registry.cells) {
    if (cell.excluded) continue;
    lines.push(`| ${mdCell(`\`${cell.cell}\``)} | ${mdCell(cell.driver)} | ${mdCell(cell.effort)} | ${c.per_cell[cell.cell] ?? 0} | ${c.eos_ok_per_cell[cell.cell] ?? "0/0"} |`);
  }
  lines.push("", "| hour_source | n |", "|---|---|");
  for (const [k, n] of Object.entries(c.per_hour_source)) lines.push(`| \`${k}\` | ${n} |`);
  for (const e of result.excluded) lines.push("", `excluded: ${e.cell} (${e.reason})`);
  if (result.lost.length) lines.push(`lost (weights survive nowhere, no row): ${result.lost.length}`);
  lines.push(`warnings: ${result.warnings.length} (see build-report.json)`);
  return lines.join("\n");
}

/** Registers `ptb-manifest build`. */
export function registerBuild(program: Command): void {
  program
    .command("build")
    .description("Build the manifest from a sources folder (SOURCES.md layout) into an output folder.")
    .option("--sources <dir>", "the sources folder to read", "sources")
    .option("--out <dir>", "the folder to write the manifest files into (not inside --sources)", outPathOption, "out")
    .option("--strict", "treat every warning as a failure: exit 2 and write nothing (the release gate)", false)
    .option("--tolerance-h <hours>", "largest leave-one-out error and anchor residual for an extrapolated hour", parseHours, DEFAULT_TOLERANCE_H)
    .option("-q, --quiet", "no progress messages nor progress bar on stderr", false)
    .option("--pvc <cell=dir>", "read CELL's checkpoint tree from the mounted directory DIR instead of its pvc/ listing (repeatable)", collectPvc)
    .option("--hub", "read the published repos, spare repos and baseline from the Hub instead of hub/ (HF_TOKEN, HF_ENDPOINT)", false)
    .option("--hub-url <url>", "with --hub: the Hub's URL (default: HF_ENDPOINT, else https://huggingface.co)")
    .option("--cache-dir <dir>", "cache of per-file extractor results and input hashes (warm rebuilds), and with --hub of the Hub's small files (default: $XDG_CACHE_HOME/ptb-manifest)")
    .option("--no-cache", "neither read nor write the build cache (every input is read again; --strict implies it)")
    .option("--concurrency <n>", "with --hub: repos fetched at once (default 8)", parseCount)
    .addHelpText("after", "\nExit codes: 0 written; 1 fatal input error (nothing written); 2 --strict with warnings (nothing written); 64 usage error; 70 internal error.")
    .action(async (o: { sources: string; out: string; strict: boolean; toleranceH: number; quiet: boolean; pvc?: Record<string, string>; hub: boolean; hubUrl?: string; cacheDir?: string; cache: boolean; concurrency?: number }, command: Command) => {
      if (!o.hub && (o.hubUrl !== undefined || o.concurrency !== undefined)) {
        command.error("error: --hub-url and --concurrency need --hub", { exitCode: EXIT.usage, code: "ptb.hubOptionWithoutHub" });
      }
      const { summary } = await runBuild({
        sources: o.sources, out: o.out, strict: o.strict, toleranceH: o.toleranceH, quiet: o.quiet,
        pvc: o.pvc, hub: o.hub, hubUrl: o.hubUrl, cacheDir: o.cacheDir, concurrency: o.concurrency, noCache: !o.cache,
      });
      process.stdout.write(`${summary}\n`);
    });
}

/**
 * The report's `inputs` of a build with live sources: the snapshot files a
 * live source replaces are not inputs (`hub/` with `--hub`, `<cell>/pvc/`
 * with `--pvc`); each Hub repo read is listed as `hub/<owner>/<name>/` →
 * `commit <sha>` instead. Keys stay sorted.
 */
function liveInputs(inputs: Record<string, string>, pvc: Record<string, string> | undefined, hubRepos: HubRepo[] | null): Record<string, string> {
  if (!hubRepos && !(pvc && Object.keys(pvc).length > 0)) return inputs;
  const skip = [...(hubRepos ? ["hub/"] : []), ...Object.keys(pvc ?? {}).map((c) => `${c}/pvc/`)];
  const out: [string, string][] = Object.entries(inputs).filter(([k]) => !skip.some((p) => k.startsWith(p)));
  for (const r of hubRepos ?? []) out.push([`${r.dir}/`, `commit ${r.sha ?? "unknown"}`]);
  return Object.fromEntries(out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Collects repeated `--pvc CELL=DIR` options. */
function collectPvc(value: string, previous: Record<string, string> | undefined): Record<string, string> {
  const i = value.indexOf("=");
  if (i <= 0 || i === value.length - 1) throw new InvalidArgumentError(`expected CELL=DIR, got "${value}"`);
  const cell = value.slice(0, i);
  if (previous && cell in previous) throw new InvalidArgumentError(`--pvc ${cell}= given twice`);
  return { ...previous, [cell]: value.slice(i + 1) };
}
