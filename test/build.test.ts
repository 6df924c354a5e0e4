import { describe, expect, it, afterAll, beforeAll } from "vitest";
import { readFile, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { buildManifest } from "../src/build.js";
import type { Row } from "../src/schema.js";
import { runCli } from "./helpers/cli.js";
import { miniCells, makeMiniSweep } from "./helpers/mini-sweep.js";
import { removeTree, lines } from "./helpers/tree.js";

const roots: string[] = [];
afterAll(async () => Promise.all(roots.map(removeTree)));

async function sweep(overrides: Record<string, string | null> = {}): Promise<string> {
  const dir = await makeMiniSweep(overrides);
  roots.push(dir);
  return dir;
}

const cli = runCli;

const alpha = { cell: "alpha", driver: "Codex / gpt-x", effort: "high" };
const beta = { cell: "beta", driver: "Codex / gpt-x", effort: "max" };
const row = (o: Partial<Row>): Row => ({
  hour_upper_bound: null, role: "intermediate", eos_ok: null, eos_token_id: null, hour_lower_bound: null, hour_error_h: null, ...o,
}) as Row;

/** Every row of the mini sweep, worked out by hand from test/helpers/mini-sweep.ts. */
const EXPECTED_ROWS: Row[] = [
  {
    model_id: "Qwen/Qwen3.5-9B-Base", cell: "BASELINE", driver: null, effort: null, hour: 0, hour_source: "baseline",
    hour_upper_bound: null, driver_tokens_at_hour: 0, role: "baseline", eos_ok: true, eos_token_id: [248044, 248046],
    source: "Qwen/Qwen3.5-9B-Base", family: null, step: null, hour_lower_bound: null, hour_error_h: null,
  },
  // STABLE at 05:00Z, before the pause: hour 5. Submitted first, then replaced by a later submit; still a fallback.
  row({ model_id: "agentic-ptb/alpha.h005.sft2.100", ...alpha, hour: 5, hour_source: "mtime", driver_tokens_at_hour: 1100, role: "fallback", eos_ok: true, eos_token_id: [248044, 248046], source: "/pvc/ptb/alpha/sft2/weights/step_100", family: "sft2", step: 100 }),
  // STABLE at 14:00Z less the 2 h pause; its directory mtime moved to the next day by pruning; eos from config.json top level.
  row({ model_id: "agentic-ptb/alpha.h012.sft2.200", ...alpha, hour: 12, hour_source: "mtime", driver_tokens_at_hour: 3300, eos_ok: false, eos_token_id: [248044], source: "/pvc/ptb/alpha/sft2/weights/step_200", family: "sft2", step: 200 }),
  // Copy-back mtime after run_end: the first of two v1 archive lines, 19:10Z (17 h 10 min of budget).
  row({ model_id: "agentic-ptb/alpha.h017.sft2.300", ...alpha, hour: 17.17, hour_source: "janitor", driver_tokens_at_hour: 3300, eos_ok: true, eos_token_id: [248044, 248046], source: "/pvc/ptb/alpha/sft2/weights/step_300", family: "sft2", step: 300 }),
  row({ model_id: "agentic-ptb/alpha.h022.sft3.10", ...alpha, hour: 22, hour_source: "mtime", driver_tokens_at_hour: 3300, source: "/pvc/ptb/alpha/sft 3/weights/step_10", family: "sft3", step: 10 }),
  row({ model_id: "agentic-ptb/alpha.h028.sft3.30", ...alpha, hour: 28, hour_source: "mtime", driver_tokens_at_hour: 3300, source: "/pvc/ptb/alpha/sft 3/weights/step_30", family: "sft3", step: 30 }),
  ...[1, 2, 3, 4].map((s) =>
    row({ model_id: `agentic-ptb/alpha.h0${28 + 2 * s}.grpo.${s}`, ...alpha, hour: 28 + 2 * s, hour_source: "mtime", driver_tokens_at_hour: 6600, source: `/pvc/ptb/alpha/runs/grpo/weights/step_${s}`, family: "grpo", step: s }),
  ),
  // Spare repo only: the cadence (2 h/step) predicts 38 h; the anchor says 38.5 h: error bound 0.5 h.
  row({ model_id: "agentic-ptb/alpha.h038.grpo.5", ...alpha, hour: 38, hour_source: "extrapolated", driver_tokens_at_hour: 6600, source: "msr-spare/alpha.grpo.step_5", family: "grpo", step: 5, hour_lower_bound: 36, hour_error_h: 0.5 }),
  // Known from a published hNA repo and a submit event only.
  row({ model_id: "agentic-ptb/alpha.hNA.sft3.20", ...alpha, hour: null, hour_source: "unrecoverable", hour_upper_bound: 28, driver_tokens_at_hour: null, role: "SUBMITTED", eos_ok: true, eos_token_id: [248046], source: "agentic-ptb/alpha.hNA.sft3.20", family: "sft3", step: 20, hour_lower_bound: 22 }),
  row({ model_id: "agentic-ptb/beta.h020.a.1", ...beta, hour: 20.75, hour_source: "mtime", driver_tokens_at_hour: 0, source: "/pvc/ptb/beta/a/weights/step_1", family: "a", step: 1 }),
  // 01:30 Los Angeles after a line at 01:50: the second occurrence, 09:30Z.
  row({ model_id: "agentic-ptb/beta.h021.a.2", ...beta, hour: 21.5, hour_source: "janitor", driver_tokens_at_hour: 0, source: "/pvc/ptb/beta/a/weights/step_2", family: "a", step: 2 }),
];

describe("build on a hand-checked mini sweep", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await sweep();
  });

  it("gives exactly the expected rows, in order", async () => {
    const result = await buildManifest({ sourcesDir: dir });
    expect(result.rows).toEqual(EXPECTED_ROWS);
    expect(result.excluded).toEqual([{ cell: "gamma", reason: "aborted rerun" }]);
    expect(result.lost).toEqual([{ cell: "alpha", family: "sft2", step: 400, seen_in: ["janitor_other"] }]);
  });

  it("records every warning with its code, file and line", async () => {
    const result = await buildManifest({ sourcesDir: dir });
    expect(result.warnings.map((w) => [w.code, w.file, w.line])).toEqual([
      ["PVC_CUT_LINE", "alpha/pvc/listing.tsv", 23],
      ["JANITOR_UNPARSED_LINE", "alpha/janitor/ckpt-janitor.log", 7],
      ["CHECKPOINT_LOST", null, null],
      ["PVC_MTIME_AFTER_RUN_END", "alpha/pvc/listing.tsv", 8],
      ["TRAJECTORY_NO_FILES", "beta/trajectory", null],
    ]);
  });

  it("writes the nine files; JSON and CSV agree; a second build is byte-identical", async () => {
    const out1 = join(dir, "..", `${dir.split("/").pop()}-out1`);
    const out2 = join(dir, "..", `${dir.split("/").pop()}-out2`);
    roots.push(out1, out2);
    const r1 = await cli("build", "--sources", dir, "--out", out1, "--quiet");
    expect(r1.code).toBe(0);
    expect(r1.stdout).toContain("| `alpha` | Codex / gpt-x | high | 11 | 3/11 |");
    expect(r1.stdout).toContain("| `extrapolated` | 1 |");
    expect(r1.stdout).toContain("warnings: 5");
    expect((await readdir(out1)).sort()).toEqual(["README.md", "build-report.json", "datapackage.json", "manifest.csv", "manifest.json", "manifest.schema.json", "model-ids.txt", "provenance.jsonl", "report.html"]);
    const json = JSON.parse(await readFile(join(out1, "manifest.json"), "utf8"));
    expect(json).toEqual(EXPECTED_ROWS);
    expect(Object.keys(json[1])).toEqual([
      "model_id", "cell", "driver", "effort", "hour", "hour_source", "hour_upper_bound", "driver_tokens_at_hour", "role",
      "eos_ok", "eos_token_id", "source", "family", "step", "hour_lower_bound", "hour_error_h",
    ]);
    const csvText = await readFile(join(out1, "manifest.csv"), "utf8");
    expect(csvText.split("\n")[0]).toBe(
      "model_id,cell,driver,effort,hour,hour_source,hour_upper_bound,driver_tokens_at_hour,role,eos_ok,eos_token_id,source,family,step,hour_lower_bound,hour_error_h",
    );
    expect(csvText).not.toContain("\r");
    expect(csvText.split("\n")[1]).toBe(
      'Qwen/Qwen3.5-9B-Base,BASELINE,,,0,baseline,,0,baseline,true,"[248044,248046]",Qwen/Qwen3.5-9B-Base,,,,',
    );
    const records = parse(csvText, { columns: true }) as Record<string, string>[];
    expect(records.length).toBe(json.length);
    records.forEach((rec, i) => {
      for (const [k, v] of Object.entries(json[i] as Record<string, unknown>)) {
        const expected = v === null ? "" : Array.isArray(v) ? JSON.stringify(v) : String(v);
        expect(rec[k]).toBe(expected);
      }
    });
    expect(await readFile(join(out1, "model-ids.txt"), "utf8")).toBe(EXPECTED_ROWS.map((r) => `${r.model_id}\n`).join(""));
    const prov = (await readFile(join(out1, "provenance.jsonl"), "utf8")).trim().split("\n").map((l) => JSON.parse(l));
    expect(prov.map((p) => p.model_id)).toEqual(EXPECTED_ROWS.map((r) => r.model_id));
    const p300 = prov.find((p) => p.model_id === "agentic-ptb/alpha.h017.sft2.300");
    expect(p300.rule).toMatch(/^janitor: first archive line, v1 action time/);
    expect(p300.evidence.map((e: any) => [e.kind, e.line, e.used])).toEqual([
      ["janitor_archive", 3, true],
      ["janitor_archive", 4, false],
      ["pvc_stable", 8, false],
      ["pvc_weights", 9, false],
      ["published_repo", null, false],
    ]);
    const report = JSON.parse(await readFile(join(out1, "build-report.json"), "utf8"));
    expect(report.counts.per_hour_source).toEqual({ mtime: 9, janitor: 2, extrapolated: 1, unrecoverable: 1 });
    expect(report.warnings).toHaveLength(5);
    expect(report.inputs["cells.json"]).toMatch(/^[0-9a-f]{64}$/);

    const r2 = await cli("build", "--sources", dir, "--out", out2, "--quiet");
    expect(r2.code).toBe(0);
    for (const f of ["manifest.json", "manifest.csv", "model-ids.txt", "provenance.jsonl", "report.html", "README.md", "datapackage.json", "manifest.schema.json"]) {
      expect(await readFile(join(out2, f), "utf8")).toBe(await readFile(join(out1, f), "utf8"));
    }
    const rep2 = JSON.parse(await readFile(join(out2, "build-report.json"), "utf8"));
    expect({ ...rep2, arguments: null }).toEqual({ ...report, arguments: null });
  });

  it("--strict turns warnings into exit code 2 and writes nothing", async () => {
    const out = `${dir}-strict`;
    roots.push(out);
    const r = await cli("build", "--sources", dir, "--out", out, "--strict", "--quiet");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--strict: 5 warning(s); nothing written");
    await expect(stat(out)).rejects.toThrow();
  });
});

describe("fatal input errors write nothing", () => {
  const cases: [string, Record<string, string | null>, string, RegExp][] = [
    ["an unknown key in cells.json", { "cells.json": miniCells((c) => (c.cells[0].janitor_zone = "UTC")) }, "CELLS_UNKNOWN_KEY", /unknown key "janitor_zone" in cells\[0\] \("alpha"\)/],
    ["a wrong type in cells.json", { "cells.json": miniCells((c) => (c.cells[1].plotted = "no")) }, "CELLS_INVALID", /cells\[1\] \("beta"\)\.plotted/],
    ["an invalid janitor_tz", { "cells.json": miniCells((c) => (c.cells[0].janitor_tz = "Mars/Olympus")) }, "CELLS_BAD_TIME_ZONE", /"Mars\/Olympus"/],
    ["an invalid family name without alias", { "cells.json": miniCells((c) => delete c.cells[0].family_aliases) }, "FAMILY_INVALID_NAME", /family directory "sft 3" contains " "/],
    ["a missing run_start", { "beta/supervisor/history.jsonl": lines('{"ts":"2026-10-31T12:00:00Z","event":"resume"}') }, "SUPERVISOR_NO_RUN_START", /cell "beta" has no run_start/],
    ["two checkpoints with one id", { "cells.json": miniCells((c) => (c.cells[0].family_aliases = { "sft 3": "sft3", grpo: "sft3" })), "alpha/pvc/listing.tsv": `${(Date.parse("2026-10-02T00:00:00Z") / 1000).toFixed(3)}\tf\t0\t/pvc/ptb/alpha/runs/grpo/weights/step_10/STABLE\n${(Date.parse("2026-10-02T00:00:00Z") / 1000).toFixed(3)}\tf\t9\t/pvc/ptb/alpha/runs/grpo/weights/step_10/m.safetensors\n${(Date.parse("2026-10-02T00:00:00Z") / 1000).toFixed(3)}\tf\t0\t/pvc/ptb/alpha/sft 3/weights/step_10/STABLE\n` }, "DUPLICATE_CHECKPOINT", /"runs\/grpo" and "sft 3" both give family "sft3" step 10/],
  ];
  for (const [name, overrides, code, message] of cases) {
    it(`${name}: ${code}, exit 1`, async () => {
      const dir = await sweep(overrides);
      const out = `${dir}-out`;
      roots.push(out);
      const r = await cli("build", "--sources", dir, "--out", out, "--quiet");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`error ${code}`);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe("");
      await expect(stat(out)).rejects.toThrow();
    });
  }
});
