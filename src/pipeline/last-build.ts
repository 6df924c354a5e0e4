/**
 * The last build written into an output folder, read back from its own files
 * (MANIFEST.md: Files written to the output folder): what `explain` and
 * `validate` describe, and what the build compares its warnings with.
 */
import { readFile, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import type { BuildResult } from "../model.js";
import type { Warning } from "../diagnostics.js";
import { InputError } from "../errors.js";
import type { CellsFile, Row } from "../schema.js";
import { hashInputs } from "../util/hash.js";
import { isReplaced, liveReplacedPrefixes } from "./live-inputs.js";
import { checkRows, jsonRows } from "../manifest/read.js";
import { isAbsent } from "../util/fs-errors.js";
import { assertAsBuilt } from "./as-built.js";

/** The parts of `build-report.json` read back. */
export interface BuildReportFile {
  tool: string;
  version: string;
  arguments: Record<string, unknown>;
  excluded: BuildResult["excluded"];
  lost: BuildResult["lost"];
  runs: BuildResult["runs"];
  fits: BuildResult["fits"];
  warnings: Warning[];
  inputs: Record<string, string>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Reads `<out>/build-report.json`.
 *
 * @returns null when the folder or the file does not exist (no build there).
 * @throws InputError `OUT_BUILD_UNREADABLE` naming the file when it exists but
 *   cannot be read, is not JSON, or is not a report of this tool.
 */
export async function readBuildReport(out: string): Promise<BuildReportFile | null> {
  return (await readBuildReportText(out))?.report ?? null;
}

/** {@link readBuildReport}, with the text read (what `loadOutBuild` checks against the output marker). */
async function readBuildReportText(out: string): Promise<{ report: BuildReportFile; text: string } | null> {
  const path = join(out, "build-report.json");
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if (isAbsent(err)) return null;
    throw new InputError(
      "OUT_BUILD_UNREADABLE",
      `${path} cannot be read (${(err as Error).message.split("\n")[0]}): rebuild, or give --out another folder`,
      path,
    );
  }
  let report: unknown;
  try {
    report = JSON.parse(text);
  } catch (err) {
    throw new InputError(
      "OUT_BUILD_UNREADABLE",
      `${path} is not JSON (${(err as Error).message}): rebuild, or give --out another folder`,
      path,
    );
  }
  if (
    !isObject(report) ||
    report.tool !== "ptb-manifest" ||
    !isObject(report.arguments) ||
    !Array.isArray(report.warnings) ||
    !isObject(report.inputs)
  ) {
    throw new InputError(
      "OUT_BUILD_UNREADABLE",
      `${path} is not a build report of ptb-manifest: rebuild, or give --out another folder`,
      path,
    );
  }
  return { report: report as unknown as BuildReportFile, text };
}

/**
 * The build in `out` as a {@link BuildResult}, from its `manifest.json`,
 * `provenance.jsonl` and `build-report.json` (rows, provenance, fits, runs,
 * excluded and lost checkpoints, warnings), without reading any source: what
 * that build decided. Its `registry` holds only what `explain` needs to find
 * a row (the org, from the rows' ids, the baseline and the cell names);
 * `tokenCurves` is empty. Numbers the report wrote as null (an infinite
 * leave-one-out error) stay null. `reportText` is the text `report` was
 * parsed from (checked, with the other two, against the output marker).
 *
 * @throws InputError `OUT_BUILD_UNREADABLE` when a file is missing, not JSON,
 *   a manifest row is not a valid row (read by the one manifest reader,
 *   src/manifest/read.ts, naming its line), or the files disagree (not as
 *   many provenance lines as rows).
 */
async function loadOutBuild(out: string, report: BuildReportFile, reportText: string): Promise<BuildResult> {
  const read = async (name: string): Promise<string> => {
    try {
      return await readFile(join(out, name), "utf8");
    } catch (err) {
      throw new InputError(
        "OUT_BUILD_UNREADABLE",
        `${join(out, name)} cannot be read (${(err as Error).message.split("\n")[0]}), though build-report.json is there: rebuild`,
        join(out, name),
      );
    }
  };
  const manifestPath = join(out, "manifest.json");
  const manifestText = await read("manifest.json");
  const provenanceText = await read("provenance.jsonl");
  let rows: Row[];
  try {
    // The one manifest reader: every row checked by the row schema, a bad one named by its line.
    rows = checkRows(manifestPath, jsonRows(manifestPath, manifestText)).map((r) => r.row);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    throw new InputError("OUT_BUILD_UNREADABLE", `${err.message}: rebuild`, err.file, err.line);
  }
  // Rows that read well but were edited since the build are no build's decision either.
  await assertAsBuilt(out, [
    ["manifest.json", manifestText],
    ["provenance.jsonl", provenanceText],
    ["build-report.json", reportText],
  ]);
  let provenance: BuildResult["provenance"];
  try {
    provenance = provenanceText
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as BuildResult["provenance"][number]);
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(
      "OUT_BUILD_UNREADABLE",
      `${out}/provenance.jsonl is not JSON (${(err as Error).message}): rebuild`,
      out,
    );
  }
  if (rows.length !== provenance.length || rows.some((r, i) => r?.model_id !== provenance[i]?.model_id)) {
    throw new InputError(
      "OUT_BUILD_UNREADABLE",
      `${out}/manifest.json and provenance.jsonl do not describe the same rows (edited by hand, or from two builds): rebuild`,
      out,
    );
  }
  const checkpoint = rows.find((r) => r.cell !== "BASELINE");
  const cells = [
    ...new Set([
      ...rows.filter((r) => r.cell !== "BASELINE").map((r) => r.cell),
      ...(report.excluded ?? []).map((e) => e.cell),
    ]),
  ];
  const registry = {
    org: checkpoint ? checkpoint.model_id.split("/")[0]! : "",
    baseline: rows.find((r) => r.cell === "BASELINE")?.model_id ?? "",
    cells: cells.map((cell) => ({ cell })),
  } as unknown as CellsFile;
  return {
    registry,
    rows,
    provenance,
    warnings: report.warnings,
    excluded: report.excluded ?? [],
    lost: report.lost ?? [],
    fits: report.fits ?? {},
    runs: report.runs ?? {},
    tokenCurves: {},
  };
}

/** Whether the inputs of a recorded build are the same files now (by sha256). */
interface InputsComparison {
  state: "unchanged" | "changed" | "unknown";
  /** Input paths whose content differs, that are new, or that are gone (sorted, relative to the sources folder). */
  changed: string[];
  added: string[];
  removed: string[];
  /** Why the state is unknown (the sources folder cannot be read). */
  reason?: string;
}

/**
 * Compares the sha256 of every file under `sourcesDir` now with the `inputs`
 * a build recorded (MANIFEST.md: build-report.json). Inputs read live (a Hub
 * repo recorded as `commit <sha>`, with the `hub/` folder it replaced; a
 * `<cell>/pvc/` replaced by `--pvc`, a `<cell>/trajectory/` replaced by
 * `--trajectory`) are not compared here: they are as the build read them.
 */
async function compareInputs(sourcesDir: string, report: BuildReportFile): Promise<InputsComparison> {
  const unknown = (reason: string): InputsComparison => ({
    state: "unknown",
    changed: [],
    added: [],
    removed: [],
    reason: `${sourcesDir} ${reason}`,
  });
  try {
    if (!(await stat(sourcesDir)).isDirectory()) return unknown("is not a folder");
  } catch (err) {
    return unknown(`cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let now: Record<string, string>;
  try {
    now = await hashInputs(resolve(sourcesDir));
  } catch (err) {
    return unknown(`cannot be read (${(err as Error).message.split("\n")[0]})`);
  }
  const args = report.arguments;
  const live = Object.entries(report.inputs).some(([, v]) => v.startsWith("commit "));
  const skip = liveReplacedPrefixes({
    hub: Boolean(args.hub) || live,
    pvc: isObject(args.pvc) ? args.pvc : undefined,
    trajectory: isObject(args.trajectory) ? args.trajectory : undefined,
  });
  const skipped = (k: string): boolean => isReplaced(k, skip);
  const changed: string[] = [];
  const added: string[] = [];
  const removed: string[] = [];
  for (const [k, v] of Object.entries(report.inputs)) {
    if (skipped(k) || v.startsWith("commit ")) continue;
    if (!(k in now)) removed.push(k);
    else if (now[k] !== v) changed.push(k);
  }
  for (const k of Object.keys(now)) if (!skipped(k) && !(k in report.inputs)) added.push(k);
  const state = changed.length + added.length + removed.length === 0 ? "unchanged" : "changed";
  return { state, changed: changed.sort(), added: added.sort(), removed: removed.sort() };
}

/** The recorded arguments as command-line options, for "which build" lines (`--sources sources --tolerance-h 5`). */
function argumentsText(args: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(args)) {
    if (k === "out" || k === "sources_from_out" || v === false || v === undefined || v === null) continue;
    const flag = `--${k.replace(/_/g, "-")}`;
    if (v === true) parts.push(flag);
    else if (isObject(v)) for (const [a, b] of Object.entries(v)) parts.push(`${flag} ${a}=${String(b)}`);
    else parts.push(`${flag} ${String(v)}`);
  }
  return parts.join(" ");
}

/** Which build `explain` or `validate` describes, as `--json` prints it under `build`. */
export interface DescribedBuild {
  /** The output folder looked in. */
  out: string;
  /** Whether a build was found there (else the result was derived now). */
  found: boolean;
  version: string | null;
  /** That build's recorded arguments, or the options of the derivation made now. */
  arguments: Record<string, unknown>;
  /** The sources folder compared with the build's recorded inputs (or derived from). */
  sources: string;
  /** Inputs now against the build's recorded sha256s; null when derived now. */
  inputs: InputsComparison | null;
  /** The line printed above the text output. */
  line: string;
  /** Options given on the command line that this build did not use (set by the command), printed under `line`. */
  notes: string[];
}

/** Options of {@link describedResult}. */
export interface DescribedResultOptions {
  out: string;
  sources: string;
  /** `--sources` was given on the command line (else the build's recorded one is compared). */
  sourcesGiven: boolean;
  toleranceH: number;
  outlierFloorH: number;
}

/**
 * The sources folder a build recorded: `sources_from_out` resolved against
 * the output folder (right from any working folder), else, for a report
 * without it, the typed `sources` as it is (relative to the working folder
 * the build ran in). Null when the report records neither.
 */
function recordedSources(out: string, report: BuildReportFile | null): string | null {
  const fromOut = report?.arguments.sources_from_out;
  if (typeof fromOut === "string") {
    const abs = resolve(out, fromOut);
    const rel = relative(process.cwd(), abs);
    // Shown as typed where that names the same folder; else relative to here, or absolute when outside it.
    const typed = report?.arguments.sources;
    if (typeof typed === "string" && resolve(typed) === abs) return typed;
    return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? abs : rel;
  }
  return typeof report?.arguments.sources === "string" ? report.arguments.sources : null;
}

/** Whether two paths name one folder (after resolving links, where they exist). */
async function sameFolder(a: string, b: string): Promise<boolean> {
  const real = async (p: string): Promise<string> => {
    try {
      return await realpath(p);
    } catch {
      return resolve(p);
    }
  };
  return (await real(a)) === (await real(b));
}

const listSome = (xs: string[]): string => (xs.length > 3 ? `${xs.slice(0, 3).join(", ")}, …` : xs.join(", "));

/**
 * The result `explain` and `validate` describe: the last build written into
 * `out` (its own files, {@link loadOutBuild}: exactly what it decided, with
 * whatever `--tolerance-h`, `--outlier-floor-h`, `--pvc` or `--hub` it was
 * given), with whether its inputs changed since ({@link compareInputs});
 * else, when `out` holds no build, a derivation from `sources` made now with
 * the given options, saying so.
 *
 * @throws InputError `OUT_BUILD_UNREADABLE` (a build report that cannot be
 *   read back), or the fatal input errors of `buildManifest` when deriving.
 */
export async function describedResult(
  opts: DescribedResultOptions,
): Promise<{ result: BuildResult; build: DescribedBuild }> {
  const read = await readBuildReportText(opts.out);
  // A build of other sources than the ones asked about does not describe them.
  const recorded = recordedSources(opts.out, read?.report ?? null);
  const other = read !== null && opts.sourcesGiven && recorded !== null && !(await sameFolder(recorded, opts.sources));
  if (read === null || other) {
    const { buildManifest } = await import("../pipeline/build-manifest.js");
    const result = await buildManifest({
      sourcesDir: resolve(opts.sources),
      toleranceH: opts.toleranceH,
      outlierFloorH: opts.outlierFloorH,
    }).catch((err: unknown) => {
      // No build in --out and no sources where none were named: say that --out was looked in first.
      if (read === null && !opts.sourcesGiven && err instanceof InputError && err.code === "SOURCES_NOT_FOUND")
        throw new InputError(
          err.code,
          `no build in --out ${opts.out} (no build-report.json), and nothing to derive one from now: ${err.message}`,
          err.file,
          err.line,
        );
      throw err;
    });
    const args = { sources: opts.sources, tolerance_h: opts.toleranceH, outlier_floor_h: opts.outlierFloorH };
    return {
      result,
      build: {
        out: opts.out,
        found: false,
        version: null,
        arguments: args,
        sources: opts.sources,
        inputs: null,
        line: `${
          other
            ? `Build: the one in ${opts.out}/ is of ${recorded}/, not of ${opts.sources}/`
            : `Build: none in ${opts.out}/ (no build-report.json)`
        }: derived now from ${opts.sources}/ with ${argumentsText({ ...args, sources: undefined })} (no --pvc, no --hub).`,
        notes: [],
      },
    };
  }
  const { report, text } = read;
  const result = await loadOutBuild(opts.out, report, text);
  const sources = opts.sourcesGiven ? opts.sources : (recorded ?? opts.sources);
  const inputs = await compareInputs(sources, report);
  const head = `Build: ${opts.out}/ (ptb-manifest ${report.version}; ${argumentsText(report.arguments) || "default options"})`;
  const state =
    inputs.state === "unchanged"
      ? `inputs in ${sources}/ unchanged since that build.`
      : inputs.state === "changed"
        ? `inputs in ${sources}/ CHANGED since that build (${[
            inputs.changed.length ? `${inputs.changed.length} changed: ${listSome(inputs.changed)}` : "",
            inputs.added.length ? `${inputs.added.length} added: ${listSome(inputs.added)}` : "",
            inputs.removed.length ? `${inputs.removed.length} removed: ${listSome(inputs.removed)}` : "",
          ]
            .filter(Boolean)
            .join("; ")}): this is what that build decided; rebuild to see the change.`
        : `cannot tell whether the inputs changed since that build: ${inputs.reason}.`;
  return {
    result,
    build: {
      out: opts.out,
      found: true,
      version: report.version,
      arguments: report.arguments,
      sources,
      inputs,
      line: `${head}; ${state}`,
      notes: [],
    },
  };
}
