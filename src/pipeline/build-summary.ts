/**
 * What `build` prints when it ends (README: build): the summary of a build
 * written (rows per cell and per hour_source, the warnings, the next step),
 * and the next step after a `--strict` build that failed.
 */
import type { BuildResult } from "../model.js";
import { countRows } from "../writers/report.js";
import { mdCell } from "../util/markdown.js";
import { PLAIN, type Style } from "../util/colour.js";
import { type Warning, where } from "../diagnostics.js";

/**
 * The short summary printed on success: rows per cell (`eos_ok` as
 * `ok/known, N unknown`), per hour_source, the warnings as `warningLines`
 * gives them (`renderWarnings`; by default the bare count), and last, what to
 * do next ({@link buildNext}). Text from `cells.json` in its tables goes
 * through `mdCell`, so a `|` or a line break in a driver or effort cannot
 * break them. `style` colours what a reader scans for on a terminal (counts,
 * warning codes, an `eos_ok` short of its known rows, the next step); the
 * words are the same either way.
 */
export function summarise(
  result: BuildResult,
  out: string,
  warningLines?: string[],
  style: Style = PLAIN,
  strict = false,
): string {
  const c = countRows(result.rows);
  const n = (k: number): string => style.count(String(k));
  const lines = [
    `wrote ${out.replace(/(.)\/+$/, "$1").replace(/\/$/, "")}/: manifest.json, manifest.csv, model-ids.txt, provenance.jsonl, build-report.json, report.html, README.md, datapackage.json, manifest.schema.json`,
  ];
  lines.push(`${n(c.rows)} rows: ${n(c.checkpoints)} checkpoints + 1 baseline`);
  lines.push("", "| cell | driver | effort | checkpoints | eos_ok |", "|---|---|---|---|---|");
  for (const cell of result.registry.cells) {
    if (cell.excluded) continue;
    lines.push(
      `| ${mdCell(`\`${cell.cell}\``)} | ${mdCell(cell.driver)} | ${mdCell(cell.effort)} | ${c.per_cell[cell.cell] ?? 0} | ${eosStyled(c.eos_ok_per_cell[cell.cell] ?? "0/0", style)} |`,
    );
  }
  if (result.rows.some((r) => r.cell !== "BASELINE" && r.eos_ok === null)) {
    lines.push(
      "",
      "eos_ok: ok/known; unknown = eos_ok null (no published repo yet, or its files give no stop ids), neither correct nor broken",
    );
  }
  lines.push("", "| hour_source | n |", "|---|---|");
  for (const [k, count] of Object.entries(c.per_hour_source)) lines.push(`| \`${k}\` | ${count} |`);
  for (const e of result.excluded) lines.push("", `excluded: ${e.cell} (${e.reason})`);
  if (result.lost.length) lines.push(`lost (weights survive nowhere, no row): ${n(result.lost.length)}`);
  lines.push(
    ...styleWarningLines(warningLines ?? [`warnings: ${result.warnings.length} (see build-report.json)`], style),
  );
  lines.push(style.hint(buildNext(out, strict)));
  return lines.join("\n");
}

/** An `eos_ok` cell of the summary (`39/57`, `28/35, 1 unknown`): its `ok/known` green when all known are ok, else red. */
function eosStyled(text: string, style: Style): string {
  return text.replace(/^(\d+)\/(\d+)/, (pair, ok: string, known: string) =>
    ok === known ? style.good(pair) : style.bad(pair),
  );
}

/**
 * `renderWarnings`' lines styled for a terminal: the total and each code's
 * count bold, each code yellow (the detail lines as they are).
 */
function styleWarningLines(lines: string[], style: Style): string[] {
  if (!style.on) return lines;
  return lines.map((line) =>
    line
      .replace(/^warnings: (\d+)/, (_, k: string) => `warnings: ${style.count(k)}`)
      .replace(
        /^ {2}([A-Z][A-Z0-9_]*)( +)(\d+)/,
        (_, code: string, gap: string, k: string) => `  ${style.warning(code)}${gap}${style.count(k)}`,
      ),
  );
}

/** `--out` as the next command would take it: left out at its default `out`, quoted for a POSIX shell when it must be. */
function outArgument(out: string): string {
  const dir = out.replace(/(.)\/+$/, "$1");
  if (dir === "out") return "";
  return ` --out ${/^[\w./@%+=:,-]+$/.test(dir) ? dir : `'${dir.replaceAll("'", "'\\''")}'`}`;
}

/**
 * The summary's last line: what to do after a build into `out`. Always
 * `validate` (the hours against independent evidence); `publish` only after
 * a `--strict` build, the only one `publish --yes` takes (README: publish).
 */
function buildNext(out: string, strict: boolean): string {
  const o = outArgument(out);
  return strict
    ? `next: ptb-manifest validate${o}, then ptb-manifest publish${o} (prints the plan; --yes applies it)`
    : `next: ptb-manifest validate${o}; a build to publish is made with --strict (the release gate)`;
}

/**
 * What `build --strict` prints when the build has `warnings` (at least one)
 * and writes nothing: their count, `warningLines` (`renderWarnings`), and
 * what to fix first.
 */
export function strictFailure(warnings: readonly Warning[], warningLines: string[], style: Style): string {
  return [
    `--strict: ${style.count(String(warnings.length))} warning(s); nothing written`,
    ...styleWarningLines(warningLines, style),
    style.hint(strictNext(warnings[0]!)),
  ].join("\n");
}

/** The last line of `--strict`'s failure: the first warning found, with its code and place, is what to fix first. */
function strictNext(first: Warning): string {
  const at = where(first.file, first.line);
  return `next: fix ${first.code}${at ? ` at ${at}` : ""} first (the first found; the README's "Warnings and errors" says how), then build with --strict again`;
}
