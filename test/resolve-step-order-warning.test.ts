import { describe, expect, it } from "vitest";
import { Diagnostics } from "../src/diagnostics.js";
import { warnStepOrder } from "../src/resolve/step-order.js";

describe("FAMILY_STEP_ORDER warning", () => {
  it("warns once per family whose exact hours contradict the steps, at the first offending higher step", () => {
    const at = (line: number) => ({ file: "c/pvc/listing.txt", line, offset: null, raw: "" });
    const diag = new Diagnostics();
    warnStepOrder(
      "c",
      [
        { family: "sft", step: 100, hour: 5, at: at(1) },
        { family: "sft", step: 200, hour: 2, at: at(2) },
        { family: "sft", step: 300, hour: null, at: null },
        { family: "dpo", step: 1, hour: 1, at: at(3) },
        { family: "dpo", step: 2, hour: 3, at: at(4) },
      ],
      diag,
    );
    expect(diag.warnings).toEqual([
      {
        code: "FAMILY_STEP_ORDER",
        message:
          'cell "c" family "sft": 1 exactly timed checkpoint(s) written before a lower step (step 100 at h 5 but step 200 at h 2): one training run writes in step order, so these look like two runs merged (check family_aliases) or a wrong time',
        file: "c/pvc/listing.txt",
        line: 2,
      },
    ]);
  });
});
