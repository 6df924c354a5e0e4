/**
 * The build's use of the cache (README: Performance, "Build cache": a warm
 * rebuild, with nothing changed, in under a tenth of the cold build): per-file results of the
 * extractors that read large files (trajectories, PVC listings, janitor logs)
 * and the sha256 of every input file for `build-report.json`, each keyed by
 * the file's fingerprint (see `file-cache.ts`). Warnings found while
 * computing a result are cached with it and replayed in the same order, so a
 * warm build writes the same bytes as a cold one.
 */
import { stat } from "node:fs/promises";
import { Diagnostics, type Warning } from "../diagnostics.js";
import type { Observation } from "../observations.js";
import { appendAll } from "../util/arrays.js";
import { sha256File } from "../util/hash.js";
import { FINGERPRINT_EDGE_BYTES, type FileCache } from "../util/file-cache.js";
import type { SourceFile } from "../sources/sources.js";

/**
 * The observations an extractor finds in `absPaths` (one file, or a rotated
 * log's parts in order), from the cache when none of the files changed, else
 * from `compute` (which gets its own Diagnostics; its warnings are cached and
 * then added to `diag`). `extra` is everything else the result depends on
 * (the cell's settings, the display names).
 */
async function cachedObservations(
  cache: FileCache | undefined,
  kind: string,
  absPaths: string[],
  extra: string,
  diag: Diagnostics,
  compute: (diag: Diagnostics) => Promise<Observation[]>,
  onBytes?: (bytes: number) => void,
): Promise<Observation[]> {
  let computed = false;
  const run = async (): Promise<{ observations: Observation[]; warnings: Warning[] }> => {
    computed = true;
    const own = new Diagnostics();
    const observations = await compute(own);
    return { observations, warnings: own.warnings };
  };
  const result = cache ? await cache.throughMany(kind, absPaths, extra, run) : await run();
  if (!computed && onBytes)
    for (const p of absPaths)
      onBytes(
        await stat(p).then(
          (s) => s.size,
          () => 0,
        ),
      );
  appendAll(diag.warnings, result.warnings);
  return result.observations;
}

/**
 * A `hashFile` for `hashInputs`: the file's sha256 from the cache when its
 * fingerprint is unchanged, else streamed and stored.
 */
export function cachedSha256(
  cache: FileCache | undefined,
  onBytes?: (bytes: number) => void,
): (absPath: string) => Promise<string> {
  return async (absPath) => {
    const size = await stat(absPath).then(
      (s) => s.size,
      () => 0,
    );
    const compute = (): Promise<string> => sha256File(absPath);
    // A small file is hashed whole: reading it costs what its fingerprint would.
    const hex =
      cache && size > 2 * FINGERPRINT_EDGE_BYTES
        ? await cache.through("sha256", absPath, "", compute)
        : await compute();
    if (onBytes) onBytes(size);
    return hex;
  };
}

/**
 * A JSON text of `value` that tells apart what `JSON.stringify` merges
 * (non-finite numbers, `undefined` members): the key of the outputs cache.
 */
function exactJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v === undefined) return "\u0000undefined";
    if (typeof v === "number" && !Number.isFinite(v)) return `\u0000${String(v)}`;
    return v;
  });
}

/**
 * The output files of a build, from the cache when everything they are made
 * from is unchanged, else from `render()` (then stored). The output writers are
 * pure functions of the build result, the arguments and the input hashes (and
 * of the code, the templates and the dependencies, which are in every key), so
 * `parts` (e.g. `{ result, args, inputs }`) decides them: a warm rebuild with
 * nothing changed skips rendering (`report.html`'s charts are the slow part).
 */
export async function cachedOutputs(
  cache: FileCache | undefined,
  parts: unknown,
  render: () => Promise<Map<string, string>>,
): Promise<Map<string, string>> {
  if (!cache?.enabled) return render();
  const key = await cache.keyOfText("outputs", exactJson(parts));
  const hit = await cache.get<[string, string][]>("outputs", key);
  if (hit !== undefined && Array.isArray(hit)) return new Map(hit);
  const files = await render();
  await cache.put("outputs", key, [...files]);
  return files;
}

/**
 * {@link cachedObservations} of inputs read through the sources: keyed by
 * their files on disk, and computed without the cache when one of them has
 * none (an in-memory source).
 */
export async function cachedFileObservations(
  cache: FileCache | undefined,
  kind: string,
  files: SourceFile[],
  extra: string,
  diag: Diagnostics,
  compute: (diag: Diagnostics) => Promise<Observation[]>,
  onBytes?: (bytes: number) => void,
): Promise<Observation[]> {
  const paths = files.map((f) => f.abs);
  if (paths.some((p) => p === null)) return cachedObservations(undefined, kind, [], extra, diag, compute, onBytes);
  return cachedObservations(cache, kind, paths as string[], extra, diag, compute, onBytes);
}
