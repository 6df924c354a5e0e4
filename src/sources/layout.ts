/**
 * The layout of a sources folder (SOURCES.md: Layout), in one place: every
 * path the build reads is named here, relative to the sources folder and
 * written with `/` (as messages, `inputsRead` and `build-report.json` show
 * it). {@link absPath} turns one into a path on disk.
 *
 * ```
 * cells.json
 * <cell>/supervisor/history.jsonl
 * <cell>/pvc/listing.tsv | <cell>/pvc/ls-lR.txt
 * <cell>/janitor/ckpt-janitor.log[.N[.gz]]
 * <cell>/anchors.tsv                      (optional)
 * <cell>/trajectory/                      (session files)
 * hub/<owner>/<name>/.hub.json and the repo's small files
 * ```
 */
import { join } from "node:path";

export const CELLS_JSON = "cells.json";
export const HUB_DIR = "hub";
/** The current janitor log; rotated parts are `ckpt-janitor.log.N`, optionally gzipped. */
export const JANITOR_LOG = "ckpt-janitor.log";

/** `<cell>/supervisor/history.jsonl` (SOURCES.md: supervisor/). */
export const supervisorHistoryPath = (cell: string): string => `${cell}/supervisor/history.jsonl`;
/** `<cell>/pvc`, the folder of the PVC listing (SOURCES.md: pvc/). */
export const pvcDirPath = (cell: string): string => `${cell}/pvc`;
/** `<cell>/pvc/listing.tsv` (`find -printf`), preferred over ls-lR.txt (SOURCES.md: pvc/). */
export const listingTsvPath = (cell: string): string => `${cell}/pvc/listing.tsv`;
/** `<cell>/pvc/ls-lR.txt` (`ls -lR --full-time`) (SOURCES.md: pvc/). */
export const lsLRPath = (cell: string): string => `${cell}/pvc/ls-lR.txt`;
/** `<cell>/janitor`, the folder of the janitor log's parts (SOURCES.md: janitor). */
export const janitorDirPath = (cell: string): string => `${cell}/janitor`;
/** `<cell>/anchors.tsv` (SOURCES.md: anchors.tsv). */
export const anchorsPath = (cell: string): string => `${cell}/anchors.tsv`;
/** `<cell>/trajectory`, the folder of the driver's session files (TRAJECTORIES.md). */
export const trajectoryDirPath = (cell: string): string => `${cell}/trajectory`;
/** `hub/<owner>/<name>`, one downloaded repo (SOURCES.md: hub/). */
export const hubRepoPath = (owner: string, name: string): string => `${HUB_DIR}/${owner}/${name}`;

/** A file (relative path) that the extractors stream in full: trajectories, PVC listings, janitor logs (progress bars). */
export function isExtractedPath(rel: string): boolean {
  return /^[^/]+\/(trajectory|pvc|janitor)\//.test(rel);
}

/** The rotation number N of a rotated janitor log part `ckpt-janitor.log.N[.gz]`, or null for any other name. */
function rotationNumber(name: string): number | null {
  const m = /^ckpt-janitor\.log\.(\d+)(\.gz)?$/.exec(name);
  return m ? Number(m[1]) : null;
}

/**
 * The janitor log's parts among a folder's names, oldest first:
 * `ckpt-janitor.log.N[.gz]` from the highest N down, then `ckpt-janitor.log`
 * (SOURCES.md: janitor, "higher number = older").
 */
export function orderJanitorParts(names: readonly string[]): string[] {
  const rotated: { n: number; name: string }[] = [];
  for (const name of names) {
    const n = rotationNumber(name);
    if (n !== null) rotated.push({ n, name });
  }
  rotated.sort((a, b) => b.n - a.n || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const parts = rotated.map((r) => r.name);
  if (names.includes(JANITOR_LOG)) parts.push(JANITOR_LOG);
  return parts;
}

/**
 * The janitor log's parts missing among `names` (SOURCES.md: janitor, "the
 * log is rotated with copytruncate"): rotation numbers 1 up to the highest
 * present without a gap, and the current `ckpt-janitor.log` (copytruncate
 * always leaves it), when any part is there at all. Each missing rotated part
 * is named `ckpt-janitor.log.N[.gz]`; empty when none is missing.
 */
export function missingJanitorParts(names: readonly string[]): string[] {
  const numbers = new Set<number>();
  for (const name of names) {
    const n = rotationNumber(name);
    if (n !== null) numbers.add(n);
  }
  if (numbers.size === 0) return [];
  const missing: string[] = [];
  const highest = Math.max(...numbers);
  // A rotation number beyond what any real log reaches is a stray name, not thousands of lost parts.
  if (highest <= 1000)
    for (let n = highest - 1; n >= 1; n -= 1) if (!numbers.has(n)) missing.push(`${JANITOR_LOG}.${n}[.gz]`);
  if (!names.includes(JANITOR_LOG)) missing.push(JANITOR_LOG);
  return missing;
}

/** `rel` (a layout path) inside the sources folder `sourcesDir`, as a path on disk. */
export function absPath(sourcesDir: string, rel: string): string {
  return join(sourcesDir, ...rel.split("/"));
}
