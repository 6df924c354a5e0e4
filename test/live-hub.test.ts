import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { chmod, cp, lstat, mkdir, mkdtemp, readFile, readdir, stat, symlink, writeFile } from "node:fs/promises";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import fg from "fast-glob";
import { downloadFile, fileExists, listModels } from "@huggingface/hub";
import { Diagnostics } from "../src/diagnostics.js";
import { readHubSnapshot, readLiveHub, type HubRepo } from "../src/extractors/hub-files.js";
import { loadCells } from "../src/sources/cells.js";
import type { CellsFile } from "../src/schema.js";
import { hubOptionsFrom, DEFAULT_HUB_URL } from "../src/hub/live-hub.js";
import { assertFollowedNextLink, backoffMs, createHubFetch, parseRetryAfter } from "../src/hub/fetch.js";
import { defaultCacheDir } from "../src/hub/cache.js";
import { runCli } from "./helpers/cli.js";
import { startHubServer, type HubServer } from "./helpers/hub-server.js";
import { removeTree } from "./helpers/tree.js";

const SOURCES = resolve("sources");
const FAST = { baseDelayMs: 1, maxDelayMs: 4 };
let tmp: string;
let server: HubServer;
let registry: CellsFile;
let snapshot: HubRepo[];
/** A small hub folder (the baseline, and the published and spare repos of two cells) for the slower cases. */
let mini: { dir: string; server: HubServer; snapshot: HubRepo[] };
let n = 0;
const freshCache = (): string => join(tmp, `cache-${++n}`);

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "ptb-live-hub-"));
  server = await startHubServer({ hubDir: join(SOURCES, "hub"), pageSize: 50 });
  registry = await loadCells(SOURCES);
  snapshot = await readHubSnapshot(SOURCES, new Diagnostics());
  const dir = join(tmp, "mini");
  for (const owner of ["agentic-ptb", "msr-spare", "Qwen"]) {
    for (const name of await readdir(join(SOURCES, "hub", owner))) {
      if (owner === "Qwen" || /^(opus-max|opus-high-v1)\./.test(name))
        await cp(join(SOURCES, "hub", owner, name), join(dir, "hub", owner, name), { recursive: true });
    }
  }
  mini = {
    dir,
    server: await startHubServer({ hubDir: join(dir, "hub"), pageSize: 10 }),
    snapshot: await readHubSnapshot(dir, new Diagnostics()),
  };
});
afterAll(async () => {
  await server.close();
  await mini.server.close();
  await removeTree(tmp);
});
beforeEach(() => {
  server.reset();
  mini.server.reset();
});

describe("the local Hub speaks the routes the real client uses", () => {
  it("listModels follows the absolute Link pages; downloadFile probes with a Range and reads the body; a missing file is null", async () => {
    const names: string[] = [];
    for await (const m of listModels({ search: { owner: "msr-spare" }, hubUrl: server.url, additionalFields: ["sha"] }))
      names.push(m.name);
    expect(names.length).toBe(snapshot.filter((r) => r.owner === "msr-spare").length);
    expect(server.count("list")).toBe(Math.ceil(names.length / 50));
    const repo = { type: "model" as const, name: "Qwen/Qwen3.5-9B-Base" };
    const blob = await downloadFile({ repo, path: "config.json", hubUrl: server.url });
    expect(await blob!.text()).toBe(await readFile(join(SOURCES, "hub/Qwen/Qwen3.5-9B-Base/config.json"), "utf8"));
    expect(await downloadFile({ repo, path: "chat_template.jinja", hubUrl: server.url })).toBeNull();
    expect(server.log.filter((r) => r.kind === "resolve").map((r) => [r.status, r.errorCode])).toEqual([
      [206, null],
      [200, null],
      [404, "EntryNotFound"],
    ]);
  });

  it("fileExists answers a 5xx with a SyntaxError (DESIGN.md), which is why retries live in the fetch", async () => {
    server.faults = { rate: 1, kinds: ["503"], slowMs: 0, retryAfterS: null, maxConsecutivePerUrl: 1 };
    const repo = { type: "model" as const, name: "Qwen/Qwen3.5-9B-Base" };
    await expect(fileExists({ repo, path: "config.json", hubUrl: server.url })).rejects.toThrow(SyntaxError);
    server.reset();
    server.faults = { rate: 1, kinds: ["503"], slowMs: 0, retryAfterS: null, maxConsecutivePerUrl: 1 };
    expect(
      await fileExists({ repo, path: "config.json", hubUrl: server.url, fetch: createHubFetch({ retry: FAST }) }),
    ).toBe(true);
    expect(server.log.map((r) => r.status)).toEqual([503, 200]);
  });
});

describe("readLiveHub", () => {
  it("gives exactly the HubRepo[] of readHubSnapshot, with the same warnings; a second run makes only listing requests", async () => {
    // The whole sources/hub/ is read live by test/live-build.test.ts and snapshot-hub below; this is the small one.
    const cacheDir = freshCache();
    const diag = new Diagnostics();
    const snapDiag = new Diagnostics();
    expect(await readHubSnapshot(mini.dir, snapDiag)).toEqual(mini.snapshot);
    const live = await readLiveHub(registry, { hubUrl: mini.server.url, cacheDir }, diag);
    expect(live).toEqual(mini.snapshot);
    expect(diag.warnings).toEqual(snapDiag.warnings);
    const cold = { total: mini.server.count(), files: mini.server.count("resolve") };
    expect(cold.files).toBe(2 * (await fg("hub/*/*/*.{json,jinja}", { cwd: mini.dir })).length); // probe + body per small file
    expect(mini.server.log.some((r) => r.url.includes(".safetensors"))).toBe(false); // never weights

    mini.server.reset();
    const warm = await readLiveHub(registry, { hubUrl: mini.server.url, cacheDir }, new Diagnostics());
    expect(warm).toEqual(mini.snapshot);
    expect(mini.server.count("resolve") + mini.server.count("raw") + mini.server.count("tree")).toBe(0);
    expect(mini.server.count()).toBe(mini.server.count("list") + mini.server.count("info"));
    expect(mini.server.count("info")).toBe(1); // the baseline
    expect(mini.server.count()).toBeLessThan(cold.total / 10);
  });

  it("without file names in the listing, asks for each small file and takes 404 EntryNotFound as absent", async () => {
    const bare = await startHubServer({ hubDir: join(mini.dir, "hub"), siblings: false });
    try {
      const live = await readLiveHub(registry, { hubUrl: bare.url, cacheDir: freshCache() }, new Diagnostics());
      expect(live).toEqual(mini.snapshot);
      expect(bare.log.filter((r) => r.errorCode === "EntryNotFound").length).toBeGreaterThan(0);
    } finally {
      await bare.close();
    }
  });

  it("a file the listing names that answers 404 is a HUB_ERROR, never read as absent nor cached so", async () => {
    const repo = mini.snapshot.find((r) => r.owner === "agentic-ptb" && r.eos.from === "generation_config.json")!;
    const lagging = await startHubServer({
      hubDir: join(mini.dir, "hub"),
      unservedFiles: [`${repo.id}:generation_config.json`],
    });
    const cacheDir = freshCache();
    try {
      const err = await readLiveHub(registry, { hubUrl: lagging.url, cacheDir }, new Diagnostics()).catch((e) => e);
      expect(err.code).toBe("HUB_ERROR");
      expect(err.message).toMatch(
        `${repo.id} at commit ${repo.sha}: the listing names generation_config.json, but asking for it answers 404 (not found)`,
      );
    } finally {
      await lagging.close();
    }
    // Nothing of that repo was cached as absent: the Hub that serves the file gives the snapshot's repos.
    expect(await readLiveHub(registry, { hubUrl: mini.server.url, cacheDir }, new Diagnostics())).toEqual(
      mini.snapshot,
    );
  });

  it("a listing whose next page is a relative Link (which the client would not follow) is a HUB_ERROR, not a short listing", async () => {
    const proxy = await startHubServer({ hubDir: join(mini.dir, "hub"), pageSize: 2, relativeLinks: true });
    try {
      const err = await readLiveHub(registry, { hubUrl: proxy.url, cacheDir: freshCache() }, new Diagnostics()).catch(
        (e) => e,
      );
      expect(err.code).toBe("HUB_ERROR");
      expect(err.message).toMatch(
        /^GET .*\/api\/models\?.*: the Hub \(or a proxy at HF_ENDPOINT\) announces the next page of the listing in a Link header the Hub client does not follow \(<\/api\/models\?/,
      );
    } finally {
      await proxy.close();
    }
    // What the client follows passes; every other form of a next page is refused (a review found three more).
    const link = (header: string | null) => () => assertFollowedNextLink(header, "GET", "u");
    expect(link('<https://hub.example/api/models?cursor=x>; rel="next"')).not.toThrow();
    expect(link('<https://hub.example/a?c=1>; rel="prev", <https://hub.example/a?c=3>; rel="next"')).not.toThrow();
    expect(link('</api/models?cursor=x>; rel="prev"')).not.toThrow();
    expect(link(null)).not.toThrow();
    for (const header of [
      '</api/models?cursor=x>; rel="next"',
      '<https://hub.example/api/models?cursor=x>;rel="next"',
      "<https://hub.example/api/models?cursor=x>; rel=next",
      '<https://hub.example/api/models?cursor=x>; rel="next last"',
      '<https://hub.example/api/models?cursor=x>; REL="Next"',
    ])
      expect(link(header), header).toThrow(/in a Link header the Hub client does not follow/);
  });

  it("a repo listed without a commit sha is read at main (and not looked up in the cache)", async () => {
    const dir = join(tmp, "nosha");
    await cp(join(SOURCES, "hub/Qwen"), join(dir, "hub/Qwen"), { recursive: true });
    const repo = "agentic-ptb/opus-max.h010.sft.300";
    const src = (await readdir(join(SOURCES, "hub/agentic-ptb"))).find((r) => r.startsWith("opus-max."))!;
    await cp(join(SOURCES, "hub/agentic-ptb", src), join(dir, "hub", repo), { recursive: true });
    await writeFile(
      join(dir, "hub", repo, ".hub.json"),
      `${JSON.stringify({ id: repo, lastModified: "2026-12-01T00:00:00.000Z" })}\n`,
    );
    const hub = await startHubServer({ hubDir: join(dir, "hub") });
    try {
      const cacheDir = freshCache();
      const want = await readHubSnapshot(dir, new Diagnostics());
      expect(want.find((r) => r.id === repo)!.sha).toBeNull();
      for (let i = 0; i < 2; i++)
        expect(await readLiveHub(registry, { hubUrl: hub.url, cacheDir }, new Diagnostics())).toEqual(want);
      expect(hub.log.filter((r) => r.kind === "resolve" && r.url.includes("/resolve/main/")).length).toBeGreaterThan(0);
    } finally {
      await hub.close();
    }
  });

  it("rides out 429s (Retry-After), 500s, 503s, dropped connections and slow answers", async () => {
    mini.server.faults = {
      rate: 0.25,
      kinds: ["429", "500", "503", "drop", "slow"],
      slowMs: 400,
      retryAfterS: 0,
      maxConsecutivePerUrl: 3,
    };
    const live = await readLiveHub(
      registry,
      { hubUrl: mini.server.url, cacheDir: freshCache(), retry: { ...FAST, timeoutMs: 200 } },
      new Diagnostics(),
    );
    expect(live).toEqual(mini.snapshot);
    const kinds = new Set(mini.server.log.map((r) => r.fault).filter(Boolean));
    expect([...kinds].sort()).toEqual(["429", "500", "503", "drop", "slow"]);
  });

  it("keeps at most --concurrency requests in flight", async () => {
    const slow = await startHubServer({ hubDir: join(mini.dir, "hub"), latencyMs: 2 });
    try {
      const live = await readLiveHub(
        registry,
        { hubUrl: slow.url, cacheDir: freshCache(), concurrency: 3 },
        new Diagnostics(),
      );
      expect(live).toEqual(mini.snapshot);
      expect(slow.maxInFlight).toBeLessThanOrEqual(3);
    } finally {
      await slow.close();
    }
  });

  it("fails fast when the Hub is down, stays 5xx, or asks to wait too long", async () => {
    const closed = await startHubServer({ hubDir: join(SOURCES, "hub") });
    await closed.close();
    await expect(
      readLiveHub(registry, { hubUrl: closed.url, cacheDir: freshCache() }, new Diagnostics()),
    ).rejects.toMatchObject({
      code: "HUB_UNREACHABLE",
      message: expect.stringContaining(`(ECONNREFUSED); is the Hub at ${closed.url} up`),
    });

    server.faults = { rate: 1, kinds: ["503"], slowMs: 0, retryAfterS: 0, maxConsecutivePerUrl: Infinity };
    await expect(
      readLiveHub(registry, { hubUrl: server.url, cacheDir: freshCache(), retry: FAST }, new Diagnostics()),
    ).rejects.toMatchObject({
      code: "HUB_UNAVAILABLE",
      message: expect.stringMatching(/answered 503 .* on each of 5 attempts: giving up$/),
    });
    expect(server.count()).toBeLessThanOrEqual(3 * 5); // two listings and the baseline, 5 attempts each at most

    server.reset();
    server.faults = { rate: 1, kinds: ["429"], slowMs: 0, retryAfterS: 3600, maxConsecutivePerUrl: Infinity };
    await expect(
      readLiveHub(registry, { hubUrl: server.url, cacheDir: freshCache() }, new Diagnostics()),
    ).rejects.toMatchObject({
      code: "HUB_UNAVAILABLE",
      message: expect.stringContaining("asks to retry after 3600 s"),
    });
  });

  it("sends HF_TOKEN as a bearer token; a refused token is HUB_ACCESS_DENIED", async () => {
    const guarded = await startHubServer({ hubDir: join(mini.dir, "hub"), token: "hf_right" });
    try {
      const live = await readLiveHub(
        registry,
        { hubUrl: guarded.url, cacheDir: freshCache(), accessToken: "hf_right" },
        new Diagnostics(),
      );
      expect(live).toEqual(mini.snapshot);
      expect(guarded.log.every((r) => r.authorized)).toBe(true);
      await expect(
        readLiveHub(
          registry,
          { hubUrl: guarded.url, cacheDir: freshCache(), accessToken: "hf_wrong" },
          new Diagnostics(),
        ),
      ).rejects.toMatchObject({
        code: "HUB_ACCESS_DENIED",
        message: expect.not.stringContaining("hf_wrong"),
      });
    } finally {
      await guarded.close();
    }
  });

  it("a baseline missing from the Hub is BASELINE_MISSING", async () => {
    const other = { ...registry, baseline: "Qwen/Not-There" };
    await expect(
      readLiveHub(other, { hubUrl: server.url, cacheDir: freshCache() }, new Diagnostics()),
    ).rejects.toMatchObject({ code: "BASELINE_MISSING" });
  });
});

describe("Hub options and retry rules", () => {
  it("takes --hub-url, else HF_ENDPOINT, else the public Hub; HF_TOKEN must start with hf_ and is never shown", () => {
    expect(hubOptionsFrom({}, { HF_ENDPOINT: "http://mirror.local/" }).hubUrl).toBe("http://mirror.local");
    expect(hubOptionsFrom({ hubUrl: "http://x.local" }, { HF_ENDPOINT: "http://mirror.local" }).hubUrl).toBe(
      "http://x.local",
    );
    expect(hubOptionsFrom({}, {}).hubUrl).toBe(DEFAULT_HUB_URL);
    expect(hubOptionsFrom({}, { HF_TOKEN: "hf_abc" }).accessToken).toBe("hf_abc");
    let message = "";
    try {
      hubOptionsFrom({}, { HF_TOKEN: "sk_leaky_value" });
    } catch (err) {
      message = (err as Error).message;
      expect(err).toMatchObject({ code: "HUB_BAD_TOKEN" });
    }
    expect(message).not.toContain("sk_leaky_value");
    // A URL with credentials is refused at once, and no password is shown, parsable or not (found by a new user).
    const badUrl = (hubUrl: string) => {
      try {
        hubOptionsFrom({ hubUrl }, {});
      } catch (err) {
        return [(err as { code: string }).code, (err as Error).message];
      }
      return null;
    };
    expect(badUrl("http://me:hf_secret@127.0.0.1:8080")).toEqual([
      "HUB_BAD_URL",
      "the Hub URL carries a user name or password (http://127.0.0.1:8080/), which requests cannot send: give the token with HF_TOKEN",
    ]);
    expect(badUrl("http://me:hf_secret@[bad")).toEqual([
      "HUB_BAD_URL",
      'not a URL: "http://***@[bad" (--hub-url or HF_ENDPOINT)',
    ]);
    expect(defaultCacheDir({ XDG_CACHE_HOME: "/xdg" })).toBe("/xdg/ptb-manifest");
    expect(defaultCacheDir({ XDG_CACHE_HOME: "relative" })).toMatch(/\/\.cache\/ptb-manifest$/);
  });

  it("reads Retry-After as seconds or an HTTP date; backs off exponentially with a deterministic jitter", () => {
    expect(parseRetryAfter("3")).toBe(3000);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter("soon")).toBeNull();
    expect(parseRetryAfter(new Date(Date.now() - 10_000).toUTCString())).toBe(0);
    const p = { baseDelayMs: 500, maxDelayMs: 8000 };
    const d = [1, 2, 3, 4, 5, 6].map((a) => backoffMs(p, "http://h/x", a));
    expect(d).toEqual([1, 2, 3, 4, 5, 6].map((a) => backoffMs(p, "http://h/x", a)));
    d.forEach((ms, i) => {
      const raw = Math.min(8000, 500 * 2 ** i);
      expect(ms).toBeGreaterThanOrEqual(raw * 0.75);
      expect(ms).toBeLessThanOrEqual(raw * 1.25);
    });
  });

  it("does not resend a POST that got a 5xx (it may have been applied), but does after a 429", async () => {
    server.faults = { rate: 1, kinds: ["500"], slowMs: 0, retryAfterS: null, maxConsecutivePerUrl: 1 };
    const f = createHubFetch({ retry: FAST });
    expect((await f(`${server.url}/api/nothing`, { method: "POST", body: "{}" })).status).toBe(500);
    server.reset();
    server.faults = { rate: 1, kinds: ["429"], slowMs: 0, retryAfterS: 0, maxConsecutivePerUrl: 1 };
    expect((await f(`${server.url}/api/nothing`, { method: "POST", body: "{}" })).status).toBe(404);
    expect(server.log.map((r) => r.status)).toEqual([429, 404]);
  });
});

describe("snapshot-hub", () => {
  it("writes the hub/ layout of SOURCES.md byte for byte from the Hub, and the build reads it back the same", async () => {
    const out = join(tmp, "snap", "hub");
    const cacheDir = freshCache();
    const r = await runCli(
      "snapshot-hub",
      "--out",
      out,
      "--sources",
      SOURCES,
      "--hub-url",
      server.url,
      "--cache-dir",
      cacheDir,
      "-q",
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const want = (await fg("**/*", { cwd: join(SOURCES, "hub"), dot: true })).sort();
    const got = (await fg("**/*", { cwd: out, dot: true })).sort();
    // Beside the snapshot: the marker recording every file written, with its sha256.
    expect(got).toEqual([".ptb-manifest-outputs.json", ...want]);
    const marker = JSON.parse(await readFile(join(out, ".ptb-manifest-outputs.json"), "utf8"));
    expect(Object.keys(marker.files)).toEqual(want);
    for (const f of want)
      expect((await readFile(join(out, f))).equals(await readFile(join(SOURCES, "hub", f))), f).toBe(true);
    expect(r.stdout).toBe(`wrote ${out}: ${snapshot.length} repos, ${want.length} files\n`);
    expect(await readHubSnapshot(join(tmp, "snap"), new Diagnostics())).toEqual(snapshot);

    // Again, warm: only listings; the folder it wrote is replaced whole (an empty folder in it goes too).
    server.reset();
    await mkdir(join(out, "gone", "repo"), { recursive: true });
    const again = await runCli(
      "snapshot-hub",
      "--out",
      out,
      "--sources",
      SOURCES,
      "--hub-url",
      server.url,
      "--cache-dir",
      cacheDir,
      "-q",
    );
    expect(again.code).toBe(0);
    expect(server.count("resolve")).toBe(0);
    expect((await fg("**/*", { cwd: out, dot: true })).sort()).toEqual([".ptb-manifest-outputs.json", ...want]);

    // A file it did not write, and one edited since, stop it: nothing replaced, the Hub not asked.
    server.reset();
    const config = join(out, "agentic-ptb", "kimi.h029.sft-mix.2400", "config.json");
    const stale = join(out, "agentic-ptb", "kimi.h029.sft-mix.2400", "stale.json");
    await writeFile(stale, "{}");
    await writeFile(config, '{"eos_token_id": 7}\n');
    const refused = await runCli(
      "snapshot-hub",
      "--out",
      out,
      "--sources",
      SOURCES,
      "--hub-url",
      server.url,
      "--cache-dir",
      cacheDir,
      "-q",
    );
    expect({ code: refused.code, stdout: refused.stdout, stderr: refused.stderr }).toEqual({
      code: 1,
      stdout: "",
      stderr:
        `ptb-manifest: error OUT_FOREIGN_FILE at ${out}/agentic-ptb/kimi.h029.sft-mix.2400/config.json: --out ${out} holds 2 files that an output would replace but ptb-manifest did not write there: ` +
        "agentic-ptb/kimi.h029.sft-mix.2400/config.json (changed since ptb-manifest wrote it), agentic-ptb/kimi.h029.sft-mix.2400/stale.json (not written by ptb-manifest); nothing written (use another folder, move them away, or pass --force to replace them)\n",
    });
    expect(server.count()).toBe(0);
    expect(await readFile(stale, "utf8")).toBe("{}");
    expect(await readFile(config, "utf8")).toBe('{"eos_token_id": 7}\n');
    // --force replaces them.
    const forced = await runCli(
      "snapshot-hub",
      "--out",
      out,
      "--sources",
      SOURCES,
      "--hub-url",
      server.url,
      "--cache-dir",
      cacheDir,
      "-q",
      "--force",
    );
    expect(forced.code).toBe(0);
    expect((await fg("**/*", { cwd: out, dot: true })).sort()).toEqual([".ptb-manifest-outputs.json", ...want]);
    expect(
      (await readFile(config)).equals(
        await readFile(join(SOURCES, "hub", "agentic-ptb", "kimi.h029.sft-mix.2400", "config.json")),
      ),
    ).toBe(true);
  });

  it("a snapshot without a marker (an earlier version's) is foreign: the message says to rerun once with --force; nor does --force let --out hold the cells.json read", async () => {
    const out = join(tmp, "legacy", "hub");
    await cp(join(SOURCES, "hub"), out, { recursive: true });
    const files = (await fg("**/*", { cwd: out, dot: true })).length;
    const refused = await runCli(
      "snapshot-hub",
      "--out",
      out,
      "--sources",
      SOURCES,
      "--hub-url",
      server.url,
      "--cache-dir",
      freshCache(),
      "-q",
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^ptb-manifest: error OUT_FOREIGN_FILE at ${out}/.*: --out ${out} holds ${files} files that an output would replace but ptb-manifest did not write there: .* and ${files - 5} more; nothing written; `,
      ),
    );
    expect(
      refused.stderr.endsWith(
        `; ${out} looks like the output folder of an earlier ptb-manifest version, which did not record which command wrote its files: if they are that version's outputs, rerun once with --force (then they are recorded), else use another folder or move them away\n`,
      ),
    ).toBe(true);
    expect(
      (
        await runCli(
          "snapshot-hub",
          "--out",
          out,
          "--sources",
          SOURCES,
          "--hub-url",
          server.url,
          "--cache-dir",
          freshCache(),
          "-q",
          "--force",
        )
      ).code,
    ).toBe(0);
    const ok = await runCli(
      "snapshot-hub",
      "--out",
      out,
      "--sources",
      SOURCES,
      "--hub-url",
      server.url,
      "--cache-dir",
      freshCache(),
      "-q",
    );
    expect({ code: ok.code, stderr: ok.stderr }).toEqual({ code: 0, stderr: "" });
    // A file that is no part of the layout: no such hint.
    const legacy = join(tmp, "legacy2", "hub");
    await cp(join(SOURCES, "hub"), legacy, { recursive: true });
    await writeFile(join(legacy, "NOTES.md"), "mine\n");
    server.reset();
    const mine = await runCli(
      "snapshot-hub",
      "--out",
      legacy,
      "--sources",
      SOURCES,
      "--hub-url",
      server.url,
      "--cache-dir",
      freshCache(),
      "-q",
    );
    expect(mine.code).toBe(1);
    expect(mine.stderr).toMatch(
      /nothing written \(use another folder, move them away, or pass --force to replace them\)\n$/,
    );
    expect(server.count()).toBe(0);
    expect(await readFile(join(legacy, "NOTES.md"), "utf8")).toBe("mine\n");
    // --out the sources folder itself: it holds the cells.json this run reads (OUT_IS_INPUT, even with --force).
    const sources = join(tmp, "src-copy");
    await mkdir(sources);
    await cp(join(SOURCES, "cells.json"), join(sources, "cells.json"));
    const own = await runCli(
      "snapshot-hub",
      "--out",
      sources,
      "--sources",
      sources,
      "--hub-url",
      server.url,
      "--cache-dir",
      freshCache(),
      "-q",
      "--force",
    );
    expect(own).toEqual({
      code: 1,
      stdout: "",
      stderr: `ptb-manifest: error OUT_IS_INPUT at ${sources}: --out ${sources} holds ${sources}/cells.json (of --sources), which this run reads: an output never replaces an input, not even with --force; nothing written (write it elsewhere)\n`,
    });
    expect(server.count()).toBe(0);
    expect(await readFile(join(sources, "cells.json"), "utf8")).toBe(
      await readFile(join(SOURCES, "cells.json"), "utf8"),
    );
  });

  it("a file put in --out while the Hub is read is kept, and refused; the folder keeps its mode; a link to a folder is written through", async () => {
    const real = join(tmp, "snap-kept", "real");
    const link = join(tmp, "snap-kept", "hub");
    await mkdir(real, { recursive: true });
    await chmod(real, 0o755);
    await symlink("real", link);
    const args = ["snapshot-hub", "--out", link, "--sources", SOURCES, "--hub-url", server.url, "-q"];
    const first = await runCli(...args, "--cache-dir", freshCache());
    expect([first.code, first.stderr]).toEqual([0, ""]);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect((await stat(real)).mode & 0o777).toBe(0o755);
    expect((await readdir(real)).length).toBeGreaterThan(1);
    // A note of the user's, written into the folder while the second snapshot reads the Hub.
    server.onRequest = () => {
      server.onRequest = null;
      writeFileSync(join(real, "MYNOTES.txt"), "my notes");
    };
    const second = await runCli(...args, "--cache-dir", freshCache());
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      new RegExp(`^ptb-manifest: error OUT_FOREIGN_FILE at ${real}/MYNOTES.txt: --out ${real} holds a file`),
    );
    expect(await readFile(join(real, "MYNOTES.txt"), "utf8")).toBe("my notes");
    expect((await readdir(join(tmp, "snap-kept"))).sort()).toEqual(["hub", "real"]);
    // A new folder gets the umask's mode (not mkdtemp's 0700, which other users' builds cannot read).
    const fresh = join(tmp, "snap-kept", "fresh");
    const third = await runCli(
      "snapshot-hub",
      "--out",
      fresh,
      "--sources",
      SOURCES,
      "--hub-url",
      server.url,
      "-q",
      "--cache-dir",
      freshCache(),
    );
    expect(third.code).toBe(0);
    expect((await stat(fresh)).mode & 0o777).toBe(0o777 & ~process.umask());
  });

  it("refuses to replace a folder that is not a hub snapshot", async () => {
    const notHub = join(tmp, "not-hub");
    await mkdir(notHub, { recursive: true });
    await writeFile(join(notHub, "cells.json"), "{}");
    const r = await runCli(
      "snapshot-hub",
      "--out",
      notHub,
      "--sources",
      SOURCES,
      "--hub-url",
      server.url,
      "--cache-dir",
      freshCache(),
      "-q",
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `ptb-manifest: error OUT_FOREIGN_FILE at ${notHub}/cells.json: --out ${notHub} holds a file that an output would replace but ptb-manifest did not write there: cells.json (not written by ptb-manifest); nothing written (use another folder, move it away, or pass --force to replace it)\n`,
    );
    expect(await readFile(join(notHub, "cells.json"), "utf8")).toBe("{}");
    expect(server.count()).toBe(0);
  });
});
