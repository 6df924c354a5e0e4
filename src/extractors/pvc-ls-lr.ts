/**
 * The PVC listing captured with `ls -lR --full-time` (SOURCES.md: pvc/), as
 * {@link PvcEntry} entries: the same entries `listing.tsv` gives.
 */
import type { Diagnostics } from "../diagnostics.js";
import { InputError } from "../errors.js";
import type { Origin } from "../observations.js";
import type { Line } from "../util/lines.js";
import { clip } from "../util/values.js";
import { readEntries, warnCutLine, type PvcEntry } from "./pvc-listing.js";

const LS_ENTRY_RE =
  /^([-dlcbps])[-rwxsStT]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+(\d+)\s+(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d+))? ([+-]\d{4}) (.+)$/;

/** An `ls -l` entry without `--full-time`: `Oct 12 04:00`, `Oct 12  2025` or `2026-10-12 04:00` (no seconds, no offset). */
const LS_SHORT_TIME_RE =
  /^[-dlcbps][-rwxsStT]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+\d+\s+(?:[A-Za-z]{3}\s+\d{1,2}\s+(?:\d{1,2}:\d{2}|\d{4})|\d{4}-\d{2}-\d{2} \d{2}:\d{2}|\d{2}-\d{2} \d{2}:\d{2}) \S/;

/**
 * Streams `pvc/ls-lR.txt`, captured with `ls -lR --full-time <pvc_root>`
 * (SOURCES.md: pvc/): blocks headed `<dir>:`, `total N`, then one entry a
 * line; links show as `name -> target`. Types are mapped to `find`'s letters.
 *
 * Warnings: `PVC_BAD_LINE` (an entry line that does not parse, or an entry
 * before any `<dir>:` header), `PVC_CUT_LINE` and `PVC_LISTING_EMPTY`.
 *
 * @throws InputError `PVC_LS_NOT_FULL_TIME` at the first entry written
 *   without `--full-time` (e.g. `Oct 12 04:00`): no entry of such a capture has
 *   a usable time, so the listing must be captured again.
 */
export function readLsLR(absPath: string, file: string, diag: Diagnostics): AsyncGenerator<PvcEntry> {
  return readEntries(parseLsLRBatches, absPath, file, diag);
}

/**
 * Parses the lines of an `ls-lR.txt` (`file` names it), a buffer-full at a
 * time, into entries: the rules, warnings and errors of {@link readLsLR}, no
 * file system (an error thrown by `batches` passes through).
 */
export async function* parseLsLRBatches(
  batches: AsyncIterable<Line[]> | Iterable<Line[]>,
  file: string,
  diag: Diagnostics,
): AsyncGenerator<PvcEntry[]> {
  let dir: string | null = null;
  let seen = false;
  for await (const lines of batches) {
    const batch: PvcEntry[] = [];
    for (const line of lines) {
      const text = line.text;
      if (text !== "") seen = true;
      if (text === "" || /^total \d+$/.test(text)) continue;
      const origin: Origin = { file, line: line.lineNo, offset: line.offset, raw: text };
      if (line.unterminated) {
        warnCutLine(line, file, diag);
        continue;
      }
      if (text.startsWith("/") && text.endsWith(":")) {
        dir = text.slice(0, -1).replace(/\/+$/, "");
        continue;
      }
      const m = LS_ENTRY_RE.exec(text);
      if (!m && LS_SHORT_TIME_RE.test(text)) {
        // Every entry of such a capture lacks its time: one error for the file, not a warning a line.
        throw new InputError(
          "PVC_LS_NOT_FULL_TIME",
          `the listing was captured without --full-time (an entry reads "${clip(text, 80)}"): no mtime can be read to the second with its offset; re-capture it with \`ls -lR --full-time ${dir ?? "<pvc_root>"}\``,
          file,
          line.lineNo,
        );
      }
      if (!m || dir === null) {
        diag.warn(
          "PVC_BAD_LINE",
          dir === null ? `entry before any "<dir>:" header: ${clip(text)}` : `unreadable ls entry: ${clip(text)}`,
          file,
          line.lineNo,
        );
        continue;
      }
      const [, t, size, day, hms, frac = "", offset, nameField] = m as unknown as [
        string,
        string,
        string,
        string,
        string,
        string | undefined,
        string,
        string,
      ];
      const type = t === "-" ? "f" : t;
      const name = type === "l" ? nameField.split(" -> ")[0]! : nameField;
      const sign = offset.startsWith("-") ? -1 : 1;
      const offMin = sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(3, 5)));
      const wallMs = Date.parse(`${day}T${hms}Z`);
      const mtimeMs = wallMs - offMin * 60_000 + Number(`0.${frac || "0"}`) * 1000;
      batch.push({ mtimeMs, type, sizeBytes: Number(size), path: `${dir}/${name}`, origin });
    }
    if (batch.length > 0) yield batch;
  }
  if (!seen)
    diag.warn("PVC_LISTING_EMPTY", "the listing has no entries: no checkpoint on the PVC can be seen", file, null);
}
