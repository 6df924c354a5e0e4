/**
 * The `build` command's run (README: build): the inputs read (snapshot or
 * live), the manifest built, the output files written atomically into an
 * `--out` the tool owns, and the summary (build-summary.ts).
 */
import { join, relative, resolve, sep } from "node:path";
import { buildManifest } from "./build-manifest.js";
import { strictFailure, summarise } from "./build-summary.js";
import type { BuildResult } from "../model.js";
import { ExitCodeError, EXIT } from "../errors.js";
import { manifestCsv, manifestJson, modelIdsTxt, provenanceJsonl } from "../writers/manifest.js";
import { buildReportJson } from "../writers/report.js";
import { hashInputs } from "../util/hash.js";
import { writeFilesAtomically } from "../util/atomic.js";
import { cacheFolderProblem, checkOutFile, checkOutFolder } from "../util/out-folder.js";
import { BUILD_NAMES, foreignFileError, foreignFiles, readOwnership } from "../util/out-owner.js";
import { checkNotInputs } from "../util/out-not-input.js";
import { indexCard } from "../writers/card.js";
import { dataPackage, manifestJsonSchema } from "../writers/datapackage.js";
import { DEFAULT_OUTLIER_FLOOR_H, DEFAULT_TOLERANCE_H } from "../resolve/cadence.js";
import { compareWarnings, renderWarnings } from "../writers/warnings.js";
import { readBuildReport } from "./last-build.js";
import { isReplaced, liveReplacedPrefixes } from "./live-inputs.js";
import { hubOptionsFrom } from "../hub/live-hub.js";
import { snapshotSources, withLivePvc, withTrajectoryDirs } from "../sources/sources.js";
import { withLiveHub } from "../sources/live-hub-source.js";
import { redactUrl, type RetryPolicy } from "../hub/fetch.js";
import type { HubRepo } from "../extractors/hub-files.js";
import { defaultCacheDir, FileCache } from "../util/file-cache.js";
import { cachedOutputs, cachedSha256 } from "../cache/build-cache.js";
import { byteProgress } from "../util/progress.js";
import { inputBytes } from "../sources/input-bytes.js";
import { fsReason } from "../util/fs-errors.js";
import { warningLine } from "../diagnostics.js";
import { assertSourcesFolder } from "../sources/sources-folder.js";
import { unreadInputWarnings } from "../sources/unread-inputs.js";
import { appendAll } from "../util/arrays.js";
import { PLAIN, type Style } from "../util/colour.js";

/** Options of the `build` command. */
export interface BuildCommandOptions {
  sources: string;
  out: string;
  strict?: boolean;
  toleranceH?: number;
  /** `--outlier-floor-h`: floor of the cadence fit's outlier cut, hours (default 1.5; docs/resolution.md). */
  outlierFloorH?: number;
  /** `--verbose`: the summary (and `--strict`'s failure) lists every warning, not one example per code. */
  verbose?: boolean;
  quiet?: boolean;
  /** Live PVC trees, cell → local directory (`--pvc CELL=DIR`; README: Live sources). */
  pvc?: Record<string, string>;
  /** Trajectory folders outside the sources, cell → local directory (`--trajectory CELL=DIR`). */
  trajectory?: Record<string, string>;
  /** Read the Hub itself instead of `hub/` (`--hub`; README: Live sources). */
  hub?: boolean;
  /** `--hub-url` (else `HF_ENDPOINT`, else the public Hub). */
  hubUrl?: string;
  /** `--cache-dir` (else `$XDG_CACHE_HOME/ptb-manifest`): the Hub cache and the build cache (README: Performance). */
  cacheDir?: string;
  /** `--no-cache`: neither read nor write the build cache (per-file extractor results and input hashes). */
  noCache?: boolean;
  /** `--concurrency`: Hub repos fetched at once (default 8). */
  concurrency?: number;
  /** Retry policy of the Hub client (tests shorten the waits; the CLI uses the defaults). */
  hubRetry?: Partial<RetryPolicy>;
  /** Environment for `HF_TOKEN`, `HF_ENDPOINT`, `XDG_CACHE_HOME` (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** `--force`: replace files in `out` that this tool did not write (else `OUT_FOREIGN_FILE`). */
  force?: boolean;
  /** The streams the progress bar and messages look at and draw on (default `process.stdout`, `process.stderr`). */
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
  /** How the summary (stdout) and `--strict`'s failure (stderr) are styled for a terminal (default: plain text). */
  style?: { stdout: Style; stderr: Style };
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
 *   before anything is read), `OUT_IS_INPUT` for an `out` inside a `--pvc`
 *   or `--trajectory` folder (even with `force`), `OUT_FOREIGN_FILE` for a
 *   file in `out` at an output name that the build did not write (unless `force`); ExitCodeError with exit code 2 under `strict`
 *   when there are warnings, 64 for an empty `out` (nothing written).
 */
export async function runBuild(opts: BuildCommandOptions): Promise<{ result: BuildResult; summary: string }> {
  const sourcesDir = resolve(opts.sources);
  // Before anything is read: a --sources that is no sources folder, then an --out that cannot take the
  // outputs or that lies in the sources, is refused at once.
  await assertSourcesFolder(sourcesDir);
  await checkOutFolder(opts.out, { sources: opts.sources });
  // A cache is written when the build cache is on (never with --no-cache or --strict) and by --hub (its files).
  if ((!opts.noCache && !opts.strict) || opts.hub) {
    // A cache folder the user named must take files: the Hub's files go through it; the build cache is
    // only a saving, so without one the build goes on, saying so (the default's failures only cost the cache).
    const problem = await cacheFolderProblem(cacheDirOf(opts), opts.cacheDir, opts.sources);
    if (problem && opts.hub) throw problem;
    if (problem) {
      (opts.stderr ?? process.stderr).write(
        warningLine({
          code: "CACHE_UNWRITABLE",
          file: opts.cacheDir!,
          line: null,
          message: `${problem.message.replace(/; nothing written$/, "")}: the build runs without its cache`,
        }),
      );
      opts = { ...opts, noCache: true };
    }
  }
  // An output in a folder the build reads (--pvc, --trajectory), or a file of the user's at an output name
  // (a README.md of `--out .`), is refused before the work, not after.
  await checkNotInputs(
    [...BUILD_NAMES].map((n) => join(resolve(opts.out), n)),
    buildInputs(opts),
    { option: "--out" },
  );
  // A folder, a device or a link to one at an output name is refused now, not after the work (even with --force).
  for (const n of BUILD_NAMES) await checkOutFile(join(resolve(opts.out), n));
  if (!opts.force) {
    const own = await readOwnership(resolve(opts.out));
    const foreign = await foreignFiles(
      resolve(opts.out),
      new Map([...BUILD_NAMES].map((n) => [n, null])),
      own,
      "build",
    );
    if (foreign.length > 0) throw foreignFileError(resolve(opts.out), foreign, "--out", own.earlier);
  }
  const progress = byteProgress({ quiet: opts.quiet, stdout: opts.stdout, stderr: opts.stderr });
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
  // The build cache trusts a file's size, mtime, head and tail (README: Performance); the release gate reads every byte.
  const cache = opts.noCache || opts.strict ? undefined : new FileCache(cacheDirOf(opts));
  const onBytes = progress.active ? (n: number) => progress.add(n) : undefined;
  if (progress.active) progress.stage("reading", (await inputBytes(sourcesDir)).extracted);
  const hubOpts = opts.hub
    ? hubOptionsFrom({ hubUrl: opts.hubUrl, cacheDir: opts.cacheDir, concurrency: opts.concurrency }, opts.env)
    : null;
  let liveRepos: HubRepo[] = [];
  let sources = withTrajectoryDirs(withLivePvc(snapshotSources(sourcesDir), opts.pvc ?? {}), opts.trajectory ?? {});
  let foreignHubEntries = 0;
  const onForeignCache = (n: number) => {
    foreignHubEntries += n;
  };
  if (hubOpts) sources = withLiveHub(sources, { ...hubOpts, retry: opts.hubRetry, log, onForeignCache });
  const result = await buildManifest({
    sources,
    toleranceH: opts.toleranceH,
    outlierFloorH: opts.outlierFloorH,
    log,
    cache,
    onBytes,
    onHubRepos: (repos) => {
      if (hubOpts) liveRepos = repos;
    },
  });
  const args = {
    sources: opts.sources,
    out: opts.out,
    // Where the sources are seen from the output folder, so explain/validate run from any folder compare the right inputs
    // (the typed paths are relative to the working folder; an absolute path would make the report depend on it).
    sources_from_out: relative(resolve(opts.out), resolve(opts.sources)).split(sep).join("/") || ".",
    strict: Boolean(opts.strict),
    tolerance_h: opts.toleranceH ?? DEFAULT_TOLERANCE_H,
    outlier_floor_h: opts.outlierFloorH ?? DEFAULT_OUTLIER_FLOOR_H,
    ...(opts.pvc && Object.keys(opts.pvc).length > 0 ? { pvc: opts.pvc } : {}),
    ...(opts.trajectory && Object.keys(opts.trajectory).length > 0 ? { trajectory: opts.trajectory } : {}),
    ...(hubOpts ? { hub: redactUrl(hubOpts.hubUrl) } : {}),
  };
  // Hashing may add INPUT_UNREADABLE warnings, so it comes before the warnings are listed and the gate is checked.
  const inputs = await trajectoryInputs(
    liveInputs(await hashAll(sourcesDir, cache, progress, result), opts.pvc, hubOpts ? liveRepos : null),
    opts.trajectory,
    cache,
  );
  // Read before anything is written: the warnings of the previous build into the same folder, to say which are new.
  const previous = await readBuildReport(resolve(opts.out)).catch(() => null);
  const compared = compareWarnings(result.warnings, previous?.warnings ?? null);
  const previousSources = previous?.arguments.sources;
  // The previous build read another sources folder: its new and gone warnings compare two sweeps, and the line says so.
  // Where the previous build's sources were, seen from the output folder when it recorded that (any working folder), else as typed.
  const fromOut = previous?.arguments.sources_from_out;
  const previousDir =
    typeof fromOut === "string"
      ? resolve(opts.out, fromOut)
      : typeof previousSources === "string"
        ? resolve(previousSources)
        : null;
  const otherSources =
    typeof previousSources === "string" && previousDir !== null && previousDir !== sourcesDir
      ? { previous: previousSources, current: opts.sources }
      : null;
  const warningLines = renderWarnings(result.warnings, {
    compared,
    verbose: opts.verbose,
    out: opts.out,
    strict: opts.strict,
    otherSources,
  });
  if (opts.strict && result.warnings.length > 0) {
    const err = opts.style?.stderr ?? PLAIN;
    throw new ExitCodeError(EXIT.strictWarnings, strictFailure(result.warnings, warningLines, err));
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
    made.set(
      "datapackage.json",
      dataPackage(csv, { name: `${result.registry.org}-index`, title: "AgentPTB checkpoint index" }),
    );
    made.set("manifest.schema.json", manifestJsonSchema());
    return made;
  });
  await writeFilesAtomically(resolve(opts.out), files, "--out", {
    writer: "build",
    force: opts.force,
    inputs: buildInputs(opts),
  });
  const foreign = (cache?.stats.foreign ?? 0) + foreignHubEntries;
  if (foreign > 0) (opts.stderr ?? process.stderr).write(foreignCacheWarning(foreign, cache?.dir ?? hubOpts!.cacheDir));
  return { result, summary: summarise(result, opts.out, warningLines, opts.style?.stdout, opts.strict) };
}

/** The cache folder of a build: `--cache-dir`, else the default (the build cache's and the Hub cache's). */
function cacheDirOf(opts: BuildCommandOptions): string {
  return resolve(opts.cacheDir ?? defaultCacheDir(opts.env));
}

/**
 * The terminal's warning `CACHE_FOREIGN_ENTRIES` (only there: the outputs do
 * not depend on the cache): `entries` cache entries in `dir` another user
 * wrote were not used.
 */
function foreignCacheWarning(entries: number, dir: string): string {
  return warningLine({
    code: "CACHE_FOREIGN_ENTRIES",
    file: dir,
    line: null,
    message: `${entries} cache entr${entries === 1 ? "y" : "ies"} written by another user not used (recomputed): anyone who can write a cache entry could change a result; give a cache folder of your own (--cache-dir)`,
  });
}

/**
 * What a build reads besides its own previous outputs: the sources folder
 * and the live folders of `--pvc` and `--trajectory` (with everything in
 * them); no output may be written there (`OUT_IS_INPUT`).
 */
function buildInputs(opts: BuildCommandOptions): { path: string; named?: string; option: string }[] {
  return [
    { path: opts.sources, option: "--sources" },
    ...Object.entries(opts.pvc ?? {}).map(([cell, dir]) => ({
      path: dir,
      option: "--pvc",
      named: `--pvc ${cell}=${dir}`,
    })),
    ...Object.entries(opts.trajectory ?? {}).map(([cell, dir]) => ({
      path: dir,
      option: "--trajectory",
      named: `--trajectory ${cell}=${dir}`,
    })),
  ];
}

/**
 * `hashInputs` through the build cache, with a "hashing" stage on the progress
 * bar. A file or folder that cannot be read and that no extractor has warned
 * about (no `*_UNREADABLE` or `*_READ_ERROR` warning on it or on a folder
 * above it: a `RUNLOG.md`, a folder no reader lists) adds an `INPUT_UNREADABLE`
 * warning to `result`: its hash is missing from the report. Then every file
 * hashed that no reader read and that is not known is a warning
 * (`unreadInputWarnings`: `INPUT_NOT_READ`, `HUB_UNKNOWN_OWNER`,
 * `CELL_NOT_REGISTERED`, `TRAJECTORY_FILE_NOT_READ`, `JANITOR_PART_NOT_READ`).
 */
async function hashAll(
  sourcesDir: string,
  cache: FileCache | undefined,
  progress: ReturnType<typeof byteProgress>,
  result: BuildResult,
): Promise<Record<string, string>> {
  if (progress.active) progress.stage("hashing", (await inputBytes(sourcesDir)).all);
  const warned = new Set(
    result.warnings
      .filter((w) => /_(UNREADABLE|READ_ERROR)$/.test(w.code))
      .map((w) => w.file)
      .filter((f): f is string => f !== null),
  );
  const covered = (rel: string): boolean => {
    const path = rel.replace(/\/$/, "");
    return [...warned].some((f) => f === path || f.startsWith(`${path}/`) || path.startsWith(`${f}/`));
  };
  const unreadable = new Set<string>();
  const inputs = await hashInputs(
    sourcesDir,
    cachedSha256(cache, progress.active ? (n) => progress.add(n) : undefined),
    (rel, err) => {
      unreadable.add(rel);
      if (!covered(rel)) {
        result.warnings.push({
          code: "INPUT_UNREADABLE",
          message: `cannot read ${rel}: ${fsReason(err)}; build-report.json has no hash of it`,
          file: rel.replace(/\/$/, ""),
          line: null,
        });
      }
    },
  );
  // Every file hashed is read by a reader, known, or a warning (INPUT_NOT_READ and its kin).
  if (result.inputsRead) {
    const named = new Set(result.warnings.map((w) => w.file).filter((f): f is string => f !== null));
    appendAll(
      result.warnings,
      unreadInputWarnings(Object.keys(inputs), result.inputsRead, result.registry, {
        namedByWarnings: named,
        unreadable: (p) => unreadable.has(p),
      }),
    );
  }
  return inputs;
}

/**
 * The report's `inputs` of a build with live sources: the snapshot files a
 * live source replaces are not inputs (`hub/` with `--hub`, `<cell>/pvc/`
 * with `--pvc`); each Hub repo read is listed as `hub/<owner>/<name>/` →
 * `commit <sha>` instead. Keys stay sorted.
 */
function liveInputs(
  inputs: Record<string, string>,
  pvc: Record<string, string> | undefined,
  hubRepos: HubRepo[] | null,
): Record<string, string> {
  if (!hubRepos && !(pvc && Object.keys(pvc).length > 0)) return inputs;
  const skip = liveReplacedPrefixes({ hub: hubRepos !== null, pvc });
  const out: [string, string][] = Object.entries(inputs).filter(([k]) => !isReplaced(k, skip));
  for (const r of hubRepos ?? []) out.push([`${r.dir}/`, `commit ${r.sha ?? "unknown"}`]);
  return Object.fromEntries(out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The report's `inputs` with `--trajectory CELL=DIR`: the files of DIR stand
 * for `<cell>/trajectory/` (hashed, named as if they were there), so the same
 * files inside or outside the sources give the same inputs. Keys stay sorted.
 */
async function trajectoryInputs(
  inputs: Record<string, string>,
  dirs: Record<string, string> | undefined,
  cache: FileCache | undefined,
): Promise<Record<string, string>> {
  if (!dirs || Object.keys(dirs).length === 0) return inputs;
  const skip = liveReplacedPrefixes({ trajectory: dirs });
  const out: [string, string][] = Object.entries(inputs).filter(([k]) => !isReplaced(k, skip));
  for (const [cell, dir] of Object.entries(dirs)) {
    for (const [k, v] of Object.entries(await hashInputs(resolve(dir), cachedSha256(cache))))
      out.push([`${cell}/trajectory/${k}`, v]);
  }
  return Object.fromEntries(out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
