/**
 * The cores this process could use now (README: Performance), sampled from
 * the kernel's per-core times and this process's own CPU time: the
 * one-minute load average lags and, right after the tool's last run, still
 * counts it, so the tool would never use a second core it has.
 */
import { cpus } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";

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
export async function freeCores(): Promise<number> {
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
