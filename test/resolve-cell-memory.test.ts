import { describe, expect, it } from "vitest";
import { Diagnostics } from "../src/diagnostics.js";
import { hubRepoObservation, parsePublishedName, parseSpareName } from "../src/extractors/hub-files.js";
import { resolveCell } from "../src/resolve/resolve-cell.js";
import { at, cell, obs, published, registry, repo, spare, supervisor } from "./helpers/resolve-data.js";

describe("hub extractor observations", () => {
  it("emits published_repo and spare_repo observations from parsed repo names", () => {
    const r = repo("agentic-ptb/c.h004.sft.100");
    const p = parsePublishedName(r.name, ["c"])!;
    expect(hubRepoObservation("published_repo", r, p)).toEqual({
      cell: "c",
      family: "sft",
      step: 100,
      kind: "published_repo",
      familyDir: null,
      utcMs: null,
      timeNote: null,
      origin: { file: "hub/agentic-ptb/c.h004.sft.100/.hub.json", line: null, offset: null, raw: r.id },
      extractor: "hub-files",
      detail: { repo: r.id, hourPart: "004" },
      seq: 0,
      repo: r,
    });
    const s = repo("msr-spare/c.sft.step_100");
    const o = hubRepoObservation("spare_repo", s, parseSpareName(s.name, ["c"])!);
    expect([o.kind, o.family, o.step, o.detail]).toEqual(["spare_repo", "sft", 100, { repo: s.id, hourPart: null }]);
  });
});

describe("resolveCell on in-memory data", () => {
  it("runs every step: exact, janitor, extrapolated, lost; roles; eos; provenance", () => {
    const o = (kind: Parameters<typeof obs>[0], step: number, h: number | null, seq: number) =>
      obs(kind, "sft", step, h === null ? null : at(h), { seq });
    const observations = [
      o("pvc_stable", 100, 1, 0),
      o("pvc_weights", 100, null, 1),
      o("pvc_stable", 200, 2, 2),
      o("pvc_weights", 200, null, 3),
      o("pvc_stable", 400, 4, 4),
      o("pvc_weights", 400, null, 5),
      o("janitor_archive", 300, 3.25, 6),
      o("janitor_archive", 500, 20, 7),
      o("anchor", 250, 2.5, 8),
    ];
    const submit = obs("supervisor_role", "sft", 400, null, {
      seq: 9,
      detail: { role: "SUBMITTED", path: "sft/weights/step_400" },
    });
    const diag = new Diagnostics();
    const res = resolveCell(
      {
        registry,
        cell,
        supervisor: supervisor(10, [], [submit]),
        observations,
        published: [published("sft", 400, "004")],
        spares: [spare("sft", 250), spare("sft", 300)],
        tokens: null,
      },
      diag,
    );
    expect(res.rows.map((r) => [r.model_id, r.hour, r.hour_source, r.role, r.eos_ok, r.source])).toEqual([
      ["agentic-ptb/c.h001.sft.100", 1, "mtime", "intermediate", null, "/pvc/ptb/c/sft/weights/step_100"],
      ["agentic-ptb/c.h002.sft.200", 2, "mtime", "intermediate", null, "/pvc/ptb/c/sft/weights/step_200"],
      // OLS on (100, 1), (200, 2), (300, 3.25), (400, 4): hour = 0.01025 step, 2.5625 at step 250.
      ["agentic-ptb/c.h002.sft.250", 2.56, "extrapolated", "intermediate", null, "msr-spare/c.sft.step_250"],
      ["agentic-ptb/c.h003.sft.300", 3.25, "janitor", "intermediate", null, "/pvc/ptb/c/sft/weights/step_300"],
      ["agentic-ptb/c.h004.sft.400", 4, "mtime", "SUBMITTED", true, "/pvc/ptb/c/sft/weights/step_400"],
    ]);
    expect(res.lost).toEqual([{ cell: "c", family: "sft", step: 500, seen_in: ["janitor_archive"] }]);
    expect(diag.warnings.map((w) => w.code)).toEqual(["CHECKPOINT_LOST"]);
    expect([res.runStart, res.runEnd, res.runEndFrom]).toEqual([
      "2026-01-01T00:00:00.000Z",
      "2026-01-01T10:00:00.000Z",
      "run_end",
    ]);
    expect(res.fits.sft!.used).toEqual([100, 200, 300, 400]);
    const ev = res.evidence[2]!;
    expect([ev.rule.startsWith("extrapolated: cadence fit of family sft on 4 exact points"), ev.bounds]).toEqual([
      true,
      { lower: 2, lowerFrom: 200, upper: 3.25, upperFrom: 300 },
    ]);
    expect(ev.evidence.map((e) => [e.kind, e.used, e.rejected])).toEqual([
      ["anchor", false, null],
      ["spare_repo", false, null],
    ]);
    expect(res.evidence[4]!.role.event?.line).toBe(10);
    expect(res.evidence[4]!.evidence.at(-1)!.why).toBe(
      "published repo: eos files read here (names and dates are never hours)",
    );
  });
});
