import { describe, expect, it } from "vitest";
import { scanThreads } from "../src/extractors/trajectory/scan-threads.js";

const MB = 1 << 20;
const even = (n: number, size: number): number[] => Array.from({ length: n }, () => size);

describe("scanThreads", () => {
  it("keeps small inputs, single files and PTB_MANIFEST_THREADS=1 in one thread", () => {
    expect(scanThreads({ env: undefined, cores: 8, load: 0, sizes: even(8, 7 * MB) })).toBe(1); // 56 MB in all
    expect(scanThreads({ env: undefined, cores: 8, load: 0, sizes: [1024 * MB] })).toBe(1);
    expect(scanThreads({ env: "1", cores: 8, load: 0, sizes: even(8, 128 * MB) })).toBe(1);
    expect(scanThreads({ env: undefined, cores: 8, load: 0, sizes: [] })).toBe(1);
  });

  it("uses the free cores, at most 4 by default, at most N with PTB_MANIFEST_THREADS=N", () => {
    const sizes = even(8, 128 * MB);
    expect(scanThreads({ env: undefined, cores: 2, load: 0.1, sizes })).toBe(2);
    expect(scanThreads({ env: undefined, cores: 8, load: 0, sizes })).toBe(4);
    expect(scanThreads({ env: "6", cores: 8, load: 0, sizes })).toBe(6);
    expect(scanThreads({ env: " 3 ", cores: 8, load: 0, sizes })).toBe(3);
    expect(scanThreads({ env: "16", cores: 8, load: 5.2, sizes })).toBe(3); // 2.8 cores free
    expect(scanThreads({ env: "2", cores: 1, load: 0, sizes })).toBe(1);
  });

  it("stays in one thread when the cores are busy, by the load average or by the sample", () => {
    const sizes = even(8, 128 * MB);
    expect(scanThreads({ env: undefined, cores: 2, load: 1.6, sizes })).toBe(1); // 0.4 free
    expect(scanThreads({ env: undefined, cores: 2, load: 3.5, sizes })).toBe(1);
    expect(scanThreads({ env: undefined, cores: 2, load: 1.4, sizes })).toBe(1); // 0.6 free: rounds to 1 core
    expect(scanThreads({ env: undefined, cores: 2, load: 0.2, idle: 0.3, sizes })).toBe(1); // busy right now
    expect(scanThreads({ env: undefined, cores: 4, load: 0.2, idle: 2.7, sizes })).toBe(3);
    // A sample wins over the load average, which lags a minute and counts the tool's own last runs.
    expect(scanThreads({ env: undefined, cores: 2, load: 1.8, idle: 1.9, sizes })).toBe(2);
  });

  it("ignores a PTB_MANIFEST_THREADS that is not a whole number ≥ 1", () => {
    const sizes = even(8, 128 * MB);
    for (const env of ["", "0", "-2", "2.5", "many"])
      expect(scanThreads({ env, cores: 8, load: 0, sizes }), env).toBe(4);
  });

  it("starts no worker whose start-up costs more than it saves: the largest file bounds the gain", () => {
    // 100 MB + 4 MB: two threads still wait on the 100 MB file, and pay a worker's start.
    expect(scanThreads({ env: undefined, cores: 4, load: 0, sizes: [100 * MB, 4 * MB] })).toBe(1);
    // 60 + 60 + 10 MB: a third thread saves less than its start-up (the largest file bounds the gain).
    expect(scanThreads({ env: undefined, cores: 4, load: 0, sizes: [60 * MB, 60 * MB, 10 * MB] })).toBe(2);
    // 70 MB, barely above the floor, in two files: 35 MB per thread + 1 worker's start (16 MB) < 70 MB.
    expect(scanThreads({ env: undefined, cores: 2, load: 0, sizes: [35 * MB, 35 * MB] })).toBe(2);
  });
});
