/**
 * The build cache (issue 7): a warm build writes the same bytes as a cold
 * one and as a build without cache; corrupt entries are ignored; a changed
 * input is read again; a cache that cannot be written does not stop a build.
 */
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, runCliWith } from "./helpers/cli.js";
import { FileCache, fingerprint, defaultCacheDir } from "../src/util/file-cache.js";

const REPO = resolve(import.meta.dirname, "..");
const tmp = mkdtempSync(join(tmpdir(), "ptb-cache-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const sources = join(tmp, "sources");
cpSync(join(REPO, "sources"), sources, { recursive: true });
const out = join(tmp, "out");

async function build(...extra: string[]): Promise<Map<string, Buffer>> {
  rmSync(out, { recursive: true, force: true });
  const r = await runCli("build", "--sources", sources, "--out", out, "-q", ...extra);
  expect(r.code, r.stderr).toBe(0);
  return new Map(
    readdirSync(out)
      .sort()
      .map((f) => [f, readFileSync(join(out, f))]),
  );
}

function cacheFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe("build cache", () => {
  const cache = join(tmp, "cache");
  let reference: Map<string, Buffer>;

  it("cold, warm and --no-cache builds write the same bytes", async () => {
    reference = await build("--no-cache");
    const cold = await build("--cache-dir", cache);
    expect(cacheFiles(cache).length).toBeGreaterThan(10);
    const warm = await build("--cache-dir", cache);
    expect([...cold.keys()]).toEqual([...reference.keys()]);
    for (const [f, b] of reference) {
      expect(cold.get(f)!.equals(b), `cold ${f}`).toBe(true);
      expect(warm.get(f)!.equals(b), `warm ${f}`).toBe(true);
    }
  }, 180_000);

  it("ignores corrupt entries (truncated, altered, garbage) and rewrites them", async () => {
    const entries = cacheFiles(cache).sort();
    entries.forEach((p, i) => {
      const text = readFileSync(p, "utf8");
      if (i % 3 === 0) writeFileSync(p, text.slice(0, Math.floor(text.length / 2)));
      else if (i % 3 === 1)
        writeFileSync(
          p,
          text.replace(/[0-9]/, (d) => String((Number(d) + 1) % 10)),
        );
      else writeFileSync(p, "\u0000garbage");
    });
    const again = await build("--cache-dir", cache);
    for (const [f, b] of reference) expect(again.get(f)!.equals(b), f).toBe(true);
    const rewritten = cacheFiles(cache).filter((p) => readFileSync(p, "utf8").startsWith('{"key"'));
    expect(rewritten.length).toBe(entries.length);
  }, 180_000);

  it("reads a changed trajectory again (not the stale entry)", async () => {
    const dir = join(sources, "sol-high", "trajectory");
    const file = cacheFiles(dir).find((p) => p.endsWith(".jsonl"))!;
    const last = readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .filter((l) => l.includes('"token_count"'))
      .pop()!;
    const bumped = last.replace(
      /"total_token_usage":\{"input_tokens":(\d+)/,
      (_m, n) => `"total_token_usage":{"input_tokens":${Number(n) + 1000}`,
    );
    appendFileSync(file, `${bumped.replace(/"timestamp":"[^"]+"/, '"timestamp":"2026-10-02T09:00:00.000Z"')}\n`);
    const fresh = await build("--no-cache");
    const warm = await build("--cache-dir", cache);
    for (const [f, b] of fresh) expect(warm.get(f)!.equals(b), f).toBe(true);
    const calls = (m: Map<string, Buffer>) =>
      JSON.parse(m.get("build-report.json")!.toString()).runs["sol-high"].trajectory_calls as number;
    expect(calls(fresh)).toBe(calls(reference) + 1);
  }, 180_000);

  it.skipIf(process.getuid?.() !== 0)(
    "entries another user wrote are not used (a tampered entry changes nothing) and the terminal says so; skipped when not root: chown needs it",
    async () => {
      const shared = join(tmp, "shared");
      await build("--cache-dir", shared);
      const fresh = await build("--no-cache");
      // Every entry whose body holds a token count gets another one, with a header that checks out.
      const tamper = (uid: number): number => {
        let n = 0;
        for (const p of cacheFiles(shared)) {
          const text = readFileSync(p, "utf8");
          const nl = text.indexOf("\n");
          const body = text.slice(nl + 1).replace(/(driver_tokens_at_hour\\?"?:\s*)(\d+)/g, "$19999999");
          if (body === text.slice(nl + 1)) continue;
          const header = JSON.parse(text.slice(0, nl)) as { key: string };
          const sha256 = createHash("sha256").update(body).digest("hex");
          writeFileSync(p, `${JSON.stringify({ key: header.key, sha256 })}\n${body}`);
          chownSync(p, uid, uid);
          n += 1;
        }
        return n;
      };
      const tampered = tamper(65534);
      expect(tampered).toBeGreaterThan(0);
      rmSync(out, { recursive: true, force: true });
      const r = await runCli("build", "--sources", sources, "--out", out, "-q", "--cache-dir", shared);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        new RegExp(
          `^ptb-manifest: warning CACHE_FOREIGN_ENTRIES at ${shared}: ${tampered} cache entr(y|ies) written by another user not used`,
        ),
      );
      for (const [f, b] of fresh) expect(readFileSync(join(out, f)).equals(b), f).toBe(true);
      // The same entries as this user's would be used: the check is what keeps them out.
      expect(tamper(0)).toBe(tampered);
      const own = await build("--cache-dir", shared);
      expect(own.get("manifest.json")!.toString()).toContain('"driver_tokens_at_hour": 9999999');
    },
    180_000,
  );

  it("a cache folder in the sources is refused before anything is read (every build would write into its inputs)", async () => {
    for (const dir of [sources, join(sources, "hub"), join(sources, "kimi", "pvc", "cache")]) {
      rmSync(out, { recursive: true, force: true });
      const r = await runCli("build", "--sources", sources, "--out", out, "-q", "--cache-dir", dir);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(
          `^ptb-manifest: error CACHE_INSIDE_SOURCES at ${dir}: --cache-dir ${dir} is (the sources folder|inside the sources folder ${sources}): every run would write into its own inputs`,
        ),
      );
      expect(existsSync(out)).toBe(false);
    }
    expect(existsSync(join(sources, "kimi", "pvc", "cache"))).toBe(false);
    // The default folder too ($XDG_CACHE_HOME/ptb-manifest); --no-cache writes none.
    const env = { ...process.env, XDG_CACHE_HOME: sources };
    const xdg = await runCliWith({ env }, "build", "--sources", sources, "--out", out, "-q");
    expect([xdg.code, xdg.stderr.split(" at ")[0]]).toEqual([1, "ptb-manifest: error CACHE_INSIDE_SOURCES"]);
    const none = await runCliWith({ env }, "build", "--sources", sources, "--out", out, "-q", "--no-cache");
    expect(none.code, none.stderr).toBe(0);
    // --strict writes no build cache: its folder may be anywhere. --hub writes its files there even with --no-cache,
    // and snapshot-hub too: refused before the Hub is asked (nothing listens at this URL).
    const strict = await runCli("build", "--sources", sources, "--out", out, "-q", "--strict", "--cache-dir", sources);
    expect(strict.stderr).not.toContain("CACHE_INSIDE_SOURCES");
    const dead = ["--hub-url", "http://127.0.0.1:9", "--cache-dir", join(sources, "hubcache")];
    for (const args of [
      ["build", "--sources", sources, "--out", out, "-q", "--hub", "--no-cache", ...dead],
      ["snapshot-hub", "--sources", sources, "--out", join(tmp, "snap"), "-q", ...dead],
    ]) {
      const r = await runCli(...args);
      expect([r.code, r.stderr.split(":").slice(0, 2).join(":")]).toEqual([
        1,
        `ptb-manifest: error CACHE_INSIDE_SOURCES at ${join(sources, "hubcache")}`,
      ]);
    }
    expect(existsSync(join(sources, "hubcache"))).toBe(false);
  }, 180_000);

  it("a cache folder that cannot be written does not stop the build: it runs without its cache, saying so (CACHE_UNWRITABLE)", async () => {
    const blocked = join(tmp, "blocked");
    writeFileSync(blocked, "a file, not a folder");
    const got = await build("--cache-dir", blocked);
    const fresh = await build("--no-cache");
    for (const [f, b] of fresh) expect(got.get(f)!.equals(b), f).toBe(true);
    // Under /proc Node's recursive mkdir never returned (the build spun for ever): checked before the work now.
    for (const [dir, why] of [
      [blocked, `--cache-dir ${blocked} cannot be created: ${blocked} is a file, not a folder`],
      [
        "/proc/self",
        "--cache-dir /proc/self cannot be written (ENOENT: no such file or directory, mkdtemp '/proc/self/.probe-",
      ],
    ]) {
      rmSync(out, { recursive: true, force: true });
      const r = await runCli("build", "--sources", sources, "--out", out, "-q", "--cache-dir", dir!);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`ptb-manifest: warning CACHE_UNWRITABLE at ${dir}: ${why}`);
      expect(r.stderr).toMatch(/: the build runs without its cache\n/);
    }
    // The Hub's files go through the cache: with --hub such a folder is an error, before the Hub is asked.
    const hub = await runCli(
      "build",
      "--sources",
      sources,
      "--out",
      out,
      "-q",
      "--hub",
      "--hub-url",
      "http://127.0.0.1:9",
      "--cache-dir",
      "/proc/self",
    );
    expect([hub.code, hub.stderr.split(" at ")[0]]).toEqual([1, "ptb-manifest: error OUT_UNWRITABLE"]);
  }, 180_000);
});

describe("FileCache", () => {
  it("keys on size, mtime and the head and tail of the file", async () => {
    const p = join(tmp, "fp.txt");
    writeFileSync(p, "a".repeat(300_000));
    const a = (await fingerprint(p))!;
    writeFileSync(p, `b${"a".repeat(299_999)}`);
    const b = (await fingerprint(p))!;
    expect(b.size).toBe(a.size);
    expect(b.edges).not.toBe(a.edges);
    expect(statSync(p).size).toBe(300_000);
  });

  it("through() computes once, then serves the stored value; disabled, it always computes", async () => {
    const p = join(tmp, "v.txt");
    writeFileSync(p, "x");
    const c = new FileCache(join(tmp, "fc"));
    let n = 0;
    const compute = async () => ({ n: ++n });
    expect(await c.through("k", p, "", compute)).toEqual({ n: 1 });
    expect(await c.through("k", p, "", compute)).toEqual({ n: 1 });
    expect(await c.through("k", p, "other", compute)).toEqual({ n: 2 });
    expect(c.stats.hits).toBe(1);
    const off = new FileCache(null);
    expect(await off.through("k", p, "", compute)).toEqual({ n: 3 });
  });

  it("writes entries no one else may write, and reads none that the group or others may (edited in place, the owner stays)", async () => {
    const p = join(tmp, "g.txt");
    writeFileSync(p, "x");
    const dir = join(tmp, "fc-group");
    const c = new FileCache(dir);
    let n = 0;
    const compute = async () => ({ n: ++n });
    const old = process.umask(0o002);
    try {
      expect(await c.through("k", p, "", compute)).toEqual({ n: 1 });
    } finally {
      process.umask(old);
    }
    const [entry] = cacheFiles(dir);
    expect(statSync(entry!).mode & 0o777).toBe(0o644);
    expect(await c.through("k", p, "", compute)).toEqual({ n: 1 });
    chmodSync(entry!, 0o664);
    expect(await c.through("k", p, "", compute)).toEqual({ n: 2 });
    expect(c.stats.foreign).toBe(1);
  });

  it("defaults to $XDG_CACHE_HOME/ptb-manifest, else ~/.cache/ptb-manifest", () => {
    expect(defaultCacheDir({ XDG_CACHE_HOME: "/x/cache" })).toBe("/x/cache/ptb-manifest");
    expect(defaultCacheDir({ XDG_CACHE_HOME: "relative" })).toMatch(/\.cache\/ptb-manifest$/);
  });
});
