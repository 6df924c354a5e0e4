import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { removeTree } from "./helpers/tree.js";
import { buildDist } from "./helpers/build-dist.js";

/**
 * Worker threads scan only from the compiled code (dist/), and only for at
 * least 64 MB: this test compiles dist/ afresh and reads ~70 MB of
 * claude-code sessions with 1, 2 and 3 threads (this thread plus workers
 * taking files from one queue), which must give the same reading.
 */
const REPO = join(import.meta.dirname, "..");
let tmp: string;
let expected: { calls: number; output: number; cacheRead: number };

function usageLine(n: number): string {
  return JSON.stringify({
    type: "assistant",
    uuid: `u-${n}`,
    timestamp: new Date(Date.UTC(2026, 9, 1) + n * 1000).toISOString(),
    requestId: `req_${n}`,
    message: {
      model: "claude-opus-5",
      id: `msg_${n}`,
      content: [{ type: "text", text: "x".repeat(200) }],
      usage: { input_tokens: 3, output_tokens: 10 + (n % 7), cache_read_input_tokens: n % 1000 },
    },
  });
}

const filler = JSON.stringify({ type: "user", message: { content: "y".repeat(4000) } });

beforeAll(async () => {
  buildDist();
  tmp = await mkdtemp(join(tmpdir(), "ptb-scan-workers-"));
  const dir = join(tmp, "projects", "p");
  await mkdir(dir, { recursive: true });
  expected = { calls: 0, output: 0, cacheRead: 0 };
  let n = 0;
  // Three sessions of about 40, 30 and 0.01 MB: more than the 64 MB under which one thread scans.
  for (const [name, mb] of [
    ["a", 40],
    ["b", 30],
    ["c", 0.01],
  ] as const) {
    const lines: string[] = [];
    let bytes = 0;
    while (bytes < mb * 1e6) {
      const u = usageLine(n);
      lines.push(u, filler);
      bytes += u.length + filler.length + 2;
      expected.calls += 1;
      expected.output += 10 + (n % 7);
      expected.cacheRead += n % 1000;
      n += 1;
    }
    await writeFile(join(dir, `${name}.jsonl`), `${lines.join("\n")}\n`);
  }
}, 180_000);

afterAll(async () => removeTree(tmp));

describe("scanning with worker threads", () => {
  it("gives the same reading with 1, 2 and 3 threads, and the right counts", async () => {
    const { readTrajectory } = (await import(
      pathToFileURL(join(REPO, "dist", "extractors", "trajectory", "index.js")).href
    )) as typeof import("../src/extractors/trajectory/index.js");
    const one = await readTrajectory("claude-code", [tmp], { threads: 1 });
    expect(one.warnings).toEqual([]);
    expect(one.calls.length).toBe(expected.calls);
    expect(one.calls.reduce((a, c) => a + c.output, 0)).toBe(expected.output);
    expect(one.calls.reduce((a, c) => a + c.cacheRead, 0)).toBe(expected.cacheRead);
    for (const threads of [2, 3]) {
      const told: [number, boolean][] = [];
      const reading = await readTrajectory("claude-code", [tmp], {
        threads,
        onThreads: (n, sampled) => told.push([n, sampled]),
      });
      expect(reading, `${threads}`).toEqual(one);
      expect(told).toEqual([[threads, false]]); // forced: no sample of the free cores
    }
  }, 120_000);

  it("gives a worker files to scan when every file is read synchronously (small files)", async () => {
    const { scanFiles } = (await import(
      pathToFileURL(join(REPO, "dist", "extractors", "trajectory", "parallel.js")).href
    )) as typeof import("../src/extractors/trajectory/parallel.js");
    // 24 files of 3 MB (72 MB in all, each read with synchronous reads): the worker must be heard
    // when it is ready, between this thread's files, and take some of them.
    const dir = join(tmp, "small");
    await mkdir(dir, { recursive: true });
    const body = `${Array.from({ length: 700 }, (_v, n) => `${usageLine(n)}\n${filler}`).join("\n")}\n`;
    const files = await Promise.all(
      Array.from({ length: 24 }, async (_v, k) => {
        const path = join(dir, `s${String(k).padStart(2, "0")}.jsonl`);
        await writeFile(path, body);
        return { path, display: `small/s${k}.jsonl` };
      }),
    );
    const byWorker: number[] = [];
    const scanned: number[] = [];
    // This thread takes 100 ms more per file (a synchronous sleep), so that even on a loaded machine the
    // worker is ready long before the last file: it is heard only if this thread yields between files.
    const pause = new Int32Array(new SharedArrayBuffer(4));
    const scans = await scanFiles("claude-code", files, {
      threads: 2,
      onScanned: (i, worker) => {
        scanned.push(i);
        if (worker) byWorker.push(i);
        else Atomics.wait(pause, 0, 0, 100);
      },
    });
    expect(scans).toHaveLength(24);
    expect(scanned.sort((a, b) => a - b)).toEqual(files.map((_f, i) => i));
    expect(byWorker.length).toBeGreaterThan(0);
  }, 120_000);
});
