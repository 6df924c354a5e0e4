import { describe, expect, it } from "vitest";
import type { Row } from "../src/schema.js";
import { costHtml, costTooltip, niceTicks } from "../src/cost/cost-html.js";
import type { CostReport } from "../src/cost/cost.js";

const row: Row = {
  model_id: "agentic-ptb/alpha.h017.sft2.300",
  cell: "alpha",
  driver: "codex",
  effort: "high",
  hour: 17.166,
  hour_source: "extrapolated",
  hour_upper_bound: null,
  driver_tokens_at_hour: 3300,
  role: "intermediate",
  eos_ok: true,
  eos_token_id: [248044, 248046],
  source: "/pvc/ptb/alpha/sft2/weights/step_300",
  family: "sft2",
  step: 300,
  hour_lower_bound: null,
  hour_error_h: 0.5,
};
const baseline: Row = {
  ...row,
  model_id: "Qwen/Qwen3.5-9B-Base",
  cell: "BASELINE",
  hour: 0,
  hour_source: "baseline",
  role: "baseline",
  driver_tokens_at_hour: 0,
  source: "Qwen/Qwen3.5-9B-Base",
};
const figure: CostReport["rows"][number] = {
  model_id: row.model_id,
  scored_as: "agentic-ptb/alpha.h010.sft2.300",
  cell: "alpha",
  role: "intermediate",
  hour: 17.166,
  suite: "mmlu",
  score: 51,
  baseline_score: 40,
  gain: 11,
  driver_tokens_at_hour: 3300,
  cost_per_point: 300,
  eos_ok: true,
  note: null,
};

describe("cost.html's tooltip", () => {
  it("is the checkpoint's lines, then the score with baseline, gain and scored-as id, then the cost", () => {
    expect(costTooltip(row, figure)).toEqual([
      "agentic-ptb/alpha.h017.sft2.300",
      "hour 17.17 (extrapolated, ± 0.50 h)",
      "driver tokens at hour: 3,300",
      "role: intermediate",
      "eos: ok (ids 248044, 248046)",
      "source: /pvc/ptb/alpha/sft2/weights/step_300",
      "score on mmlu: 51 (baseline 40, gain 11), scored as agentic-ptb/alpha.h010.sft2.300",
      "cost per point: 300 driver tokens per point of gain",
    ]);
  });
  it("says there is no cost, and why, when the gain is not positive; a cost keeps 2 decimals", () => {
    const none = { ...figure, scored_as: null, score: 39, gain: -1, cost_per_point: null, note: "no gain" };
    expect(costTooltip(row, none).slice(-3)).toEqual([
      "score on mmlu: 39 (baseline 40, gain -1)",
      "cost per point: none",
      "note: no gain",
    ]);
    expect(costTooltip(row, { ...figure, cost_per_point: 1520288.59 }).at(-1)).toBe(
      "cost per point: 1,520,288.59 driver tokens per point of gain",
    );
  });
});

describe("niceTicks", () => {
  it("gives round values inside the range, never below a zero", () => {
    expect(niceTicks(0, 13986655)).toEqual([0, 5e6, 1e7]);
    expect(niceTicks(29, 40.2)).toEqual([30, 35, 40]);
    expect(niceTicks(0, 1520288.59)).toEqual([0, 5e5, 1e6, 1.5e6]);
    expect(niceTicks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(5, 5)).toEqual([5]);
  });
});

describe("costHtml", () => {
  it("carries each point's tooltip as its aria-label, escaped, and makes no network reference", async () => {
    const report: CostReport = {
      suites: [{ suite: "mmlu", baseline_score: 40 }],
      rows: [figure],
      excluded: [],
      unmatched: [],
    };
    const html = await costHtml(report, [baseline, row]);
    const labels = [...html.matchAll(/aria-label="(agentic-ptb[^"]*)"/g)].map((m) => m[1]);
    // One point on each of the three charts.
    expect(labels).toHaveLength(3);
    expect(labels[0]).toBe(costTooltip(row, figure).join("&#xA;"));
    expect(html).not.toMatch(/(src|href)="?https?:/);
    expect(html.match(/data-points="(\d+)" data-broken="(\d+)"/g)).toEqual([
      'data-points="1" data-broken="0"',
      'data-points="1" data-broken="0"',
      'data-points="1" data-broken="0"',
    ]);
  });
  it("refuses a report whose figure has no row in the manifest given", async () => {
    const report: CostReport = {
      suites: [{ suite: "mmlu", baseline_score: 40 }],
      rows: [figure],
      excluded: [],
      unmatched: [],
    };
    await expect(costHtml(report, [baseline])).rejects.toThrow(
      "cost.html: agentic-ptb/alpha.h017.sft2.300 has no row in the manifest the report was computed from",
    );
  });
});
