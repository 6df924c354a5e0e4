/**
 * The build cache: per-file extractor results, reused when a file has not
 * changed (README: Performance, "Build cache": per-file results keyed by
 * size, mtime and a content hash of the file's head and tail).
 *
 * An entry is keyed by: the kind of result, a hash of the tool's own code (any
 * change of the code invalidates every entry), the file's absolute path, a
 * caller's `extra` text (e.g. the display name, or the cell's settings), and
 * the file's fingerprint (size, mtime in ns, sha256 of its first and last 64
 * KiB). An entry is stored as a header line (its key and the sha256 of the
 * body) and a JSON body; an entry that cannot be read, whose header does not
 * match or whose body does not hash right is ignored (and rewritten), so a
 * corrupt cache never changes a result; nor does an entry another user wrote
 * (a shared cache folder): it is not used. Writes are atomic (temp file, rename);
 * a write that fails (read-only folder, full disk) is ignored.
 *
 * Location: `--cache-dir`, else `$XDG_CACHE_HOME/ptb-manifest`, else
 * `~/.cache/ptb-manifest` (DESIGN.md: caches follow the platform convention).
 */
import { createHash, randomBytes } from "node:crypto";
import { open, readFile, readdir, rename, rm, writeFile } from "node:fs/promises";
import { makeFolder } from "./out-folder.js";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isOwnFile } from "./own-file.js";

/** Layout version of the entries; part of every key. */
const CACHE_LAYOUT = 1;
/** Bytes hashed at each end of a file for its fingerprint. */
export const FINGERPRINT_EDGE_BYTES = 64 * 1024;

/** What identifies a file's content without reading it whole. */
export interface Fingerprint {
  size: number;
  /** mtime in nanoseconds, as decimal text. */
  mtimeNs: string;
  /** sha256 (hex) of the first and last {@link FINGERPRINT_EDGE_BYTES} bytes. */
  edges: string;
}

/** Counters of one cache's use, for the build report's progress line and the benchmarks. */
export interface CacheStats {
  hits: number;
  misses: number;
  /** Entries present but unreadable or corrupt (ignored). */
  corrupt: number;
  /** Writes that failed (ignored). */
  writeErrors: number;
  /** Entries present but written by another user (ignored: see `own-file.ts`). */
  foreign: number;
}

/**
 * The default cache folder: `$XDG_CACHE_HOME/ptb-manifest` when that is an
 * absolute path, else `~/.cache/ptb-manifest` (the same folder as the Hub
 * cache of `src/hub/cache.ts`; build entries live under its `build/`).
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env["XDG_CACHE_HOME"];
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".cache"), "ptb-manifest");
}

/**
 * The fingerprint of a file: size, mtime (ns) and sha256 of its first and last
 * 64 KiB. Null when the file cannot be read.
 */
export async function fingerprint(absPath: string): Promise<Fingerprint | null> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(absPath, "r");
  } catch {
    return null;
  }
  try {
    const st = await fh.stat({ bigint: true });
    const size = Number(st.size);
    const hash = createHash("sha256");
    const edge = FINGERPRINT_EDGE_BYTES;
    const buf = Buffer.allocUnsafe(Math.min(size, 2 * edge));
    if (size <= 2 * edge) {
      const { bytesRead } = await fh.read(buf, 0, size, 0);
      hash.update(buf.subarray(0, bytesRead));
    } else {
      const a = await fh.read(buf, 0, edge, 0);
      const b = await fh.read(buf, edge, edge, size - edge);
      hash.update(buf.subarray(0, a.bytesRead));
      hash.update(buf.subarray(edge, edge + b.bytesRead));
    }
    return { size, mtimeNs: st.mtimeNs.toString(), edges: hash.digest("hex") };
  } catch {
    return null;
  } finally {
    await fh.close();
  }
}

let codeHashMemo: string | null = null;

/**
 * A hash of the tool's own code: every `.js`/`.ts` file under the folder the
 * code runs from (`dist/` or `src/`), the templates next to it
 * (`templates/`), and the package's `package.json` and `package-lock.json`
 * (the versions of the libraries). Part of every key, so that a changed
 * extractor, writer, template or library never reads an old entry.
 */
async function codeHash(): Promise<string> {
  if (codeHashMemo !== null) return codeHashMemo;
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let names: import("node:fs").Dirent[];
    try {
      names = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of names) {
      const p = join(dir, d.name);
      if (d.isDirectory()) await walk(p);
      else if (/\.(js|ts|mjs|cjs|md|jinja|html|json)$/.test(d.name) && !d.name.endsWith(".d.ts")) files.push(p);
    }
  };
  await walk(root);
  const pkg = resolve(root, "..");
  await walk(join(pkg, "templates"));
  for (const f of ["package.json", "package-lock.json"]) files.push(join(pkg, f));
  files.sort();
  const hash = createHash("sha256");
  for (const f of files) {
    hash.update(f.slice(pkg.length));
    hash.update("\0");
    hash.update(await readFile(f).catch(() => Buffer.alloc(0)));
    hash.update("\0");
  }
  codeHashMemo = hash.digest("hex");
  return codeHashMemo;
}

/**
 * A folder of cached per-file results (see the module comment). A cache made
 * with `dir === null` is disabled: `get` always misses and `put` does nothing.
 */
export class FileCache {
  readonly stats: CacheStats = { hits: 0, misses: 0, corrupt: 0, writeErrors: 0, foreign: 0 };

  /** @param dir the cache folder (created on first write), or null for no cache. */
  constructor(readonly dir: string | null) {}

  /** True when the cache reads and writes entries. */
  get enabled(): boolean {
    return this.dir !== null;
  }

  /** The key of an entry that depends on a text rather than on a file (hex sha256). */
  async keyOfText(kind: string, text: string): Promise<string> {
    const parts = [CACHE_LAYOUT, kind, await codeHash(), createHash("sha256").update(text).digest("hex")];
    return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
  }

  /** The key of an entry (hex sha256). */
  async key(kind: string, absPath: string, extra: string, fp: Fingerprint): Promise<string> {
    const parts = [CACHE_LAYOUT, kind, await codeHash(), absPath, extra, fp.size, fp.mtimeNs, fp.edges];
    return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
  }

  private pathOf(kind: string, key: string): string {
    return join(this.dir!, "build", `v${CACHE_LAYOUT}`, kind.replace(/[^\w.-]/g, "_"), key.slice(0, 2), `${key}.json`);
  }

  /** The cached value of `key`, or undefined (absent, unreadable, corrupt, or another user's: `stats.foreign`). */
  async get<T>(kind: string, key: string): Promise<T | undefined> {
    if (this.dir === null) return undefined;
    let text: string;
    try {
      const fh = await open(this.pathOf(kind, key), "r");
      try {
        if (!isOwnFile(await fh.stat())) {
          this.stats.foreign += 1;
          this.stats.misses += 1;
          return undefined;
        }
        text = await fh.readFile("utf8");
      } finally {
        await fh.close();
      }
    } catch {
      this.stats.misses += 1;
      return undefined;
    }
    try {
      const nl = text.indexOf("\n");
      const header = JSON.parse(text.slice(0, nl)) as { key?: unknown; sha256?: unknown };
      const body = text.slice(nl + 1);
      if (nl < 0 || header.key !== key || header.sha256 !== createHash("sha256").update(body).digest("hex")) {
        throw new Error("bad entry");
      }
      const value = JSON.parse(body) as T;
      this.stats.hits += 1;
      return value;
    } catch {
      this.stats.corrupt += 1;
      this.stats.misses += 1;
      return undefined;
    }
  }

  /** Stores `value` (plain JSON) under `key`, atomically; failures are ignored. */
  async put(kind: string, key: string, value: unknown): Promise<void> {
    if (this.dir === null) return;
    const target = this.pathOf(kind, key);
    const tmp = `${target}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      const body = JSON.stringify(value);
      const header = JSON.stringify({ key, sha256: createHash("sha256").update(body).digest("hex") });
      await makeFolder(dirname(target), "--cache-dir"); // one mkdir at a time: a recursive one can hang under /proc
      await writeFile(tmp, `${header}\n${body}`, { mode: 0o644 }); // never writable by the group (own-file.ts)
      await rename(tmp, target);
    } catch {
      this.stats.writeErrors += 1;
      await rm(tmp, { force: true }).catch(() => {});
    }
  }

  /**
   * The cached result of one file, or `compute()`'s, stored for next time.
   * `extra` is any other text the result depends on (a display name, a
   * cell's settings). A file that cannot be fingerprinted is computed, not cached.
   */
  async through<T>(kind: string, absPath: string, extra: string, compute: () => Promise<T>): Promise<T> {
    if (this.dir === null) return compute();
    const fp = await fingerprint(absPath);
    if (fp === null) return compute();
    const key = await this.key(kind, absPath, extra, fp);
    const hit = await this.get<T>(kind, key);
    if (hit !== undefined) return hit;
    const value = await compute();
    await this.put(kind, key, value);
    return value;
  }

  /**
   * Like {@link through}, for a result that depends on several files (a
   * rotated log's parts): the key covers every file's fingerprint, in order.
   */
  async throughMany<T>(kind: string, absPaths: string[], extra: string, compute: () => Promise<T>): Promise<T> {
    if (this.dir === null) return compute();
    const fps: Fingerprint[] = [];
    for (const p of absPaths) {
      const fp = await fingerprint(p);
      if (fp === null) return compute();
      fps.push(fp);
    }
    const combined: Fingerprint = {
      size: fps.reduce((a, f) => a + f.size, 0),
      mtimeNs: fps.map((f) => f.mtimeNs).join(","),
      edges: createHash("sha256")
        .update(fps.map((f) => f.edges).join(","))
        .digest("hex"),
    };
    const key = await this.key(kind, absPaths.join("\0"), extra, combined);
    const hit = await this.get<T>(kind, key);
    if (hit !== undefined) return hit;
    const value = await compute();
    await this.put(kind, key, value);
    return value;
  }
}
