/**
 * Materialises a cell's PVC listing (`pvc/listing.tsv` or `pvc/ls-lR.txt`)
 * as a real directory tree, for the live PVC reader's tests (issue 4): every
 * listed directory, file and link under `pvc_root`, with its listed mtime set
 * by `utimes` / `lutimes`. Files are sparse (`truncate` to the listed size),
 * so 35 GB shards cost nothing; links point at a dangling target of the
 * listed length (`find %s` of a link is its target's length).
 */
import { lstat, lutimes, mkdir, symlink, truncate, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Diagnostics } from "../../src/diagnostics.js";
import { readListingTsv, type PvcEntry } from "../../src/extractors/pvc-listing.js";
import { readLsLR } from "../../src/extractors/pvc-ls-lr.js";

/** What {@link materialisePvc} made. */
export interface Materialised {
  /** Entries created (the listing's lines under `pvc_root`, less those that cannot be made). */
  created: number;
  /** Listed entries left out: outside `pvc_root`, an unsupported type, or a file where a directory is. */
  skipped: string[];
}

/**
 * Creates under `targetDir` the tree that `<sourcesDir>/<cell>/pvc/` lists
 * (`pvcRoot` ↦ `targetDir`), with the listed mtimes (to the microsecond or
 * so: `utimes` takes a double of seconds).
 */
export async function materialisePvc(
  sourcesDir: string,
  cell: string,
  pvcRoot: string,
  targetDir: string,
): Promise<Materialised> {
  const diag = new Diagnostics();
  const tsv = join(sourcesDir, cell, "pvc", "listing.tsv");
  const entries: PvcEntry[] = [];
  const reader = (await exists(tsv))
    ? readListingTsv(tsv, "listing.tsv", diag)
    : readLsLR(join(sourcesDir, cell, "pvc", "ls-lR.txt"), "ls-lR.txt", diag);
  for await (const e of reader) entries.push(e);
  const root = pvcRoot.replace(/\/+$/, "");
  const skipped: string[] = [];
  const local = (p: string): string | null => {
    if (p === root) return targetDir;
    if (!p.startsWith(`${root}/`)) return null;
    const rel = p.slice(root.length + 1);
    if (rel.split("/").some((x) => x === ".." || x === "." || x === "")) return null;
    return join(targetDir, rel);
  };
  const made: { path: string; entry: PvcEntry; depth: number }[] = [];
  await mkdir(targetDir, { recursive: true });
  // Directories first (and every parent), so that a file never stands where a directory must go.
  for (const e of entries) {
    const p = local(e.path);
    if (p === null) {
      skipped.push(e.path);
      continue;
    }
    if (e.type === "d") {
      await mkdir(p, { recursive: true });
      made.push({ path: p, entry: e, depth: p.split("/").length });
    } else {
      await mkdir(join(p, ".."), { recursive: true });
    }
  }
  for (const e of entries) {
    const p = local(e.path);
    if (p === null || e.type === "d") continue;
    if (await exists(p)) {
      skipped.push(e.path);
      continue;
    }
    if (e.type === "f") {
      await writeFile(p, "");
      await truncate(p, e.sizeBytes);
    } else if (e.type === "l") {
      await symlink("x".repeat(Math.max(1, e.sizeBytes)), p);
    } else {
      skipped.push(e.path);
      continue;
    }
    made.push({ path: p, entry: e, depth: p.split("/").length });
  }
  // Times last, deepest first: creating an entry moves its directory's mtime, setting a time does not.
  made.sort((a, b) => b.depth - a.depth);
  for (const m of made) {
    const t = m.entry.mtimeMs / 1000;
    if (m.entry.type === "l") await lutimes(m.path, t, t);
    else await utimes(m.path, t, t);
  }
  const rootEntry = entries.find((e) => e.path === root);
  if (rootEntry) await utimes(targetDir, rootEntry.mtimeMs / 1000, rootEntry.mtimeMs / 1000);
  return { created: made.length, skipped };
}

async function exists(p: string): Promise<boolean> {
  try {
    await lstat(p);
    return true;
  } catch {
    return false;
  }
}
