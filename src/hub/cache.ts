/**
 * The local cache of Hub repos' small files, keyed by repo id and commit sha
 * (README: Live sources, `build --hub`: a second run with nothing changed on
 * the Hub makes only the listing requests). A commit never changes, so an entry never goes stale.
 *
 * Layout: `<cacheDir>/hub/<owner>/<name>/<sha>/` holding the small files as
 * downloaded (byte for byte, the `hub/<owner>/<name>/` layout of SOURCES.md
 * without `.hub.json`) and `.ptb-cache.json`:
 * `{"version":1,"repo","sha","files":{"config.json":"file"|"absent",...}}`.
 * An entry is written in a temporary directory beside it and renamed into
 * place, so it is either whole or absent. No token or header is stored. An
 * entry another user wrote (a shared cache folder) is not used.
 */
import { join } from "node:path";
import type { Stats } from "node:fs";
import { mkdtemp, open, rename, rm, stat, writeFile } from "node:fs/promises";
import { makeFolder } from "../util/out-folder.js";
import { isOwnFile } from "../util/own-file.js";

/** One cached repo commit. */
export interface CacheEntry {
  /** The entry's folder: the small files that exist, as downloaded. */
  dir: string;
  /** Every small file asked for: `file` (in `dir`) or `absent` (not in the repo at that commit). */
  files: Record<string, "file" | "absent">;
}

const MARKER = ".ptb-cache.json";

/** The default cache folder: the build cache's (`util/file-cache.ts`), which this cache shares. */
export { defaultCacheDir } from "../util/file-cache.js";

/** The cache of small Hub files under one folder (see the module comment for the layout). */
export class HubFileCache {
  /** The entries found that another user wrote (`owner/name@sha`): not used (see `own-file.ts`). */
  private readonly foreignEntries = new Set<string>();

  constructor(readonly root: string) {}

  /** How many entries another user wrote were met (each fetched again, and kept under this user's name). */
  get foreign(): number {
    return this.foreignEntries.size;
  }

  /** The folder of `repoId` (`owner/name`) at commit `sha`. */
  entryDir(repoId: string, sha: string): string {
    const [owner, name] = repoId.split("/") as [string, string];
    return join(this.root, "hub", owner, name, sha);
  }

  /**
   * Where this user's entry of `repoId` at `sha` is, with its folder's stats
   * (null when absent): the entry's folder, or, when another user's entry
   * holds that name (a shared cache folder), the name beside it with this
   * user's id (`<sha>.uid<N>`).
   */
  private async ownDir(repoId: string, sha: string): Promise<{ dir: string; st: Stats | null }> {
    const dir = this.entryDir(repoId, sha);
    const st = await stat(dir).catch(() => null);
    if (st === null || isOwnFile(st)) return { dir, st };
    this.foreignEntries.add(`${repoId}@${sha}`);
    const mine = `${dir}.uid${process.getuid?.() ?? 0}`;
    return { dir: mine, st: await stat(mine).catch(() => null) };
  }

  /**
   * The entry of `repoId` at `sha`, or null when there is none (or it is
   * unreadable: it is then fetched again). Another user's entry is never
   * read: this user's own, beside it, is.
   */
  async get(repoId: string, sha: string): Promise<CacheEntry | null> {
    const { dir, st } = await this.ownDir(repoId, sha);
    if (st === null || !isOwnFile(st)) return null;
    try {
      const fh = await open(join(dir, MARKER), "r");
      let text: string;
      try {
        if (!isOwnFile(await fh.stat())) return null;
        text = await fh.readFile("utf8");
      } finally {
        await fh.close();
      }
      const marker = JSON.parse(text) as {
        version?: number;
        repo?: string;
        sha?: string;
        files?: Record<string, string>;
      };
      if (marker.version !== 1 || marker.repo !== repoId || marker.sha !== sha || !marker.files) return null;
      const files: CacheEntry["files"] = {};
      for (const [name, state] of Object.entries(marker.files)) {
        if (state !== "file" && state !== "absent") return null;
        files[name] = state;
      }
      return { dir, files };
    } catch {
      return null;
    }
  }

  /**
   * Stores the small files of `repoId` at `sha` (name → bytes, or null for
   * a file the repo does not have) and returns the entry. Atomic: written
   * beside the entry, then renamed; if another run stored it meanwhile, that
   * entry is kept.
   */
  async put(repoId: string, sha: string, contents: Map<string, Buffer | null>): Promise<CacheEntry> {
    const { dir } = await this.ownDir(repoId, sha);
    const parent = join(dir, "..");
    await makeFolder(parent, "--cache-dir"); // one mkdir at a time: a recursive one can hang under /proc
    const tmp = await mkdtemp(join(parent, `.tmp-${sha}-`));
    const files: CacheEntry["files"] = {};
    try {
      for (const [name, bytes] of contents) {
        files[name] = bytes === null ? "absent" : "file";
        if (bytes !== null) await writeFile(join(tmp, name), bytes);
      }
      await writeFile(join(tmp, MARKER), `${JSON.stringify({ version: 1, repo: repoId, sha, files })}\n`);
      await rm(dir, { recursive: true, force: true }); // an unreadable old entry of this user's
      try {
        await rename(tmp, dir);
      } catch (err) {
        const again = await this.get(repoId, sha);
        if (again) return again;
        throw err;
      }
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
    return { dir, files };
  }
}
