import { describe, expect, it } from "vitest";
import { Diagnostics } from "../src/diagnostics.js";
import { candidateKey } from "../src/resolve/decision.js";
import { eosOf } from "../src/resolve/eos.js";
import { rolesOf } from "../src/resolve/roles.js";
import { obs, published } from "./helpers/resolve-data.js";

describe("roles", () => {
  const ev = (role: string, family: string, step: number, seq: number) =>
    obs("supervisor_role", family, step, null, { seq, detail: { role, path: `${family}/weights/step_${step}` } });

  it("every fallback, then the last submit wins; an event naming no checkpoint warns", () => {
    const events = [
      ev("SUBMITTED", "sft", 2, 3),
      ev("fallback", "sft", 1, 0),
      ev("SUBMITTED", "sft", 1, 1),
      ev("fallback", "x", 9, 2),
    ];
    const diag = new Diagnostics();
    const roles = rolesOf(events, new Set([candidateKey("sft", 1), candidateKey("sft", 2)]), diag);
    expect([...roles.entries()].map(([k, r]) => [k, r.role, r.event.seq])).toEqual([
      [candidateKey("sft", 1), "fallback", 0],
      [candidateKey("x", 9), "fallback", 2],
      [candidateKey("sft", 2), "SUBMITTED", 3],
    ]);
    expect(diag.warnings).toEqual([
      {
        code: "SUPERVISOR_UNKNOWN_CHECKPOINT",
        message: "fallback names x/weights/step_9, which has no row",
        file: "c/supervisor_role",
        line: 3,
      },
    ]);
  });
});

describe("eos", () => {
  it("reads the repo at the row's own id; eos_ok when it holds the required id", () => {
    const own = published("sft", 1, "002", [1, 7]);
    const old = published("sft", 1, "001", [1]);
    const diag = new Diagnostics();
    const e = eosOf("c sft step 1", own.repo.id, [old, own], 7, diag);
    expect([e.pub, e.ids, e.ok]).toEqual([own, [1, 7], true]);
    expect(diag.warnings).toEqual([
      {
        code: "HUB_DUPLICATE_REPO",
        message:
          "2 published repos hold c sft step 1 with different stop ids (agentic-ptb/c.h001.sft.1: [1]; agentic-ptb/c.h002.sft.1: [1,7]); eos is read from agentic-ptb/c.h002.sft.1",
        file: "hub/agentic-ptb/c.h002.sft.1",
        line: null,
      },
    ]);
  });

  it("unknown without a published repo; null with HUB_NO_EOS when no file gives stop ids", () => {
    expect(eosOf("c sft step 1", "agentic-ptb/c.h001.sft.1", [], 7, new Diagnostics())).toEqual({
      pub: undefined,
      ids: null,
      ok: null,
    });
    const diag = new Diagnostics();
    const none = published("sft", 1, "001", null);
    expect(eosOf("c sft step 1", none.repo.id, [none], 7, diag)).toEqual({ pub: none, ids: null, ok: null });
    expect(diag.warnings.map((w) => w.code)).toEqual(["HUB_NO_EOS"]);
    expect(eosOf("c sft step 1", "x", [published("sft", 1, "001", [3])], 7, new Diagnostics()).ok).toBe(false);
  });
});
