import { describe, expect, it, beforeAll, afterAll } from "vitest";
import { buildManifest } from "../src/pipeline/build-manifest.js";
import type { BuildResult } from "../src/model.js";
import type { RowEvidence } from "../src/resolve/resolve-cell.js";
import { makeMiniSweep } from "./helpers/mini-sweep.js";
import { removeTree } from "./helpers/tree.js";

/**
 * Each messiness SOURCES.md names, by name, on the mini sweep of
 * test/helpers/mini-sweep.ts (the line-level ones are also tested on their
 * own in pvc-listing, janitor and supervisor-clock tests).
 */
describe("SOURCES.md messiness, by name", () => {
  let dir: string;
  let result: BuildResult;
  const row = (id: string) => result.rows.find((r) => r.model_id === id)!;
  const prov = (id: string) => result.provenance.find((p) => p.model_id === id) as RowEvidence;
  beforeAll(async () => {
    dir = await makeMiniSweep();
    result = await buildManifest({ sourcesDir: dir });
  });
  afterAll(async () => removeTree(dir));

  it("excluded: the cell is absent and its reason is listed", () => {
    expect(result.rows.some((r) => r.cell === "gamma")).toBe(false);
    expect(result.excluded).toEqual([{ cell: "gamma", reason: "aborted rerun" }]);
  });

  it("plotted: false: the cell is in the manifest all the same", () => {
    expect(result.rows.filter((r) => r.cell === "beta").length).toBe(2);
  });

  it("janitor_tz not UTC, across the repeated hour at the end of daylight saving time", () => {
    expect(row("agentic-ptb/beta.h021.a.2").hour).toBe(21.5);
    expect(prov("agentic-ptb/beta.h021.a.2").rule).toContain("second occurrence");
  });

  it("family_aliases: a directory name with a space maps to the family id; source keeps the directory", () => {
    expect(row("agentic-ptb/alpha.h022.sft3.10").source).toBe("/pvc/ptb/alpha/sft 3/weights/step_10");
  });

  it("checkpoints/ and rollouts/ are not checkpoints; weights/step_N without STABLE is not one either", () => {
    expect(result.rows.filter((r) => r.family === "sft2").map((r) => r.step)).toEqual([100, 200, 300]);
    expect(result.lost.map((l) => l.step)).toEqual([400]);
  });

  it("nested families (runs/<family>): the family is the directory holding weights/", () => {
    expect(row("agentic-ptb/alpha.h030.grpo.1").source).toBe("/pvc/ptb/alpha/runs/grpo/weights/step_1");
  });

  it("directory mtime moved by pruning: the STABLE mtime is the write time", () => {
    const p = prov("agentic-ptb/alpha.h012.sft2.200");
    expect(p.write_time).toBe("2026-10-01T14:00:00.000Z");
    expect(p.evidence.find((e) => e.kind === "pvc_dir")!.why).toMatch(/never a write time/);
  });

  it("copy-back after the run: a later mtime is not a write time; the janitor gives the hour", () => {
    const p = prov("agentic-ptb/alpha.h017.sft2.300");
    expect(p.hour_source).toBe("janitor");
    expect(p.evidence.find((e) => e.kind === "pvc_stable")!.why).toMatch(/^copy-back/);
  });

  it("listing lines cut short: warned with file and line, every other row kept", () => {
    expect(result.warnings.find((w) => w.code === "PVC_CUT_LINE")).toMatchObject({
      file: "alpha/pvc/listing.tsv",
      line: 23,
    });
  });

  it("the same checkpoint archived twice: the first successful archive counts", () => {
    expect(prov("agentic-ptb/alpha.h017.sft2.300").write_time).toBe("2026-10-01T19:10:00.000Z");
  });

  it("pauses: the budget clock does not count paused time", () => {
    expect(row("agentic-ptb/alpha.h012.sft2.200").hour).toBe(12); // 14 h of wall time, 2 h paused
  });

  it("a later submit replaces an earlier one; fallbacks keep their role", () => {
    expect(result.rows.filter((r) => r.role === "SUBMITTED").map((r) => r.model_id)).toEqual([
      "agentic-ptb/alpha.hNA.sft3.20",
    ]);
    expect(row("agentic-ptb/alpha.h005.sft2.100").role).toBe("fallback");
  });

  it("anchors validate, never give an hour; Hub names and dates never give one either", () => {
    expect(row("agentic-ptb/alpha.h038.grpo.5").hour).toBe(38); // the anchor says 38.5
    expect(prov("agentic-ptb/alpha.h017.sft2.300").evidence.find((e) => e.kind === "published_repo")!.why).toMatch(
      /published under h010: a rebuild renames it/,
    );
  });

  it("a checkpoint known only from a spare repo, and one known only from a supervisor event and its published repo", () => {
    expect(row("agentic-ptb/alpha.h038.grpo.5").source).toBe("msr-spare/alpha.grpo.step_5");
    expect(row("agentic-ptb/alpha.hNA.sft3.20").source).toBe("agentic-ptb/alpha.hNA.sft3.20");
  });

  it("eos_token_id in generation_config, at the top of config.json, and in text_config; int or list", () => {
    expect(row("agentic-ptb/alpha.h005.sft2.100").eos_token_id).toEqual([248044, 248046]);
    expect(row("agentic-ptb/alpha.h012.sft2.200").eos_token_id).toEqual([248044]);
    expect(row("agentic-ptb/alpha.h017.sft2.300").eos_token_id).toEqual([248044, 248046]);
    expect(row("agentic-ptb/alpha.hNA.sft3.20").eos_token_id).toEqual([248046]);
    expect(prov("agentic-ptb/alpha.h017.sft2.300").eos).toMatchObject({
      from: "config.json text_config",
      chatTemplate: "chat_template.jinja",
    });
  });

  it("RUNLOG.md is never parsed for times", () => {
    expect(result.provenance.every((p) => !JSON.stringify(p).includes("RUNLOG"))).toBe(true);
  });
});
