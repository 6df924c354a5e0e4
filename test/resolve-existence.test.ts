import { describe, expect, it } from "vitest";
import { Diagnostics } from "../src/diagnostics.js";
import { splitByExistence } from "../src/resolve/existence.js";
import { at, candidate, cell, obs, published, spare } from "./helpers/resolve-data.js";

describe("existence (which checkpoints get a row)", () => {
  it("keeps a checkpoint whose weights survive on the PVC, in a spare or a published repo, in family then step order", () => {
    const onPvc = candidate("sft", 200, [obs("pvc_stable", "sft", 200, at(1)), obs("pvc_weights", "sft", 200, null)]);
    const spared = candidate("sft", 100, [], { spares: [spare("sft", 100)] });
    const pub = candidate("dpo", 5, [], { published: [published("dpo", 5, "002")] });
    const diag = new Diagnostics();
    const { rowsCands, lost } = splitByExistence(cell, [onPvc, spared, pub], diag);
    expect(rowsCands.map((c) => `${c.family}.${c.step}`)).toEqual(["dpo.5", "sft.100", "sft.200"]);
    expect(lost).toEqual([]);
    expect(diag.warnings).toEqual([]);
  });

  it("warns PVC_STABLE_MISSING for a kept checkpoint whose shards the PVC lists without STABLE; a lost one says its shards were never completed", () => {
    const shards = (family: string, step: number) => obs("pvc_weights", family, step, null, { seq: step });
    const pub = candidate("sft", 750, [shards("sft", 750)], { published: [published("sft", 750, "005")] });
    const spared = candidate("sft", 800, [shards("sft", 800)], { spares: [spare("sft", 800)] });
    const noShards = candidate("sft", 900, [], { spares: [spare("sft", 900)] });
    const lostOne = candidate("sft", 950, [shards("sft", 950), obs("janitor_archive", "sft", 950, at(3))]);
    const incomplete = candidate("sft", 990, [shards("sft", 990)]);
    const diag = new Diagnostics();
    const { rowsCands, lost } = splitByExistence(cell, [pub, spared, noShards, lostOne, incomplete], diag);
    expect(rowsCands.map((c) => c.step)).toEqual([750, 800, 900]);
    expect(lost.map((l) => l.step)).toEqual([950]);
    expect(diag.warnings.map((w) => [w.code, w.message])).toEqual([
      [
        "PVC_STABLE_MISSING",
        "c sft step 750: the PVC lists its weight shards but no STABLE, yet it was published: a STABLE line missing from the listing? its STABLE mtime (the write time) is unknown: its hour comes from the janitor, else it is unrecoverable",
      ],
      [
        "PVC_STABLE_MISSING",
        "c sft step 800: the PVC lists its weight shards but no STABLE, yet it was archived to a spare repo: a STABLE line missing from the listing? its STABLE mtime (the write time) is unknown: its hour comes from the janitor, else it is unrecoverable",
      ],
      [
        "CHECKPOINT_LOST",
        "c sft step 950: seen in janitor_archive but its weights survive nowhere (its shards on the PVC have no STABLE: never completed, or its STABLE line missing from the listing) (no row)",
      ],
    ]);
  });

  it("reports a checkpoint seen but surviving nowhere as lost, and a role event naming it", () => {
    const archive = obs("janitor_archive", "sft", 300, at(2), { seq: 6 });
    const role = obs("supervisor_role", "sft", 300, null, {
      detail: { role: "fallback", path: "sft/weights/step_300" },
    });
    const stableOnly = obs("pvc_stable", "sft", 300, at(2));
    const skip = candidate("sft", 400, [obs("janitor_other", "sft", 400, null, { detail: { action: "skip" } })]);
    const diag = new Diagnostics();
    const { rowsCands, lost } = splitByExistence(
      cell,
      [candidate("sft", 300, [role, archive, stableOnly]), skip],
      diag,
    );
    expect(rowsCands).toEqual([]);
    expect(lost).toEqual([
      { cell: "c", family: "sft", step: 300, seen_in: ["janitor_archive", "pvc_stable", "supervisor_role"] },
    ]);
    expect(diag.warnings).toEqual([
      {
        code: "CHECKPOINT_LOST",
        message:
          "c sft step 300: seen in janitor_archive, pvc_stable, supervisor_role but its weights survive nowhere (no row)",
        file: "c/supervisor_role",
        line: 1,
      },
      {
        code: "SUPERVISOR_UNKNOWN_CHECKPOINT",
        message: "fallback names sft/weights/step_300, which has no row",
        file: "c/supervisor_role",
        line: 1,
      },
    ]);
  });

  it("throws DUPLICATE_CHECKPOINT, FAMILY_ALIAS_COLLISION and FAMILY_INVALID_NAME", () => {
    const two = (a: string, b: string) =>
      candidate("sft", 1, [
        obs("pvc_weights", "sft", 1, null, { familyDir: a }),
        obs("pvc_weights", "sft", 1, null, { familyDir: b, seq: 1 }),
      ]);
    expect(() => splitByExistence(cell, [two("a/sft", "b/sft")], new Diagnostics())).toThrow(
      'cell "c": directories "a/sft" and "b/sft" both give family "sft" step 1',
    );
    expect(() => splitByExistence(cell, [two("sft", "sft-b")], new Diagnostics())).toThrow(
      'cell "c": directories "sft" (c/pvc_weights:1) and "sft-b" (c/pvc_weights:2) both give family "sft" and both hold step 1: two training runs would be merged; fix family_aliases',
    );
    const bad = candidate("bad name", 1, [], { spares: [spare("bad name", 1)] });
    expect(() => splitByExistence(cell, [bad], new Diagnostics())).toThrow(/^cell "c": family directory "bad name" /);
  });
});
