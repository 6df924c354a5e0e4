import { describe, expect, it } from "vitest";
import { Diagnostics } from "../src/diagnostics.js";
import { warnHubOwners } from "../src/resolve/hub-owners.js";
import type { CellsFile } from "../src/schema.js";
import { repo } from "./helpers/resolve-data.js";

const registry = { org: "agentic-ptb", spare_owner: "msr-spare", baseline: "Qwen/Qwen3.5-9B-Base" } as CellsFile;

function warned(ids: string[], live: boolean): [string, string | null, string][] {
  const diag = new Diagnostics();
  warnHubOwners(
    ids.map((id) => repo(id)),
    registry,
    live,
    diag,
  );
  return diag.warnings.map((w) => [w.code, w.file, w.message]);
}

describe("the Hub's repos against cells.json's owners", () => {
  it("an owner with no repo in a snapshot: HUB_OWNER_EMPTY at its folder; every owner present: nothing", () => {
    expect(warned(["agentic-ptb/a.h001.sft.1", "Qwen/Qwen3.5-9B-Base"], false)).toEqual([
      [
        "HUB_OWNER_EMPTY",
        "hub/msr-spare",
        "the Hub snapshot (hub/) holds no repo of msr-spare (cells.json's spare_owner): no checkpoint has a spare copy; a misspelt owner, or the owner's folder missing from the snapshot?",
      ],
    ]);
    expect(warned(["agentic-ptb/a.h001.sft.1", "msr-spare/a.sft.step_1", "Qwen/Qwen3.5-9B-Base"], false)).toEqual([]);
  });

  it("live: another owner the listing gave (a difference of case) is HUB_UNKNOWN_OWNER once, and the owner meant is empty", () => {
    expect(warned(["Agentic-PTB/a.h001.sft.1", "Agentic-PTB/a.h002.sft.2", "msr-spare/a.sft.step_1"], true)).toEqual([
      [
        "HUB_UNKNOWN_OWNER",
        null,
        "the Hub listed 2 repo(s) of Agentic-PTB, first Agentic-PTB/a.h001.sft.1, an owner that is neither cells.json's org (agentic-ptb) nor its spare_owner (msr-spare) (a difference of case?): not read",
      ],
      [
        "HUB_OWNER_EMPTY",
        null,
        "the Hub lists no repo of agentic-ptb (cells.json's org): no checkpoint has a published repo (ids, eos_ok unknown); a misspelt owner, or private repos listed without a token (HF_TOKEN)?",
      ],
    ]);
  });
});
