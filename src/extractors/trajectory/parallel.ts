/**
 * Scans trajectory files on worker threads, one file per worker at a time
 * (README: Performance: use the machine's cores). A file's scan depends on that file
 * alone, so the scans can run in any order; the results come back in the
 * order of the files. Used only from the compiled code (`dist/`, where the
 * worker is a `.js` file) and when workers pay (`scan-threads.ts`: free
 * cores, input size; `PTB_MANIFEST_THREADS`); otherwise, and if a worker
 * fails, files are scanned in-process.
 */
import { availableParallelism, loadavg } from "node:os";
import { stat } from "node:fs/promises";
import type { FileScan, TrajectoryFile } from "./common.js";
import { COUNTERS } from "./counters.js";
import type { TrajectoryFormat } from "../../trajectory-formats.js";
import { SCAN_THREADS_MIN_BYTES, scanThreads } from "./scan-threads.js";
import { freeCores } from "../../util/free-cores.js";

const WORKER_URL = new URL("./scan-worker.js", import.meta.url);
const COMPILED = import.meta.url.endsWith(".js");

/**
 * The scan threads for files of `sizes` (see `scanThreads`): from
 * `PTB_MANIFEST_THREADS`, the cores and, when workers could pay, the cores
 * free since the last sample (`sampled`: whether that sample was taken).
 */
async function decideThreads(sizes: readonly number[]): Promise<{ threads: number; sampled: boolean }> {
  const inputs = {
    env: process.env["PTB_MANIFEST_THREADS"],
    cores: availableParallelism(),
    load: loadavg()[0] ?? 0,
    sizes,
  };
  // One thread even with every core free: decided without a sample.
  if (scanThreads({ ...inputs, idle: inputs.cores }) === 1) return { threads: 1, sampled: false };
  return { threads: scanThreads({ ...inputs, idle: await freeCores() }), sampled: true };
}

/**
 * Scans `files` (each a `FormatCounter.scan`), with worker threads when that
 * pays (`opts.threads` threads in all when given and the input is at least
 * `SCAN_THREADS_MIN_BYTES`, else as `scanThreads` decides): this thread and
 * `threads − 1` workers take the files from one queue, largest first, so this
 * thread scans while the workers start and the workers only add. A worker that
 * fails leaves its file to this thread. `onBytes` gets the raw bytes read as
 * scanning goes; `onThreads` is told the thread count once decided (when
 * there is a file to scan), and whether the free cores were sampled for it
 * (a wait of up to 40 ms right after start-up). Results are in the order of
 * `files`.
 */
export async function scanFiles(
  format: TrajectoryFormat,
  files: TrajectoryFile[],
  opts: {
    threads?: number;
    onBytes?: (bytes: number) => void;
    onThreads?: (threads: number, sampled: boolean) => void;
    /** Told, for each file scanned, its index in `files` and whether a worker scanned it. */
    onScanned?: (file: number, byWorker: boolean) => void;
  } = {},
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
  const { threads, sampled } = !COMPILED
    ? { threads: 1, sampled: false }
    : opts.threads !== undefined
      ? { threads: total >= SCAN_THREADS_MIN_BYTES ? Math.min(opts.threads, files.length) : 1, sampled: false }
      : await decideThreads(sizes);
  if (files.length > 0) opts.onThreads?.(threads, sampled);
  const results: (FileScan<unknown> | undefined)[] = files.map(() => undefined);
  const queue: ScanQueue = {
    order: files.map((_f, i) => i).sort((a, b) => sizes[b]! - sizes[a]!),
    next: 0,
    drained: [],
  };
  const inThread = async (): Promise<void> => {
    for (let i = queue.order[queue.next++]; i !== undefined; i = queue.order[queue.next++]) {
      results[i] = await counter.scan(files[i]!, { onBytes: opts.onBytes });
      opts.onScanned?.(i, false);
      // A file read synchronously never lets the event loop run: between files it does, so that a
      // worker's "ready" is heard and it takes the next file.
      if (threads > 1) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };
  if (threads > 1) {
    const workers = runWorkers(format, files, queue, threads - 1, results, opts).catch(() => undefined);
    await inThread();
    for (const stop of queue.drained) stop();
    await workers;
  } else await inThread();
  // A file a worker failed on (its result still missing) is scanned here.
  for (let i = 0; i < files.length; i += 1) {
    if (results[i] !== undefined) continue;
    results[i] = await counter.scan(files[i]!, { onBytes: opts.onBytes });
    opts.onScanned?.(i, false);
  }
  return results as FileScan<unknown>[];
}

/** The files left to scan: indices into the files, in the order to take them, and the next to take. */
interface ScanQueue {
  order: number[];
  next: number;
  /** Called when this thread found the queue empty: each stops a worker still loading. */
  drained: (() => void)[];
}

/**
 * Resolves to true when `worker` says it is ready, to false when a function
 * pushed onto `drained` is called first; rejects when the worker fails or
 * exits first. Only its own listeners are removed after (never Node's).
 */
function whenReady(worker: import("node:worker_threads").Worker, drained: (() => void)[]): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    const done = (): void => {
      worker.off("message", ok);
      worker.off("error", failed);
      worker.off("exit", exited);
    };
    const ok = (): void => {
      done();
      resolve(true);
    };
    const failed = (err: unknown): void => {
      done();
      reject(err);
    };
    const exited = (): void => failed(new Error("the scan worker exited before it was ready"));
    worker.once("message", ok);
    worker.once("error", failed);
    worker.once("exit", exited);
    drained.push(() => {
      done();
      resolve(false);
    });
  });
}

/** Runs `count` workers that take files from `queue` until it is empty. */
async function runWorkers(
  format: TrajectoryFormat,
  files: TrajectoryFile[],
  queue: ScanQueue,
  count: number,
  results: (FileScan<unknown> | undefined)[],
  { onBytes, onScanned }: { onBytes?: (bytes: number) => void; onScanned?: (file: number, byWorker: boolean) => void },
): Promise<void> {
  const { Worker } = await import("node:worker_threads"); // only when workers run
  const one = async (): Promise<void> => {
    if (queue.next >= queue.order.length) return; // nothing left for a worker to start for
    const worker = new Worker(WORKER_URL);
    try {
      // Files are taken only once the worker has loaded the scanners: until then this thread takes them,
      // and a worker not ready when the queue is empty is stopped, never waited for.
      const ready = await whenReady(worker, queue.drained);
      if (!ready) return;
      for (;;) {
        const i = queue.order[queue.next++];
        if (i === undefined) return;
        const done = await new Promise<FileScan<unknown>>((resolve, reject) => {
          const exited = (): void => reject(new Error("the scan worker exited"));
          const onMessage = (m: { id: number; bytes?: number; scan?: FileScan<unknown>; error?: string }): void => {
            if (m.id !== i) return;
            if (m.bytes !== undefined) onBytes?.(m.bytes);
            else {
              worker.off("message", onMessage);
              worker.off("error", reject);
              worker.off("exit", exited);
              if (m.error !== undefined) reject(new Error(m.error));
              else resolve(m.scan!);
            }
          };
          worker.on("message", onMessage);
          worker.once("error", reject);
          worker.once("exit", exited);
          worker.postMessage({ id: i, format, file: files[i] });
        });
        results[i] = done;
        onScanned?.(i, true);
      }
    } finally {
      await worker.terminate();
    }
  };
  await Promise.all(Array.from({ length: count }, one));
}
