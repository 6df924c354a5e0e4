import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { BuildResult } from "../model.js";
import { countRows } from "./report.js";
import { VERSION } from "../version.js";
import { mdCell } from "../util/markdown.js";

/** The card template shipped with the tool (`templates/index-card.md`). */
const CARD_TEMPLATE_PATH = fileURLToPath(new URL("../../templates/index-card.md", import.meta.url));

/** What each hour_source means (index-card.md: hour_source). */
const HOUR_SOURCE_MEANING: Record<string, string> = {
  mtime: "checkpoint dir mtime on the PVC (exact)",
  janitor: "archive timestamps from the arm's `ckpt-janitor.log` (exact)",
  extrapolated:
    "that family's own step→time cadence; validated against independent local anchors to within {{max_error}} h",
  unrecoverable:
    "local copy pruned, no timing record survives. `hour` is null — use `hour_upper_bound` and step order, or exclude",
};

/** Said under an eos table that shows unknowns (MANIFEST.md: `eos_ok` null). */
const EOS_UNKNOWN_NOTE =
  "`ok/known`: rows whose stop ids include the required one, of those whose stop ids are known; `unknown`: `eos_ok` is null (no published repo yet, or its files give no stop ids), counted neither as correct nor as broken.";

/** A Markdown table; every cell goes through {@link mdCell}, so a `|` or a line break in a `driver` or `effort` cannot break it. */
const mdTable = (head: string[], rows: (string | number)[][]): string =>
  [
    `| ${head.map(mdCell).join(" | ")} |`,
    `|${head.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.map((x) => mdCell(String(x))).join(" | ")} |`),
  ].join("\n");

/**
 * `README.md` of the index dataset (issue: publish): the template's prose with
 * every table computed from the manifest (cells and checkpoint counts,
 * `hour_source` counts, eos per cell), and YAML front matter whose `configs:`
 * makes the Hub's dataset viewer show `manifest.csv`.
 */
export function indexCard(result: BuildResult, template = readFileSync(CARD_TEMPLATE_PATH, "utf8")): string {
  const c = countRows(result.rows);
  const cells = result.registry.cells.filter((x) => !x.excluded);
  const extrapolatedErrors = result.rows.filter((r) => r.hour_error_h !== null).map((r) => r.hour_error_h!);
  const maxError = extrapolatedErrors.length ? Math.max(...extrapolatedErrors).toFixed(2) : "n/a";
  const baseline = result.rows.find((r) => r.cell === "BASELINE");
  const values: Record<string, string> = {
    org: result.registry.org,
    baseline: result.registry.baseline,
    spare_owner: result.registry.spare_owner,
    required_eos: String(result.registry.required_eos_token_id),
    baseline_eos: JSON.stringify(baseline?.eos_token_id ?? null),
    version: VERSION,
    cells_table: mdTable(
      ["cell", "driver", "effort", "checkpoints"],
      cells.map((x) => [`\`${x.cell}\``, x.driver, x.effort, c.per_cell[x.cell] ?? 0]),
    ),
    excluded: result.excluded.length
      ? result.excluded.map((e) => `\`${e.cell}\` is deliberately absent: ${e.reason}.`).join("\n")
      : "",
    hour_source_table: mdTable(
      ["value", "n", "meaning"],
      Object.entries(c.per_hour_source).map(([k, n]) => [
        `\`${k}\``,
        n,
        (HOUR_SOURCE_MEANING[k] ?? "").replace("{{max_error}}", maxError),
      ]),
    ),
    eos_table:
      mdTable(
        ["cell", "eos_ok"],
        cells.map((x) => [`\`${x.cell}\``, c.eos_ok_per_cell[x.cell] ?? "0/0"]),
      ) + (result.rows.some((r) => r.cell !== "BASELINE" && r.eos_ok === null) ? `\n\n${EOS_UNKNOWN_NOTE}` : ""),
  };
  return template.replace(/\{\{(\w+)\}\}/g, (m, name: string) => values[name] ?? m);
}
