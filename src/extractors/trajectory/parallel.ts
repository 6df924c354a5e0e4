/**
 * Scans trajectory files on worker threads, one file per worker at a time
 * (README: Performance: use the machine's cores). A file's scan depends on that file
 * alone, so the scans can run in any order; the results come back in the
 * order of the files. Used only from the compiled code (`dist/`, where the
 * worker is a `.js` file) and for inputs large enough to pay for starting the
 * workers; otherwise, and if a worker fails, files are scanned in-process.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { stat } from "node:fs/promises";
import type { FileScan, TrajectoryFile } from "./common.js";
import { COUNTERS } from "./counters.js";
import type { TrajectoryFormat } from "../../schema.js";

/** Below this many bytes to scan, workers are not started. */
const PARALLEL_MIN_BYTES = 64 << 20;

const WORKER_URL = new URL("./scan-worker.js", import.meta.url);
const COMPILED = import.meta.url.endsWith(".js");

/** The number of scan threads to use by default: the machine's cores, at most 4 (`PTB_MANIFEST_THREADS` overrides). */
function defaultThreads(): number {
  const env = Number(process.env["PTB_MANIFEST_THREADS"]);
  if (Number.isInteger(env) && env >= 1) return env;
  return Math.min(4, availableParallelism());
}

/**
 * Scans `files` (each a `FormatCounter.scan`), on up to `threads` worker
 * threads when that pays, else in this thread. `onBytes` gets the raw bytes
 * read as scanning goes. Results are in the order of `files`.
 */
export async function scanFiles(
  format: TrajectoryFormat,
  files: TrajectoryFile[],
  opts: { threads?: number; onBytes?: (bytes: number) => void } = {},
): Promise<FileScan<unknown>[]> {
  const counter = COUNTERS[format];
  const sizes = await Promise.all(
    files.map((f) =>
      stat(f.path).then(
        (s) => s.size,
        () => 0,
      ),
    ),
  );
  const total = sizes.reduce((a, b) => a + b, 0);
  const threads = Math.min(opts.threads ?? defaultThreads(), files.length);
  const results: (FileScan<unknown> | undefined)[] = files.map(() => undefined);
  if (COMPILED && threads > 1 && total >= PARALLEL_MIN_BYTES) {
    // Largest files first: the last file to finish is then a small one.
    const order = files.map((_f, i) => i).sort((a, b) => sizes[b]! - sizes[a]!);
    await runPool(format, files, order, threads, results, opts.onBytes).catch(() => undefined);
  }
  for (let i = 0; i < files.length; i += 1) {
    if (results[i] === undefined) results[i] = await counter.scan(files[i]!, { onBytes: opts.onBytes });
  }
  return results as FileScan<unknown>[];
}

async function runPool(
  format: TrajectoryFormat,
  files: TrajectoryFile[],
  order: number[],
  threads: number,
  results: (FileScan<unknown> | undefined)[],
  onBytes: ((bytes: number) => void) | undefined,
): Promise<void> {
  let next = 0;
  const one = async (): Promise<void> => {
    const worker = new Worker(WORKER_URL);
    try {
      for (;;) {
        const i = order[next++];
        if (i === undefined) return;
        const done = await new Promise<FileScan<unknown>>((resolve, reject) => {
          const onMessage = (m: { id: number; bytes?: number; scan?: FileScan<unknown>; error?: string }): void => {
            if (m.id !== i) return;
            if (m.bytes !== undefined) onBytes?.(m.bytes);
            else {
              worker.off("message", onMessage);
              worker.off("error", reject);
              if (m.error !== undefined) reject(new Error(m.error));
              else resolve(m.scan!);
            }
          };
          worker.on("message", onMessage);
          worker.once("error", reject);
          worker.postMessage({ id: i, format, file: files[i] });
        });
        results[i] = done;
      }
    } finally {
      await worker.terminate();
    }
  };
  await Promise.all(Array.from({ length: threads }, one));
}
