/**
 * What the build reads, behind one interface (SOURCES.md: Layout, and "A live
 * run reads the same things from their live places"): `buildManifest` reads
 * every input through a {@link Sources} object and never builds a path
 * itself. The implementations are interchangeable and compose:
 * {@link snapshotSources} (a sources folder), {@link withLivePvc} (some cells'
 * PVC walked live), `withLiveHub` (src/sources/live-hub-source.ts: the Hub
 * instead of `hub/`), {@link withTrajectoryDirs} (trajectory folders outside
 * the sources), and an in-memory one in the tests.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import type { Diagnostics } from "../diagnostics.js";
import type { ErrorCode } from "../diagnostics/registry.js";
import { InputError } from "../errors.js";
import type { CellsFile } from "../schema.js";
import { isAbsent, orOnFsError, statIfPresent, unreadableError } from "../util/fs-errors.js";
import { type Line, readLineBatches, readLines } from "../util/lines.js";
import { loadCells } from "./cells.js";
import {
  absPath,
  anchorsPath,
  HUB_DIR,
  hubRepoPath,
  janitorDirPath,
  listingTsvPath,
  lsLRPath,
  orderJanitorParts,
  pvcDirPath,
  supervisorHistoryPath,
} from "./layout.js";

/** One text input: the name it is shown by, and its lines. */
export interface SourceFile {
  /** The path relative to the sources folder, with `/` (messages, `inputsRead`). */
  rel: string;
  /** The file on disk, when there is one: the build cache keys per-file results by it. */
  abs: string | null;
  /** Its lines, one at a time; a file system error (`ENOENT` when absent) is thrown while iterating. */
  lines(): AsyncIterable<Line>;
  /** Its lines, a buffer-full at a time (large files); errors as {@link lines}. */
  lineBatches(opts?: { onBytes?: (bytes: number) => void }): AsyncIterable<Line[]>;
}

/** A cell's PVC evidence (SOURCES.md: pvc/): a captured listing, or a mounted tree walked live. */
export type PvcInput =
  | { kind: "listing"; format: "listing.tsv" | "ls-lR"; file: SourceFile }
  | { kind: "tree"; dir: string };

/** A cell's janitor log (SOURCES.md: janitor): its parts oldest first, and why its folder could not be listed. */
export interface JanitorInput {
  /** Layout path of the folder (`<cell>/janitor`). */
  dir: string;
  parts: SourceFile[];
  /** The error met listing the folder (never `ENOENT`: an absent folder has no parts), else null. */
  listError: unknown;
}

/** One Hub repo's files (SOURCES.md: hub/), from a snapshot folder or from the live Hub. */
export interface HubRepoFiles {
  owner: string;
  name: string;
  /** Layout path `hub/<owner>/<name>`. */
  dir: string;
  /** The error met listing the repo folder (its files are unknown), else null. */
  listError: unknown;
  /** A file's text (`.hub.json`, a config): null when absent; throws a file system error when it cannot be read. */
  readText(file: string): Promise<string | null>;
  /** Whether `file` is a file of the repo, readable or not. */
  isFile(file: string): Promise<boolean>;
}

/** Where the Hub repos come from. */
export interface HubSource {
  /** True for the live Hub: `hub/` is then not read, and counts as read whole. */
  live: boolean;
  /** The progress message said before reading. */
  describe: string;
  /**
   * The repos to read (the snapshot: every `hub/<owner>/<name>/`; the live
   * Hub: `registry`'s org, spare owner and baseline), sorted by owner, then name.
   * @throws InputError `HUB_FOLDER_UNREADABLE` (snapshot), the `HUB_*` errors of the live Hub.
   */
  repos(registry: CellsFile, diag: Diagnostics): Promise<HubRepoFiles[]>;
}

/** Everything the build reads (SOURCES.md: Layout). */
export interface Sources {
  /** The sources folder (trajectories are read from it: the trajectory scanner walks a file system). */
  root: string;
  /** `cells.json`, parsed and checked (`loadCells`). */
  loadCells(): Promise<CellsFile>;
  /**
   * Refuses live inputs named for a cell that is not one (or is excluded).
   * @throws InputError `PVC_UNKNOWN_CELL`.
   */
  checkCells(registry: CellsFile): void;
  /** Trajectory folders given outside the sources: cell → folder (`build --trajectory CELL=DIR`). */
  trajectoryDirs: Record<string, string>;
  hub: HubSource;
  supervisorHistory(cell: string): SourceFile;
  anchors(cell: string): SourceFile;
  /**
   * The cell's PVC evidence. Warning `PVC_TWO_LISTINGS`.
   * @throws InputError `PVC_LISTING_MISSING`, `PVC_LISTING_UNREADABLE`.
   */
  pvc(cell: string, diag: Diagnostics): Promise<PvcInput>;
  janitor(cell: string): Promise<JanitorInput>;
}

/** A file of the sources folder `root` at layout path `rel`. */
function fileAt(root: string, rel: string): SourceFile {
  const abs = absPath(root, rel);
  return {
    rel,
    abs,
    lines: () => readLines(abs),
    lineBatches: (opts) => readLineBatches(abs, opts ?? {}),
  };
}

/** True when something is at `path` (a file, or a folder the reader will refuse); `code` (an error) when it cannot be looked at. */
async function isPresent(path: string, code: ErrorCode, rel: string): Promise<boolean> {
  return orOnFsError(
    async () => (await statIfPresent(path)) !== null,
    (err) => {
      throw unreadableError(code, rel, err);
    },
  );
}

/**
 * The sources folder `root` (SOURCES.md: Layout), read as it is: `hub/` for
 * the Hub, `<cell>/pvc/listing.tsv` (else `ls-lR.txt`) for the PVC.
 */
export function snapshotSources(root: string): Sources {
  return {
    root,
    loadCells: () => loadCells(root),
    checkCells: () => {},
    trajectoryDirs: {},
    hub: { live: false, describe: `reading hub/ (${root})`, repos: () => hubFolderRepos(root) },
    supervisorHistory: (cell) => fileAt(root, supervisorHistoryPath(cell)),
    anchors: (cell) => fileAt(root, anchorsPath(cell)),
    async pvc(cell, diag) {
      const tsv = listingTsvPath(cell);
      const ls = lsLRPath(cell);
      const hasTsv = await isPresent(absPath(root, tsv), "PVC_LISTING_UNREADABLE", tsv);
      const hasLs = await isPresent(absPath(root, ls), "PVC_LISTING_UNREADABLE", ls);
      const format = choosePvcListing(cell, hasTsv, hasLs, diag);
      return { kind: "listing", format, file: fileAt(root, format === "listing.tsv" ? tsv : ls) };
    },
    async janitor(cell) {
      const dir = janitorDirPath(cell);
      let names: string[];
      try {
        names = await readdir(absPath(root, dir));
      } catch (err) {
        return { dir, parts: [], listError: isAbsent(err) ? null : err };
      }
      return { dir, parts: orderJanitorParts(names).map((name) => fileAt(root, `${dir}/${name}`)), listError: null };
    },
  };
}

/**
 * Which of a cell's PVC listings is read (SOURCES.md: Layout): `listing.tsv`,
 * else `ls-lR.txt`. Warning `PVC_TWO_LISTINGS` when both are present.
 * @throws InputError `PVC_LISTING_MISSING` when neither is.
 */
export function choosePvcListing(
  cell: string,
  hasTsv: boolean,
  hasLs: boolean,
  diag: Diagnostics,
): "listing.tsv" | "ls-lR" {
  if (hasTsv && hasLs)
    diag.warn(
      "PVC_TWO_LISTINGS",
      "both listing.tsv and ls-lR.txt are present; listing.tsv is used",
      pvcDirPath(cell),
      null,
    );
  if (hasTsv) return "listing.tsv";
  if (hasLs) return "ls-lR";
  throw new InputError(
    "PVC_LISTING_MISSING",
    `cell "${cell}" has neither pvc/listing.tsv nor pvc/ls-lR.txt`,
    pvcDirPath(cell),
  );
}

/**
 * Every `hub/<owner>/<name>/` folder of `root` (SOURCES.md: hub/), sorted by owner, then name.
 * @throws InputError `HUB_FOLDER_UNREADABLE` when `hub/` or an owner folder
 *   cannot be listed (its repos would be missed without a word).
 */
export async function hubFolderRepos(root: string): Promise<HubRepoFiles[]> {
  const repos: HubRepoFiles[] = [];
  for (const owner of (await listDirs(absPath(root, HUB_DIR), HUB_DIR)).sort()) {
    for (const name of (await listDirs(absPath(root, `${HUB_DIR}/${owner}`), `${HUB_DIR}/${owner}`)).sort()) {
      const dir = hubRepoPath(owner, name);
      const abs = absPath(root, dir);
      // A repo folder that cannot be listed: the repo exists (its name is known), its files are unknown.
      const listError = await readdir(abs).then(
        () => null,
        (err: unknown) => err,
      );
      repos.push({ owner, name, dir, listError, ...folderFiles(abs) });
    }
  }
  return repos;
}

/** `readText` and `isFile` of the files in the folder `abs` (a repo folder, or a cached repo's). */
export function folderFiles(abs: string): Pick<HubRepoFiles, "readText" | "isFile"> {
  return {
    readText: async (file) => {
      try {
        return await readFile(absPath(abs, file), "utf8");
      } catch (err) {
        if (isAbsent(err)) return null;
        throw err;
      }
    },
    isFile: (file) =>
      stat(absPath(abs, file)).then(
        (st) => st.isFile(),
        () => false,
      ),
  };
}

/**
 * The sub-folders of `dir` (`rel` names it): none when it is absent.
 * @throws InputError `HUB_FOLDER_UNREADABLE` when it cannot be listed: every repo in it would be missed.
 */
async function listDirs(dir: string, rel: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory()).map((e) => e.name);
  } catch (err) {
    if (isAbsent(err)) return [];
    throw unreadableError("HUB_FOLDER_UNREADABLE", rel, err, "cannot list");
  }
}

/**
 * `base` with the PVC of some cells walked live (`build --pvc CELL=DIR`):
 * cell → a local folder holding that cell's `pvc_root`.
 */
export function withLivePvc(base: Sources, pvcDirs: Record<string, string>): Sources {
  return {
    ...base,
    checkCells(registry) {
      base.checkCells(registry);
      for (const [cell, dir] of Object.entries(pvcDirs)) {
        const c = registry.cells.find((x) => x.cell === cell);
        if (!c || c.excluded) {
          throw new InputError(
            "PVC_UNKNOWN_CELL",
            `--pvc ${cell}=${dir}: ${c ? "the cell is excluded, its PVC is never read" : "no such cell in cells.json"}`,
            "cells.json",
          );
        }
      }
    },
    pvc: (cell, diag) => {
      const dir = pvcDirs[cell];
      return dir !== undefined ? Promise.resolve({ kind: "tree", dir }) : base.pvc(cell, diag);
    },
  };
}

/**
 * `base` with trajectory folders outside the sources (`build --trajectory
 * CELL=DIR`): cell → a local folder read instead of `<cell>/trajectory/`.
 */
export function withTrajectoryDirs(base: Sources, dirs: Record<string, string>): Sources {
  return { ...base, trajectoryDirs: { ...base.trajectoryDirs, ...dirs } };
}
