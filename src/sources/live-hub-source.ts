/**
 * The live Hub as the Hub half of {@link Sources} (SOURCES.md: hub/, and "A
 * live run reads the same things from their live places"): the published
 * repos (`org`), the spare repos (`spare_owner`) and the baseline, fetched by
 * `fetchHubRepos`, each given as the files a `hub/<owner>/<name>/` snapshot
 * folder holds (its `.hub.json` as `snapshot-hub` writes it, and the cached
 * small files), so that the Hub extractor reads them as it reads `hub/`.
 */
import type { Diagnostics } from "../diagnostics.js";
import { fetchHubRepos, type LiveHubOptions, type LiveRepo } from "../hub/live-hub.js";
import type { CellsFile } from "../schema.js";
import { hubRepoPath } from "./layout.js";
import { folderFiles, type HubRepoFiles, type HubSource, type Sources } from "./sources.js";

/**
 * The live Hub as a {@link HubSource}: `repos` asks the Hub (and its cache)
 * for `registry`'s org, spare owner and baseline, sorted by id.
 * @throws InputError as `fetchHubRepos`.
 */
export function liveHubSource(opts: LiveHubOptions): HubSource {
  return {
    live: true,
    describe: "reading the Hub",
    async repos(registry: CellsFile, diag: Diagnostics): Promise<HubRepoFiles[]> {
      const { repos } = await fetchHubRepos(
        { owners: [registry.org, registry.spare_owner], baseline: registry.baseline },
        opts,
        diag,
      );
      return repos.map(liveRepoFiles);
    },
  };
}

/** `base` with the Hub read live instead of its `hub/` folder (`build --hub`). */
export function withLiveHub(base: Sources, opts: LiveHubOptions): Sources {
  return { ...base, hub: liveHubSource(opts) };
}

/** A fetched repo's files: its `.hub.json` made from the listing, the rest from the cache entry. */
function liveRepoFiles(r: LiveRepo): HubRepoFiles {
  const files = folderFiles(r.entry.dir);
  const info: Record<string, string> = { id: r.id };
  if (r.sha !== null) info.sha = r.sha;
  if (r.lastModified !== null) info.lastModified = r.lastModified;
  return {
    owner: r.owner,
    name: r.name,
    dir: hubRepoPath(r.owner, r.name),
    listError: null,
    readText: (file) => (file === ".hub.json" ? Promise.resolve(JSON.stringify(info)) : files.readText(file)),
    isFile: (file) => (file === ".hub.json" ? Promise.resolve(true) : files.isFile(file)),
  };
}
