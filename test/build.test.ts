import { describe, expect, it, afterAll, beforeAll } from "vitest";
import { readFile, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { buildManifest } from "../src/pipeline/build-manifest.js";
import { summarise } from "../src/pipeline/build-summary.js";
import { runCli } from "./helpers/cli.js";
import { miniCells, makeMiniSweep } from "./helpers/mini-sweep.js";
import { removeTree, lines } from "./helpers/tree.js";
import { EXPECTED_LOST, EXPECTED_ROWS, EXPECTED_WARNINGS } from "./helpers/mini-sweep-expected.js";

const roots: string[] = [];
afterAll(async () => Promise.all(roots.map(removeTree)));

async function sweep(overrides: Record<string, string | null> = {}): Promise<string> {
  const dir = await makeMiniSweep(overrides);
  roots.push(dir);
  return dir;
}

const cli = runCli;

describe("build on a hand-checked mini sweep", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await sweep();
  });

  it("gives exactly the expected rows, in order", async () => {
    const result = await buildManifest({ sourcesDir: dir });
    expect(result.rows).toEqual(EXPECTED_ROWS);
    expect(result.excluded).toEqual([{ cell: "gamma", reason: "aborted rerun" }]);
    expect(result.lost).toEqual(EXPECTED_LOST);
  });

  it("the summary names --out with one slash, however it was given", async () => {
    const result = await buildManifest({ sourcesDir: dir });
    const first = (out: string) => summarise(result, out).split("\n")[0];
    const names =
      "manifest.json, manifest.csv, model-ids.txt, provenance.jsonl, build-report.json, report.html, README.md, datapackage.json, manifest.schema.json";
    expect([first("o2"), first("o2/"), first("o2//"), first("/")]).toEqual([
      `wrote o2/: ${names}`,
      `wrote o2/: ${names}`,
      `wrote o2/: ${names}`,
      `wrote /: ${names}`,
    ]);
  });

  it("records every warning with its code, file and line", async () => {
    const result = await buildManifest({ sourcesDir: dir });
    expect(result.warnings.map((w) => [w.code, w.file, w.line])).toEqual(EXPECTED_WARNINGS);
  });

  it("writes the nine files; JSON and CSV agree; a second build is byte-identical", async () => {
    const out1 = join(dir, "..", `${dir.split("/").pop()}-out1`);
    const out2 = join(dir, "..", `${dir.split("/").pop()}-out2`);
    roots.push(out1, out2);
    const r1 = await cli("build", "--sources", dir, "--out", out1, "--quiet");
    expect(r1.code).toBe(0);
    // eos_ok null (no published repo yet) is unknown, not broken: alpha has 7 such rows, beta nothing published.
    expect(r1.stdout).toContain("| `alpha` | Codex / gpt-x | high | 11 | 3/4, 7 unknown |");
    expect(r1.stdout).toContain("| `beta` | Codex / gpt-x | max | 2 | 0/0, 2 unknown |");
    expect(r1.stdout).toContain("| `extrapolated` | 1 |");
    expect(r1.stdout).toContain("warnings: 6");
    expect((await readdir(out1)).sort()).toEqual([
      ".ptb-manifest-outputs.json",
      "README.md",
      "build-report.json",
      "datapackage.json",
      "manifest.csv",
      "manifest.json",
      "manifest.schema.json",
      "model-ids.txt",
      "provenance.jsonl",
      "report.html",
    ]);
    const json = JSON.parse(await readFile(join(out1, "manifest.json"), "utf8"));
    expect(json).toEqual(EXPECTED_ROWS);
    expect(Object.keys(json[1])).toEqual([
      "model_id",
      "cell",
      "driver",
      "effort",
      "hour",
      "hour_source",
      "hour_upper_bound",
      "driver_tokens_at_hour",
      "role",
      "eos_ok",
      "eos_token_id",
      "source",
      "family",
      "step",
      "hour_lower_bound",
      "hour_error_h",
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
    expect(await readFile(join(out1, "model-ids.txt"), "utf8")).toBe(
      EXPECTED_ROWS.map((r) => `${r.model_id}\n`).join(""),
    );
    const prov = (await readFile(join(out1, "provenance.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
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
    expect(report.warnings).toHaveLength(6);
    expect(report.inputs["cells.json"]).toMatch(/^[0-9a-f]{64}$/);

    const r2 = await cli("build", "--sources", dir, "--out", out2, "--quiet");
    expect(r2.code).toBe(0);
    for (const f of [
      "manifest.json",
      "manifest.csv",
      "model-ids.txt",
      "provenance.jsonl",
      "report.html",
      "README.md",
      "datapackage.json",
      "manifest.schema.json",
    ]) {
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
    expect(r.stderr).toContain("--strict: 6 warning(s); nothing written");
    await expect(stat(out)).rejects.toThrow();
  });
});

describe("fatal input errors write nothing", () => {
  const cases: [string, Record<string, string | null>, string, RegExp][] = [
    [
      "an unknown key in cells.json",
      { "cells.json": miniCells((c) => (c.cells[0].janitor_zone = "UTC")) },
      "CELLS_UNKNOWN_KEY",
      /unknown key "janitor_zone" in cells\[0\] \("alpha"\)/,
    ],
    [
      "a wrong type in cells.json",
      { "cells.json": miniCells((c) => (c.cells[1].plotted = "no")) },
      "CELLS_INVALID",
      /cells\[1\] \("beta"\)\.plotted/,
    ],
    [
      "two cells differing only in case",
      { "cells.json": miniCells((c) => (c.cells[2].cell = "Alpha")) },
      "CELLS_DUPLICATE_CELL",
      /cells "alpha" and "Alpha" differ only in case/,
    ],
    [
      "an invalid janitor_tz",
      { "cells.json": miniCells((c) => (c.cells[0].janitor_tz = "Mars/Olympus")) },
      "CELLS_BAD_TIME_ZONE",
      /"Mars\/Olympus"/,
    ],
    [
      "an invalid family name without alias",
      { "cells.json": miniCells((c) => delete c.cells[0].family_aliases) },
      "FAMILY_INVALID_NAME",
      /FAMILY_INVALID_NAME at alpha\/pvc\/listing.tsv:11: cell "alpha": family directory "sft 3" contains " "/,
    ],
    [
      "a missing run_start",
      { "beta/supervisor/history.jsonl": lines('{"ts":"2026-10-31T12:00:00Z","event":"resume"}') },
      "SUPERVISOR_NO_RUN_START",
      /cell "beta" has no run_start/,
    ],
    [
      "two directories aliased to one family",
      {
        "cells.json": miniCells((c) => (c.cells[0].family_aliases = { "sft 3": "sft3", grpo: "sft3" })),
        "alpha/pvc/listing.tsv": `${(Date.parse("2026-10-02T00:00:00Z") / 1000).toFixed(3)}\tf\t0\t/pvc/ptb/alpha/runs/grpo/weights/step_10/STABLE\n${(Date.parse("2026-10-02T00:00:00Z") / 1000).toFixed(3)}\tf\t9\t/pvc/ptb/alpha/runs/grpo/weights/step_10/m.safetensors\n${(Date.parse("2026-10-02T00:00:00Z") / 1000).toFixed(3)}\tf\t0\t/pvc/ptb/alpha/sft 3/weights/step_10/STABLE\n`,
      },
      "FAMILY_ALIAS_COLLISION",
      /directories "grpo" \(alpha\/pvc\/listing.tsv:1\) and "sft 3" \(alpha\/pvc\/listing.tsv:3\) both give family "sft3"/,
    ],
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

describe("an unexpected error", () => {
  it("is one line on stderr with exit code 70, no stack trace", async () => {
    const { vi } = await import("vitest");
    const build = await import("../src/pipeline/build-manifest.js");
    const spy = vi.spyOn(build, "buildManifest").mockRejectedValueOnce(new TypeError("boom"));
    try {
      const r = await cli("validate", "--sources", "nowhere");
      expect(r.code).toBe(70);
      expect(r.stderr).toBe(
        "ptb-manifest: internal error (TypeError): boom\nptb-manifest: this is a bug; rerun with PTB_MANIFEST_DEBUG=1 for the stack and report it\n",
      );
    } finally {
      spy.mockRestore();
    }
  });
});

describe("ids that differ only in case (found by a new user)", () => {
  it("are one repo on the Hub: DUPLICATE_MODEL_ID, nothing written", async () => {
    const listing = (await import("./helpers/mini-sweep.js")).miniSweepFiles()["alpha/pvc/listing.tsv"]!;
    const extra = listing
      .split("\n")
      .filter((l) => l.includes("/sft2/weights/step_100/"))
      .map((l) => l.replace("/sft2/", "/SFT2/"))
      .join("\n");
    const dir = await sweep({ "alpha/pvc/listing.tsv": `${extra}\n${listing}` });
    const r = await cli("build", "--sources", dir, "--out", `${dir}-out`, "--quiet");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "error DUPLICATE_MODEL_ID at cells.json: ids agentic-ptb/alpha.h005.SFT2.100 and agentic-ptb/alpha.h005.sft2.100 differ only in case",
    );
  });
});

describe("cells.json values (found by a new user)", () => {
  for (const [name, patch, message] of [
    ["an org with a slash", (c: Record<string, any>) => (c.org = "agentic-ptb/evil"), /org: must be a Hub owner name/],
    [
      "a negative required_eos_token_id",
      (c: Record<string, any>) => (c.required_eos_token_id = -5),
      /required_eos_token_id/,
    ],
  ] as const) {
    it(`${name}: CELLS_INVALID`, async () => {
      const dir = await sweep({ "cells.json": miniCells(patch) });
      const r = await cli("build", "--sources", dir, "--out", `${dir}-out`, "--quiet");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("error CELLS_INVALID");
      expect(r.stderr).toMatch(message);
    });
  }
});
