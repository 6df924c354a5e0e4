import { describe, expect, it, beforeAll, afterAll } from "vitest";
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeMiniSweep, miniCells } from "./helpers/mini-sweep.js";
import { removeTree, lines } from "./helpers/tree.js";
import { runCli } from "./helpers/cli.js";

const roots: string[] = [];
afterAll(async () => Promise.all(roots.map(removeTree)));

describe("explain", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await makeMiniSweep();
    roots.push(dir);
  });

  it("finds a row by its stale Hub id and shows the used and set-aside evidence (JSON)", async () => {
    const r = await runCli("explain", "--sources", dir, "--json", "agentic-ptb/alpha.h010.sft2.300");
    expect(r.code).toBe(0);
    const x = JSON.parse(r.stdout);
    expect(x.row.model_id).toBe("agentic-ptb/alpha.h017.sft2.300");
    expect(x.provenance.evidence.map((e: any) => [e.kind, e.used, e.rejected])).toEqual([
      ["janitor_archive", true, null],
      ["janitor_archive", false, "retry"],
      ["pvc_stable", false, "copy_back"],
      ["pvc_weights", false, null],
      ["published_repo", false, null],
    ]);
    expect(x.provenance.tokens.callsAround.map((c: any) => [c.time, c.counted, c.cumulativeTotal])).toEqual([
      // alpha's second session: one token a call, every 45 minutes (the row is written at 19:10Z).
      ["2026-10-01T17:00:00.000Z", true, 3320],
      ["2026-10-01T17:45:00.000Z", true, 3321],
      ["2026-10-01T18:30:00.000Z", true, 3322],
      ["2026-10-01T19:15:00.000Z", false, 3323],
      ["2026-10-01T20:00:00.000Z", false, 3324],
    ]);
  });

  it("says which warning made a row's tokens null: alpha's logs without their second session miss hours of calls", async () => {
    const gapped = await makeMiniSweep({
      "alpha/trajectory/sessions/2026/10/01/rollout-2026-10-01T00-15-00-0001.jsonl": null,
    });
    roots.push(gapped);
    const text = await runCli("explain", "--sources", gapped, "alpha/sft2/300");
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      "Driver tokens: null (unknown), after the build's warning(s) on the cell's trajectory:\n" +
        "  TRAJECTORY_GAP_BEFORE_CHECKPOINT at alpha/trajectory/sessions/2026/10/01/rollout-2026-10-01T00-00-00-0000.jsonl:2: " +
        "the trajectory has no placed call for 4.00 budget hours, from run_start 2026-10-01T00:00:00.000Z to the call at 2026-10-01T04:00:00.000Z (budget hour 4.00), " +
        "and 10 row(s) lie in it or after it,",
    );
    const json = JSON.parse((await runCli("explain", "--sources", gapped, "--json", "alpha/sft2/300")).stdout);
    expect(json.tokensUnknownBecause.map((w: { code: string }) => w.code)).toEqual([
      "TRAJECTORY_GAP_BEFORE_CHECKPOINT",
    ]);
    // A row with its tokens (the whole mini sweep's) has no such list.
    const counted = JSON.parse((await runCli("explain", "--sources", dir, "--json", "alpha/sft2/100")).stdout);
    expect(counted.row.driver_tokens_at_hour).toBe(1107);
    expect(counted.tokensUnknownBecause).toBeUndefined();
  });

  it("says why a row's eos is unknown: the build's HUB_NO_EOS of its repo (a broken generation_config.json)", async () => {
    const broken = await makeMiniSweep({ "hub/agentic-ptb/alpha.h005.sft2.100/generation_config.json": "{" });
    roots.push(broken);
    const json = JSON.parse((await runCli("explain", "--sources", broken, "--json", "alpha/sft2/100")).stdout);
    expect([json.row.eos_ok, json.row.eos_token_id]).toEqual([null, null]);
    expect(json.eosUnknownBecause.map((w: { code: string; file: string }) => [w.code, w.file])).toEqual([
      ["HUB_NO_EOS", "hub/agentic-ptb/alpha.h005.sft2.100"],
    ]);
    const text = await runCli("explain", "--sources", broken, "alpha/sft2/100");
    expect(text.stdout).toMatch(
      /\neos: read from agentic-ptb\/alpha\.h005\.sft2\.100, unknown \(HUB_NO_EOS: agentic-ptb\/alpha\.h005\.sft2\.100: generation_config\.json [^\n]*eos_ok is unknown \(null\)\): null; chat template in /,
    );
    // A row whose stop ids were read has no such list, and says which file gave them.
    const read = JSON.parse((await runCli("explain", "--sources", dir, "--json", "alpha/sft2/100")).stdout);
    expect(read.eosUnknownBecause).toBeUndefined();
    expect((await runCli("explain", "--sources", dir, "alpha/sft2/100")).stdout).toContain(
      "eos: read from agentic-ptb/alpha.h005.sft2.100, generation_config.json: [248044,248046]",
    );
  });

  it("explains an extrapolated row by cell/family/step with its fit and bounds (text)", async () => {
    const r = await runCli("explain", "--sources", dir, "alpha/grpo/5");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("agentic-ptb/alpha.h038.grpo.5\n  (asked as alpha/grpo/5)");
    expect(r.stdout).toContain("Cadence fit of family grpo: 120.000 min/step, hour(step 0) 28.00");
    expect(r.stdout).toContain("anchor step 5: anchor h 38.50, predicted h 38.00, residual -0.50 h");
    expect(r.stdout).toContain("lower 36.00 (step 4, the latest exactly timed lower step)");
  });

  it("explains an hNA row and the baseline; a lost checkpoint is a clear error", async () => {
    expect((await runCli("explain", "--sources", dir, "agentic-ptb/alpha.hNA.sft3.20")).stdout).toContain(
      "upper 28.00 (step 30, the earliest exactly timed higher step)",
    );
    expect((await runCli("explain", "--sources", dir, "Qwen/Qwen3.5-9B-Base")).stdout).toContain(
      "eos read from Qwen/Qwen3.5-9B-Base: generation_config.json",
    );
    const lost = await runCli("explain", "--sources", dir, "alpha/sft2/400");
    expect(lost.code).toBe(1);
    expect(lost.stderr).toContain('error EXPLAIN_NOT_FOUND: no row for "alpha/sft2/400" (lost: seen in janitor_other');
  });
});

describe("validate", () => {
  it("passes on the mini sweep with the exact report (JSON)", async () => {
    const dir = await makeMiniSweep();
    roots.push(dir);
    const r = await runCli("validate", "--sources", dir, "--json");
    expect(r.code).toBe(0);
    const v = JSON.parse(r.stdout);
    expect(v.ok).toBe(true);
    expect(
      v.families.map((f: any) => [
        f.cell,
        f.family,
        f.points,
        f.fit?.slope_min_per_step ?? null,
        f.fit?.validated ?? null,
      ]),
    ).toEqual([
      ["alpha", "grpo", 4, 120, true],
      ["alpha", "sft2", 3, expect.any(Number), false],
      ["alpha", "sft3", 2, null, null],
      ["beta", "a", 2, null, null],
    ]);
    expect(v.anchors).toEqual([
      {
        cell: "alpha",
        family: "grpo",
        step: 5,
        anchor_hour: 38.5,
        row_hour: 38,
        hour_source: "extrapolated",
        residual_h: -0.5,
        miss: false,
        file: "alpha/anchors.tsv",
        line: 2,
      },
    ]);
    expect(v.conflicts).toEqual([]);
    expect(v.step_order).toEqual([]);
  });

  it("fails (exit 1) on an anchor miss, a source conflict and a step-order contradiction", async () => {
    const dir = await makeMiniSweep({
      "alpha/anchors.tsv": lines(
        "family\tstep\ttime\tkind\tnote",
        "sft2\t100\t2026-10-01T09:00:00+00:00\tlocal-copy\tx",
      ),
    });
    roots.push(dir);
    // sft2 step 200 archived with a src_mtime inside the pause (budget h 10, 2 h before its STABLE mtime); grpo step 4 written before step 3.
    const log = lines(
      `2026-10-01T15:00:00.000+00:00 level=info action=archive family=sft2 step=200 src_mtime=${Date.parse("2026-10-01T11:00:00Z") / 1000} dest=msr-spare/alpha.sft2.step_200`,
      "2026-10-01 19:10:00 archived /pvc/ptb/alpha/sft2/weights/step_300 -> msr-spare/alpha.sft2.step_300",
    );
    await writeFile(`${dir}/alpha/janitor/ckpt-janitor.log`, log);
    const listing = (await import("node:fs/promises")).readFile(`${dir}/alpha/pvc/listing.tsv`, "utf8");
    await writeFile(
      `${dir}/alpha/pvc/listing.tsv`,
      (await listing).replace(
        `${Date.parse("2026-10-02T14:00:00Z") / 1000}`,
        `${Date.parse("2026-10-02T11:00:00Z") / 1000}`,
      ),
    );
    const r = await runCli("validate", "--sources", dir, "--json");
    expect(r.code).toBe(1);
    const v = JSON.parse(r.stdout);
    expect(v.ok).toBe(false);
    expect(v.anchors.map((a: any) => [a.family, a.step, a.residual_h, a.miss])).toEqual([["sft2", 100, -4, true]]);
    expect(v.conflicts.map((c: any) => [c.model_id, c.kind, c.diff_h])).toEqual([
      ["agentic-ptb/alpha.h012.sft2.200", "janitor_archive", -2],
    ]);
    expect(v.step_order).toEqual([
      { cell: "alpha", family: "grpo", lower_step: 3, lower_hour: 34, higher_step: 4, higher_hour: 33 },
    ]);
  });
});

describe("diff", () => {
  it("lists added, removed, changed and the rename plan from the Hub snapshot to a build, in order (JSON)", async () => {
    const dir = await makeMiniSweep();
    roots.push(dir, `${dir}-out`);
    expect((await runCli("build", "--sources", dir, "--out", `${dir}-out`, "--quiet")).code).toBe(0);
    const r = await runCli("diff", dir, `${dir}-out/manifest.json`, "--json");
    expect(r.code).toBe(1); // the sides differ, as diff(1)
    const d = JSON.parse(r.stdout);
    expect(d.renames).toEqual([{ from: "agentic-ptb/alpha.h010.sft2.300", to: "agentic-ptb/alpha.h017.sft2.300" }]);
    expect(d.removed).toEqual(["agentic-ptb/gamma.h001.x.1"]);
    expect(d.added).toEqual([
      "agentic-ptb/alpha.h022.sft3.10",
      "agentic-ptb/alpha.h028.sft3.30",
      "agentic-ptb/alpha.h030.grpo.1",
      "agentic-ptb/alpha.h032.grpo.2",
      "agentic-ptb/alpha.h034.grpo.3",
      "agentic-ptb/alpha.h036.grpo.4",
      "agentic-ptb/alpha.h038.grpo.5",
      "agentic-ptb/beta.h020.a.1",
      "agentic-ptb/beta.h021.a.2",
    ]);
  });

  it("compares two manifests field by field (CSV against JSON agree; an edited row shows its fields)", async () => {
    const dir = await makeMiniSweep();
    roots.push(dir, `${dir}-out`);
    await runCli("build", "--sources", dir, "--out", `${dir}-out`, "--quiet");
    const sameRun = await runCli("diff", `${dir}-out/manifest.csv`, `${dir}-out/manifest.csv`, "--json");
    expect(sameRun.code).toBe(0);
    const same = JSON.parse(sameRun.stdout);
    expect([same.added, same.removed, same.changed, same.renames]).toEqual([[], [], [], []]);
    // The CSV is typed back by the row schema: a build's JSON and its CSV agree (test/diff-input.test.ts has more).
    const jsonCsv = JSON.parse((await runCli("diff", `${dir}-out`, `${dir}-out/manifest.csv`, "--json")).stdout);
    expect([jsonCsv.added, jsonCsv.removed, jsonCsv.changed, jsonCsv.renames]).toEqual([[], [], [], []]);
    const fs = await import("node:fs/promises");
    const rows = JSON.parse(await fs.readFile(`${dir}-out/manifest.json`, "utf8"));
    rows[1].hour = 6.5;
    rows[1].model_id = "agentic-ptb/alpha.h006.sft2.100";
    await fs.writeFile(`${dir}-out/edited.json`, JSON.stringify(rows));
    const edited = await runCli("diff", `${dir}-out/manifest.json`, `${dir}-out/edited.json`, "--json");
    expect({ code: edited.code, stderr: edited.stderr }).toEqual({ code: 1, stderr: "" });
    const d = JSON.parse(edited.stdout);
    expect(d.changed).toEqual([
      {
        key: "alpha/sft2/100",
        model_id: "agentic-ptb/alpha.h006.sft2.100",
        fields: {
          model_id: { old: "agentic-ptb/alpha.h005.sft2.100", new: "agentic-ptb/alpha.h006.sft2.100" },
          hour: { old: 5, new: 6.5 },
        },
      },
    ]);
    expect(d.renames).toEqual([{ from: "agentic-ptb/alpha.h005.sft2.100", to: "agentic-ptb/alpha.h006.sft2.100" }]);
    void miniCells;
  });

  it("exit codes as diff(1): 0 equal, 1 differ (text and JSON alike, a rename included), 2 a side that is not a manifest", async () => {
    const dir = await makeMiniSweep();
    roots.push(dir, `${dir}-out`);
    await runCli("build", "--sources", dir, "--out", `${dir}-out`, "--quiet");
    const m = `${dir}-out/manifest.json`;
    expect(await runCli("diff", m, m)).toEqual({
      code: 0,
      stdout: `diff ${m} → ${m}\nadded (0):\nremoved (0):\nchanged (0):\nrenames (0):\n`,
      stderr: "",
    });
    const ids = await readFile(`${dir}-out/model-ids.txt`, "utf8");
    await writeFile(
      `${dir}-out/renamed.txt`,
      ids.replace("agentic-ptb/alpha.h005.sft2.100", "agentic-ptb/alpha.h009.sft2.100"),
    );
    const renamed = await runCli("diff", `${dir}-out/model-ids.txt`, `${dir}-out/renamed.txt`);
    expect({ code: renamed.code, stderr: renamed.stderr }).toEqual({ code: 1, stderr: "" });
    expect(renamed.stdout).toContain(
      "renames (1):\n  agentic-ptb/alpha.h005.sft2.100 → agentic-ptb/alpha.h009.sft2.100\n",
    );
    expect((await runCli("diff", m, `${dir}-out/renamed.txt`, "--json")).code).toBe(1);
    expect(await runCli("diff", m, `${dir}-out/missing.json`)).toEqual({
      code: 2,
      stdout: "",
      stderr: `ptb-manifest: error DIFF_INPUT at ${dir}-out/missing.json: no such file or folder: ${dir}-out/missing.json\n`,
    });
  });
});

describe("validate of a build whose inputs changed since", () => {
  it("fails (a stale build is no release), saying so; a change to a file no reader reads (RUNLOG.md) does not count", async () => {
    const dir = await makeMiniSweep();
    roots.push(dir);
    const out = join(dir, "..", `${dir.split("/").pop()}-out`);
    roots.push(out);
    expect((await runCli("build", "--sources", dir, "--out", out, "-q", "--no-cache")).code).toBe(0);
    await writeFile(join(dir, "RUNLOG.md"), "a note\n");
    const notes = await runCli("validate", "--out", out);
    expect([notes.code, notes.stdout.trim().split("\n").at(-1)]).toEqual([0, "validate: PASS"]);
    const history = join(dir, "alpha/supervisor/history.jsonl");
    await writeFile(
      history,
      (await readFile(history, "utf8")).replace('"event":"resume"', '"event":"resume","note":"x"'),
    );
    const r = await runCli("validate", "--out", out);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("CHANGED since that build (1 changed: alpha/supervisor/history.jsonl");
    expect(r.stdout.trim().split("\n").at(-1)).toBe(
      "validate: FAIL (0 anchor misses, 0 conflicts, 0 step-order contradictions; the inputs changed since that build: rebuild, then validate)",
    );
    const json = JSON.parse((await runCli("validate", "--out", out, "--json")).stdout);
    expect([json.ok, json.inputs_changed]).toEqual([false, true]);
  });
});

describe("validate and a bad anchor (found by a new user)", () => {
  it("misses even when the anchor made its own row unrecoverable", async () => {
    const dir = await makeMiniSweep({
      "alpha/anchors.tsv": lines(
        "family\tstep\ttime\tkind\tnote",
        "grpo\t5\t2026-10-03T06:00:00+00:00\teval-log\tfar off",
      ),
    });
    roots.push(dir);
    const r = await runCli("validate", "--sources", dir, "--json");
    expect(r.code).toBe(1);
    const v = JSON.parse(r.stdout);
    expect(v.anchors.map((a: any) => [a.family, a.step, a.row_hour, a.hour_source, a.residual_h, a.miss])).toEqual([
      ["grpo", 5, null, "unrecoverable", -14, true],
    ]);
  });
});

describe("explain and validate with no build in --out and no sources folder (found by a new user)", () => {
  it("say that --out was looked in first, not only that sources/ is missing", async () => {
    const { describedResult } = await import("../src/pipeline/last-build.js");
    const none = join(tmpdir(), `ptb-none-${process.pid}`);
    await expect(
      describedResult({
        out: join(none, "out"),
        sources: join(none, "sources"),
        sourcesGiven: false,
        toleranceH: 1.5,
        outlierFloorH: 1.5,
      }),
    ).rejects.toMatchObject({
      code: "SOURCES_NOT_FOUND",
      message: expect.stringMatching(
        /^no build in --out .*ptb-none-\d+\/out \(no build-report\.json\), and nothing to derive one from now: no such folder: /,
      ),
    });
  });
});
