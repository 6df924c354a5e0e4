import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { aliasTable, conflictingAliasKeys, familyIdOf, nfc } from "../src/sources/family-aliases.js";
import { earlierFamilyNames, familyOfName, likelySameFamily } from "../src/resolve/family-names.js";
import { buildManifest } from "../src/pipeline/build-manifest.js";
import type { BuildResult } from "../src/model.js";
import { diffSides, earlierNamesBeside, loadSide, rekeySide } from "../src/diff/diff.js";
import { findRow } from "../src/audit/explain.js";
import { removeTree } from "./helpers/tree.js";
import { makeMiniSweep, miniCells } from "./helpers/mini-sweep.js";
import { startHubServer } from "./helpers/hub-server.js";
import { runCli } from "./helpers/cli.js";
import { planPublish } from "../src/publish/publish.js";
import { computeCost } from "../src/cost/cost.js";
import type { Row } from "../src/schema.js";

const NFC = "sft-\u00f1"; // sft-ñ composed
const NFD = "sft-n\u0303"; // sft-ñ decomposed

describe("family names (src/resolve/family-names.ts)", () => {
  it("compares names in NFC and leaves ASCII names as they are", () => {
    expect(nfc(NFD)).toBe(NFC);
    expect(nfc(NFC)).toBe(NFC);
    expect(nfc("sft 3")).toBe("sft 3");
  });

  it("maps a directory name through family_aliases whichever Unicode form the key or the name has", () => {
    expect(familyIdOf({ family_aliases: { [NFD]: "sft-n" } }, NFC)).toBe("sft-n");
    expect(familyIdOf({ family_aliases: { [NFC]: "sft-n" } }, NFD)).toBe("sft-n");
    expect(familyIdOf({ family_aliases: { "sft mix": "sft-mix" } }, "sft mix")).toBe("sft-mix");
    expect(familyIdOf({ family_aliases: { "sft mix": "sft-mix" } }, "dpo")).toBe("dpo");
    expect(familyIdOf({}, NFD)).toBe(NFC);
    // Own keys only.
    expect(familyIdOf({ family_aliases: { a: "b" } }, "constructor")).toBe("constructor");
    expect(familyIdOf({ family_aliases: { a: "b" } }, "__proto__")).toBe("__proto__");
    expect([...aliasTable({ [NFD]: "x", b: "y" })]).toEqual([
      [NFC, "x"],
      ["b", "y"],
    ]);
  });

  it("finds NFC-equal alias keys that map to different ids", () => {
    expect(conflictingAliasKeys({ [NFC]: "a", [NFD]: "b" })).toEqual([[NFC, NFD]]);
    expect(conflictingAliasKeys({ [NFC]: "a", [NFD]: "a" })).toEqual([]);
    expect(conflictingAliasKeys(undefined)).toEqual([]);
  });

  it("gives a Hub family part its family: a current id first, else an alias key (an earlier name), else itself", () => {
    const cell = { family_aliases: { dpo: "dpo-beta", sft: "sft-n", [NFC]: "sft-n" } };
    const ids = new Set(["dpo-beta", "sft-n", "grpo"]);
    expect(familyOfName(cell, "dpo", ids)).toBe("dpo-beta");
    expect(familyOfName(cell, "dpo-beta", ids)).toBe("dpo-beta");
    expect(familyOfName(cell, "sft", ids)).toBe("sft-n");
    expect(familyOfName(cell, NFD, ids)).toBe("sft-n");
    expect(familyOfName(cell, "grpo", ids)).toBe("grpo");
    expect(familyOfName(cell, "nosuch", ids)).toBe("nosuch");
    // A chain: directory a is now "b", directory b is now "c": a repo named "b" is a's (b is a current id).
    const chain = { family_aliases: { a: "b", b: "c" } };
    expect(familyOfName(chain, "b", new Set(["b", "c"]))).toBe("b");
    expect(familyOfName(chain, "b", new Set(["c"]))).toBe("c");
    // A swap: "b" is dir a's id and dir b's earlier name; the step settles it when only one family holds it.
    const stepsOf = new Map([
      ["b", new Set([1, 2])],
      ["c", new Set([100, 200])],
    ]);
    expect(familyOfName(chain, "b", new Set(["b", "c"]), { step: 100, stepsOf })).toBe("c");
    expect(familyOfName(chain, "b", new Set(["b", "c"]), { step: 2, stepsOf })).toBe("b");
    expect(familyOfName(chain, "b", new Set(["b", "c"]), { step: 7, stepsOf })).toBe("b");
    // Without the cell's evidence, the alias values stand for its ids.
    expect(familyOfName(chain, "b")).toBe("b");
    expect(familyOfName(cell, "dpo")).toBe("dpo-beta");
  });

  it("suggests the family sharing the most steps", () => {
    const fams = new Map([
      ["grpo", new Set([1, 2])],
      ["sft-n", new Set([100, 200, 300])],
      ["sft3", new Set([100])],
    ]);
    expect(likelySameFamily([100, 200], fams)).toBe("sft-n");
    expect(likelySameFamily([1], fams)).toBe("grpo");
    expect(likelySameFamily([7], fams)).toBe(null);
  });

  it("reads the earlier family names a build matched from its provenance", () => {
    const records = [
      { model_id: "Qwen/x", cell: "BASELINE" },
      {
        cell: "sol-high",
        family: "dpo-beta",
        evidence: [
          { kind: "published_repo", raw: "agentic-ptb/sol-high.h092.dpo.480" },
          { kind: "spare_repo", raw: "msr-spare/sol-high.dpo.step_480" },
        ],
      },
      {
        cell: "sol-high",
        family: "grpo-a",
        evidence: [{ kind: "published_repo", raw: "agentic-ptb/sol-high.h017.grpo-a.100" }],
      },
      null,
    ];
    expect([...earlierFamilyNames(records)]).toEqual([["sol-high/dpo", "dpo-beta"]]);
  });
});

describe("diff pairs ids under a family's earlier name with its rows", () => {
  it("re-keys the old side by the new build's provenance: a rename, not a removal and an addition", async () => {
    const root = mkdtempSync(join(tmpdir(), "ptb-fam-diff-"));
    try {
      const row = (id: string, family: string) => ({
        model_id: id,
        cell: "sol-high",
        driver: "d",
        effort: "high",
        hour: 92.91,
        hour_source: "mtime",
        hour_upper_bound: null,
        driver_tokens_at_hour: 1,
        role: "SUBMITTED",
        eos_ok: true,
        eos_token_id: [1],
        source: "/pvc/ptb/sol-high/dpo/weights/step_480",
        family,
        step: 480,
        hour_lower_bound: null,
        hour_error_h: null,
      });
      writeFileSync(join(root, "old.json"), JSON.stringify([row("agentic-ptb/sol-high.h092.dpo.480", "dpo")]));
      const out = join(root, "out");
      mkdirSync(out);
      writeFileSync(
        join(out, "manifest.json"),
        JSON.stringify([row("agentic-ptb/sol-high.h092.dpo-beta.480", "dpo-beta")]),
      );
      writeFileSync(
        join(out, "provenance.jsonl"),
        `${JSON.stringify({ model_id: "agentic-ptb/sol-high.h092.dpo-beta.480", cell: "sol-high", family: "dpo-beta", step: 480, evidence: [{ kind: "published_repo", raw: "agentic-ptb/sol-high.h092.dpo.480" }] })}\n`,
      );
      const names = await earlierNamesBeside(out);
      expect([...names]).toEqual([["sol-high/dpo", "dpo-beta"]]);
      const d = diffSides(
        rekeySide(await loadSide(join(root, "old.json")), names),
        rekeySide(await loadSide(out), names),
        "old",
        "new",
      );
      expect(d.renames).toEqual([
        { from: "agentic-ptb/sol-high.h092.dpo.480", to: "agentic-ptb/sol-high.h092.dpo-beta.480" },
      ]);
      expect([d.added, d.removed]).toEqual([[], []]);
      expect(d.changed.map((c) => Object.keys(c.fields))).toEqual([["model_id", "family"]]);
      // cost maps a score under the old id to the row the same way.
      const scores = [
        { model_id: "Qwen/x", suite: "s", score: 1, at: "scores.csv:2" },
        { model_id: "agentic-ptb/sol-high.h092.dpo.480", suite: "s", score: 3, at: "scores.csv:3" },
      ];
      const manifest = [
        {
          ...row("Qwen/x", "x"),
          cell: "BASELINE",
          family: null,
          step: null,
          role: "baseline",
          driver_tokens_at_hour: 0,
        },
        row("agentic-ptb/sol-high.h092.dpo-beta.480", "dpo-beta"),
      ] as Row[];
      const cost = computeCost(manifest, scores, { earlierNames: names });
      expect([cost.unmatched, cost.rows.map((r) => [r.model_id, r.cost_per_point])]).toEqual([
        [],
        [["agentic-ptb/sol-high.h092.dpo-beta.480", 0.5]],
      ]);
      expect(computeCost(manifest, scores).unmatched.map((u) => u.model_id)).toEqual([
        "agentic-ptb/sol-high.h092.dpo.480",
      ]);
      // Without the provenance: a removal and an addition.
      const plain = diffSides(await loadSide(join(root, "old.json")), await loadSide(out), "old", "new");
      expect([plain.added, plain.removed, plain.renames]).toEqual([
        ["agentic-ptb/sol-high.h092.dpo-beta.480"],
        ["agentic-ptb/sol-high.h092.dpo.480"],
        [],
      ]);
    } finally {
      await removeTree(root);
    }
  });
});

describe("publish plans renames of repos under a family's earlier name", () => {
  it("maps the mini sweep's sft2 repos to their sft2-b rows after an alias, as the build matched them", async () => {
    const dir = await makeMiniSweep({
      "cells.json": miniCells((c) => void (c.cells[0].family_aliases = { "sft 3": "sft3", sft2: "sft2-b" })),
    });
    const out = `${dir}-out`;
    const hub = await startHubServer({ hubDir: join(dir, "hub") });
    try {
      expect((await runCli("build", "--sources", dir, "--out", out, "--quiet")).code).toBe(0);
      const plan = await planPublish(out, "agentic-ptb/checkpoint-index", { hubUrl: hub.url, fetch });
      expect(plan.renames).toEqual([
        { from: "agentic-ptb/alpha.h005.sft2.100", to: "agentic-ptb/alpha.h005.sft2-b.100" },
        { from: "agentic-ptb/alpha.h010.sft2.300", to: "agentic-ptb/alpha.h017.sft2-b.300" },
        { from: "agentic-ptb/alpha.h012.sft2.200", to: "agentic-ptb/alpha.h012.sft2-b.200" },
      ]);
      expect(plan.conflicts).toEqual([]);
    } finally {
      await hub.close();
      await removeTree(dir);
      await removeTree(out);
    }
  });
});

/**
 * The two cases a new user found on the embedded sweep, on copies of sources/:
 * an alias for an already published family, and a renamed PVC directory.
 */
describe("family identity on the embedded sources/", () => {
  const repo = join(import.meta.dirname, "..");
  const roots: string[] = [];
  let base: BuildResult;
  const copy = (
    edit: (cells: { cells: { cell: string; family_aliases?: Record<string, string> }[] }) => void,
    listing?: [string, (text: string) => string],
  ): string => {
    const root = mkdtempSync(join(tmpdir(), "ptb-fam-"));
    roots.push(root);
    const sources = join(root, "sources");
    cpSync(join(repo, "sources"), sources, { recursive: true });
    const cellsPath = join(sources, "cells.json");
    const cells = JSON.parse(readFileSync(cellsPath, "utf8"));
    edit(cells);
    writeFileSync(cellsPath, JSON.stringify(cells, null, 2));
    if (listing) {
      const path = join(sources, listing[0]);
      writeFileSync(path, listing[1](readFileSync(path, "utf8")));
    }
    return sources;
  };
  const writeManifest = (result: BuildResult): string => {
    const root = mkdtempSync(join(tmpdir(), "ptb-fam-out-"));
    roots.push(root);
    writeFileSync(join(root, "manifest.json"), JSON.stringify(result.rows, null, 2));
    return join(root, "manifest.json");
  };
  beforeAll(async () => {
    base = await buildManifest({ sourcesDir: join(repo, "sources") });
  }, 300_000);
  afterAll(async () => Promise.all(roots.map(removeTree)));

  it("an alias for the published family dpo of sol-high keeps its 57 rows, one SUBMITTED step 480 at h092, and plans renames of the old ids", async () => {
    const sources = copy((c) => {
      c.cells.find((x) => x.cell === "sol-high")!.family_aliases = { dpo: "dpo-beta" };
    });
    const result = await buildManifest({ sourcesDir: sources });
    const solHigh = result.rows.filter((r) => r.cell === "sol-high");
    expect(solHigh).toHaveLength(57);
    expect(result.warnings.map((w) => [w.code, w.file, w.line])).toEqual(
      base.warnings.map((w) => [w.code, w.file, w.line]),
    );
    expect(solHigh.filter((r) => r.step === 480 && r.family?.startsWith("dpo"))).toEqual([
      expect.objectContaining({
        model_id: "agentic-ptb/sol-high.h092.dpo-beta.480",
        role: "SUBMITTED",
        hour: 92.91,
        hour_source: "mtime",
        eos_ok: true,
        source: "/pvc/ptb/sol-high/dpo/weights/step_480",
      }),
    ]);
    // Every row is the base row, under the new family id.
    const renamed = base.rows.map((r) =>
      r.cell === "sol-high" && r.family === "dpo"
        ? { ...r, family: "dpo-beta", model_id: r.model_id.replace(".dpo.", ".dpo-beta.") }
        : r,
    );
    expect(result.rows).toEqual(renamed);
    // The rename plan (diff sources out): each published dpo repo to its dpo-beta id, none to hNA.
    const d = diffSides(await loadSide(sources), await loadSide(writeManifest(result)), "sources", "out");
    const dpo = d.renames.filter((r) => r.from.includes(".dpo."));
    expect(dpo).toHaveLength(13);
    for (const r of dpo) expect(r.to).toBe(r.from.replace(".dpo.", ".dpo-beta."));
    expect(d.renames.filter((r) => r.to.includes(".hNA.") && r.to.includes("sol-high"))).toEqual([]);
    const before = diffSides(
      await loadSide(join(repo, "sources")),
      await loadSide(writeManifest(base)),
      "sources",
      "out",
    );
    expect(d.added).toEqual(before.added); // not yet published, as without the alias
    expect(d.removed).toEqual(before.removed);
    expect(d.renames.filter((r) => !r.from.includes(".dpo."))).toEqual(before.renames);
    // explain finds the row by the old published id.
    expect(findRow(result, "agentic-ptb/sol-high.h092.dpo.480").row.model_id).toBe(
      "agentic-ptb/sol-high.h092.dpo-beta.480",
    );
    expect(findRow(result, "sol-high/dpo/480").row.model_id).toBe("agentic-ptb/sol-high.h092.dpo-beta.480");
    expect(findRow(result, "sol-high/dpo-beta/480").row.model_id).toBe("agentic-ptb/sol-high.h092.dpo-beta.480");
  }, 300_000);

  it("sol-max's sft renamed to sft-ñ on the PVC: with both names aliased the same rows under sft-n; without the old name a FAMILY_NOT_ON_PVC warning", async () => {
    const rename: [string, (t: string) => string] = [
      "sol-max/pvc/listing.tsv",
      (t) => t.replaceAll("/pvc/ptb/sol-max/sft/", `/pvc/ptb/sol-max/${NFC}/`),
    ];
    const both = await buildManifest({
      sourcesDir: copy(
        (c) => void (c.cells.find((x) => x.cell === "sol-max")!.family_aliases = { [NFC]: "sft-n", sft: "sft-n" }),
        rename,
      ),
    });
    const expected = base.rows.map((r) =>
      r.cell === "sol-max" && r.family === "sft"
        ? {
            ...r,
            family: "sft-n",
            model_id: r.model_id.replace(".sft.", ".sft-n."),
            source: r.source.replace("/sol-max/sft/", `/sol-max/${NFC}/`),
          }
        : r,
    );
    // Rows the listing shows keep the PVC path as listed; a row known from the janitor keeps the path the janitor names.
    const janitorOnly = both.rows.filter(
      (r) => r.cell === "sol-max" && r.family === "sft-n" && r.source.includes("/sol-max/sft/"),
    );
    expect(janitorOnly.length).toBeGreaterThan(0);
    for (const r of janitorOnly) {
      const i = expected.findIndex((e) => e.model_id === r.model_id);
      expected[i] = { ...expected[i]!, source: r.source };
    }
    expect(both.rows).toEqual(expected);
    expect(both.rows.filter((r) => r.cell === "sol-max")).toHaveLength(13);
    expect(both.warnings).toHaveLength(base.warnings.length);

    const oneName = await buildManifest({
      sourcesDir: copy(
        (c) => void (c.cells.find((x) => x.cell === "sol-max")!.family_aliases = { [NFC]: "sft-n" }),
        rename,
      ),
    });
    const added = oneName.warnings.filter(
      (w) => !base.warnings.some((b) => b.code === w.code && b.file === w.file && b.line === w.line),
    );
    expect(added.map((w) => [w.code, w.file])).toEqual([["FAMILY_NOT_ON_PVC", "sol-max/janitor/ckpt-janitor.log"]]);
    expect(added[0]!.message).toContain('("sft": "sft-n")');
  }, 300_000);
});
