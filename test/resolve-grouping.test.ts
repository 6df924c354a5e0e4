import { describe, expect, it } from "vitest";
import { byOrigin, groupCandidates, isPvc } from "../src/resolve/grouping.js";
import { candidateKey } from "../src/resolve/decision.js";
import { at, cell, obs, published, spare } from "./helpers/resolve-data.js";

describe("grouping (observations → checkpoint candidates)", () => {
  it("groups PVC, janitor, role events and Hub repos by family id and step; anchors by family", () => {
    const stable = obs("pvc_stable", "sft", 100, at(1), { familyDir: "runs/sft" });
    const archive = obs("janitor_archive", "sft", 100, at(2));
    const other = obs("pvc_weights", "sft", 200, null, { familyDir: "runs/sft" });
    const role = obs("supervisor_role", "sft", 200, null);
    const anchor = obs("anchor", "sft", 100, at(1));
    const pub = published("sft", 100, "001");
    const sp = spare("sft", 300);
    const g = groupCandidates(cell, [stable, archive, other, anchor], [role], [pub], [sp]);
    expect([...g.cands.keys()]).toEqual([candidateKey("sft", 100), candidateKey("sft", 200), candidateKey("sft", 300)]);
    const c100 = g.cands.get(candidateKey("sft", 100))!;
    expect(c100.obs).toEqual([stable, archive]);
    expect([...c100.pvcDirs]).toEqual(["runs/sft"]);
    expect(c100.published).toEqual([pub]);
    expect(g.cands.get(candidateKey("sft", 200))!.obs).toEqual([other, role]);
    expect(g.cands.get(candidateKey("sft", 300))!.spares).toEqual([sp]);
    expect([...g.anchorsByFamily.entries()]).toEqual([["sft", [anchor]]]);
    expect([...g.familyIds]).toEqual(["sft"]);
  });

  it("matches a Hub repo's family part through family_aliases", () => {
    const aliased = { ...cell, family_aliases: { "sft-old": "sft" } };
    const g = groupCandidates(
      aliased,
      [obs("pvc_stable", "sft", 100, at(1))],
      [],
      [published("sft-old", 100, "001")],
      [],
    );
    expect(g.cands.get(candidateKey("sft", 100))!.published.map((p) => p.repo.id)).toEqual([
      "agentic-ptb/c.h001.sft-old.100",
    ]);
  });

  it("orders by file then line; tells PVC observations", () => {
    const a = obs("pvc_stable", "sft", 1, null, { seq: 4 });
    const b = obs("janitor_archive", "sft", 1, null, { seq: 0 });
    expect([a, b].sort(byOrigin)).toEqual([b, a]);
    expect(
      ["pvc_stable", "pvc_weights", "pvc_dir", "janitor_archive"].map((k) => isPvc(obs(k as never, "f", 1, null))),
    ).toEqual([true, true, true, false]);
  });
});
