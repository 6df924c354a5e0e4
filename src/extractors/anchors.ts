import { join } from "node:path";
import type { Cell } from "../schema.js";
import type { Diagnostics } from "../diagnostics.js";
import type { Observation } from "../observations.js";
import { readLines } from "../util/lines.js";
import { clip } from "./pvc-listing.js";
import { fsErrorCode, warnUnreadable } from "../util/fs-errors.js";
import { parseIsoTime, parseStep } from "../util/values.js";

/**
 * Reads a cell's optional `anchors.tsv` (SOURCES.md: anchors.tsv): header
 * `family step time kind note`, tab-separated; `time` ISO 8601 with an
 * offset; `family` already a family id. Anchors validate recovered hours and
 * are never a source of them.
 *
 * Warnings: `ANCHOR_BAD_LINE` (wrong field count, a step that is not a
 * number, a time without an offset), `ANCHOR_BAD_HEADER`, `ANCHOR_UNREADABLE`
 * (a file system error: none of the file's anchors is used).
 */
export async function readAnchors(sourcesDir: string, cell: Cell, diag: Diagnostics): Promise<Observation[]> {
  const file = `${cell.cell}/anchors.tsv`;
  const out: Observation[] = [];
  let seq = 0;
  try {
    for await (const line of readLines(join(sourcesDir, cell.cell, "anchors.tsv"))) {
      if (line.text.trim() === "" || line.text.startsWith("#")) continue;
      const fields = line.text.split("\t");
      if (line.lineNo === 1 && fields[0] === "family") {
        if (fields.slice(0, 3).join(",") !== "family,step,time") diag.warn("ANCHOR_BAD_HEADER", `unexpected header: ${line.text}`, file, 1);
        continue;
      }
      const [family = "", step = "", time = "", kind = "", note = ""] = fields;
      const ms = parseIsoTime(time);
      if (fields.length < 3 || parseStep(step) === null || family === "" || Number.isNaN(ms)) {
        diag.warn("ANCHOR_BAD_LINE", `expected family, integer step and ISO time with offset: ${clip(line.text)}`, file, line.lineNo);
        continue;
      }
      out.push({
        cell: cell.cell, family, step: Number(step), kind: "anchor", familyDir: null, utcMs: ms,
        timeNote: `anchor (${kind || "unspecified"})`, origin: { file, line: line.lineNo, offset: line.offset, raw: line.text },
        extractor: "anchors", detail: { kind, note }, seq: seq++,
      });
    }
  } catch (err) {
    if (fsErrorCode(err) !== "ENOENT") warnUnreadable(diag, "ANCHOR_UNREADABLE", file, err, "none of its anchors is used (anchors only validate hours)");
  }
  return out;
}
