import { describe, expect, it } from "vitest";
import { diffSides, differs } from "../src/diff/diff.js";

const side = (entries: [string, string[]][]) =>
  new Map(entries.map(([k, ids]) => [k, ids.map((model_id) => ({ model_id }))]));

describe("the rename plan never targets an existing repo (diff, as publish)", () => {
  it("a second published repo of one checkpoint at the new id is a conflict, not a rename onto it", () => {
    const d = diffSides(
      side([
        ["kimi/sft-mix/2400", ["o/kimi.h029.sft-mix.2400", "o/kimi.h037.sft-mix.2400"]],
        ["kimi/sft-mix/2700", ["o/kimi.h033.sft-mix.2700"]],
      ]),
      side([
        ["kimi/sft-mix/2400", ["o/kimi.h037.sft-mix.2400"]],
        ["kimi/sft-mix/2700", ["o/kimi.h041.sft-mix.2700"]],
      ]),
      "old",
      "new",
    );
    expect(d.renames).toEqual([{ from: "o/kimi.h033.sft-mix.2700", to: "o/kimi.h041.sft-mix.2700" }]);
    expect(d.conflicts).toEqual([
      {
        from: "o/kimi.h029.sft-mix.2400",
        to: "o/kimi.h037.sft-mix.2400",
        reason:
          "o/kimi.h037.sft-mix.2400 already exists: a second repo of the same checkpoint (compare and delete one by hand)",
      },
    ]);
    expect(differs(d)).toBe(true);
  });

  it("a chain whose target is freed by an earlier rename is planned", () => {
    const d = diffSides(
      side([
        ["c/f/1", ["o/c.h001.f.1"]],
        ["c/f/2", ["o/c.h002.f.2"]],
      ]),
      side([
        ["c/f/1", ["o/c.h002.f.1"]],
        ["c/f/2", ["o/c.h003.f.2"]],
      ]),
      "a",
      "b",
    );
    expect(d.conflicts).toEqual([]);
    expect(d.renames).toHaveLength(2);
  });
});
