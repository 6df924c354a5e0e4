/**
 * Issue 4, "Done when": a build from live sources (a local Hub serving
 * `sources/hub/`, and PVC trees materialised from the listings with their
 * mtimes) gives the snapshot build's `manifest.json` byte for byte, through
 * faults, warm from the cache, and never lets the token out.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cp, mkdtemp, readFile, readdir, rename, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import fg from "fast-glob";
import { buildManifest } from "../src/pipeline/build-manifest.js";
import { runBuild } from "../src/pipeline/run-build.js";
import { manifestJson } from "../src/writers/manifest.js";
import { loadCells } from "../src/sources/cells.js";
import { runCli } from "./helpers/cli.js";
import { materialisePvc } from "./helpers/materialise.js";
import { startHubServer, type HubServer } from "./helpers/hub-server.js";
import { removeTree } from "./helpers/tree.js";

const SOURCES = resolve("sources");
const TOKEN = "hf_liveTestToken0123456789abcdef";
let tmp: string;
let server: HubServer;
let reference: string;
const pvc: Record<string, string> = {};
const pvcFlags: string[] = [];

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "ptb-live-build-"));
  server = await startHubServer({ hubDir: join(SOURCES, "hub"), pageSize: 50, token: TOKEN });
  for (const cell of (await loadCells(SOURCES)).cells) {
    if (cell.excluded) continue;
    const dir = join(tmp, "pvc", cell.cell);
    await materialisePvc(SOURCES, cell.cell, cell.pvc_root, dir);
    pvc[cell.cell] = dir;
    pvcFlags.push("--pvc", `${cell.cell}=${dir}`);
  }
  reference = manifestJson((await buildManifest({ sourcesDir: SOURCES })).rows);
});
afterAll(async () => {
  await server.close();
  await removeTree(tmp);
});

/** Runs the CLI with `HF_TOKEN` set, restoring the environment after. */
async function withToken<T>(fn: () => Promise<T>): Promise<T> {
  const before = process.env.HF_TOKEN;
  process.env.HF_TOKEN = TOKEN;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.HF_TOKEN;
    else process.env.HF_TOKEN = before;
  }
}

/** Every file under `dir` (dot files too) that contains `needle`. */
async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  for (const f of await fg("**/*", { cwd: dir, dot: true, onlyFiles: true })) {
    if ((await readFile(join(dir, f))).includes(needle)) hits.push(f);
  }
  return hits;
}

describe("build --hub --pvc (live sources)", () => {
  const cache = (): string => join(tmp, "cache");

  it("gives the snapshot build's manifest.json byte for byte; the token is sent and never printed, logged or written", async () => {
    const out = join(tmp, "out-cold");
    const r = await withToken(() =>
      runCli(
        "build",
        "--sources",
        SOURCES,
        "--out",
        out,
        "--hub",
        "--hub-url",
        server.url,
        "--cache-dir",
        cache(),
        ...pvcFlags,
      ),
    );
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(await readFile(join(out, "manifest.json"), "utf8")).toBe(reference);
    expect(server.count("resolve")).toBeGreaterThan(0);
    expect(server.log.every((q) => q.authorized)).toBe(true);
    expect(server.log.some((q) => q.url.includes(".safetensors"))).toBe(false);
    expect(r.stderr).toContain("hub: 545 repos, 0 from the cache, 545 downloaded");

    expect(r.stdout).not.toContain(TOKEN);
    expect(r.stderr).not.toContain(TOKEN);
    expect(await filesContaining(out, TOKEN)).toEqual([]);
    expect(await filesContaining(cache(), TOKEN)).toEqual([]);
    expect((await fg("**/*", { cwd: cache(), dot: true })).length).toBeGreaterThan(500);

    const report = JSON.parse(await readFile(join(out, "build-report.json"), "utf8")) as {
      arguments: Record<string, unknown>;
      inputs: Record<string, string>;
    };
    expect(report.arguments).toMatchObject({ hub: server.url, pvc });
    expect(Object.keys(report.inputs).some((k) => k.startsWith("kimi/pvc/"))).toBe(false);
    expect(report.inputs["hub/agentic-ptb/kimi.h029.sft-mix.2400/"]).toBe(
      "commit f6ff7bd2bbf7f1343029513fc210c5bcc14eeb40",
    );
  });

  it("warm: a second run with nothing changed makes only listing requests, and the same manifest", async () => {
    server.reset();
    const out = join(tmp, "out-warm");
    const r = await withToken(() =>
      runCli(
        "build",
        "--sources",
        SOURCES,
        "--out",
        out,
        "-q",
        "--hub",
        "--hub-url",
        server.url,
        "--cache-dir",
        cache(),
        ...pvcFlags,
      ),
    );
    expect(r.code).toBe(0);
    expect(await readFile(join(out, "manifest.json"), "utf8")).toBe(reference);
    expect(server.count("resolve") + server.count("raw") + server.count("tree")).toBe(0);
    expect(server.count()).toBe(server.count("list") + server.count("info"));
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  });

  it("with 10% of Hub requests answered 429 or 500, still succeeds with the same manifest", async () => {
    server.reset();
    server.faults = { rate: 0.1, kinds: ["429", "500"], slowMs: 0, retryAfterS: 0, maxConsecutivePerUrl: 2 };
    const out = join(tmp, "out-faults");
    const { result } = await runBuild({
      sources: SOURCES,
      out,
      quiet: true,
      pvc,
      hub: true,
      hubUrl: server.url,
      cacheDir: join(tmp, "cache-faults"),
      hubRetry: { baseDelayMs: 1, maxDelayMs: 4 },
      env: { HF_TOKEN: TOKEN },
    });
    expect(manifestJson(result.rows)).toBe(reference);
    expect(await readFile(join(out, "manifest.json"), "utf8")).toBe(reference);
    const faults = server.log.filter((q) => q.fault);
    expect(faults.length).toBeGreaterThan(server.count() * 0.05);
    expect(new Set(faults.map((q) => q.fault))).toEqual(new Set(["429", "500"]));
  });

  it("with the Hub down, fails fast with a clear message and writes nothing", async () => {
    const down = await startHubServer({ hubDir: join(SOURCES, "hub") });
    await down.close();
    const out = join(tmp, "out-down");
    const r = await withToken(() =>
      runCli(
        "build",
        "--sources",
        SOURCES,
        "--out",
        out,
        "-q",
        "--hub",
        "--hub-url",
        down.url,
        "--cache-dir",
        join(tmp, "cache-down"),
      ),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^ptb-manifest: error HUB_UNREACHABLE: cannot reach the Hub: GET ${down.url}/api/models\\?limit=500&author=[a-z-]+ failed \\(ECONNREFUSED\\); is the Hub at ${down.url} up \\(--hub-url, HF_ENDPOINT\\)\\?\\n$`,
      ),
    );
    expect(r.stderr).not.toContain(TOKEN);
    await expect(stat(out)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("an owner of cells.json with no repo in the listing, and a listed owner of another case: HUB_OWNER_EMPTY, HUB_UNKNOWN_OWNER", async () => {
    const hubDir = join(tmp, "hub-case");
    await cp(join(SOURCES, "hub"), hubDir, { recursive: true });
    await rename(join(hubDir, "msr-spare"), join(hubDir, "Msr-Spare"));
    const cased = await startHubServer({ hubDir, pageSize: 50, token: TOKEN });
    try {
      const out = join(tmp, "out-case");
      const args = ["build", "--sources", SOURCES, "--out", out, "-q", "--hub", "--hub-url", cased.url];
      const r = await withToken(() => runCli(...args, "--cache-dir", join(tmp, "cache-case")));
      expect(r.code).toBe(0);
      const report = JSON.parse(await readFile(join(out, "build-report.json"), "utf8"));
      const hubWarnings = report.warnings.filter((w: { code: string }) =>
        /^HUB_(OWNER_EMPTY|UNKNOWN_OWNER)$/.test(w.code),
      );
      expect(hubWarnings.map((w: { code: string; file: string | null }) => [w.code, w.file])).toEqual([
        ["HUB_UNKNOWN_OWNER", null],
        ["HUB_OWNER_EMPTY", null],
      ]);
      expect(hubWarnings[1].message).toBe(
        "the Hub lists no repo of msr-spare (cells.json's spare_owner): no checkpoint has a spare copy; a misspelt owner, or private repos listed without a token (HF_TOKEN)?",
      );
      const spares = (await readdir(join(hubDir, "Msr-Spare"))).length;
      expect(hubWarnings[0].message).toMatch(`the Hub listed ${spares} repo(s) of Msr-Spare, first Msr-Spare/`);
      expect(hubWarnings[0].message).toMatch(
        /, an owner that is neither cells.json's org \(agentic-ptb\) nor its spare_owner \(msr-spare\)/,
      );
    } finally {
      await cased.close();
    }
  });

  it("--hub-url without --hub is a usage error", async () => {
    const r = await runCli("build", "--sources", SOURCES, "--out", join(tmp, "out-usage"), "--hub-url", server.url);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain("need --hub");
  });
});
