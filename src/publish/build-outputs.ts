/**
 * What `publish` reads of the build in `--out` (README: publish): the
 * release gate its `build-report.json` recorded, and its manifest rows.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { InputError } from "../errors.js";
import { readManifestRows as readManifest } from "../manifest/read.js";
import type { Row } from "../schema.js";
import { cmpStr } from "../util/values.js";

/**
 * The release gate as the build in `--out` recorded it (`build-report.json`:
 * `arguments.strict`, `warnings`). README: "`--strict` is the release gate".
 */
export interface ReleaseState {
  /** The build was made with `--strict`. */
  strict: boolean;
  /** Warnings the build recorded. */
  warnings: number;
  /** Warnings per code, most frequent first (ties by code). */
  counts: { code: string; count: number }[];
  /** A release build: `--strict` and no warning. */
  ok: boolean;
}

/**
 * Reads the release gate of the build in `outDir` from its
 * `build-report.json` (`arguments.strict`, and `warning_counts`, else the
 * `warnings` list). README: "`--strict` is the release gate".
 *
 * @throws InputError `PUBLISH_NO_BUILD` when the report is missing, not
 *   JSON, or records no arguments or no warnings (not this tool's report).
 */
export async function readReleaseState(outDir: string): Promise<ReleaseState> {
  const path = join(outDir, "build-report.json");
  let report: { arguments?: { strict?: unknown }; warnings?: unknown; warning_counts?: unknown };
  try {
    report = JSON.parse(await readFile(path, "utf8")) as typeof report;
    if (
      report === null ||
      typeof report !== "object" ||
      typeof report.arguments !== "object" ||
      report.arguments === null
    )
      throw new Error("no arguments recorded");
  } catch (err) {
    throw new InputError(
      "PUBLISH_NO_BUILD",
      `no valid build-report.json in ${outDir} (run ptb-manifest build first): ${(err as Error).message.split("\n")[0]}`,
      path,
    );
  }
  const byCode = new Map<string, number>();
  if (report.warning_counts && typeof report.warning_counts === "object" && !Array.isArray(report.warning_counts)) {
    for (const [code, n] of Object.entries(report.warning_counts as Record<string, unknown>))
      if (typeof n === "number" && n > 0) byCode.set(code, n);
  } else if (Array.isArray(report.warnings)) {
    for (const w of report.warnings as { code?: unknown }[]) {
      const code = typeof w?.code === "string" ? w.code : "UNKNOWN";
      byCode.set(code, (byCode.get(code) ?? 0) + 1);
    }
  } else {
    throw new InputError(
      "PUBLISH_NO_BUILD",
      `${path} records no warnings (neither warning_counts nor warnings): not a build report of this tool; run ptb-manifest build`,
      path,
    );
  }
  const counts = [...byCode]
    .map(([code, count]) => ({ code, count }))
    .sort((a, b) => b.count - a.count || cmpStr(a.code, b.code));
  const warnings = counts.reduce((n, c) => n + c.count, 0);
  const strict = report.arguments.strict === true;
  return { strict, warnings, counts, ok: strict && warnings === 0 };
}

/**
 * The release gate in words: `a release build (--strict, no warnings)`, or
 * `not a release build (built without --strict; 39 warnings: CODE n, ...)`
 * with every warning code and its count, most frequent first.
 */
export function describeRelease(r: ReleaseState): string {
  if (r.ok) return "a release build (--strict, no warnings)";
  const warnings = `${r.warnings} warning${r.warnings === 1 ? "" : "s"}${r.warnings ? `: ${r.counts.map((c) => `${c.code} ${c.count}`).join(", ")}` : ""}`;
  return `not a release build (${r.strict ? "" : "built without --strict; "}${warnings})`;
}

/**
 * The rows of `manifest.json` in `outDir` (MANIFEST.md), read by the one
 * manifest reader (src/manifest/read.ts: every row checked by the row
 * schema, an id or a checkpoint twice refused, a bad row named by its line).
 *
 * @throws InputError `PUBLISH_NO_BUILD` naming the file and line when it is
 *   missing, unreadable, not a JSON array, or a row is not a manifest row.
 */
export async function readManifestRows(outDir: string): Promise<Row[]> {
  const path = join(outDir, "manifest.json");
  try {
    return await readManifest(path);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    throw new InputError(
      "PUBLISH_NO_BUILD",
      `no valid manifest in ${outDir} (run ptb-manifest build first): ${err.message.split("\n")[0]}`,
      path,
      err.line,
    );
  }
}
