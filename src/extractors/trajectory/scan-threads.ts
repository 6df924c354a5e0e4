/**
 * How many threads scan a run's trajectory files (README: Performance):
 * worker threads only when they pay, from the cores that are free now and
 * the sizes of the files. A worker costs its start-up and the scanner's cold
 * code in it, and needs an idle core; scans running at once share the
 * memory and the kernel, so a second thread adds far less than a second
 * scan's worth; a file is scanned by one thread, so the largest file bounds
 * what threads can save.
 */

/** Below this many bytes in all, the scan stays in the main thread. */
export const SCAN_THREADS_MIN_BYTES = 64 << 20;

/**
 * What one worker costs (its start-up and its cold code), counted as the bytes one thread
 * scans meanwhile. Measured on a 2-core machine (README: Performance): a worker added 0.35 s
 * of CPU to a 200 MB scan and 0.6 s to a 1 GB one.
 */
const WORKER_COST_BYTES = 256 << 20;

/**
 * The share of one thread's speed that each added thread brings. Measured on the same
 * machine: two scans at once each took 1.6 times as long as alone (2 / 1.6 = 1 + 0.25).
 */
const ADDED_THREAD_SHARE = 0.25;

/** At most this many scan threads by default. */
const DEFAULT_MAX_THREADS = 4;

/** What the decision is made from (read by the caller: `process.env`, `os`, the files' sizes). */
export interface ScanThreadInputs {
  /** `PTB_MANIFEST_THREADS`: "1" = one thread (no worker), "N" = at most N, unset or not a whole number ≥ 1 = the tool decides. */
  env: string | undefined;
  /** The cores this process may use (`os.availableParallelism()`). */
  cores: number;
  /** The 1-minute load average (`os.loadavg()[0]`): runnable threads, others' (and a little of ours). */
  load: number;
  /**
   * The cores free to this process in a recent sample (the cores idle then plus those this process kept
   * busy, from `os.cpus()` and `process.cpuUsage()`; undefined when not sampled): the load average lags a minute.
   */
  idle?: number | undefined;
  /** The sizes in bytes of the files to scan. */
  sizes: readonly number[];
}

/**
 * The number of threads to scan with (1 = in the main thread, no worker;
 * N > 1 = the main thread and N − 1 workers, one file each at a time). The
 * cores free now are those of the sample when one was taken (the load average
 * lags a minute and still counts the tool's own last runs), else
 * `cores − load`, rounded (a core more than half free counts); with the cap
 * (`PTB_MANIFEST_THREADS`, else 4) and the file count, they bound the
 * threads. Among 1..bound, the count with the least estimated work wins:
 * the bytes of the critical path (the total over the threads' combined
 * speed, each added thread counting for a quarter of one, but never below the
 * largest file) plus the cost of each worker; ties go to fewer threads. On
 * 2 cores that is one thread below about 1.3 GB.
 * Under {@link SCAN_THREADS_MIN_BYTES} in all, 1.
 */
export function scanThreads(inputs: ScanThreadInputs): number {
  const env = inputs.env === undefined ? Number.NaN : Number(inputs.env.trim());
  const cap = Number.isInteger(env) && env >= 1 ? env : DEFAULT_MAX_THREADS;
  if (cap === 1 || inputs.sizes.length < 2) return 1;
  let total = 0;
  let largest = 0;
  for (const s of inputs.sizes) {
    total += s;
    if (s > largest) largest = s;
  }
  if (total < SCAN_THREADS_MIN_BYTES) return 1;
  const free = Math.round(inputs.idle ?? inputs.cores - Math.max(0, inputs.load));
  const bound = Math.min(cap, inputs.sizes.length, Math.max(1, free));
  let best = 1;
  let bestCost = total;
  for (let t = 2; t <= bound; t += 1) {
    const cost = Math.max(largest, total / (1 + (t - 1) * ADDED_THREAD_SHARE)) + (t - 1) * WORKER_COST_BYTES;
    if (cost < bestCost) {
      best = t;
      bestCost = cost;
    }
  }
  return best;
}
