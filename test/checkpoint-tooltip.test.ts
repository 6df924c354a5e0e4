import { describe, expect, it } from "vitest";
import type { Row } from "../src/schema.js";
import { checkpointTooltip } from "../src/writers/checkpoint-tooltip.js";

const base: Row = {
  model_id: "agentic-ptb/grok.h042.kd.300",
  cell: "grok",
  driver: "grok",
  effort: "high",
  hour: 42.125,
  hour_source: "mtime",
  hour_upper_bound: null,
  driver_tokens_at_hour: 1234567,
  role: "intermediate",
  eos_ok: false,
  eos_token_id: [151643],
  source: "pvc",
  family: "kd",
  step: 300,
  hour_lower_bound: null,
  hour_error_h: null,
};

describe("checkpointTooltip", () => {
  it("gives an exact hour, tokens, role, eos and source", () => {
    expect(checkpointTooltip(base)).toEqual([
      "agentic-ptb/grok.h042.kd.300",
      "hour 42.13 (mtime, exact)",
      "driver tokens at hour: 1,234,567",
      "role: intermediate",
      "eos: BROKEN (ids 151643)",
      "source: pvc",
    ]);
  });
  it("gives an unrecoverable row's interval with an open side, unknown tokens and eos", () => {
    const row: Row = {
      ...base,
      hour: null,
      hour_source: "unrecoverable",
      hour_lower_bound: null,
      hour_upper_bound: 61.5,
      driver_tokens_at_hour: null,
      eos_ok: null,
      eos_token_id: null,
    };
    expect(checkpointTooltip(row).slice(1, 5)).toEqual([
      "hour null (unrecoverable, between open and 61.50)",
      "driver tokens at hour: unknown",
      "role: intermediate",
      "eos: unknown (ids unknown)",
    ]);
  });
  it("gives an extrapolated row's error", () => {
    const row: Row = { ...base, hour_source: "extrapolated", hour_error_h: 0.4, eos_ok: true, eos_token_id: [1, 2] };
    expect(checkpointTooltip(row)[1]).toBe("hour 42.13 (extrapolated, ± 0.40 h)");
    expect(checkpointTooltip(row)[4]).toBe("eos: ok (ids 1, 2)");
  });
});
