import { describe, expect, it, beforeAll, afterAll, afterEach } from "vitest";
import { cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { OUT_MARKER, sha256Of } from "../src/util/out-owner.js";
import { join } from "node:path";
import { makeMiniSweep } from "./helpers/mini-sweep.js";
import { removeTree } from "./helpers/tree.js";
import { runCli } from "./helpers/cli.js";
import { startHubServer, type HubServer } from "./helpers/hub-server.js";
import { orderRenames } from "../src/publish/publish.js";
import { eosRepos } from "../src/resolve/rename-plan.js";
import { describeRelease, readReleaseState } from "../src/publish/build-outputs.js";

const TOKEN = "hf_publishTestToken000000000000000";
const hubJson = (id: string) =>
  JSON.stringify({
    id,
    sha: "1".repeat(40),
    lastModified: "2026-11-01T00:00:00.000Z",
    createdAt: "2026-11-01T00:00:00.000Z",
  });
const TOKEN_VARS = ["HF_TOKEN", "HF_TOKEN_PATH", "HF_HOME"] as const;
/** The mini sweep's build: not --strict, 9 warnings. */
const GATE =
  "not a release build (built without --strict; 9 warnings: HUB_NO_EOS 2, CHECKPOINT_LOST 1, HUB_DUPLICATE_REPO 1, JANITOR_UNPARSED_LINE 1, PVC_CUT_LINE 1, PVC_MTIME_AFTER_RUN_END 1, SUPERVISOR_NO_SUBMIT 1, TRAJECTORY_NO_FILES 1)";
const INDEX = "agentic-ptb/checkpoint-index";

describe("publish against the local Hub", () => {
  let dir: string;
  let out: string;
  let hub: HubServer;
  const saved: Record<string, string | undefined> = {};
  /** Sets the token variables for one case (the others unset: no token file of this machine is read). */
  const tokenEnv = (vars: Partial<Record<(typeof TOKEN_VARS)[number], string>>): void => {
    for (const k of TOKEN_VARS) delete process.env[k];
    process.env.HF_TOKEN_PATH = join(dir, "no-such-token-file");
    Object.assign(process.env, vars);
  };
  const posts = (h: HubServer) => h.log.filter((r) => r.method === "POST");
  beforeAll(async () => {
    // Two more stale ids, and a second repo of one checkpoint (alpha sft2 step 100 is at h005).
    dir = await makeMiniSweep({
      "hub/agentic-ptb/alpha.hNA.grpo.1/.hub.json": hubJson("agentic-ptb/alpha.hNA.grpo.1"),
      "hub/agentic-ptb/alpha.h031.grpo.2/.hub.json": hubJson("agentic-ptb/alpha.h031.grpo.2"),
      "hub/agentic-ptb/alpha.h006.sft2.100/.hub.json": hubJson("agentic-ptb/alpha.h006.sft2.100"),
    });
    out = `${dir}-out`;
    expect((await runCli("build", "--sources", dir, "--out", out, "--quiet")).code).toBe(0);
    hub = await startHubServer({ hubDir: join(dir, "hub"), token: TOKEN });
    for (const k of TOKEN_VARS) saved[k] = process.env[k];
  });
  afterEach(() => tokenEnv({ HF_TOKEN: TOKEN }));
  afterAll(async () => {
    for (const k of TOKEN_VARS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    await hub.close();
    await removeTree(dir);
    await removeTree(out);
  });

  it("plans exactly, changes nothing without --yes, applies with --yes, stops at a failure, continues, then does nothing", async () => {
    tokenEnv({ HF_TOKEN: TOKEN });
    const plan1 = await runCli("publish", "--out", out, "--hub-url", hub.url, "--json");
    expect(plan1.code).toBe(0);
    const { plan } = JSON.parse(plan1.stdout);
    const bytes = async (f: string) => (await readFile(join(out, f))).length;
    expect(plan).toMatchObject({
      repo: INDEX,
      createRepo: true,
      parentCommit: null,
      release: { strict: false, warnings: 9, ok: false },
      files: [
        { path: "README.md", bytes: await bytes("README.md"), status: "new" },
        { path: "manifest.json", bytes: await bytes("manifest.json"), status: "new" },
        { path: "manifest.csv", bytes: await bytes("manifest.csv"), status: "new" },
      ],
      renames: [
        { from: "agentic-ptb/alpha.h010.sft2.300", to: "agentic-ptb/alpha.h017.sft2.300" },
        { from: "agentic-ptb/alpha.h031.grpo.2", to: "agentic-ptb/alpha.h032.grpo.2" },
        { from: "agentic-ptb/alpha.hNA.grpo.1", to: "agentic-ptb/alpha.h030.grpo.1" },
      ],
      conflicts: [{ from: "agentic-ptb/alpha.h006.sft2.100", to: "agentic-ptb/alpha.h005.sft2.100" }],
    });
    expect(posts(hub)).toEqual([]);
    expect(hub.log.every((r) => r.authorized)).toBe(true);

    // --yes, with the second rename failing: one commit of the three files, the first rename, a report.
    hub.failMoves.add("agentic-ptb/alpha.h031.grpo.2");
    const run1 = await runCli("publish", "--out", out, "--hub-url", hub.url, "--yes", "--allow-warnings", "--json");
    expect(run1.code).toBe(1);
    expect(run1.stderr).toContain(
      "error HUB_UNAVAILABLE: publish stopped at rename agentic-ptb/alpha.h031.grpo.2 → agentic-ptb/alpha.h032.grpo.2: the Hub answered 500",
    );
    expect(run1.stderr).toContain("2 rename(s) remain; run publish again to continue");
    const o1 = JSON.parse(run1.stdout);
    expect(o1.failed).toMatchObject({
      step: "rename agentic-ptb/alpha.h031.grpo.2 → agentic-ptb/alpha.h032.grpo.2",
      code: "HUB_UNAVAILABLE",
    });
    expect(o1.renamed).toEqual([{ from: "agentic-ptb/alpha.h010.sft2.300", to: "agentic-ptb/alpha.h017.sft2.300" }]);
    expect(o1.remaining.map((r: { from: string }) => r.from)).toEqual([
      "agentic-ptb/alpha.h031.grpo.2",
      "agentic-ptb/alpha.hNA.grpo.1",
    ]);
    // The new repo's first commit is the upload's parent.
    expect(hub.commits).toEqual([
      {
        repo: INDEX,
        title: "ptb-manifest: update README.md, manifest.json, manifest.csv",
        files: ["README.md", "manifest.json", "manifest.csv"],
        parentCommit: expect.stringMatching(/^[0-9a-f]{40}$/),
      },
    ]);
    expect(hub.datasets.get(INDEX)!.get("manifest.csv")).toEqual(await readFile(join(out, "manifest.csv")));

    // A re-run finishes the renames (no new commit); the second repo of one checkpoint is left to settle by hand: exit 2.
    hub.failMoves.clear();
    const run2 = await runCli("publish", "--out", out, "--hub-url", hub.url, "--yes", "--allow-warnings", "--json");
    expect(run2.code).toBe(2);
    expect(run2.stderr).toBe(
      "ptb-manifest: error PUBLISH_CONFLICTS_LEFT: 1 rename(s) not done, to settle by hand:\n  agentic-ptb/alpha.h006.sft2.100 → agentic-ptb/alpha.h005.sft2.100: agentic-ptb/alpha.h005.sft2.100 already exists: a second repo of the same checkpoint (compare and delete one by hand)\n",
    );
    const o2 = JSON.parse(run2.stdout);
    expect([
      o2.committed,
      o2.renamed.length,
      o2.plan.files.map((f: { status: string }) => f.status),
      o2.plan.parentCommit,
    ]).toEqual([null, 2, ["same", "same", "same"], hub.datasetHeads.get(INDEX)]);
    expect(hub.commits).toHaveLength(1);
    expect(hub.modelIds().filter((id) => id.startsWith("agentic-ptb/alpha."))).toEqual([
      "agentic-ptb/alpha.h005.sft2.100",
      "agentic-ptb/alpha.h006.sft2.100",
      "agentic-ptb/alpha.h012.sft2.200",
      "agentic-ptb/alpha.h017.sft2.300",
      "agentic-ptb/alpha.h030.grpo.1",
      "agentic-ptb/alpha.h032.grpo.2",
      "agentic-ptb/alpha.hNA.sft3.20",
    ]);

    // A third run changes nothing (only reads), and still says the conflict is left: exit 2.
    hub.reset();
    const run3 = await runCli("publish", "--out", out, "--hub-url", hub.url, "--yes", "--allow-warnings");
    expect(run3.code).toBe(2);
    expect(run3.stdout).toContain(`build: ${GATE} (published anyway: --allow-warnings)\n`);
    expect(run3.stdout).toContain("committed: nothing (files unchanged)\nrenamed: 0 of 0");
    expect(run3.stderr).toContain("error PUBLISH_CONFLICTS_LEFT: 1 rename(s) not done");
    expect(hub.log.filter((r) => r.method !== "GET" && r.method !== "HEAD")).toEqual([]);
    expect(run3.stdout + run3.stderr).not.toContain(TOKEN);
  });

  it("release gate: --yes refuses a build without --strict or with warnings (PUBLISH_NOT_RELEASE, nothing asked of the Hub); the plan marks it", async () => {
    tokenEnv({ HF_TOKEN: TOKEN });
    const h = await startHubServer({ hubDir: join(dir, "hub"), token: TOKEN });
    try {
      const r = await runCli("publish", "--out", out, "--hub-url", h.url, "--yes");
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `ptb-manifest: error PUBLISH_NOT_RELEASE at ${join(out, "build-report.json")}: the build in ${out} is ${GATE}: nothing was done. Rebuild with build --strict and fix or accept each warning (README: Warnings and errors), or pass --allow-warnings to publish it anyway\n`,
      );
      expect(h.log).toEqual([]);
      const p = await runCli("publish", "--out", out, "--hub-url", h.url);
      expect(p.code).toBe(0);
      expect(p.stdout).toContain(`\nbuild: ${GATE}; publish --yes refuses it without --allow-warnings\n`);
      expect(
        p.stdout.endsWith(
          "\nnot a release build: rebuild with build --strict, or run again with --yes --allow-warnings to apply\n",
        ),
      ).toBe(true);
      expect(posts(h)).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it("release gate: a --strict build without warnings is published without --allow-warnings, exit 0; one with warnings is not", async () => {
    tokenEnv({ HF_TOKEN: TOKEN });
    // A --strict build writes nothing when it has warnings: its report records strict and none. The mini sweep has
    // warnings, so its report is rewritten as a strict build would have written it.
    const strictOut = `${dir}-strict`;
    const hubDir = `${dir}-hub-noconflict`;
    await cp(out, strictOut, { recursive: true });
    await cp(join(dir, "hub"), hubDir, { recursive: true });
    await rm(join(hubDir, "agentic-ptb", "alpha.h006.sft2.100"), { recursive: true });
    const report = JSON.parse(await readFile(join(strictOut, "build-report.json"), "utf8"));
    // An edited report is refused (PUBLISH_FILE_CHANGED) unless the output marker records it, as a build would have.
    const asBuilt = async (text: string) => {
      await writeFile(join(strictOut, "build-report.json"), text);
      const marker = JSON.parse(await readFile(join(strictOut, OUT_MARKER), "utf8"));
      marker.files["build-report.json"].sha256 = sha256Of(text);
      await writeFile(join(strictOut, OUT_MARKER), JSON.stringify(marker));
    };
    await writeFile(
      join(strictOut, "build-report.json"),
      JSON.stringify({ ...report, arguments: { ...report.arguments, strict: true }, warning_counts: {}, warnings: [] }),
    );
    const h0 = await startHubServer({ hubDir, token: TOKEN });
    try {
      const edited = await runCli("publish", "--out", strictOut, "--hub-url", h0.url, "--yes");
      expect([edited.code, edited.stderr]).toEqual([
        1,
        `ptb-manifest: error PUBLISH_FILE_CHANGED at ${join(strictOut, "build-report.json")}: build-report.json in ${strictOut} is not as ptb-manifest build wrote it (edited since): only a build's own files are published; run ptb-manifest build again\n`,
      ]);
      expect(h0.commits).toHaveLength(0);
    } finally {
      await h0.close();
    }
    await asBuilt(
      JSON.stringify({ ...report, arguments: { ...report.arguments, strict: true }, warning_counts: {}, warnings: [] }),
    );
    const h = await startHubServer({ hubDir, token: TOKEN });
    try {
      expect(await readReleaseState(strictOut)).toEqual({ strict: true, warnings: 0, counts: [], ok: true });
      const r = await runCli("publish", "--out", strictOut, "--hub-url", h.url, "--yes");
      expect([r.code, r.stderr]).toEqual([0, ""]);
      expect(r.stdout).toContain("build: a release build (--strict, no warnings)\n");
      expect(r.stdout).toContain("renamed: 3 of 3\n");
      expect(h.commits).toHaveLength(1);

      // --strict recorded, but warnings too (a report edited or written otherwise): still refused.
      await asBuilt(JSON.stringify({ ...report, arguments: { ...report.arguments, strict: true } }));
      const w = await runCli("publish", "--out", strictOut, "--hub-url", h.url, "--yes");
      expect(w.code).toBe(1);
      expect(w.stderr).toContain("error PUBLISH_NOT_RELEASE");
      expect(w.stderr).toContain("is not a release build (9 warnings: HUB_NO_EOS 2, CHECKPOINT_LOST 1,");
      // No build report: no build.
      await rm(join(strictOut, "build-report.json"));
      const n = await runCli("publish", "--out", strictOut, "--hub-url", h.url, "--yes");
      expect([n.code, n.stderr]).toEqual([1, expect.stringContaining("error PUBLISH_NO_BUILD at")]);
    } finally {
      await h.close();
      await removeTree(strictOut);
      await removeTree(hubDir);
    }
  });

  it("a manifest that is not the build's (not JSON, not rows) is PUBLISH_NO_BUILD; one without checkpoint rows needs --repo, exit 1, nothing asked of the Hub", async () => {
    const broken = `${dir}-broken`;
    await cp(out, broken, { recursive: true });
    try {
      for (const text of ["{", "{}", "[{}]"]) {
        await writeFile(join(broken, "manifest.json"), text);
        const r = await runCli(
          "publish",
          "--out",
          broken,
          "--hub-url",
          "http://127.0.0.1:9",
          "--yes",
          "--allow-warnings",
        );
        // Named at its line by the one manifest reader (src/manifest/read.ts).
        expect([r.code, r.stderr]).toEqual([
          1,
          expect.stringContaining(
            `error PUBLISH_NO_BUILD at ${join(broken, "manifest.json")}:1: no valid manifest in ${broken}`,
          ),
        ]);
      }
      // Only the baseline row: the org is not guessed.
      const rows = JSON.parse(await readFile(join(out, "manifest.json"), "utf8")) as { cell: string }[];
      await writeFile(join(broken, "manifest.json"), JSON.stringify(rows.filter((r) => r.cell === "BASELINE")));
      const b = await runCli("publish", "--out", broken, "--hub-url", "http://127.0.0.1:9");
      expect([b.code, b.stderr]).toEqual([1, expect.stringContaining("error PUBLISH_BAD_REPO: the manifest in")]);
    } finally {
      await removeTree(broken);
    }
  });

  it("--yes without a token against a Hub that needs one: PUBLISH_NO_TOKEN before any request; the plan without one: HUB_ACCESS_DENIED", async () => {
    tokenEnv({});
    const h = await startHubServer({ hubDir: join(dir, "hub"), token: TOKEN });
    try {
      const r = await runCli("publish", "--out", out, "--hub-url", h.url, "--yes", "--allow-warnings");
      expect([r.code, r.stderr]).toEqual([
        1,
        expect.stringContaining(
          "error PUBLISH_NO_TOKEN: publishing writes to the Hub and no token is set: set HF_TOKEN",
        ),
      ]);
      expect(h.log).toEqual([]);
      const p = await runCli("publish", "--out", out, "--hub-url", h.url);
      expect(p.code).toBe(1);
      expect(p.stderr).toMatch(
        /^ptb-manifest: error HUB_ACCESS_DENIED: the Hub answered 401 to http:\/\/127\.0\.0\.1:\d+\/api\/datasets\/agentic-ptb\/checkpoint-index\/revision\/main \(Invalid credentials in Authorization header\): no token is set: set HF_TOKEN/,
      );
      expect(p.stdout).toBe("");
    } finally {
      await h.close();
    }
  });

  it("a rejected token (401) is HUB_ACCESS_DENIED, never read as a missing repo, and the token is not shown", async () => {
    tokenEnv({ HF_TOKEN: "hf_wrongWrongWrong" });
    const h = await startHubServer({ hubDir: join(dir, "hub"), token: TOKEN });
    try {
      for (const yes of [[], ["--yes", "--allow-warnings"]]) {
        h.reset();
        const r = await runCli("publish", "--out", out, "--hub-url", h.url, ...yes);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain("error HUB_ACCESS_DENIED: the Hub answered 401 to ");
        expect(r.stderr).toContain(
          "/api/datasets/agentic-ptb/checkpoint-index/revision/main (Invalid credentials in Authorization header): the token from HF_TOKEN was rejected",
        );
        expect(r.stdout).not.toContain("to be created");
        expect(r.stdout + r.stderr).not.toContain("hf_wrongWrongWrong");
        expect(h.log.map((x) => [x.kind, x.status])).toEqual([["dataset", 401]]);
      }
    } finally {
      await h.close();
    }
  });

  it("without a token, a repo the Hub hides (401 RepoNotFound) is planned as to be created, saying it may be private", async () => {
    tokenEnv({});
    const open = await startHubServer({ hubDir: join(dir, "hub") });
    try {
      const r = await runCli("publish", "--out", out, "--hub-url", open.url);
      expect(r.code).toBe(0);
      expect(r.stdout.split("\n")[0]).toBe(
        `publish to dataset ${INDEX} (not visible without a token: to be created, unless it is private)`,
      );
    } finally {
      await open.close();
    }
  });

  it("reads the token from HF_TOKEN_PATH, else $HF_HOME/token, trimmed; an unreadable or malformed token file is a coded error naming it", async () => {
    const tokDir = join(dir, "tokens");
    await mkdir(join(tokDir, "hfhome"), { recursive: true });
    await writeFile(join(tokDir, "token-file"), `  ${TOKEN}\n`);
    await writeFile(join(tokDir, "hfhome", "token"), `${TOKEN}\r\n`);
    await writeFile(join(tokDir, "bad-token"), "sk_notAHubToken\n");
    const h = await startHubServer({ hubDir: join(dir, "hub"), token: TOKEN });
    try {
      tokenEnv({ HF_TOKEN_PATH: join(tokDir, "token-file") });
      const a = await runCli("publish", "--out", out, "--hub-url", h.url, "--json");
      expect(a.code).toBe(0);
      expect(h.log.length).toBeGreaterThan(0);
      expect(h.log.every((r) => r.authorized)).toBe(true);

      h.reset();
      tokenEnv({ HF_HOME: join(tokDir, "hfhome") });
      delete process.env.HF_TOKEN_PATH;
      const b = await runCli("publish", "--out", out, "--hub-url", h.url, "--json");
      expect(b.code).toBe(0);
      expect(h.log.every((r) => r.authorized)).toBe(true);

      h.reset();
      tokenEnv({ HF_TOKEN_PATH: tokDir }); // a folder: cannot be read as a file
      const c = await runCli("publish", "--out", out, "--hub-url", h.url);
      expect(c.code).toBe(1);
      expect(c.stderr).toBe(
        `ptb-manifest: error HUB_TOKEN_UNREADABLE at ${tokDir}: the Hub token file ${tokDir} cannot be read (it is a folder, not a file (EISDIR)): fix its permissions, or set HF_TOKEN or HF_TOKEN_PATH\n`,
      );

      tokenEnv({ HF_TOKEN_PATH: join(tokDir, "bad-token") });
      const d = await runCli("publish", "--out", out, "--hub-url", h.url);
      expect(d.code).toBe(1);
      expect(d.stderr).toBe(
        `ptb-manifest: error HUB_BAD_TOKEN: the Hub token from the token file ${join(tokDir, "bad-token")} does not start with hf_ (its value is not shown)\n`,
      );
      expect(h.log).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it("an unreachable Hub (a closed port, an unknown host name) is HUB_UNREACHABLE, exit 1", async () => {
    tokenEnv({ HF_TOKEN: TOKEN });
    const closed = await startHubServer({ hubDir: join(dir, "hub") });
    await closed.close();
    for (const url of [closed.url, "http://nonexistent.invalid"]) {
      for (const yes of [[], ["--yes", "--allow-warnings"]]) {
        const r = await runCli("publish", "--out", out, "--hub-url", url, ...yes);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(
          new RegExp(
            `^ptb-manifest: error HUB_UNREACHABLE: cannot reach the Hub: GET ${url.replace(/\./g, "\\.")}/api/datasets/agentic-ptb/checkpoint-index/revision/main failed \\((ECONNREFUSED|ENOTFOUND)\\)`,
          ),
        );
      }
    }
  });

  it("a change on the Hub between plan and upload stops the publish (PUBLISH_HUB_CHANGED), overwriting nothing", async () => {
    tokenEnv({ HF_TOKEN: TOKEN });
    const h = await startHubServer({ hubDir: join(dir, "hub"), token: TOKEN });
    try {
      const first = h.pushCommit(INDEX, { "README.md": "someone else's card\n" });
      // Another client commits while this publish uploads: the Hub refuses its commit (412), the other one stays.
      h.onRequest = (r) => {
        if (r.kind === "preupload") {
          h.onRequest = null;
          h.pushCommit(INDEX, { "README.md": "a newer card\n" });
        }
      };
      const r = await runCli("publish", "--out", out, "--hub-url", h.url, "--yes", "--allow-warnings", "--json");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `error PUBLISH_HUB_CHANGED: publish stopped at upload to ${INDEX}: ${INDEX} has changed on the Hub since the plan (its main is no longer at ${first}; the Hub answered 412)`,
      );
      expect(JSON.parse(r.stdout)).toMatchObject({
        committed: null,
        renamed: [],
        failed: { code: "PUBLISH_HUB_CHANGED" },
      });
      expect(h.commits).toEqual([]);
      expect(h.log.filter((x) => x.kind === "commit").map((x) => x.status)).toEqual([412]);
      expect(h.count("move")).toBe(0);
      expect(h.datasets.get(INDEX)!.get("README.md")!.toString()).toBe("a newer card\n");

      // --parent-commit: the plan printed names the commit; a change since then stops --yes before anything is done.
      const plan = JSON.parse((await runCli("publish", "--out", out, "--hub-url", h.url, "--json")).stdout).plan;
      expect(plan.parentCommit).toBe(h.datasetHeads.get(INDEX));
      expect((await runCli("publish", "--out", out, "--hub-url", h.url)).stdout).toContain(
        `run again with --yes --allow-warnings to apply (add --parent-commit ${plan.parentCommit} to apply it only if the dataset is still at this commit)`,
      );
      h.pushCommit(INDEX, { "manifest.csv": "x\n" });
      h.reset();
      const pinned = await runCli(
        "publish",
        "--out",
        out,
        "--hub-url",
        h.url,
        "--yes",
        "--allow-warnings",
        "--parent-commit",
        plan.parentCommit,
      );
      expect(pinned.code).toBe(1);
      expect(pinned.stderr).toContain(
        `error PUBLISH_HUB_CHANGED: ${INDEX} is at commit ${h.datasetHeads.get(INDEX)}, not at --parent-commit ${plan.parentCommit}: nothing was done`,
      );
      expect(posts(h)).toEqual([]);
      expect((await runCli("publish", "--out", out, "--parent-commit", "abc")).code).toBe(64);
      // The current commit, given by its first 12 digits: applied.
      const now = h.datasetHeads.get(INDEX)!;
      const ok = await runCli(
        "publish",
        "--out",
        out,
        "--hub-url",
        h.url,
        "--yes",
        "--allow-warnings",
        "--parent-commit",
        now.slice(0, 12),
        "--json",
      );
      expect(ok.code).toBe(2); // the second repo of one checkpoint is left to settle by hand
      expect(JSON.parse(ok.stdout)).toMatchObject({
        committed: expect.any(String),
        failed: null,
        renamed: [{}, {}, {}],
      });
      expect(h.commits.map((c) => c.parentCommit)).toEqual([now]);
    } finally {
      await h.close();
    }
  });

  it('a dataset repo created by someone else after the plan said "to be created" stops the publish (PUBLISH_HUB_CHANGED)', async () => {
    tokenEnv({ HF_TOKEN: TOKEN });
    const h = await startHubServer({ hubDir: join(dir, "hub"), token: TOKEN });
    try {
      h.onRequest = (r) => {
        if (r.kind === "create") h.pushCommit(INDEX, { "README.md": "theirs\n" });
      };
      const r = await runCli("publish", "--out", out, "--hub-url", h.url, "--yes", "--allow-warnings");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `error PUBLISH_HUB_CHANGED: publish stopped at create ${INDEX}: the dataset repo ${INDEX} was created by someone else since the plan (the Hub answered 409)`,
      );
      expect(h.commits).toEqual([]);
      expect(h.count("move")).toBe(0);
    } finally {
      await h.close();
    }
  });
});

describe("release gate in words", () => {
  it("names --strict and every warning code with its count, most frequent first", () => {
    expect(describeRelease({ strict: true, warnings: 0, counts: [], ok: true })).toBe(
      "a release build (--strict, no warnings)",
    );
    expect(describeRelease({ strict: false, warnings: 0, counts: [], ok: false })).toBe(
      "not a release build (built without --strict; 0 warnings)",
    );
    expect(describeRelease({ strict: true, warnings: 1, counts: [{ code: "X", count: 1 }], ok: false })).toBe(
      "not a release build (1 warning: X 1)",
    );
  });
});

describe("rename ordering", () => {
  it("waits for a target to be freed, and reports taken targets and cycles", () => {
    expect(
      orderRenames(
        [
          { from: "o/a", to: "o/b" },
          { from: "o/b", to: "o/c" },
        ],
        new Set(["o/a", "o/b"]),
      ),
    ).toEqual({
      renames: [
        { from: "o/b", to: "o/c" },
        { from: "o/a", to: "o/b" },
      ],
      conflicts: [],
    });
    const r = orderRenames(
      [
        { from: "o/x", to: "o/y" },
        { from: "o/y", to: "o/x" },
        { from: "o/p", to: "o/q" },
      ],
      new Set(["o/x", "o/y", "o/p", "o/q"]),
    );
    expect(r.renames).toEqual([]);
    expect(r.conflicts.map((c) => [c.from, c.reason.split(":")[0]])).toEqual([
      ["o/p", "o/q already exists"],
      ["o/x", "the renames form a cycle"],
      ["o/y", "the renames form a cycle"],
    ]);
  });

  it("two repos of one checkpoint: the one the build read the row's eos from is renamed, the other is a conflict naming it", () => {
    const twins = [
      { from: "o/c.h029.sft.2400", to: "o/c.h037.sft.2400" },
      { from: "o/c.h030.sft.2400", to: "o/c.h037.sft.2400" },
    ];
    const existing = new Set(["o/c.h029.sft.2400", "o/c.h030.sft.2400"]);
    const r = orderRenames(twins, existing, new Set(["o/c.h030.sft.2400"]));
    expect(r.renames).toEqual([twins[1]]);
    expect(r.conflicts).toEqual([
      {
        ...twins[0],
        reason:
          "o/c.h030.sft.2400 is renamed to o/c.h037.sft.2400 (the repo the build read the row's eos from): this is a second repo of the same checkpoint (compare and delete one by hand)",
      },
    ]);
    // The preference is read from the build's provenance records (eos.repo of each row).
    expect(eosRepos([{ eos: { repo: "o/c.h030.sft.2400" } }, { eos: { repo: null } }, null, {}])).toEqual(
      new Set(["o/c.h030.sft.2400"]),
    );
    // Without a preference (no build beside): the first by name, and the reason says the same without the eos note.
    const plain = orderRenames(twins, existing);
    expect(plain.renames).toEqual([twins[0]]);
    expect(plain.conflicts[0]!.reason).toBe(
      "o/c.h029.sft.2400 is renamed to o/c.h037.sft.2400: this is a second repo of the same checkpoint (compare and delete one by hand)",
    );
  });
});
