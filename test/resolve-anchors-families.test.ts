import { describe, expect, it } from "vitest";
import { Diagnostics } from "../src/diagnostics.js";
import { knownAnchors } from "../src/resolve/known-anchors.js";
import {
  warnAmbiguousAliases,
  warnInterleavedDirectories,
  warnUnknownFamilies,
  warnUnusedAliases,
} from "../src/resolve/family-warnings.js";
import { at, candidate, cell, obs, spare, supervisor } from "./helpers/resolve-data.js";

describe("known anchors", () => {
  it("keeps anchors of a shown checkpoint (row or lost); warns the others", () => {
    const a1 = obs("anchor", "sft", 1, at(1), { seq: 0 });
    const a2 = obs("anchor", "sft", 2, at(2), { seq: 1 });
    const a3 = obs("anchor", "sft", 7, at(2), { seq: 2 });
    const x = obs("anchor", "x", 1, at(1), { seq: 3 });
    const diag = new Diagnostics();
    const known = knownAnchors(
      "c",
      new Map([
        ["x", [x]],
        ["sft", [a1, a2, a3]],
      ]),
      [candidate("sft", 1)],
      [{ cell: "c", family: "sft", step: 2, seen_in: ["janitor_archive"] }],
      diag,
    );
    expect([...known.entries()]).toEqual([["sft", [a1, a2]]]);
    expect(diag.warnings.map((w) => [w.code, w.line])).toEqual([
      ["ANCHOR_UNKNOWN_STEP", 3],
      ["ANCHOR_UNKNOWN_FAMILY", 4],
    ]);
  });
});

describe("family warnings", () => {
  it("an alias key nothing uses; an alias key that is another family's id", () => {
    const aliased = { ...cell, family_aliases: { typo: "sft", dpo: "sft" } };
    const observations = [
      obs("pvc_weights", "sft", 1, null, { familyDir: "sft" }),
      obs("pvc_weights", "dpo", 1, null, { familyDir: "dpo" }),
    ];
    const diag = new Diagnostics();
    warnUnusedAliases({ cell: aliased, observations, supervisor: supervisor(), published: [], spares: [] }, diag);
    warnAmbiguousAliases(aliased, new Set(["sft", "dpo"]), diag);
    expect(diag.warnings.map((w) => w.code)).toEqual(["FAMILY_ALIAS_UNUSED", "FAMILY_NAME_AMBIGUOUS"]);
    expect(diag.warnings[0]!.message).toBe(
      'cell "c": family_aliases key "typo" names no directory, log line, event or Hub repo of the cell, so it maps nothing to "sft" (the PVC\'s family directories: "dpo", "sft")',
    );
  });

  it("directories of one family whose steps interleave", () => {
    const w = (dir: string, step: number, seq: number) =>
      candidate("sft", step, [obs("pvc_weights", "sft", step, null, { familyDir: dir, seq })]);
    const diag = new Diagnostics();
    warnInterleavedDirectories("c", [w("sft", 100, 0), w("sft", 300, 1), w("sft-b", 200, 2)], diag);
    expect(diag.warnings.map((x) => [x.code, x.line])).toEqual([["FAMILY_DIRS_INTERLEAVED", 3]]);
    const ok = new Diagnostics();
    warnInterleavedDirectories("c", [w("sft", 100, 0), w("sft-b", 200, 2)], ok);
    expect(ok.warnings).toEqual([]);
  });

  it("a family known only from the Hub, or only from logs", () => {
    const pvc = candidate("sft", 1, [obs("pvc_weights", "sft", 1, null)]);
    const hubOnly = candidate("old", 1, [], { spares: [spare("old", 1)] });
    const logOnly = candidate("dpo", 1, [obs("janitor_other", "dpo", 1, null)], { spares: [spare("dpo", 1)] });
    const diag = new Diagnostics();
    warnUnknownFamilies("c", [pvc, hubOnly, logOnly], [pvc, hubOnly, logOnly], diag);
    expect(diag.warnings.map((w) => [w.code, w.file])).toEqual([
      ["FAMILY_NOT_ON_PVC", "c/janitor_other"],
      ["HUB_UNKNOWN_FAMILY", "hub/msr-spare/c.old.step_1/.hub.json"],
    ]);
  });
});
