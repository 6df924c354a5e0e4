import { describe, expect, it } from "vitest";
import { RunNumbering } from "../src/extractors/trajectory/run-numbering.js";

describe("RunNumbering", () => {
  it("numbers the items of a run's files in file order, files with no item skipped", () => {
    const run = new RunNumbering([["a", "b"], [], ["c"], [], ["d", "e", "f"]]);
    expect(run.total).toBe(6);
    expect([...run.start]).toEqual([0, 2, 2, 3, 3, 6]);
    expect([0, 1, 2, 3, 4, 5].map((n) => run.fileOf(n))).toEqual([0, 0, 2, 4, 4, 4]);
    expect([0, 1, 2, 3, 4, 5].map((n) => run.at(n))).toEqual(["a", "b", "c", "d", "e", "f"]);
  });

  it("has no item for a run of empty files", () => {
    expect(new RunNumbering([[], []]).total).toBe(0);
    expect(new RunNumbering([]).total).toBe(0);
  });
});
