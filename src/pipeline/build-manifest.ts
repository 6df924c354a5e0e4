import { join, relative, sep } from "node:path";
import type { CellsFile, Row } from "../schema.js";
import { RowSchema } from "../schema.js";
import { Diagnostics } from "../diagnostics.js";
import { InputError } from "../errors.js";
import { loadCells } from "../sources/cells.js";
import type { Observation } from "../observations.js";
import {
  observePvcEntry,
  readListingTsv,
  readListingTsvBatches,
  readLsLR,
  readLsLRBatches,
  type PvcEntry,
} from "../extractors/pvc-listing.js";
import { readPvcTree } from "../extractors/pvc-live.js";
import { listTrajectoryFiles } from "../extractors/trajectory/index.js";
import type { InputsRead } from "../sources/unread-inputs.js";
import { janitorParts, readJanitorLog } from "../extractors/janitor-log.js";
import { readSupervisor } from "../extractors/supervisor.js";
import { readAnchors } from "../extractors/anchors.js";
import { parsePublishedName, parseSpareName, readHubSnapshot, type HubRepo } from "../extractors/hub-files.js";
import { cellCoverageWarning, checkTrajectoryCells, countCellTokens } from "../resolve/cell-tokens.js";
import { resolveCell, type CellResolution, type LostCheckpoint } from "../resolve/resolve-cell.js";
import { cmpStr } from "../util/values.js";
import { BudgetClock, round2 } from "../resolve/clock.js";
import type { TokenCall } from "../extractors/trajectory/types.js";
import type { FileCache } from "../util/file-cache.js";
import { cachedObservations } from "../cache/build-cache.js";
import { appendAll } from "../util/arrays.js";
import { orOnFsError, statIfPresent, unreadableError } from "../util/fs-errors.js";
import type { BuildResult } from "../model.js";

/** Options of {@link buildManifest}. */
export interface BuildOptions {
  /** The sources folder (SOURCES.md layout). */
  sourcesDir: string;
  /** Cadence validation tolerance, hours (docs/resolution.md). */
  toleranceH?: number;
  /** Floor of the cadence fit's outlier cut, hours (docs/resolution.md: Cadence fit; default 1.5). */
  outlierFloorH?: number;
  /** Progress messages (to stderr in the CLI); silent by default. */
  log?: (message: string) => void;
  /**
   * Per-file results of the trajectory, listing and janitor extractors are
   * read from and written to this cache (issue 7: warm rebuilds); none by default.
   */
  cache?: FileCache;
  /** Bytes of the large inputs read so far (trajectories, listings, janitor logs), for a progress bar. */
  onBytes?: (bytes: number) => void;
  /**
   * Live PVC trees (issue 4): cell → a local directory holding that cell's
   * `pvc_root`, read with `readPvcTree` instead of `<cell>/pvc/listing.tsv`.
   */
  pvcDirs?: Record<string, string>;
  /**
   * Trajectory folders outside the sources: cell → a local directory read
   * instead of `<cell>/trajectory/` (`build --trajectory CELL=DIR`); its files
   * are named as if they were in `<cell>/trajectory/`.
   */
  trajectoryDirs?: Record<string, string>;
  /**
   * Reads the Hub repos instead of the `hub/` folder (issue 4: `readLiveHub`);
   * must give what `readHubSnapshot` gives for the same repos.
   */
  readHub?: (registry: CellsFile, diag: Diagnostics) => Promise<HubRepo[]>;
}

/**
 * Builds the manifest from a sources snapshot (MANIFEST.md; SOURCES.md):
 * reads `cells.json`, runs every extractor of every non-excluded cell,
 * resolves each cell, adds the baseline row and sorts the rows
 * (MANIFEST.md: Rows and order). Writes nothing. Records in `inputsRead`
 * the files each reader consumed (and the folders counted as read whole), so
 * that `build` can warn about every other file of the sources
 * (src/sources/unread-inputs.ts).
 *
 * An input that cannot be read is a coded error or warning, never a crash
 * (README: Fault tolerance, "Unreadable inputs"): a session file or folder
 * that cannot be read (`TRAJECTORY_READ_ERROR`) makes every token value of
 * its cell null.
 *
 * @throws InputError for a fatal input error (see `loadCells`,
 *   `readSupervisor`, `readHubSnapshot`, `resolveCell`), e.g. `PVC_LISTING_MISSING`,
 *   `PVC_LISTING_UNREADABLE`, `PVC_LS_NOT_FULL_TIME`, `HUB_FOLDER_UNREADABLE`,
 *   `BASELINE_MISSING`, `TRAJECTORY_MISSING`, `SOURCES_UNREADABLE`; with live sources also
 *   `PVC_UNKNOWN_CELL` (a `pvcDirs` key that is no cell, or an excluded
 *   one), `PVC_DIR_MISSING` (`readPvcTree`) and the `HUB_*` errors of `readHub`;
 *   with `trajectoryDirs`, `TRAJECTORY_UNKNOWN_CELL` and `TRAJECTORY_DIR_MISSING`
 *   (see `resolve/cell-tokens.ts`).
 */
export async function buildManifest(opts: BuildOptions): Promise<BuildResult> {
  const { sourcesDir } = opts;
  const log = opts.log ?? (() => {});
  const diag = new Diagnostics();
  const registry = await loadCells(sourcesDir);
  const inputsRead: InputsRead = { files: ["cells.json"], folders: [] };
  const relOf = (abs: string): string => relative(sourcesDir, abs).split(sep).join("/");
  const cellNames = registry.cells.map((c) => c.cell);
  for (const [cell, dir] of Object.entries(opts.pvcDirs ?? {})) {
    const c = registry.cells.find((x) => x.cell === cell);
    if (!c || c.excluded) {
      throw new InputError(
        "PVC_UNKNOWN_CELL",
        `--pvc ${cell}=${dir}: ${c ? "the cell is excluded, its PVC is never read" : "no such cell in cells.json"}`,
        "cells.json",
      );
    }
  }
  checkTrajectoryCells(registry, opts.trajectoryDirs ?? {});
  log(opts.readHub ? "reading the Hub" : `reading hub/ (${sourcesDir})`);
  const hub = opts.readHub ? await opts.readHub(registry, diag) : await readHubSnapshot(sourcesDir, diag);
  const published = new Map<string, { repo: HubRepo; family: string; step: number; hourPart: string }[]>();
  const spares = new Map<string, { repo: HubRepo; family: string; step: number }[]>();
  let baselineRepo: HubRepo | undefined;
  const excludedNames = new Set(registry.cells.filter((c) => c.excluded).map((c) => c.cell));
  if (opts.readHub) inputsRead.folders.push("hub");
  for (const repo of hub) {
    // The repos of the org and the spare owner are all accounted for (used, warned, or `-record`/`-data`); the baseline is read.
    if (repo.id === registry.baseline || repo.owner === registry.org || repo.owner === registry.spare_owner)
      inputsRead.folders.push(repo.dir);
    if (repo.id === registry.baseline) {
      baselineRepo = repo;
    } else if (repo.owner === registry.org) {
      const p = parsePublishedName(repo.name, cellNames);
      if (!p) {
        if (!/-(record|data)$/.test(repo.name))
          diag.warn(
            "HUB_UNKNOWN_REPO",
            `published repo ${repo.id} is not {cell}.h{HHH}.{family}.{step} of a known cell`,
            `${repo.dir}/.hub.json`,
            null,
          );
        continue;
      }
      if (excludedNames.has(p.cell)) continue;
      published.set(p.cell, [
        ...(published.get(p.cell) ?? []),
        { repo, family: p.family, step: p.step, hourPart: p.hourPart },
      ]);
    } else if (repo.owner === registry.spare_owner) {
      const s = parseSpareName(repo.name, cellNames);
      if (!s) {
        diag.warn(
          "HUB_UNKNOWN_REPO",
          `spare repo ${repo.id} is not <cell>.<family>.step_<N> of a known cell`,
          `${repo.dir}/.hub.json`,
          null,
        );
        continue;
      }
      if (excludedNames.has(s.cell)) continue;
      spares.set(s.cell, [...(spares.get(s.cell) ?? []), { repo, family: s.family, step: s.step }]);
    }
  }
  if (!baselineRepo) {
    throw new InputError(
      "BASELINE_MISSING",
      `no hub/${registry.baseline}/ folder: the baseline row needs its eos files`,
      `hub/${registry.baseline}`,
    );
  }

  const rows: Row[] = [];
  const provenance: BuildResult["provenance"] = [];
  const excluded: BuildResult["excluded"] = [];
  const lost: LostCheckpoint[] = [];
  const fits: BuildResult["fits"] = {};
  const runs: BuildResult["runs"] = {};
  const tokenCurves: BuildResult["tokenCurves"] = {};
  for (const cell of registry.cells) {
    if (cell.excluded) {
      inputsRead.folders.push(cell.cell);
      excluded.push({ cell: cell.cell, reason: cell.excluded });
      log(`${cell.cell}: excluded (${cell.excluded})`);
      continue;
    }
    log(`${cell.cell}: reading sources`);
    const supervisor = await readSupervisor(sourcesDir, cell, diag);
    const observations: Observation[] = [];
    let seq = 0;
    const pvcDir = opts.pvcDirs?.[cell.cell];
    // Both listings when both are present: the second is PVC_TWO_LISTINGS' news, not an unread surprise.
    inputsRead.files.push(
      `${cell.cell}/supervisor/history.jsonl`,
      `${cell.cell}/pvc/listing.tsv`,
      `${cell.cell}/pvc/ls-lR.txt`,
      `${cell.cell}/anchors.tsv`,
    );
    if (pvcDir !== undefined) inputsRead.folders.push(`${cell.cell}/pvc`);
    if (pvcDir !== undefined) log(`${cell.cell}: walking the PVC tree ${pvcDir}`);
    const entries =
      pvcDir !== undefined
        ? { stream: readPvcTree(pvcDir, { pvcRoot: cell.pvc_root, diag }), extractor: "pvc-live" }
        : await pvcEntries(sourcesDir, cell.cell, diag, opts.onBytes);
    if ("path" in entries && entries.path !== undefined) {
      const { path, open, extractor } = entries;
      const compute = async (d: Diagnostics): Promise<Observation[]> => {
        const out: Observation[] = [];
        // The listing is the PVC's whole evidence: a listing read in part would drop checkpoints unseen.
        const rel = relative(sourcesDir, path).split(sep).join("/");
        await orOnFsError(
          async () => {
            for await (const batch of open(d)) {
              for (const entry of batch) {
                const o = observePvcEntry(cell, entry, seq++, d, extractor);
                if (o) out.push(o);
              }
            }
          },
          (err) => {
            throw unreadableError("PVC_LISTING_UNREADABLE", rel, err);
          },
        );
        return out;
      };
      appendAll(
        observations,
        await cachedObservations(
          opts.cache,
          "pvc",
          [path],
          JSON.stringify([cell, extractor]),
          diag,
          compute,
          opts.onBytes,
        ),
      );
    } else {
      for await (const entry of entries.stream) {
        const o = observePvcEntry(cell, entry, seq++, diag, entries.extractor);
        if (o) observations.push(o);
      }
    }
    const janitorDir = join(sourcesDir, cell.cell, "janitor");
    const janitorPaths = (await janitorParts(janitorDir)).map((name) => join(janitorDir, name));
    for (const p of janitorPaths) inputsRead.files.push(relOf(p));
    appendAll(
      observations,
      await cachedObservations(
        opts.cache,
        "janitor",
        janitorPaths,
        JSON.stringify(cell),
        diag,
        (d) => readJanitorLog(sourcesDir, cell, d, { onBytes: opts.onBytes }),
        opts.onBytes,
      ),
    );
    observations.push(...(await readAnchors(sourcesDir, cell, diag)));
    const trajectoryDir = opts.trajectoryDirs?.[cell.cell];
    log(
      `${cell.cell}: counting driver tokens (${cell.trajectory_format}${trajectoryDir !== undefined ? `, from ${trajectoryDir}` : ""})`,
    );
    // No call placed in time (no session file, none of the format): the tokens are unknown, null (MANIFEST.md).
    const { reading, ledger } = await countCellTokens(sourcesDir, cell, supervisor.runStartMs, {
      dir: trajectoryDir,
      cache: opts.cache,
      onBytes: opts.onBytes,
      clock: new BudgetClock(supervisor.runStartMs, supervisor.pauses),
    });
    appendAll(diag.warnings, reading.warnings);
    if (trajectoryDir !== undefined) inputsRead.folders.push(`${cell.cell}/trajectory`);
    else inputsRead.files.push(...(await trajectoryFilesRead(sourcesDir, cell.cell, cell.trajectory_format)));
    tokenCurves[cell.cell] =
      ledger === null
        ? []
        : tokenCurve(reading.calls, new BudgetClock(supervisor.runStartMs, supervisor.pauses), supervisor.runStartMs);
    const resolved: CellResolution = resolveCell(
      {
        registry,
        cell,
        supervisor,
        observations,
        published: published.get(cell.cell) ?? [],
        spares: spares.get(cell.cell) ?? [],
        tokens: ledger,
        toleranceH: opts.toleranceH,
        outlierFloorH: opts.outlierFloorH,
      },
      diag,
    );
    // Rows written after the logs end have null tokens (resolve/token-coverage.ts): one warning for the cell.
    const coverage = cellCoverageWarning(
      ledger,
      resolved.evidence.map((e) => ("write_time" in e && e.write_time ? Date.parse(e.write_time) : null)),
    );
    if (coverage) diag.warnings.push(coverage);
    const order = resolved.rows.map((_r, i) => i).sort((a, b) => cmpRows(resolved.rows[a]!, resolved.rows[b]!));
    for (const i of order) {
      rows.push(resolved.rows[i]!);
      provenance.push(resolved.evidence[i]!);
    }
    lost.push(...resolved.lost);
    fits[cell.cell] = resolved.fits;
    runs[cell.cell] = {
      run_start: resolved.runStart,
      run_end: resolved.runEnd,
      run_end_from: resolved.runEndFrom,
      trajectory_calls: reading.calls.length,
    };
  }

  const baselineRow: Row = {
    model_id: registry.baseline,
    cell: "BASELINE",
    driver: null,
    effort: null,
    hour: 0,
    hour_source: "baseline",
    hour_upper_bound: null,
    driver_tokens_at_hour: 0,
    role: "baseline",
    eos_ok: (baselineRepo.eos.ids ?? []).includes(registry.required_eos_token_id),
    eos_token_id: baselineRepo.eos.ids,
    source: registry.baseline,
    family: null,
    step: null,
    hour_lower_bound: null,
    hour_error_h: null,
  };
  const allRows = [baselineRow, ...rows].map((r) => RowSchema.parse(r));
  const allProvenance = [
    {
      model_id: registry.baseline,
      cell: "BASELINE" as const,
      hour_source: "baseline" as const,
      rule: "baseline: the untrained model, hour 0 and 0 tokens by definition (index-card.md: The baseline row)",
      eos: {
        repo: baselineRepo.id,
        from: baselineRepo.eos.from,
        chatTemplate: baselineRepo.eos.chatTemplate,
        ids: baselineRepo.eos.ids,
      },
    },
    ...provenance,
  ];
  return {
    registry,
    rows: allRows,
    provenance: allProvenance,
    warnings: diag.warnings,
    excluded,
    lost,
    fits,
    runs,
    tokenCurves,
    inputsRead,
  };
}

/**
 * The session files of `<cell>/trajectory/` that the trajectory reader
 * considers (its own listing, `listTrajectoryFiles`), relative to the sources
 * folder; none when the folder cannot be listed (that is already an error or
 * a warning of the reading).
 */
async function trajectoryFilesRead(
  sourcesDir: string,
  cell: string,
  format: CellsFile["cells"][number]["trajectory_format"],
): Promise<string[]> {
  const dir = join(sourcesDir, cell, "trajectory");
  try {
    const { files } = await listTrajectoryFiles(format, [dir]);
    return files.map((f) => relative(sourcesDir, f.path).split(sep).join("/"));
  } catch {
    return [];
  }
}

/** Sort order within a cell (MANIFEST.md: Rows and order): hour as written (nulls last), family, step. */
export function cmpRows(a: Row, b: Row): number {
  if (a.hour !== b.hour) {
    if (a.hour === null) return 1;
    if (b.hour === null) return -1;
    return a.hour - b.hour;
  }
  return cmpStr(a.family ?? "", b.family ?? "") || (a.step ?? 0) - (b.step ?? 0);
}

/** True when `path` is a folder; false when nothing is there; `code` (an error) when it cannot be looked at. */
async function _isDir(path: string, code: string, rel: string): Promise<boolean> {
  return orOnFsError(
    async () => (await statIfPresent(path))?.isDirectory() ?? false,
    (err) => {
      throw unreadableError(code, rel, err);
    },
  );
}

/** True when something is at `path` (a file, or a folder the reader will refuse); `code` (an error) when it cannot be looked at. */
async function isPresent(path: string, code: string, rel: string): Promise<boolean> {
  return orOnFsError(
    async () => (await statIfPresent(path)) !== null,
    (err) => {
      throw unreadableError(code, rel, err);
    },
  );
}

/** Picks the cell's PVC listing: `pvc/listing.tsv`, else `pvc/ls-lR.txt` (SOURCES.md: Layout). */
async function pvcEntries(
  sourcesDir: string,
  cell: string,
  diag: Diagnostics,
  onBytes?: (bytes: number) => void,
): Promise<{
  stream: AsyncGenerator<PvcEntry>;
  extractor: string;
  path?: string;
  open: (d: Diagnostics) => AsyncGenerator<PvcEntry[]>;
}> {
  const tsv = join(sourcesDir, cell, "pvc", "listing.tsv");
  const ls = join(sourcesDir, cell, "pvc", "ls-lR.txt");
  const hasTsv = await isPresent(tsv, "PVC_LISTING_UNREADABLE", `${cell}/pvc/listing.tsv`);
  const hasLs = await isPresent(ls, "PVC_LISTING_UNREADABLE", `${cell}/pvc/ls-lR.txt`);
  if (hasTsv && hasLs)
    diag.warn(
      "PVC_TWO_LISTINGS",
      "both listing.tsv and ls-lR.txt are present; listing.tsv is used",
      `${cell}/pvc`,
      null,
    );
  // `open` reads the listing in batches with another Diagnostics (the build cache runs it with its own).
  if (hasTsv) {
    const open = (d: Diagnostics): AsyncGenerator<PvcEntry[]> =>
      readListingTsvBatches(tsv, `${cell}/pvc/listing.tsv`, d, { onBytes });
    return {
      stream: readListingTsv(tsv, `${cell}/pvc/listing.tsv`, diag),
      extractor: "pvc-listing.tsv",
      path: tsv,
      open,
    };
  }
  if (hasLs) {
    const open = (d: Diagnostics): AsyncGenerator<PvcEntry[]> =>
      readLsLRBatches(ls, `${cell}/pvc/ls-lR.txt`, d, { onBytes });
    return { stream: readLsLR(ls, `${cell}/pvc/ls-lR.txt`, diag), extractor: "pvc-ls-lR", path: ls, open };
  }
  throw new InputError(
    "PVC_LISTING_MISSING",
    `cell "${cell}" has neither pvc/listing.tsv nor pvc/ls-lR.txt`,
    `${cell}/pvc`,
  );
}

/**
 * The cumulative driver-token curve of a run on the budget-hour axis
 * (TRAJECTORIES.md: tokens(t)), for the report: one point per counted call
 * from `run_start` on, thinned to at most ~500 points (always keeping the
 * last), hours rounded to 2 decimals.
 */
export function tokenCurve(calls: TokenCall[], clock: BudgetClock, runStartMs: number): [number, number][] {
  const placed = calls.filter((c) => c.timeMs !== null && c.timeMs >= runStartMs).sort((a, b) => a.timeMs! - b.timeMs!);
  const points: [number, number][] = [[0, 0]];
  let total = 0;
  const every = Math.max(1, Math.ceil(placed.length / 500));
  placed.forEach((c, i) => {
    total += c.uncachedInput + c.cacheRead + c.cacheWrite + c.output;
    if (i % every === every - 1 || i === placed.length - 1) points.push([round2(clock.hourAt(c.timeMs!)), total]);
  });
  return points;
}
