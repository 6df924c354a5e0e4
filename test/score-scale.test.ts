import { describe, expect, it } from "vitest";
import { mixedScaleWarnings } from "../src/cost/score-scale.js";

const score = (model_id: string, suite: string, value: number, line: number) => ({
  model_id,
  suite,
  score: value,
  at: `scores.csv:${line}`,
});

describe("the score scale check of cost", () => {
  it("warns once per suite that mixes fractions between 0 and 1 with values above 1, at its first fraction", () => {
    expect(
      mixedScaleWarnings([
        score("Qwen/Qwen3.5-9B-Base", "ifeval", 0.31, 2),
        score("agentic-ptb/a.h001.sft.1", "ifeval", 30.5, 3),
        score("agentic-ptb/a.h002.sft.2", "ifeval", 0.4, 4),
        score("Qwen/Qwen3.5-9B-Base", "mmlu", 41, 5),
        score("agentic-ptb/a.h001.sft.1", "mmlu", 0, 6), // 0 and 1 fit either scale
        score("agentic-ptb/a.h002.sft.2", "mmlu", 1, 7),
        score("Qwen/Qwen3.5-9B-Base", "gsm8k", 0.5, 8),
        score("agentic-ptb/a.h001.sft.1", "gsm8k", 0.75, 9),
      ]),
    ).toEqual([
      {
        code: "COST_MIXED_SCALE",
        message:
          "suite ifeval mixes 2 score(s) between 0 and 1 (Qwen/Qwen3.5-9B-Base: 0.31) with 1 above 1 (agentic-ptb/a.h001.sft.1: 30.5, at scores.csv:3): a fraction and a percentage? its gains compare them as they are",
        file: "scores.csv",
        line: 2,
      },
    ]);
  });
});
