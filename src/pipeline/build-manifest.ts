import type { Cell, Row } from "../schema.js";
import { RowSchema } from "../schema.js";
import { Diagnostics } from "../diagnostics.js";
import { InputError } from "../errors.js";
import type { Observation } from "../observations.js";
import { observePvcEntry, parseListingTsvBatches } from "../extractors/pvc-listing.js";
import { parseLsLRBatches } from "../extractors/pvc-ls-lr.js";
import { readPvcTreeBatches } from "../extractors/pvc-live.js";
import type { InputsRead } from "../sources/unread-inputs.js";
import { parseJanitorLog } from "../extractors/janitor-log.js";
import { readAnchors } from "../extractors/anchors.js";
import {
  hubRepoObservation,
  parsePublishedName,
  parseSpareName,
  readHubRepos,
  type HubRepo,
  type HubRepoObservation,
} from "../extractors/hub-files.js";
import { cellCoverageWarnings, checkTrajectoryCells, countCellTokens } from "../resolve/cell-tokens.js";
import { resolveCell, type CellResolution, type LostCheckpoint } from "../resolve/resolve-cell.js";
import { cmpStr } from "../util/values.js";
import { BudgetClock, round2 } from "../resolve/clock.js";
import { repoEos } from "../resolve/eos.js";
import { warnHubOwners } from "../resolve/hub-owners.js";
import type { TokenCall } from "../extractors/trajectory/types.js";
import type { FileCache } from "../util/file-cache.js";
import { cachedFileObservations } from "../cache/build-cache.js";
import { appendAll } from "../util/arrays.js";
import { orOnFsError, unreadableError } from "../util/fs-errors.js";
import type { BuildResult } from "../model.js";
import {
  anchorsPath,
  CELLS_JSON,
  HUB_DIR,
  listingTsvPath,
  lsLRPath,
  pvcDirPath,
  supervisorHistoryPath,
  trajectoryDirPath,
} from "../sources/layout.js";
import { snapshotSources, type PvcInput, type Sources } from "../sources/sources.js";
import { readSupervisor } from "./read-supervisor.js";

/** Options of {@link buildManifest}. */
export interface BuildOptions {
  /**
   * What to read (src/sources/sources.ts): a snapshot folder, with live
   * inputs composed in (`withLivePvc`, `withLiveHub`, `withTrajectoryDirs`).
   * `sourcesDir` alone stands for `snapshotSources(sourcesDir)`.
   */
  sources?: Sources;
  /** The sources folder (SOURCES.md layout), when `sources` is not given. */
  sourcesDir?: string;
  /** Cadence validation tolerance, hours (docs/resolution.md). */
  toleranceH?: number;
  /** Floor of the cadence fit's outlier cut, hours (docs/resolution.md: Cadence fit; default 1.5). */
  outlierFloorH?: number;
  /** Progress messages (to stderr in the CLI); silent by default. */
  log?: (message: string) => void;
  /**
   * Per-file results of the trajectory, listing and janitor extractors are
   * read from and written to this cache (README: Performance, warm rebuilds); none by default.
   */
  cache?: FileCache;
  /** Bytes of the large inputs read so far (trajectories, listings, janitor logs), for a progress bar. */
  onBytes?: (bytes: number) => void;
  /** Called with the Hub repos as read (the live ones, for the report's inputs). */
  onHubRepos?: (repos: HubRepo[]) => void;
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
 *   `PVC_UNKNOWN_CELL` (a `--pvc` cell that is no cell, or an excluded
 *   one), `PVC_DIR_MISSING` (`readPvcTree`) and the `HUB_*` errors of the live Hub;
 *   with trajectory folders, `TRAJECTORY_UNKNOWN_CELL` and `TRAJECTORY_DIR_MISSING`
 *   (see `resolve/cell-tokens.ts`).
 */
export async function buildManifest(opts: BuildOptions): Promise<BuildResult> {
  const sources = opts.sources ?? snapshotSources(opts.sourcesDir!);
  const sourcesDir = sources.root;
  const log = opts.log ?? (() => {});
  const diag = new Diagnostics();
  const registry = await sources.loadCells();
  const inputsRead: InputsRead = { files: [CELLS_JSON], folders: [] };
  const cellNames = registry.cells.map((c) => c.cell);
  sources.checkCells(registry);
  checkTrajectoryCells(registry, sources.trajectoryDirs);
  log(sources.hub.describe);
  const hub = await readHubRepos(await sources.hub.repos(registry, diag), diag);
  opts.onHubRepos?.(hub);
  const published = new Map<string, HubRepoObservation[]>();
  const spares = new Map<string, HubRepoObservation[]>();
  let baselineRepo: HubRepo | undefined;
  const excludedNames = new Set(registry.cells.filter((c) => c.excluded).map((c) => c.cell));
  if (sources.hub.live) inputsRead.folders.push(HUB_DIR);
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
      published.set(p.cell, [...(published.get(p.cell) ?? []), hubRepoObservation("published_repo", repo, p)]);
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
      spares.set(s.cell, [...(spares.get(s.cell) ?? []), hubRepoObservation("spare_repo", repo, s)]);
    }
  }
  warnHubOwners(hub, registry, sources.hub.live, diag);
  if (!baselineRepo) {
    throw new InputError(
      "BASELINE_MISSING",
      `no ${HUB_DIR}/${registry.baseline}/ folder: the baseline row needs its eos files`,
      `${HUB_DIR}/${registry.baseline}`,
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
    const supervisor = await readSupervisor(sources.supervisorHistory(cell.cell), cell, diag);
    const observations: Observation[] = [];
    // Both listings when both are present: the second is PVC_TWO_LISTINGS' news, not an unread surprise.
    inputsRead.files.push(
      supervisorHistoryPath(cell.cell),
      listingTsvPath(cell.cell),
      lsLRPath(cell.cell),
      anchorsPath(cell.cell),
    );
    const pvc = await sources.pvc(cell.cell, diag);
    if (pvc.kind === "tree") {
      inputsRead.folders.push(pvcDirPath(cell.cell));
      log(`${cell.cell}: walking the PVC tree ${pvc.dir}`);
    }
    appendAll(observations, await pvcObservations(pvc, cell, diag, opts));
    const janitor = await sources.janitor(cell.cell);
    for (const p of janitor.parts) inputsRead.files.push(p.rel);
    appendAll(
      observations,
      await cachedFileObservations(
        opts.cache,
        "janitor",
        janitor.parts,
        JSON.stringify(cell),
        diag,
        (d) => parseJanitorLog(janitor, cell, d, { onBytes: opts.onBytes }),
        opts.onBytes,
      ),
    );
    observations.push(...(await readAnchors(sources.anchors(cell.cell), cell, diag)));
    const trajectoryDir = sources.trajectoryDirs[cell.cell];
    log(
      `${cell.cell}: counting driver tokens (${cell.trajectory_format}${trajectoryDir !== undefined ? `, from ${trajectoryDir}` : ""})`,
    );
    // No call placed in time (no session file, none of the format): the tokens are unknown, null (MANIFEST.md).
    // The files the reader lists are the ones it read: the folder is listed once.
    let trajectoryFiles: string[] = [];
    const { reading, ledger } = await countCellTokens(sourcesDir, cell, supervisor.runStartMs, {
      dir: trajectoryDir,
      onListed: (files) => {
        trajectoryFiles = files;
      },
      cache: opts.cache,
      onBytes: opts.onBytes,
      clock: new BudgetClock(supervisor.runStartMs, supervisor.pauses),
    });
    appendAll(diag.warnings, reading.warnings);
    if (trajectoryDir !== undefined) inputsRead.folders.push(trajectoryDirPath(cell.cell));
    else inputsRead.files.push(...trajectoryFiles);
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
    // Rows written where the logs do not reach have null tokens (resolve/token-coverage.ts): one warning per cause.
    const coverage = cellCoverageWarnings(
      ledger,
      resolved.evidence.map((e) => ("write_time" in e && e.write_time ? Date.parse(e.write_time) : null)),
    );
    diag.warnings.push(...coverage);
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

  // The baseline's stop ids are read like any repo's: none readable is unknown (null), never "broken".
  const baselineEos = repoEos(baselineRepo, registry.required_eos_token_id, diag, "the baseline's eos_ok");
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
    eos_ok: baselineEos.ok,
    eos_token_id: baselineEos.ids,
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

/** Sort order within a cell (MANIFEST.md: Rows and order): hour as written (nulls last), family, step. */
function cmpRows(a: Row, b: Row): number {
  if (a.hour !== b.hour) {
    if (a.hour === null) return 1;
    if (b.hour === null) return -1;
    return a.hour - b.hour;
  }
  return cmpStr(a.family ?? "", b.family ?? "") || (a.step ?? 0) - (b.step ?? 0);
}

/**
 * The observations of a cell's PVC evidence (SOURCES.md: pvc/): a listing
 * (`listing.tsv` or `ls-lR.txt`) parsed a buffer-full at a time, through the
 * build cache when it is a file on disk; or a live tree walked with
 * `readPvcTreeBatches`. Each entry goes through `observePvcEntry`.
 *
 * @throws InputError `PVC_LISTING_UNREADABLE` (the listing is the PVC's whole
 *   evidence: a listing read in part would drop checkpoints unseen), and those
 *   of the listing parsers and `readPvcTree`.
 */
async function pvcObservations(
  pvc: PvcInput,
  cell: Cell,
  diag: Diagnostics,
  opts: Pick<BuildOptions, "cache" | "onBytes">,
): Promise<Observation[]> {
  let seq = 0;
  if (pvc.kind === "tree") {
    const out: Observation[] = [];
    for await (const batch of readPvcTreeBatches(pvc.dir, { pvcRoot: cell.pvc_root, diag }))
      for (const entry of batch) {
        const o = observePvcEntry(cell, entry, seq++, diag, "pvc-live");
        if (o) out.push(o);
      }
    return out;
  }
  const { file } = pvc;
  const extractor = pvc.format === "listing.tsv" ? "pvc-listing.tsv" : "pvc-ls-lR";
  const parse = pvc.format === "listing.tsv" ? parseListingTsvBatches : parseLsLRBatches;
  const compute = async (d: Diagnostics): Promise<Observation[]> => {
    const out: Observation[] = [];
    await orOnFsError(
      async () => {
        for await (const batch of parse(file.lineBatches({ onBytes: opts.onBytes }), file.rel, d)) {
          for (const entry of batch) {
            const o = observePvcEntry(cell, entry, seq++, d, extractor);
            if (o) out.push(o);
          }
        }
      },
      (err) => {
        throw unreadableError("PVC_LISTING_UNREADABLE", file.rel, err);
      },
    );
    return out;
  };
  return cachedFileObservations(
    opts.cache,
    "pvc",
    [file],
    JSON.stringify([cell, extractor]),
    diag,
    compute,
    opts.onBytes,
  );
}

/**
 * The cumulative driver-token curve of a run on the budget-hour axis
 * (TRAJECTORIES.md: tokens(t)), for the report: one point per counted call
 * from `run_start` on, thinned to at most ~500 points (always keeping the
 * last), hours rounded to 2 decimals.
 */
function tokenCurve(calls: TokenCall[], clock: BudgetClock, runStartMs: number): [number, number][] {
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
