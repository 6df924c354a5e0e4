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
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { isOwnFile } from "../util/own-file.js";

/** One cached repo commit. */
export interface CacheEntry {
  /** The entry's folder: the small files that exist, as downloaded. */
  dir: string;
  /** Every small file asked for: `file` (in `dir`) or `absent` (not in the repo at that commit). */
  files: Record<string, "file" | "absent">;
}

const MARKER = ".ptb-cache.json";

/**
 * The default cache folder (DESIGN.md: caches follow the platform
 * convention): `$XDG_CACHE_HOME/ptb-manifest` when `XDG_CACHE_HOME` is an
 * absolute path, else `~/.cache/ptb-manifest`.
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".cache"), "ptb-manifest");
}

/** The cache of small Hub files under one folder (see the module comment for the layout). */
export class HubFileCache {
  /** Entries found that another user wrote (not used: see `own-file.ts`). */
  foreign = 0;

  constructor(readonly root: string) {}

  /** The folder of `repoId` (`owner/name`) at commit `sha`. */
  entryDir(repoId: string, sha: string): string {
    const [owner, name] = repoId.split("/") as [string, string];
    return join(this.root, "hub", owner, name, sha);
  }

  /**
   * The entry of `repoId` at `sha`, or null when there is none (or it is
   * unreadable, or another user wrote it: it is then fetched again).
   */
  async get(repoId: string, sha: string): Promise<CacheEntry | null> {
    const dir = this.entryDir(repoId, sha);
    try {
      if (!isOwnFile(await stat(dir)) || !isOwnFile(await stat(join(dir, MARKER)))) {
        this.foreign += 1;
        return null;
      }
      const marker = JSON.parse(await readFile(join(dir, MARKER), "utf8")) as {
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
    const dir = this.entryDir(repoId, sha);
    const parent = join(dir, "..");
    await mkdir(parent, { recursive: true });
    let tmp = await mkdtemp(join(parent, `.tmp-${sha}-`));
    const files: CacheEntry["files"] = {};
    try {
      for (const [name, bytes] of contents) {
        files[name] = bytes === null ? "absent" : "file";
        if (bytes !== null) await writeFile(join(tmp, name), bytes);
      }
      await writeFile(join(tmp, MARKER), `${JSON.stringify({ version: 1, repo: repoId, sha, files })}\n`);
      try {
        await rm(dir, { recursive: true, force: true }); // an unreadable old entry
        await rename(tmp, dir);
      } catch (err) {
        const again = await this.get(repoId, sha);
        if (again) return again;
        // Another user's entry is in the way (a shared cache folder): this run's own copy is used, and kept.
        if (
          this.foreign > 0 &&
          (await stat(dir).then(
            (st) => !isOwnFile(st),
            () => false,
          ))
        ) {
          const kept = tmp;
          tmp = "";
          return { dir: kept, files };
        }
        throw err;
      }
    } finally {
      if (tmp) await rm(tmp, { recursive: true, force: true });
    }
    return { dir, files };
  }
}
