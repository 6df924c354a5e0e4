import { InvalidArgumentError, type Command } from "commander";
import { resolve } from "node:path";
import { buildManifest, type BuildResult } from "../build.js";
import { ExitCodeError, EXIT } from "../cli.js";
import { manifestCsv, manifestJson, modelIdsTxt, provenanceJsonl } from "../writers/manifest.js";
import { buildReportJson, countRows, hashInputs } from "../writers/report.js";
import { writeFilesAtomically } from "../util/atomic.js";
import { reportHtml } from "../writers/report-html.js";
import { indexCard } from "../writers/card.js";
import { dataPackage, manifestJsonSchema } from "../writers/datapackage.js";
import { DEFAULT_TOLERANCE_H } from "../resolve/cadence.js";

/** Options of the `build` command. */
export interface BuildCommandOptions {
  sources: string;
  out: string;
  strict?: boolean;
  toleranceH?: number;
  quiet?: boolean;
}

/**
 * Builds and writes the manifest (MANIFEST.md: Files written to the output
 * folder): `manifest.json`, `manifest.csv`, `model-ids.txt`,
 * `provenance.jsonl`, `build-report.json`, `report.html`, and the index
 * dataset's `README.md`, `datapackage.json` and `manifest.schema.json`, all
 * atomically.
 *
 * @returns the build result and the summary text printed.
 * @throws InputError (fatal input: nothing written), ExitCodeError with
 *   exit code 2 under `strict` when there are warnings (nothing written).
 */
export async function runBuild(opts: BuildCommandOptions): Promise<{ result: BuildResult; summary: string }> {
  const sourcesDir = resolve(opts.sources);
  const log = opts.quiet ? undefined : (m: string) => process.stderr.write(`${m}\n`);
  const result = await buildManifest({ sourcesDir, toleranceH: opts.toleranceH, log });
  if (opts.strict && result.warnings.length > 0) {
    const lines = result.warnings.slice(0, 20).map((w) => `  ${w.code} ${w.file ?? ""}${w.line ? `:${w.line}` : ""} ${w.message}`);
    throw new ExitCodeError(
      EXIT.strictWarnings,
      `--strict: ${result.warnings.length} warning(s); nothing written\n${lines.join("\n")}${result.warnings.length > 20 ? "\n  ..." : ""}`,
    );
  }
  const args = { sources: opts.sources, out: opts.out, strict: Boolean(opts.strict), tolerance_h: opts.toleranceH ?? DEFAULT_TOLERANCE_H };
  const files = new Map<string, string>([
    ["manifest.json", manifestJson(result.rows)],
    ["manifest.csv", manifestCsv(result.rows)],
    ["model-ids.txt", modelIdsTxt(result.rows)],
    ["provenance.jsonl", provenanceJsonl(result.provenance)],
    ["build-report.json", buildReportJson(result, args, await hashInputs(sourcesDir))],
    ["report.html", await reportHtml(result)],
  ]);
  const csv = files.get("manifest.csv")!;
  files.set("README.md", indexCard(result));
  files.set("datapackage.json", dataPackage(csv, { name: `${result.registry.org}-index`, title: "AgentPTB checkpoint index" }));
  files.set("manifest.schema.json", manifestJsonSchema());
  await writeFilesAtomically(resolve(opts.out), files);
  return { result, summary: summarise(result, opts.out) };
}

/** The short summary printed on success: rows per cell, per hour_source, warnings. */
export function summarise(result: BuildResult, out: string): string {
  const c = countRows(result.rows);
  const lines = [`wrote ${out}/: manifest.json, manifest.csv, model-ids.txt, provenance.jsonl, build-report.json, report.html, README.md, datapackage.json, manifest.schema.json`];
  lines.push(`${c.rows} rows: ${c.checkpoints} checkpoints + 1 baseline`);
  lines.push("", "| cell | driver | effort | checkpoints | eos_ok |", "|---|---|---|---|---|");
  for (const cell of result.registry.cells) {
    if (cell.excluded) continue;
    lines.push(`| \`${cell.cell}\` | ${cell.driver} | ${cell.effort} | ${c.per_cell[cell.cell] ?? 0} | ${c.eos_ok_per_cell[cell.cell] ?? "0/0"} |`);
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
    .option("--out <dir>", "the folder to write the manifest files into", "out")
    .option("--strict", "treat every warning as a failure: exit 2 and write nothing (the release gate)", false)
    .option("--tolerance-h <hours>", "largest leave-one-out error and anchor residual for an extrapolated hour", parsePositive, DEFAULT_TOLERANCE_H)
    .option("-q, --quiet", "no progress messages on stderr", false)
    .addHelpText("after", "\nExit codes: 0 written; 1 fatal input error (nothing written); 2 --strict with warnings (nothing written); 64 usage error.")
    .action(async (o: { sources: string; out: string; strict: boolean; toleranceH: number; quiet: boolean }) => {
      const { summary } = await runBuild({ sources: o.sources, out: o.out, strict: o.strict, toleranceH: o.toleranceH, quiet: o.quiet });
      process.stdout.write(`${summary}\n`);
    });
}

function parsePositive(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`expected a positive number of hours, got "${value}"`);
  return n;
}
