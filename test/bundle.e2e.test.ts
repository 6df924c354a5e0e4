import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { MessageChannel, Worker } from "node:worker_threads";
import { removeTree } from "./helpers/tree.js";
import { buildDist } from "./helpers/build-dist.js";

/**
 * bin/ptb-manifest.js runs the bundle of scripts/bundle-cli.ts (dist/bundle/),
 * not the compiled modules. Its two worker files are entries of their own
 * there: each must answer as the compiled worker (dist/extractors/…) does, or
 * a run that decides to use workers would read differently from one that
 * does not.
 */
const REPO = join(import.meta.dirname, "..");
const BUNDLE = join(REPO, "dist", "bundle");
let tmp: string;

beforeAll(async () => {
  buildDist();
  tmp = await mkdtemp(join(tmpdir(), "ptb-bundle-"));
  const lines = [0, 1, 2].map((n) =>
    JSON.stringify({
      type: "assistant",
      uuid: `u-${n}`,
      timestamp: `2026-10-01T00:00:0${n}.000Z`,
      requestId: `req_${n}`,
      message: { model: "claude-opus-5", id: `msg_${n}`, usage: { input_tokens: 3, output_tokens: 10 + n } },
    }),
  );
  await writeFile(join(tmp, "s.jsonl"), `${lines.join("\n")}\n`);
  for (const step of ["step_100", "step_200"]) {
    const dir = join(tmp, "tree", "fam", step);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "STABLE"), "");
    await utimes(join(dir, "STABLE"), 1790003123.25, 1790003123.25);
  }
}, 180_000);
afterAll(async () => removeTree(tmp));

/** The first message of `worker` with a `scan` or an `error`, after `send` once it is ready; the worker is stopped after. */
async function answer(worker: Worker, send: () => void): Promise<unknown> {
  try {
    return await new Promise((resolve, reject) => {
      worker.on("message", (m: { ready?: boolean; scan?: unknown; error?: string }) => {
        if (m.ready === true) send();
        else if (m.scan !== undefined || m.error !== undefined) resolve(m);
      });
      worker.once("error", reject);
    });
  } finally {
    await worker.terminate();
  }
}

describe("start-up loads only what the command needs (README: Performance, Start-up)", () => {
  /** The packages (under node_modules) that `args` makes the CLI load. */
  const packagesLoaded = (args: string[]): string[] => {
    const log = join(tmp, `imports-${args[0]}.log`);
    execFileSync(
      process.execPath,
      ["--import", join(REPO, "test", "helpers", "record-imports.mjs"), join(REPO, "bin", "ptb-manifest.js"), ...args],
      { env: { ...process.env, PTB_IMPORTS_LOG: log }, stdio: "ignore" },
    );
    const urls = readFileSync(log, "utf8").split("\n");
    return [
      ...new Set(urls.map((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1]).filter((p) => p !== undefined)),
    ].sort();
  };

  it("tokens --format and --help load no package: not the registry's schemas (zod), not Vega", () => {
    expect(packagesLoaded(["tokens", "--format", "claude-code", join(tmp, "s.jsonl"), "--json"])).toEqual([]);
    expect(packagesLoaded(["--help"])).toEqual([]);
  });
});

describe("the bundled CLI (dist/bundle/)", () => {
  it("holds the CLI, both worker entries and the WebAssembly scanner, and runs", () => {
    const names = readdirSync(BUNDLE);
    for (const name of ["cli.js", "scan-worker.js", "pvc-walk-worker.js", "marker-scan.wasm"])
      expect(names, name).toContain(name);
    const out = execFileSync(
      process.execPath,
      [join(REPO, "bin", "ptb-manifest.js"), "tokens", "--format", "claude-code", tmp, "--json"],
      { encoding: "utf8" },
    );
    expect(JSON.parse(out)).toMatchObject({ uncached_input: 9, output: 33, total: 42, calls: 3 });
  });

  it("its scan worker answers a file as the compiled library scans it", async () => {
    const file = { path: join(tmp, "s.jsonl"), display: "s.jsonl" };
    const worker = new Worker(join(BUNDLE, "scan-worker.js"));
    const got = await answer(worker, () => worker.postMessage({ id: 7, format: "claude-code", file }));
    const { COUNTERS } = (await import(
      pathToFileURL(join(REPO, "dist", "extractors", "trajectory", "counters.js")).href
    )) as typeof import("../src/extractors/trajectory/counters.js");
    expect(got).toEqual({ id: 7, scan: await COUNTERS["claude-code"].scan(file) });
  });

  it("its PVC walk worker answers a chunk of directories as the compiled worker does", async () => {
    const walkWith = async (url: string): Promise<unknown> => {
      const { port1, port2 } = new MessageChannel();
      const flag = new Int32Array(new SharedArrayBuffer(4));
      const worker = new Worker(url, {
        workerData: { port: port2, flag, local: join(tmp, "tree"), pvc: "/pvc/t" },
        transferList: [port2],
      });
      try {
        return await new Promise((resolve, reject) => {
          port1.once("message", resolve);
          worker.once("error", reject);
          port1.postMessage({ id: 3, dirs: ["", "fam", "fam/step_100", "fam/step_200"] });
        });
      } finally {
        port1.close();
        await worker.terminate();
      }
    };
    const bundled = await walkWith(join(BUNDLE, "pvc-walk-worker.js"));
    const compiled = await walkWith(join(REPO, "dist", "extractors", "pvc-walk-worker.js"));
    expect(bundled).toEqual(compiled);
    expect((bundled as { counts: Int32Array }).counts).toEqual(new Int32Array([1, 2, 1, 1]));
  });
});
