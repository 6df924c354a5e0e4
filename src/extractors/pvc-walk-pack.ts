/**
 * The scans of a chunk of directories as one message between the walk's
 * threads (`pvc-walk-worker.ts` → `pvc-live.ts`): flat arrays instead of an
 * object per entry, so the copy between threads is a few large arrays and
 * one string per entry (its `find` line, of which the path is the tail).
 */
import type { DirScan, ScanWarning } from "./pvc-dir-scan.js";
import type { PvcEntry } from "./pvc-listing.js";

/** {@link DirScan}s of consecutive directories, packed by {@link packScans}. */
export interface PackedScans {
  /** Entries of each directory, in order. */
  counts: Int32Array;
  /** Each entry's `origin.raw` (the `find` line). */
  raws: string[];
  mtimes: Float64Array;
  sizes: Float64Array;
  /** Each entry's type letter. */
  types: string;
  /** Each directory's warnings, `dir` its index in the chunk, in order. */
  warnings: (ScanWarning & { dir: number })[];
}

/** Packs `scans` (see {@link PackedScans}). */
export function packScans(scans: DirScan[]): PackedScans {
  let n = 0;
  for (const s of scans) n += s.entries.length;
  const counts = new Int32Array(scans.length);
  const raws: string[] = new Array(n);
  const mtimes = new Float64Array(n);
  const sizes = new Float64Array(n);
  let types = "";
  const warnings: (ScanWarning & { dir: number })[] = [];
  let k = 0;
  for (let d = 0; d < scans.length; d += 1) {
    const s = scans[d]!;
    counts[d] = s.entries.length;
    for (const w of s.warnings) warnings.push({ ...w, dir: d });
    for (const e of s.entries) {
      raws[k] = e.origin.raw;
      mtimes[k] = e.mtimeMs;
      sizes[k] = e.sizeBytes;
      types += e.type;
      k += 1;
    }
  }
  return { counts, raws, mtimes, sizes, types, warnings };
}

/** The {@link DirScan}s {@link packScans} was given, the same values (each entry's path is the tail of its line). */
export function unpackScans(p: PackedScans): DirScan[] {
  const out: DirScan[] = [];
  let k = 0;
  let w = 0;
  for (let d = 0; d < p.counts.length; d += 1) {
    const warnings: ScanWarning[] = [];
    for (; w < p.warnings.length && p.warnings[w]!.dir === d; w += 1) {
      const { code, message, file } = p.warnings[w]!;
      warnings.push({ code, message, file });
    }
    const n = p.counts[d]!;
    const entries: PvcEntry[] = new Array(n);
    for (let i = 0; i < n; i += 1, k += 1) {
      const raw = p.raws[k]!;
      // The path is the fourth field: after the third tab (a path holds no tab: such names are not listed).
      const t1 = raw.indexOf("\t");
      const t3 = raw.indexOf("\t", t1 + 3);
      const path = raw.slice(t3 + 1);
      entries[i] = {
        mtimeMs: p.mtimes[k]!,
        type: p.types[k]!,
        sizeBytes: p.sizes[k]!,
        path,
        origin: { file: path, line: null, offset: null, raw },
      };
    }
    out.push({ entries, warnings });
  }
  return out;
}
