import type { CellsFile } from "../schema.js";
import type { Diagnostics } from "../diagnostics.js";
import type { Observation } from "../observations.js";
import { warnUnreadable } from "../util/fs-errors.js";
import type { LiveHubOptions } from "../hub/live-hub.js";
import { liveHubSource } from "../sources/live-hub-source.js";
import { hubFolderRepos, type HubRepoFiles } from "../sources/sources.js";

/** The stop ids of one repo and where they were read (SOURCES.md: hub/, EOS facts). */
interface EosReading {
  /** Sorted, de-duplicated stop ids, or null when no file gives any. */
  ids: number[] | null;
  /** e.g. `generation_config.json`, `config.json`, `config.json text_config`. */
  from: string | null;
  /** Where the chat template lives: `chat_template.jinja`, `tokenizer_config.json`, or null. */
  chatTemplate: string | null;
  /** Why the ids are unknown when a file that may hold them could not be used (absent otherwise), e.g. `generation_config.json is not a JSON object`. */
  unknownWhy?: string;
}

/** One downloaded Hub repo folder. */
export interface HubRepo {
  /** `owner/name`. */
  id: string;
  owner: string;
  name: string;
  /** The folder, relative to the sources folder. */
  dir: string;
  sha: string | null;
  lastModified: string | null;
  eos: EosReading;
}

/**
 * Reads every `hub/<owner>/<name>/` folder (SOURCES.md: hub/): the repo id
 * from `.hub.json` (else the folder names), and the stop ids (MANIFEST.md:
 * `eos_token_id`). Repos come out sorted by id. Names and dates are never a
 * source of hours.
 *
 * Warnings: `HUB_BAD_JSON` (a `.hub.json` or config that is not JSON: that
 * file is ignored), `HUB_ID_MISMATCH` (`.hub.json` id differs from the folder),
 * `HUB_BAD_EOS` (an `eos_token_id` that is not an int ≥ 0 or a non-empty list of them),
 * `HUB_UNREADABLE` (a repo folder or file that cannot be read: its stop ids
 * are null, never read from a lower-priority file).
 *
 * @throws InputError `HUB_FOLDER_UNREADABLE` when `hub/` or an owner folder
 *   cannot be listed (its repos would be missed without a word).
 */
export async function readHubSnapshot(sourcesDir: string, diag: Diagnostics): Promise<HubRepo[]> {
  return readHubRepos(await hubFolderRepos(sourcesDir), diag);
}

/**
 * Reads the published repos, the spare repos and the baseline from the live
 * Hub (src/sources/live-hub-source.ts), as `readHubSnapshot` reads them from
 * `hub/` (same ids, `dir` `hub/<owner>/<name>`, `sha`, `lastModified`, and
 * stop ids by the same `readEos`, with the same warnings), sorted by id.
 *
 * @throws InputError as `fetchHubRepos`.
 */
export async function readLiveHub(registry: CellsFile, opts: LiveHubOptions, diag: Diagnostics): Promise<HubRepo[]> {
  return readHubRepos(await liveHubSource(opts).repos(registry, diag), diag);
}

/**
 * The {@link HubRepo} of each repo's files (SOURCES.md: hub/), as
 * `readHubSnapshot` describes, from a snapshot folder or the live Hub
 * (`Sources.hub`); sorted by id. Warnings as `readHubSnapshot`.
 */
export async function readHubRepos(files: HubRepoFiles[], diag: Diagnostics): Promise<HubRepo[]> {
  const repos: HubRepo[] = [];
  for (const repo of files) {
    const { owner, name, dir } = repo;
    if (repo.listError !== null) {
      warnUnreadable(diag, "HUB_UNREADABLE", dir, repo.listError, "its stop ids are unknown (eos_ok null)");
      repos.push({
        id: `${owner}/${name}`,
        owner,
        name,
        dir,
        sha: null,
        lastModified: null,
        eos: { ids: null, from: null, chatTemplate: null, unknownWhy: "its folder cannot be listed" },
      });
      continue;
    }
    const hubJson = await readJson(repo, ".hub.json", dir, diag);
    const info = objectOf(hubJson);
    const id = `${owner}/${name}`;
    if (hubJson === null)
      diag.warn(
        "HUB_NO_INFO",
        `no .hub.json (the Hub's info of a downloaded repo): a folder made by hand or a partial copy? Its commit and lastModified are unknown, so which of two copies of a checkpoint is the newest cannot be told by it`,
        dir,
        null,
      );
    if (info && typeof info.id === "string" && info.id !== id) {
      diag.warn(
        "HUB_ID_MISMATCH",
        `.hub.json says id ${info.id}; the folder says ${id} (the folder is used)`,
        `${dir}/.hub.json`,
        null,
      );
    }
    repos.push({
      id,
      owner,
      name,
      dir,
      sha: typeof info?.sha === "string" ? info.sha : null,
      lastModified: typeof info?.lastModified === "string" ? info.lastModified : null,
      eos: await readEos(repo, dir, diag),
    });
  }
  repos.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return repos;
}

/**
 * Reads a repo folder's stop ids: `generation_config.json` `eos_token_id` if
 * present, else `config.json` top level, else `config.json` `text_config`
 * (MANIFEST.md: `eos_token_id`; SOURCES.md: EOS facts). A place that may hold
 * them but cannot be read, is not a JSON object (`HUB_BAD_JSON`), or holds a
 * value that is not token ids (`HUB_BAD_EOS`) leaves them unknown (ids null):
 * a lower-priority place may disagree with what serving stacks stop on.
 */
async function readEos(files: RepoFiles, dir: string, diag: Diagnostics): Promise<EosReading> {
  const gen = await readJson(files, "generation_config.json", dir, diag);
  const cfg = await readJson(files, "config.json", dir, diag);
  const tok = await readJson(files, "tokenizer_config.json", dir, diag);
  const chatTemplate = (await files.isFile("chat_template.jinja"))
    ? "chat_template.jinja"
    : typeof objectOf(tok)?.chat_template === "string"
      ? "tokenizer_config.json"
      : null;
  const unusable = (f: typeof gen) => f === UNREADABLE || f === NOT_AN_OBJECT;
  const candidates: [string, string, unknown][] = [
    ["generation_config.json", "generation_config.json", unusable(gen) ? UNREADABLE : objectOf(gen)?.eos_token_id],
    ["config.json", "config.json", unusable(cfg) ? UNREADABLE : objectOf(cfg)?.eos_token_id],
    [
      "config.json text_config",
      "config.json",
      unusable(cfg) ? UNREADABLE : (objectOf(cfg)?.text_config as Record<string, unknown> | undefined)?.eos_token_id,
    ],
  ];
  const state = { "generation_config.json": gen, "config.json": cfg } as Record<string, typeof gen>;
  for (const [from, fileName, value] of candidates) {
    // A file that cannot be read may hold the answer: the ids are unknown, never a lower-priority file's.
    if (value === UNREADABLE) {
      const why = state[fileName] === NOT_AN_OBJECT ? "is not a JSON object" : "cannot be read";
      return { ids: null, from: null, chatTemplate, unknownWhy: `${fileName} ${why}` };
    }
    if (value === undefined || value === null) continue;
    const ids = normaliseIds(value);
    if (ids === null) {
      diag.warn(
        "HUB_BAD_EOS",
        `eos_token_id ${JSON.stringify(value)} is not a token id (an int ≥ 0) or a list of them: the stop ids are unknown (eos_ok null), never taken from a lower-priority place`,
        `${dir}/${fileName}`,
        null,
      );
      return { ids: null, from: null, chatTemplate, unknownWhy: `the eos_token_id of ${from} is not token ids` };
    }
    return { ids, from, chatTemplate };
  }
  return { ids: null, from: null, chatTemplate };
}

function normaliseIds(value: unknown): number[] | null {
  const list = Array.isArray(value) ? value : [value];
  // Token ids are exact integers ≥ 0: 1e20 or -1 is not an id (and 1e20 would break the row schema).
  if (list.length === 0 || !list.every((v) => Number.isSafeInteger(v) && (v as number) >= 0)) return null;
  return [...new Set(list as number[])].sort((a, b) => a - b);
}

/** A Hub file that is there but cannot be read (see `readJson`). */
const UNREADABLE: unique symbol = Symbol("unreadable");
/** A Hub file that is there but is not a JSON object (see `readJson`). */
const NOT_AN_OBJECT: unique symbol = Symbol("not an object");

/** The object `readJson` read, or null (absent, unreadable, not an object). */
function objectOf(f: Record<string, unknown> | null | symbol): Record<string, unknown> | null {
  return typeof f === "symbol" ? null : f;
}

/** A repo's files, read through the sources (`HubRepoFiles`). */
type RepoFiles = Pick<HubRepoFiles, "readText" | "isFile">;

/**
 * A repo file as a JSON object: null when absent, {@link NOT_AN_OBJECT} when
 * it is not a JSON object (`HUB_BAD_JSON`), {@link UNREADABLE} when it cannot
 * be read (`HUB_UNREADABLE`).
 */
async function readJson(
  files: RepoFiles,
  name: string,
  dir: string,
  diag: Diagnostics,
): Promise<Record<string, unknown> | null | typeof UNREADABLE | typeof NOT_AN_OBJECT> {
  let text: string;
  try {
    const read = await files.readText(name);
    if (read === null) return null;
    text = read;
  } catch (err) {
    warnUnreadable(
      diag,
      "HUB_UNREADABLE",
      `${dir}/${name}`,
      err,
      name === ".hub.json" ? "the repo's commit is unknown" : "the stop ids it may give are unknown",
    );
    return UNREADABLE;
  }
  try {
    const value: unknown = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
    throw new Error("not an object");
  } catch (err) {
    const what =
      name === ".hub.json" ? "the repo's commit is unknown" : "what it may give (stop ids, chat template) is unknown";
    diag.warn(
      "HUB_BAD_JSON",
      `${name} is not a JSON object (${(err as Error).message}): ${what}`,
      `${dir}/${name}`,
      null,
    );
    return NOT_AN_OBJECT;
  }
}

/** A parsed published repo name `{cell}.h{HHH|NA}.{family}.{step}` (index-card.md: Model id format). */
export interface PublishedName {
  cell: string;
  hourPart: string;
  family: string;
  step: number;
}

/**
 * Parses a published repo name against the known cells (longest cell name
 * first, since cell names may share prefixes). Returns null when it does not
 * fit the format.
 */
export function parsePublishedName(name: string, cellNames: string[]): PublishedName | null {
  const sorted = [...cellNames].sort((a, b) => b.length - a.length);
  for (const cell of sorted) {
    if (!name.startsWith(`${cell}.h`)) continue;
    const m = /^h(\d{3,}|NA)\.(.+)\.(\d+)$/.exec(name.slice(cell.length + 1));
    if (m && Number.isSafeInteger(Number(m[3]))) return { cell, hourPart: m[1]!, family: m[2]!, step: Number(m[3]) };
  }
  return null;
}

/** Parses a spare repo name `<cell>.<family>.step_<N>` (SOURCES.md: hub/). */
export function parseSpareName(
  name: string,
  cellNames: string[],
): { cell: string; family: string; step: number } | null {
  const sorted = [...cellNames].sort((a, b) => b.length - a.length);
  for (const cell of sorted) {
    if (!name.startsWith(`${cell}.`)) continue;
    const m = /^(.+)\.step_(\d+)$/.exec(name.slice(cell.length + 1));
    if (m && Number.isSafeInteger(Number(m[2]))) return { cell, family: m[1]!, step: Number(m[2]) };
  }
  return null;
}

/**
 * A `published_repo` or `spare_repo` observation (DESIGN.md: the flow): a Hub
 * repo holds the checkpoint's weights. Existence only: names and dates are
 * never hours (`utcMs` null). `family` is the repo name's family part as
 * written (the resolver matches it to a family id); `detail.hourPart` is the
 * published name's `HHH` (null for a spare); `repo` is the repo folder read.
 */
export interface HubRepoObservation extends Observation {
  kind: "published_repo" | "spare_repo";
  repo: HubRepo;
}

/**
 * The observation that `repo`, whose name parsed as `name`
 * ({@link parsePublishedName} for `published_repo`, {@link parseSpareName}
 * for `spare_repo`), holds that checkpoint; its origin is the repo's
 * `.hub.json` (SOURCES.md: hub/).
 */
export function hubRepoObservation(
  kind: HubRepoObservation["kind"],
  repo: HubRepo,
  name: { cell: string; family: string; step: number; hourPart?: string },
): HubRepoObservation {
  return {
    cell: name.cell,
    family: name.family,
    step: name.step,
    kind,
    familyDir: null,
    utcMs: null,
    timeNote: null,
    origin: { file: `${repo.dir}/.hub.json`, line: null, offset: null, raw: repo.id },
    extractor: "hub-files",
    detail: { repo: repo.id, hourPart: name.hourPart ?? null },
    seq: 0,
    repo,
  };
}

export type { CellsFile };
