/**
 * Scans trajectory files on worker threads, one file per worker at a time
 * (README: Performance: use the machine's cores). A file's scan depends on that file
 * alone, so the scans can run in any order; the results come back in the
 * order of the files. Used only from the compiled code (`dist/`, where the
 * worker is a `.js` file) and when workers pay (`scan-threads.ts`: free
 * cores, input size; `PTB_MANIFEST_THREADS`); otherwise, and if a worker
 * fails, files are scanned in-process.
 */
import { availableParallelism, cpus, loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { stat } from "node:fs/promises";
import type { FileScan, TrajectoryFile } from "./common.js";
import { COUNTERS } from "./counters.js";
import type { TrajectoryFormat } from "../../trajectory-formats.js";
import { SCAN_THREADS_MIN_BYTES, scanThreads } from "./scan-threads.js";

const WORKER_URL = new URL("./scan-worker.js", import.meta.url);
const COMPILED = import.meta.url.endsWith(".js");

/** The shortest sample of the cores' times a decision is made from, in ms. */
const IDLE_SAMPLE_MS = 40;

/** The kernel's per-core times summed (ms) and this process's CPU time (µs), at `at` (ms). */
interface CpuSample {
  idle: number;
  all: number;
  ownUs: number;
  at: number;
}

function cpuSample(): CpuSample {
  let idle = 0;
  let all = 0;
  for (const c of cpus()) {
    idle += c.times.idle;
    all += c.times.idle + c.times.user + c.times.nice + c.times.sys + c.times.irq;
  }
  const own = process.cpuUsage();
  return { idle, all, ownUs: own.user + own.system, at: performance.now() };
}

/** The start of the next sample: this module's loading (the tool's start-up), then each decision. */
let sampleStart = cpuSample();

/**
 * The cores this process could use, from the cores' times since the last
 * sample (the tool's start-up the first time: no wait then; at least
 * {@link IDLE_SAMPLE_MS}, waiting for the rest): the cores idle meanwhile
 * plus the cores this process itself kept busy.
 */
async function freeCores(): Promise<number> {
  const waited = performance.now() - sampleStart.at;
  if (waited < IDLE_SAMPLE_MS) await sleep(IDLE_SAMPLE_MS - waited);
  const a = sampleStart;
  const b = cpuSample();
  sampleStart = b;
  const cores = cpus().length;
  if (b.all <= a.all || b.at <= a.at) return cores;
  const idle = ((b.idle - a.idle) / (b.all - a.all)) * cores;
  const own = (b.ownUs - a.ownUs) / 1000 / (b.at - a.at);
  return Math.min(cores, idle + own);
}

/**
 * The scan threads for files of `sizes` (see `scanThreads`): from
 * `PTB_MANIFEST_THREADS`, the cores, the load average and, when workers
 * look worth it, the cores free since the last sample.
 */
async function decideThreads(sizes: readonly number[]): Promise<number> {
  const inputs = {
    env: process.env["PTB_MANIFEST_THREADS"],
    cores: availableParallelism(),
    load: loadavg()[0] ?? 0,
    sizes,
  };
  if (scanThreads(inputs) === 1) return 1;
  return scanThreads({ ...inputs, idle: await freeCores() });
}

/**
 * Scans `files` (each a `FormatCounter.scan`), on worker threads when that
 * pays (`opts.threads` of them when given and the input is at least
 * `SCAN_THREADS_MIN_BYTES`, else as `scanThreads` decides), else in this
 * thread. `onBytes` gets the raw bytes read as scanning goes. Results are in
 * the order of `files`.
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
  const threads = !COMPILED
    ? 1
    : opts.threads !== undefined
      ? total >= SCAN_THREADS_MIN_BYTES
        ? Math.min(opts.threads, files.length)
        : 1
      : await decideThreads(sizes);
  const results: (FileScan<unknown> | undefined)[] = files.map(() => undefined);
  if (threads > 1) {
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
  const { Worker } = await import("node:worker_threads"); // only when workers run
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
