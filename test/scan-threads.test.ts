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
    const sizes = even(32, 256 * MB); // 8 GB
    expect(scanThreads({ env: undefined, cores: 2, load: 0.1, sizes })).toBe(2);
    expect(scanThreads({ env: undefined, cores: 8, load: 0, sizes })).toBe(4);
    expect(scanThreads({ env: "6", cores: 8, load: 0, sizes })).toBe(6);
    expect(scanThreads({ env: " 3 ", cores: 8, load: 0, sizes })).toBe(3);
    expect(scanThreads({ env: "16", cores: 8, load: 5.2, sizes })).toBe(3); // 2.8 cores free
    expect(scanThreads({ env: "2", cores: 1, load: 0, sizes })).toBe(1);
  });

  it("stays in one thread when the cores are busy, by the load average or by the sample", () => {
    const sizes = even(32, 256 * MB);
    expect(scanThreads({ env: undefined, cores: 2, load: 1.6, sizes })).toBe(1); // 0.4 free
    expect(scanThreads({ env: undefined, cores: 2, load: 3.5, sizes })).toBe(1);
    expect(scanThreads({ env: undefined, cores: 2, load: 1.4, sizes })).toBe(1); // 0.6 free: rounds to 1 core
    expect(scanThreads({ env: undefined, cores: 2, load: 0.2, idle: 0.3, sizes })).toBe(1); // busy right now
    expect(scanThreads({ env: undefined, cores: 4, load: 0.2, idle: 2.7, sizes })).toBe(3);
    // A sample wins over the load average, which lags a minute and counts the tool's own last runs.
    expect(scanThreads({ env: undefined, cores: 2, load: 1.8, idle: 1.9, sizes })).toBe(2);
  });

  it("ignores a PTB_MANIFEST_THREADS that is not a whole number ≥ 1", () => {
    const sizes = even(32, 256 * MB);
    for (const env of ["", "0", "-2", "2.5", "many"])
      expect(scanThreads({ env, cores: 8, load: 0, sizes }), env).toBe(4);
  });

  it("starts no worker that costs more than it saves: added threads bring a quarter each, the largest file bounds the gain", () => {
    // 1 GB in 8 files on 2 free cores: 1000 / 1.25 + one worker (256 MB) > 1000 MB (measured: no faster).
    expect(scanThreads({ env: undefined, cores: 2, load: 0, idle: 2, sizes: even(8, 128 * MB) })).toBe(1);
    // 2 GB in 8 files: 1638 + 256 < 2048.
    expect(scanThreads({ env: undefined, cores: 2, load: 0, idle: 2, sizes: even(8, 256 * MB) })).toBe(2);
    // 2 GB + 10 MB: two threads still wait on the 2 GB file, and pay a worker.
    expect(scanThreads({ env: undefined, cores: 4, load: 0, sizes: [2048 * MB, 10 * MB] })).toBe(1);
    // 2 GB in 8 files on 4 cores: a third thread pays (2048 / 1.5 + 512 < 2048 / 1.25 + 256), a fourth not (2048 / 1.75 + 768).
    expect(scanThreads({ env: undefined, cores: 4, load: 0, sizes: even(8, 256 * MB) })).toBe(3);
  });
});
