import type { Cell } from "../schema.js";
import type { Diagnostics } from "../diagnostics.js";
import type { WarningCode } from "../diagnostics/registry.js";
import type { Observation } from "../observations.js";
import type { Line } from "../util/lines.js";
import type { SourceFile } from "../sources/sources.js";
import { clip } from "../util/values.js";
import { isAbsent, warnUnreadable } from "../util/fs-errors.js";
import { parseIsoTime, parseStep } from "../util/values.js";

/**
 * Reads a cell's optional `anchors.tsv` through the sources (see
 * {@link parseAnchors}; `Sources.anchors`): an
 * absent file gives no anchors. Warning `ANCHOR_UNREADABLE` (a file system
 * error: none of the file's anchors is used), besides those of {@link parseAnchors}.
 */
export async function readAnchors(file: SourceFile, cell: Cell, diag: Diagnostics): Promise<Observation[]> {
  const out: Observation[] = [];
  try {
    await parseAnchors(file.lines(), file.rel, cell, diag, out);
  } catch (err) {
    if (!isAbsent(err))
      warnUnreadable(
        diag,
        "ANCHOR_UNREADABLE",
        file.rel,
        err,
        "none of its anchors is used (anchors only validate hours)",
      );
  }
  return out;
}

/**
 * Parses a cell's `anchors.tsv` (SOURCES.md: anchors.tsv) from its lines, into `out`: header
 * `family step time kind note`, tab-separated; `time` ISO 8601 with an
 * offset; `family` already a family id. Anchors validate recovered hours and
 * are never a source of them.
 *
 * Warnings: `ANCHOR_BAD_LINE` (wrong field count, a step that is not a
 * number, a time without an offset), `ANCHOR_BAD_HEADER`, `ANCHOR_NOT_TAB_SEPARATED`
 * (no line has a tab but lines split on spaces: one warning for the file,
 * every line skipped), `ANCHOR_CUT_LINE` (a last line without a line end
 * whose time is its last field: a cut offset `+05:30` → `+05` still parses,
 * so it is skipped). No file system: an error
 * thrown by `lines` passes through, after the line warnings found so far
 * (the anchors found so far stay in `out`).
 */
export async function parseAnchors(
  lines: AsyncIterable<Line> | Iterable<Line>,
  file: string,
  cell: Cell,
  diag: Diagnostics,
  out: Observation[],
): Promise<void> {
  let seq = 0;
  // Line warnings wait for the end of the file: a file with no tab at all gets one warning, not one a line.
  const pending: [code: WarningCode, message: string, line: number][] = [];
  let tabbed = 0;
  let spaced = 0;
  let firstSpaced: number | null = null;
  const flush = (): void => {
    if (tabbed === 0 && spaced > 0) {
      diag.warn(
        "ANCHOR_NOT_TAB_SEPARATED",
        `fields are separated by spaces, not tabs (anchors.tsv is tab-separated): its ${spaced} line(s) are skipped`,
        file,
        firstSpaced,
      );
    } else {
      for (const [code, message, line] of pending) diag.warn(code, message, file, line);
    }
  };
  try {
    for await (const line of lines) {
      if (line.text.trim() === "" || line.text.startsWith("#")) continue;
      if (line.text.includes("\t")) tabbed += 1;
      else if (line.text.trim().split(/\s+/).length >= 3) {
        spaced += 1;
        firstSpaced ??= line.lineNo;
      }
      const fields = line.text.split("\t");
      if (line.lineNo === 1 && fields[0] === "family") {
        if (fields.slice(0, 3).join(",") !== "family,step,time")
          pending.push(["ANCHOR_BAD_HEADER", `unexpected header: ${line.text}`, 1]);
        continue;
      }
      const [family = "", step = "", time = "", kind = "", note = ""] = fields;
      const ms = parseIsoTime(time);
      if (fields.length < 3 || parseStep(step) === null || family === "" || Number.isNaN(ms)) {
        const spaces =
          fields.length < 3 && line.text.trim().split(/\s+/).length >= 3 ? " (fields must be separated by tabs)" : "";
        pending.push([
          "ANCHOR_BAD_LINE",
          `expected family, integer step and ISO time with offset${spaces}: ${clip(line.text)}`,
          line.lineNo,
        ]);
        continue;
      }
      if (line.unterminated && fields.length < 4) {
        // The file's last line has no line end and ends in its time: a cut "+05:30" still
        // parses as "+05", so the time cannot be trusted. With a tab after the time it is whole.
        pending.push([
          "ANCHOR_CUT_LINE",
          `last line has no line end and may be cut off inside its time; skipped (end the line, or add the kind column): ${clip(line.text)}`,
          line.lineNo,
        ]);
        continue;
      }
      out.push({
        cell: cell.cell,
        family,
        step: Number(step),
        kind: "anchor",
        familyDir: null,
        utcMs: ms,
        timeNote: `anchor (${kind || "unspecified"})`,
        origin: { file, line: line.lineNo, offset: line.offset, raw: line.text },
        extractor: "anchors",
        detail: { kind, note },
        seq: seq++,
      });
    }
  } finally {
    flush();
  }
}
