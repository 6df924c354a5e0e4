import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { holdAfterTempEnv } from "./helpers/hold-after-temp.js";
import { makeMiniSweep, miniCells } from "./helpers/mini-sweep.js";
import { removeTree } from "./helpers/tree.js";
import { buildDist } from "./helpers/build-dist.js";

/**
 * Fault tolerance of a real build (issue 5): the built CLI,
 * `node bin/ptb-manifest.js build`, run as a child process.
 *
 * dist/ is compiled afresh first (`npm run build`'s tsc -p tsconfig.build.json),
 * so the test runs today's source, as `npm ci` leaves it. To interrupt a build at an exact point rather than at a
 * lucky moment, the test runs it with the preload of test/helpers/hold-after-temp.ts:
 * the real writer (src/util/atomic.ts) stops after writing and syncing its N-th
 * temporary file, says so on stderr and waits, and the test then kills it.
 */

const REPO = join(import.meta.dirname, "..");
const HF_TOKEN = "hf_TESTtokenNEVERprinted0123456789abcdef";
const bin = join(REPO, "bin", "ptb-manifest.js");
const roots: string[] = [];

beforeAll(() => {
  buildDist();
}, 120_000);

afterAll(async () => Promise.all(roots.map(removeTree)));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI; with `kill`, sends that signal once stderr shows the test hold. */
function runBin(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string>; kill?: NodeJS.Signals; onHold?: () => Promise<void> } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: opts.cwd ?? REPO,
      env: { PATH: process.env.PATH ?? "", ...opts.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let held = false;
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
      if (!held && opts.kill && /test hold after \d+/.test(stderr)) {
        held = true;
        (opts.onHold ?? (async () => {}))().then(() => child.kill(opts.kill), reject);
      }
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

async function snapshot(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const f of (await readdir(dir)).sort()) out.set(f, await readFile(join(dir, f)));
  return out;
}

const temps = async (dir: string) => (await readdir(dir)).filter((f) => f.endsWith(".tmp")).sort();

describe("atomic output: a build killed mid-write leaves the previous outputs intact", () => {
  let sources: string;
  let out: string;
  let before: Map<string, Buffer>;
  let nFiles: number;

  beforeAll(async () => {
    sources = await makeMiniSweep();
    roots.push(sources);
    out = `${sources}-out`;
    roots.push(out);
    const first = await runBin(["build", "--sources", sources, "--out", out, "--quiet"]);
    expect(first.code).toBe(0);
    before = await snapshot(out);
    nFiles = before.size;
    expect(nFiles).toBeGreaterThanOrEqual(5);
    // The next build would write different bytes into every manifest file.
    await writeFile(
      join(sources, "cells.json"),
      miniCells((c) => (c.cells[0].driver = "Codex / gpt-y")),
    );
  });

  for (const [what, hold, signal] of [
    ["SIGKILL after the first temporary file", 1, "SIGKILL"],
    ["SIGKILL after every temporary file, just before the renames", "all", "SIGKILL"],
    ["SIGINT (Ctrl-C) halfway through the temporary files", 3, "SIGINT"],
    ["SIGTERM after every temporary file", "all", "SIGTERM"],
  ] as const) {
    it(what, async () => {
      const n = hold === "all" ? nFiles : hold;
      let during: string[] = [];
      const r = await runBin(["build", "--sources", sources, "--out", out, "--quiet"], {
        env: holdAfterTempEnv(n),
        kill: signal,
        onHold: async () => {
          during = await temps(out);
        },
      });
      expect(r.stderr).toContain(`test hold after ${n} temporary file(s)`);
      // It was really mid-write: n new files on disk, none renamed yet.
      expect(during).toHaveLength(n);
      if (signal === "SIGKILL") {
        expect(r.signal).toBe("SIGKILL");
      } else {
        // Caught: the temporary files are removed and the exit code says which signal.
        expect(r.code).toBe(signal === "SIGINT" ? 130 : 143);
        expect(await temps(out)).toEqual([]);
      }
      const after = await snapshot(out);
      for (const [f, bytes] of before) expect(after.get(f)?.equals(bytes), f).toBe(true);
      expect([...after.keys()].filter((f) => !f.endsWith(".tmp"))).toEqual([...before.keys()]);
      // The temporary files held the new build: the old files were intact while newer bytes were on disk.
      if (signal === "SIGKILL") {
        const tmp = during.find((f) => f.startsWith(".manifest.json."));
        if (tmp) expect((await readFile(join(out, tmp), "utf8")).includes("gpt-y")).toBe(true);
      }
    });
  }

  it("the next build removes what a killed build left behind and writes the new files", async () => {
    const r = await runBin(["build", "--sources", sources, "--out", out, "--quiet"]);
    expect(r.code).toBe(0);
    expect(await temps(out)).toEqual([]);
    expect(await readFile(join(out, "manifest.json"), "utf8")).toContain("gpt-y");
  });
});

describe("determinism and secrets", () => {
  it("two builds in other working folders, time zones and locales are byte-identical; HF_TOKEN appears nowhere", async () => {
    const a = await mkdtemp(join(tmpdir(), "ptb-det-a-"));
    const b = await mkdtemp(join(tmpdir(), "ptb-det-b-"));
    roots.push(a, b);
    await cp(join(REPO, "sources"), join(a, "sources"), { recursive: true });
    await cp(join(REPO, "sources"), join(b, "sources"), { recursive: true });
    // Each run with its own, cold cache (kept inside its folder, where the token is looked for too).
    const args = ["build", "--sources", "sources", "--out", "out", "--quiet", "--cache-dir", "cache"];
    const ra = await runBin(args, { cwd: a, env: { TZ: "UTC", LANG: "C", LC_ALL: "C", HF_TOKEN } });
    const rb = await runBin(args, {
      cwd: b,
      env: { TZ: "Pacific/Chatham", LANG: "tr_TR.UTF-8", LC_ALL: "de_DE.UTF-8", HF_TOKEN },
    });
    expect([ra.code, rb.code]).toEqual([0, 0]);
    const sa = await snapshot(join(a, "out"));
    const sb = await snapshot(join(b, "out"));
    expect([...sb.keys()]).toEqual([...sa.keys()]);
    for (const [f, bytes] of sa) expect(sb.get(f)!.equals(bytes), f).toBe(true);
    expect(ra.stdout).toBe(rb.stdout);
    // A failing build's message carries no token either.
    await rm(join(b, "sources", "cells.json"));
    const rc = await runBin(args, { cwd: b, env: { HF_TOKEN } });
    expect(rc.code).toBe(1);
    const cached = async (dir: string): Promise<Buffer[]> => {
      const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
      return Promise.all(files.map((e) => readFile(join(e.parentPath, e.name))));
    };
    const written = [
      ...sa.values(),
      ...sb.values(),
      ...(await cached(join(a, "cache"))),
      ...(await cached(join(b, "cache"))),
    ];
    for (const text of [
      ra.stdout,
      ra.stderr,
      rb.stdout,
      rb.stderr,
      rc.stdout,
      rc.stderr,
      ...written.map((x) => x.toString("latin1")),
    ]) {
      expect(text.includes(HF_TOKEN)).toBe(false);
    }
  });
});
