import { describe, expect, it } from "vitest";
import { stepOrderContradictions } from "../src/resolve/step-order.js";

const pairs = (m: { step: number; hour: number }[]) =>
  stepOrderContradictions(m.map((x) => ({ ...x, item: null }))).map((c) => [
    c.lower.step,
    c.lower.hour,
    c.higher.step,
    c.higher.hour,
  ]);

describe("step order (one family is one run, written in step order)", () => {
  it("finds nothing when hours rise with the steps (ties allowed), in any input order", () => {
    expect(
      pairs([
        { step: 300, hour: 9 },
        { step: 100, hour: 3 },
        { step: 200, hour: 3 },
      ]),
    ).toEqual([]);
  });

  it("pairs every higher step written earlier with the latest lower step (two runs merged by an alias)", () => {
    // grpo (steps 20..80, hours 60..86) merged into sft (steps 300..900, hours 3..22).
    expect(
      pairs([
        { step: 20, hour: 60 },
        { step: 80, hour: 86.11 },
        { step: 300, hour: 3.93 },
        { step: 600, hour: 13.02 },
        { step: 900, hour: 22.05 },
      ]),
    ).toEqual([
      [80, 86.11, 300, 3.93],
      [80, 86.11, 600, 13.02],
      [80, 86.11, 900, 22.05],
    ]);
  });
});
