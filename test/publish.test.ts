import { describe, expect, it, beforeAll, afterAll } from "vitest";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { makeMiniSweep } from "./helpers/mini-sweep.js";
import { removeTree } from "./helpers/tree.js";
import { runCli } from "./helpers/cli.js";
import { startHubServer, type HubServer } from "./helpers/hub-server.js";
import { orderRenames } from "../src/commands/publish.js";

const TOKEN = "hf_publishTestToken000000000000000";
const hubJson = (id: string) => JSON.stringify({ id, sha: "1".repeat(40), lastModified: "2026-11-01T00:00:00.000Z", createdAt: "2026-11-01T00:00:00.000Z" });

describe("publish against the local Hub", () => {
  let dir: string;
  let out: string;
  let hub: HubServer;
  let savedToken: string | undefined;
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
    savedToken = process.env.HF_TOKEN;
    process.env.HF_TOKEN = TOKEN;
  });
  afterAll(async () => {
    if (savedToken === undefined) delete process.env.HF_TOKEN;
    else process.env.HF_TOKEN = savedToken;
    await hub.close();
    await removeTree(dir);
    await removeTree(out);
  });

  it("plans exactly, changes nothing without --yes, applies with --yes, stops at a failure, continues, then does nothing", async () => {
    const plan1 = await runCli("publish", "--out", out, "--hub-url", hub.url, "--json");
    expect(plan1.code).toBe(0);
    const { plan } = JSON.parse(plan1.stdout);
    const bytes = async (f: string) => (await readFile(join(out, f))).length;
    expect(plan).toMatchObject({
      repo: "agentic-ptb/checkpoint-index",
      createRepo: true,
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
    expect(hub.log.filter((r) => r.method === "POST")).toEqual([]);
    expect(hub.log.every((r) => r.authorized)).toBe(true);

    // --yes, with the second rename failing: one commit of the three files, the first rename, a report.
    hub.failMoves.add("agentic-ptb/alpha.h031.grpo.2");
    const run1 = await runCli("publish", "--out", out, "--hub-url", hub.url, "--yes", "--json");
    expect(run1.code).toBe(1);
    expect(run1.stderr).toContain("publish stopped at rename agentic-ptb/alpha.h031.grpo.2 → agentic-ptb/alpha.h032.grpo.2");
    expect(run1.stderr).toContain("2 rename(s) remain; run publish again to continue");
    const o1 = JSON.parse(run1.stdout);
    expect(o1.renamed).toEqual([{ from: "agentic-ptb/alpha.h010.sft2.300", to: "agentic-ptb/alpha.h017.sft2.300" }]);
    expect(o1.remaining.map((r: { from: string }) => r.from)).toEqual(["agentic-ptb/alpha.h031.grpo.2", "agentic-ptb/alpha.hNA.grpo.1"]);
    expect(hub.commits).toEqual([{ repo: "agentic-ptb/checkpoint-index", title: "ptb-manifest: update README.md, manifest.json, manifest.csv", files: ["README.md", "manifest.json", "manifest.csv"] }]);
    expect(hub.datasets.get("agentic-ptb/checkpoint-index")!.get("manifest.csv")).toEqual(await readFile(join(out, "manifest.csv")));

    // A re-run finishes the job: no new commit, the two remaining renames.
    hub.failMoves.clear();
    const run2 = await runCli("publish", "--out", out, "--hub-url", hub.url, "--yes", "--json");
    expect(run2.code).toBe(0);
    const o2 = JSON.parse(run2.stdout);
    expect([o2.committed, o2.renamed.length, o2.plan.files.map((f: { status: string }) => f.status)]).toEqual([null, 2, ["same", "same", "same"]]);
    expect(hub.commits).toHaveLength(1);
    expect(hub.modelIds().filter((id) => id.startsWith("agentic-ptb/alpha."))).toEqual([
      "agentic-ptb/alpha.h005.sft2.100", "agentic-ptb/alpha.h006.sft2.100", "agentic-ptb/alpha.h012.sft2.200", "agentic-ptb/alpha.h017.sft2.300",
      "agentic-ptb/alpha.h030.grpo.1", "agentic-ptb/alpha.h032.grpo.2", "agentic-ptb/alpha.hNA.sft3.20",
    ]);

    // A third run is a no-op: only reads.
    hub.reset();
    const run3 = await runCli("publish", "--out", out, "--hub-url", hub.url, "--yes");
    expect(run3.code).toBe(0);
    expect(run3.stdout).toContain("committed: nothing (files unchanged)\nrenamed: 0 of 0");
    expect(hub.log.filter((r) => r.method !== "GET" && r.method !== "HEAD")).toEqual([]);
    expect(run3.stdout + run3.stderr).not.toContain(TOKEN);
  });

  it("refuses --yes without HF_TOKEN, naming the variable", async () => {
    delete process.env.HF_TOKEN;
    const tokenless = await startHubServer({ hubDir: join(dir, "hub") });
    try {
      const r = await runCli("publish", "--out", out, "--hub-url", tokenless.url, "--yes");
      expect([r.code, r.stderr]).toEqual([1, expect.stringContaining("error PUBLISH_NO_TOKEN: publishing writes to the Hub: set HF_TOKEN")]);
      expect(tokenless.log.filter((x) => x.method === "POST")).toEqual([]);
    } finally {
      process.env.HF_TOKEN = TOKEN;
      await tokenless.close();
    }
  });
});

describe("rename ordering", () => {
  it("waits for a target to be freed, and reports taken targets and cycles", () => {
    expect(orderRenames([{ from: "o/a", to: "o/b" }, { from: "o/b", to: "o/c" }], new Set(["o/a", "o/b"]))).toEqual({
      renames: [{ from: "o/b", to: "o/c" }, { from: "o/a", to: "o/b" }],
      conflicts: [],
    });
    const r = orderRenames([{ from: "o/x", to: "o/y" }, { from: "o/y", to: "o/x" }, { from: "o/p", to: "o/q" }], new Set(["o/x", "o/y", "o/p", "o/q"]));
    expect(r.renames).toEqual([]);
    expect(r.conflicts.map((c) => [c.from, c.reason.split(":")[0]])).toEqual([
      ["o/p", "o/q already exists"],
      ["o/x", "the renames form a cycle"],
      ["o/y", "the renames form a cycle"],
    ]);
  });
});
