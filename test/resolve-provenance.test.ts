import { describe, expect, it } from "vitest";
import { BudgetClock } from "../src/resolve/clock.js";
import { evidenceItem, publishedWhy, rowEvidence, SPARE_WHY } from "../src/resolve/provenance.js";
import { NO_BOUNDS } from "../src/resolve/bounds.js";
import { at, candidate, exactAt, obs, published, spare, T0 } from "./helpers/resolve-data.js";

const clock = new BudgetClock(T0, []);

describe("provenance", () => {
  it("renders an observation with the decision's sentence and typed reject reason", () => {
    const chosen = obs("pvc_stable", "sft", 1, at(2));
    const copy = obs("janitor_archive", "sft", 1, at(12), { detail: { version: "v1" } });
    const d = {
      ...exactAt(2),
      chosen: { observation: chosen, why: "chosen" },
      rejected: [{ observation: copy, reason: "outside_run" as const, why: "outside" }],
    };
    expect(evidenceItem(chosen, clock, d)).toEqual({
      kind: "pvc_stable",
      extractor: "test",
      file: "c/pvc_stable",
      line: 1,
      offset: null,
      raw: "pvc_stable sft 1",
      utc: "2026-01-01T02:00:00.000Z",
      budgetHour: 2,
      timeNote: null,
      timeIs: "write",
      used: true,
      rejected: null,
      why: "chosen",
    });
    const r = evidenceItem(copy, clock, d);
    expect([r.used, r.rejected, r.why, r.timeIs, r.budgetHour]).toEqual([
      false,
      "outside_run",
      "outside",
      "after_write",
      12,
    ]);
    expect(evidenceItem(obs("pvc_weights", "sft", 1, null), clock, d).why).toBe(
      "weight file on the PVC: the checkpoint's weights survive there",
    );
  });

  it("renders Hub repo observations as the hub extractor emits them", () => {
    const s = spare("sft", 1);
    expect(evidenceItem(s, clock, exactAt(2), SPARE_WHY)).toEqual({
      kind: "spare_repo",
      extractor: "hub-files",
      file: "hub/msr-spare/c.sft.step_1/.hub.json",
      line: null,
      offset: null,
      raw: "msr-spare/c.sft.step_1",
      utc: null,
      budgetHour: null,
      timeNote: null,
      timeIs: null,
      used: false,
      rejected: null,
      why: "the archived copy: its weights survive here (existence only; repo dates are never hours)",
    });
    const p = published("sft", 1, "001");
    expect(publishedWhy(p, p.repo.id, 1.5, "sft")).toBe(
      "published repo: eos files read here (names and dates are never hours)",
    );
    expect(publishedWhy(p, "agentic-ptb/c.h002.sft.1", 2, "sft")).toBe(
      "published under h001: a rebuild renames it to agentic-ptb/c.h002.sft.1",
    );
    expect(publishedWhy(p, "agentic-ptb/c.h001.SFT.1", 1, "SFT")).toBe(
      'published as agentic-ptb/c.h001.sft.1 (family name "sft", now "SFT"): a rebuild renames it to agentic-ptb/c.h001.SFT.1',
    );
  });

  it("a row's evidence: its observations and anchors by file and line, then spares, then published repos", () => {
    const stable = obs("pvc_stable", "sft", 1, at(2));
    const anchor = obs("anchor", "sft", 1, at(2));
    const otherAnchor = obs("anchor", "sft", 9, at(2));
    const c = candidate("sft", 1, [stable], { spares: [spare("sft", 1)], published: [published("sft", 1, "002")] });
    const d = { cand: c, time: { ...exactAt(2), chosen: { observation: stable, why: "w" } }, bounds: NO_BOUNDS };
    const ev = rowEvidence(d, {
      modelId: "agentic-ptb/c.h002.sft.1",
      cell: "c",
      source: "/pvc/ptb/c/sft/weights/step_1",
      anchors: [anchor, otherAnchor],
      fit: null,
      tokens: null,
      ledger: null,
      role: undefined,
      eos: { pub: c.published[0], ids: [7], ok: true },
      clock,
      runStartMs: T0,
    });
    expect(ev.evidence.map((e) => e.kind)).toEqual(["anchor", "pvc_stable", "spare_repo", "published_repo"]);
    expect([ev.write_time, ev.bounds, ev.fit, ev.tokens, ev.role]).toEqual([
      "2026-01-01T02:00:00.000Z",
      null,
      null,
      null,
      { role: "intermediate", event: null },
    ]);
    expect(ev.eos).toEqual({
      repo: "agentic-ptb/c.h002.sft.1",
      from: "generation_config.json",
      chatTemplate: null,
      ids: [7],
    });
  });
});
