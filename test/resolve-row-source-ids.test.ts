import { describe, expect, it } from "vitest";
import { checkUniqueIds, rowModelId } from "../src/resolve/ids.js";
import { familyDirectories, rowSource } from "../src/resolve/row-source.js";
import { candidate, cell, obs, published, spare } from "./helpers/resolve-data.js";

describe("row source", () => {
  it("the PVC path, else the janitor's path or the family's directory of that name, else the spare, else the first published repo", () => {
    const onPvc = candidate("sft", 1, [obs("pvc_weights", "sft", 1, null, { familyDir: "runs/sft" })]);
    const dirs = familyDirectories([onPvc]);
    expect([...dirs.entries()]).toEqual([["sft", ["runs/sft"]]]);
    expect(rowSource(cell, onPvc, dirs)).toBe("/pvc/ptb/c/runs/sft/weights/step_1");
    const v2 = candidate("sft", 2, [obs("janitor_other", "sft", 2, null, { familyDir: "sft" })], {
      spares: [spare("sft", 2)],
    });
    expect(rowSource(cell, v2, dirs)).toBe("/pvc/ptb/c/runs/sft/weights/step_2");
    const v1 = candidate("sft", 3, [
      obs("janitor_archive", "sft", 3, null, { familyDir: "old/sft", detail: { version: "v1" } }),
    ]);
    expect(rowSource(cell, v1, dirs)).toBe("/pvc/ptb/c/old/sft/weights/step_3");
    expect(rowSource(cell, candidate("sft", 4, [], { spares: [spare("sft", 4)] }), dirs)).toBe(
      "msr-spare/c.sft.step_4",
    );
    const pubs = [published("sft", 5, "002"), published("sft", 5, "001")];
    expect(rowSource(cell, candidate("sft", 5, [], { published: pubs }), dirs)).toBe("agentic-ptb/c.h001.sft.5");
  });
});

describe("ids", () => {
  it("a model id valid as a Hub repo name", () => {
    expect(rowModelId("agentic-ptb", "c", 3.99, "sft", 100)).toBe("agentic-ptb/c.h003.sft.100");
    expect(rowModelId("agentic-ptb", "c", null, "sft", 100)).toBe("agentic-ptb/c.hNA.sft.100");
    expect(() => rowModelId("agentic-ptb", "c", 1, "s".repeat(100), 1)).toThrow(
      /^model id agentic-ptb\/c\.h001\.s+\.1 .*; map the family in cells\.json family_aliases$/,
    );
  });

  it("unique, compared without case", () => {
    expect(() => checkUniqueIds([{ model_id: "o/a.1" }, { model_id: "o/b.1" }])).not.toThrow();
    expect(() => checkUniqueIds([{ model_id: "o/a.1" }, { model_id: "o/a.1" }])).toThrow(
      "two checkpoints get the id o/a.1",
    );
    expect(() =>
      checkUniqueIds([
        { model_id: "o/c.h001.dpo.1", family: "dpo" },
        { model_id: "o/c.h001.DPO.1", family: "DPO" },
      ]),
    ).toThrow(
      'ids o/c.h001.dpo.1 and o/c.h001.DPO.1 differ only in case, and the Hub treats repo names case-insensitively (family directories "dpo" and "DPO"): map one in family_aliases',
    );
  });
});
