/**
 * The live Hub reader (README: Live sources; SOURCES.md: hub/, and "A live run reads the
 * same things from their live places"): the published repos (`org`), the
 * spare repos (`spare_owner`) and the baseline, read through
 * `@huggingface/hub` instead of a `hub/` snapshot folder; the build reads
 * them as the files a snapshot folder holds (src/sources/live-hub-source.ts),
 * so that it is byte-identical.
 *
 * Requests: one listing per owner (paginated by the Hub's absolute `Link`
 * header), the baseline's model info, and for each repo commit not in the
 * cache the small files it has (two requests each: the library's
 * `Range: bytes=0-0` probe, then the body). Weights are never asked for.
 */
import { createHash } from "node:crypto";
import { chmod, copyFile, mkdir, mkdtemp, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import pLimit from "p-limit";
import { downloadFile, HubApiError, listModels, modelInfo } from "@huggingface/hub";
import type { CellsFile } from "../schema.js";
import type { Diagnostics } from "../diagnostics.js";
import { InputError } from "../errors.js";
import { HubFileCache, defaultCacheDir, type CacheEntry } from "./cache.js";
import { createHubFetch, HubRequestError, redactUrl, type HubFetchStats, type RetryPolicy } from "./fetch.js";
import { hubError } from "./errors.js";
import { readHubToken } from "./token.js";
import { checkOutFolder, makeFolder } from "../util/out-folder.js";
import { OUT_MARKER, checkFolderOwned, markerOfFolder } from "../util/out-owner.js";

/** The small files of a repo that the manifest reads (SOURCES.md: hub/), in this order. */
const SMALL_FILES = ["config.json", "generation_config.json", "tokenizer_config.json", "chat_template.jinja"] as const;

/** The public Hub, when neither `--hub-url` nor `HF_ENDPOINT` says otherwise. */
export const DEFAULT_HUB_URL = "https://huggingface.co";

/** How to reach the Hub and where to cache (see {@link hubOptionsFrom}). */
export interface LiveHubOptions {
  /** The Hub's base URL, no trailing slash (e.g. `https://huggingface.co`). */
  hubUrl: string;
  /** The Hub token (starts with `hf_`, see `readHubToken`), sent as a bearer token; never printed or stored. */
  accessToken?: string;
  /** Where the token came from (`HF_TOKEN`, `the token file <path>`), for messages. */
  tokenSource?: string;
  /** The cache folder ({@link HubFileCache}). */
  cacheDir: string;
  /** Repos fetched at once (default 8): at most this many requests in flight. */
  concurrency?: number;
  /** Retry policy of the `fetch` handed to the library (tests shorten the waits). */
  retry?: Partial<RetryPolicy>;
  /** The underlying `fetch` (default: the global one). */
  fetch?: typeof fetch;
  /** Progress messages (stderr in the CLI). */
  log?: (message: string) => void;
  /** Told how many cache entries another user wrote (not used, fetched again), when there were any. */
  onForeignCache?: (entries: number, cacheDir: string) => void;
}

/** One repo as listed on the Hub, with its cached small files. */
export interface LiveRepo {
  /** `owner/name`. */
  id: string;
  owner: string;
  name: string;
  /** The commit the files were read at (null if the Hub gave none: then the files are fetched on every run). */
  sha: string | null;
  /** ISO UTC time of the last commit, as `.hub.json` holds it. */
  lastModified: string | null;
  createdAt: string | null;
  /** The repo's small files (a cache entry). */
  entry: CacheEntry;
}

/** What one pass over the Hub did. */
export interface LiveHubStats extends HubFetchStats {
  /** Repos listed (baseline included). */
  repos: number;
  /** Repo commits found in the cache. */
  cached: number;
  /** Repo commits whose small files were downloaded. */
  downloaded: number;
}

const DEFAULT_CONCURRENCY = 8;
const REPO_ID_RE = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const SHA_RE = /^[0-9a-f]{7,64}$/;

/**
 * Hub options from the command line and the environment (DESIGN.md, "Facts
 * about @huggingface/hub": the tool passes `HF_TOKEN` and `HF_ENDPOINT` itself): the URL is `flags.hubUrl`, else
 * `HF_ENDPOINT`, else {@link DEFAULT_HUB_URL}, without trailing `/`; the
 * token is read as the Hub's clients read it (`readHubToken`: `HF_TOKEN`,
 * else the file at `HF_TOKEN_PATH`, else `$HF_HOME/token`); the cache is
 * `flags.cacheDir`, else `$XDG_CACHE_HOME/ptb-manifest` (else
 * `~/.cache/ptb-manifest`).
 *
 * @throws InputError `HUB_BAD_URL` (not an http(s) URL), `HUB_BAD_TOKEN`
 *   (a token that does not start with `hf_`; its value is not shown),
 *   `HUB_TOKEN_UNREADABLE` (a token file that exists but cannot be read).
 */
export function hubOptionsFrom(
  flags: { hubUrl?: string; cacheDir?: string; concurrency?: number },
  env: NodeJS.ProcessEnv = process.env,
): Omit<LiveHubOptions, "log"> {
  const raw = flags.hubUrl ?? (env.HF_ENDPOINT || DEFAULT_HUB_URL);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InputError("HUB_BAD_URL", `not a URL: ${JSON.stringify(redactUrl(raw))} (--hub-url or HF_ENDPOINT)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new InputError("HUB_BAD_URL", `the Hub URL must be http(s): ${redactUrl(raw)}`);
  }
  // fetch refuses a URL with credentials in it (a TypeError on every request, retried as if the Hub were down).
  if (url.username || url.password) {
    throw new InputError(
      "HUB_BAD_URL",
      `the Hub URL carries a user name or password (${redactUrl(raw)}), which requests cannot send: give the token with HF_TOKEN`,
    );
  }
  const token = readHubToken(env);
  return {
    hubUrl: raw.replace(/\/+$/, ""),
    accessToken: token?.value,
    tokenSource: token?.source,
    cacheDir: resolve(flags.cacheDir ?? defaultCacheDir(env)),
    concurrency: flags.concurrency,
  };
}

/**
 * Lists the repos of `owners` and the repo `baseline` on the Hub and makes
 * sure the small files of each listed commit are in the cache, downloading
 * only what is missing (at most `concurrency` repos at once). Repos come out
 * sorted by id, each once.
 *
 * The listing asks for `sha`, `createdAt` and the file names (`siblings`),
 * so only files the commit has are downloaded; where the Hub gives no file
 * names, every small file is asked for and a 404 `EntryNotFound` means absent
 * (a file the listing names that answers 404 is a `HUB_ERROR`, never cached as absent).
 * Files are read at the listed commit (`revision: sha`), so a repo changing
 * during the run cannot mix two commits.
 *
 * Warnings: `HUB_BAD_REPO_ID` (a listed id that cannot be a folder name; skipped).
 * @throws InputError `HUB_UNREACHABLE` (connection refused, unknown host:
 *   no retry), `HUB_UNAVAILABLE` (429/5xx/dropped connections on every
 *   attempt), `HUB_ACCESS_DENIED` (401/403), `HUB_ERROR` (any other failure),
 *   `BASELINE_MISSING` (the baseline repo is not on the Hub). On the first
 *   failure the requests in flight are aborted.
 */
export async function fetchHubRepos(
  want: { owners: string[]; baseline: string },
  opts: LiveHubOptions,
  diag: Diagnostics,
): Promise<{ repos: LiveRepo[]; stats: LiveHubStats }> {
  const log = opts.log ?? (() => {});
  const stats: LiveHubStats = { requests: 0, retries: 0, repos: 0, cached: 0, downloaded: 0 };
  const controller = new AbortController();
  const hubFetch = createHubFetch({
    fetch: opts.fetch,
    retry: opts.retry,
    signal: controller.signal,
    stats,
    hubUrl: opts.hubUrl,
  });
  const common = { hubUrl: opts.hubUrl, accessToken: opts.accessToken, fetch: hubFetch };
  const cache = new HubFileCache(opts.cacheDir);
  try {
    type Listed = { id: string; sha?: string; lastModified: string | null; createdAt?: string; filePaths?: string[] };
    const listed: Listed[] = [];
    const fields = ["sha", "createdAt", "filePaths"] as ("sha" | "createdAt" | "filePaths")[];
    const listings = want.owners.map(async (owner) => {
      log(`hub: listing ${owner} at ${redactUrl(opts.hubUrl)}`);
      const out: Listed[] = [];
      for await (const m of listModels({ ...common, search: { owner }, additionalFields: fields })) {
        out.push({
          id: m.name,
          sha: m.sha,
          lastModified: isoOrNull(m.updatedAt),
          createdAt: m.createdAt,
          filePaths: m.filePaths,
        });
      }
      return out;
    });
    const baseline = (async (): Promise<Listed[]> => {
      try {
        const m = await modelInfo({ ...common, name: want.baseline, additionalFields: fields });
        return [
          {
            id: m.name,
            sha: m.sha,
            lastModified: isoOrNull(m.updatedAt),
            createdAt: m.createdAt,
            filePaths: m.filePaths,
          },
        ];
      } catch (err) {
        if (err instanceof HubApiError && err.statusCode === 404) {
          throw new InputError(
            "BASELINE_MISSING",
            `the baseline ${want.baseline} is not on the Hub at ${redactUrl(opts.hubUrl)}: the baseline row needs its eos files`,
          );
        }
        throw err;
      }
    })();
    for (const part of await settleAll([...listings, baseline], controller)) listed.push(...part);

    const seen = new Set<string>();
    const todo: Listed[] = [];
    for (const m of listed.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
      if (seen.has(m.id)) continue;
      seen.add(m.id);
      if (!REPO_ID_RE.test(m.id) || m.id.split("/").some((p) => p === "." || p === "..")) {
        diag.warn(
          "HUB_BAD_REPO_ID",
          `the Hub listed a repo id ${JSON.stringify(m.id)} that is not owner/name; skipped`,
          null,
          null,
        );
        continue;
      }
      todo.push(m);
    }
    stats.repos = todo.length;

    const limit = pLimit(Math.max(1, opts.concurrency ?? DEFAULT_CONCURRENCY));
    const tasks = todo.map((m) =>
      limit(async (): Promise<LiveRepo> => {
        if (controller.signal.aborted) throw new HubRequestError("aborted", "GET", m.id, null, 0, "aborted");
        const [owner, name] = m.id.split("/") as [string, string];
        const sha = m.sha && SHA_RE.test(m.sha) ? m.sha : null;
        let entry = sha ? await cache.get(m.id, sha) : null;
        if (entry) {
          stats.cached += 1;
        } else {
          const known = m.filePaths && m.filePaths.length > 0 ? new Set(m.filePaths) : null;
          const contents = new Map<string, Buffer | null>();
          for (const file of SMALL_FILES) {
            if (known && !known.has(file)) {
              contents.set(file, null);
              continue;
            }
            const blob = await downloadFile({
              ...common,
              repo: { type: "model", name: m.id },
              path: file,
              revision: sha ?? "main",
              xet: false,
            });
            // A file the listing names that answers 404 (a mirror that lags the listing) is not absent: what
            // it says is unknown, and "absent" would be cached under the commit for every later run.
            if (!blob && known)
              throw new InputError(
                "HUB_ERROR",
                `${m.id} at commit ${sha ?? "main"}: the listing names ${file}, but asking for it answers 404 (not found): the Hub (or a mirror, HF_ENDPOINT) contradicts itself; try again later`,
              );
            contents.set(file, blob ? Buffer.from(await blob.arrayBuffer()) : null);
          }
          // No commit from the Hub (never seen on huggingface.co): stored under a hash of the contents, never looked up.
          entry = await cache.put(m.id, sha ?? `nosha-${contentKey(contents)}`, contents);
          stats.downloaded += 1;
        }
        return { id: m.id, owner, name, sha, lastModified: m.lastModified, createdAt: m.createdAt ?? null, entry };
      }),
    );
    const repos = await settleAll(tasks, controller);
    if (cache.foreign > 0) opts.onForeignCache?.(cache.foreign, opts.cacheDir);
    log(
      `hub: ${stats.repos} repos, ${stats.cached} from the cache, ${stats.downloaded} downloaded; ${stats.requests} requests, ${stats.retries} retried`,
    );
    return { repos, stats };
  } catch (err) {
    throw hubError(err, opts);
  }
}

/** A short hash of a repo's small files (for a listing without a commit sha). */
function contentKey(contents: Map<string, Buffer | null>): string {
  const h = createHash("sha256");
  for (const [name, bytes] of contents)
    h.update(`${name}\0${bytes === null ? "-" : bytes.length}\0`).update(bytes ?? "");
  return h.digest("hex").slice(0, 16);
}

/**
 * Writes the live Hub's repos of `registry` (published, spare, baseline) as
 * a `hub/` snapshot folder (SOURCES.md: Layout): `<owner>/<name>/.hub.json`
 * (`{"id","sha","lastModified","createdAt"}` and a line end) and the small
 * files byte for byte, and the marker `.ptb-manifest-outputs.json` (every
 * file with its sha256; src/util/out-owner.ts). The folder is written beside
 * `outDir` and swapped in whole, so it is never half-written and holds no
 * repo that is gone.
 *
 * An existing `outDir` is replaced only when every file in it is one this
 * tool wrote: recorded in its marker with its current sha256, or, in a
 * folder without a marker (a snapshot written by an older version), a
 * `<owner>/<name>/` file among `.hub.json` and the small files.
 *
 * @param force replace `outDir` even if it holds other files (`--force`).
 * @throws InputError `OUT_NOT_A_FOLDER` or `OUT_UNWRITABLE` (from
 *   `checkOutFolder`) for an `outDir` that cannot take the snapshot;
 *   `OUT_FOREIGN_FILE` naming the files in `outDir` this tool did not write
 *   (so `--out sources` cannot wipe a sources folder), both before the Hub is
 *   asked; and as {@link fetchHubRepos}.
 */
export async function snapshotHub(
  registry: CellsFile,
  opts: LiveHubOptions,
  outDir: string,
  diag: Diagnostics,
  force = false,
): Promise<{ repos: number; files: number; stats: LiveHubStats }> {
  // A link to a folder is written through (as build's --out), never replaced by a folder of its own.
  const given = await checkOutFolder(outDir, { replaced: true });
  const out = await realpath(given).catch(() => given);
  // Through a link, the folder replaced is the target: its parent must take the new one.
  if (out !== given) await checkOutFolder(out, { replaced: true });
  const owned = { force, option: "--out", writer: "snapshot-hub" as const, earlier: isHubSnapshotFile };
  await checkFolderOwned(out, owned);
  const { repos, stats } = await fetchHubRepos(
    { owners: [registry.org, registry.spare_owner], baseline: registry.baseline },
    opts,
    diag,
  );
  await makeFolder(dirname(out)); // not a recursive mkdir, which never returns under /proc
  const tmp = await mkdtemp(join(dirname(out), `.${basename(out)}.tmp-`));
  let files = 0;
  try {
    // A fresh folder swapped in whole below: its files need no atomic writes of their own.
    for (const r of repos) {
      const info: Record<string, string> = { id: r.id };
      if (r.sha !== null) info.sha = r.sha;
      if (r.lastModified !== null) info.lastModified = r.lastModified;
      if (r.createdAt !== null) info.createdAt = r.createdAt;
      const dir = join(tmp, r.owner, r.name);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, ".hub.json"), `${JSON.stringify(info)}\n`);
      files += 1;
      for (const name of SMALL_FILES) {
        if (r.entry.files[name] !== "file") continue;
        await copyFile(join(r.entry.dir, name), join(dir, name));
        files += 1;
      }
    }
    await writeFile(join(tmp, OUT_MARKER), await markerOfFolder(tmp, "snapshot-hub"));
    const old = `${tmp}.old`;
    const had = await stat(out).catch(() => null);
    // The folder keeps its mode (mkdtemp's is 0700: other users' builds could not read it), a new one the umask's.
    await chmod(tmp, had ? had.mode & 0o7777 : 0o777 & ~process.umask());
    if (had) {
      // Checked again right before it is moved aside: a file put there while the Hub was read is the user's.
      await checkFolderOwned(out, owned);
      await rename(out, old);
    }
    await rename(tmp, out);
    if (had) await rm(old, { recursive: true, force: true });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return { repos: repos.length, files, stats };
}

/** A file a hub snapshot holds (`<owner>/<name>/.hub.json` or a small file): what an older `snapshot-hub` wrote, without a marker. */
function isHubSnapshotFile(rel: string): boolean {
  const parts = rel.split("/");
  return parts.length === 3 && (parts[2] === ".hub.json" || (SMALL_FILES as readonly string[]).includes(parts[2]!));
}

/**
 * Waits for every task; on the first failure aborts the others (their
 * requests in flight end at once, queued ones do not start) and, once all
 * have settled, throws that first failure.
 */
async function settleAll<T>(tasks: Promise<T>[], controller: AbortController): Promise<T[]> {
  let first: unknown = null;
  const settled = await Promise.allSettled(
    tasks.map((t) =>
      t.catch((err: unknown) => {
        if (first === null) {
          first = err;
          controller.abort();
        }
        throw err;
      }),
    ),
  );
  if (first !== null) throw first;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

function isoOrNull(d: Date | undefined): string | null {
  return d instanceof Date && !Number.isNaN(d.getTime()) ? d.toISOString() : null;
}
