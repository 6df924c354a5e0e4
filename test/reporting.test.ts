import { describe, expect, it, afterAll } from "vitest";
import { appendFile, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildManifest } from "../src/pipeline/build-manifest.js";
import { countRows, eosOkText } from "../src/writers/report.js";
import { indexCard } from "../src/writers/card.js";
import { compareWarnings, renderWarnings } from "../src/writers/warnings.js";
import { renderValidation, type ValidationReport } from "../src/audit/validate.js";
import { fitCadence } from "../src/resolve/cadence.js";
import type { Warning } from "../src/diagnostics.js";
import { makeMiniSweep } from "./helpers/mini-sweep.js";
import { removeTree, lines } from "./helpers/tree.js";
import { runCli } from "./helpers/cli.js";

const repo = join(import.meta.dirname, "..");
const roots: string[] = [];
afterAll(async () => Promise.all(roots.map(removeTree)));

async function mini(overrides: Record<string, string | null> = {}): Promise<{ dir: string; out: string }> {
  const dir = await makeMiniSweep(overrides);
  roots.push(dir, `${dir}-out`);
  return { dir, out: `${dir}-out` };
}

describe("eos_ok unknowns are shown apart from broken", () => {
  it("ok/known, then the unknowns; the plain form when there are none", () => {
    expect(eosOkText(39, 57, 0)).toBe("39/57");
    expect(eosOkText(28, 35, 1)).toBe("28/35, 1 unknown");
    expect(eosOkText(0, 0, 11)).toBe("0/0, 11 unknown");
  });

  it("a cell with nothing published reads 0/0, N unknown in the counts, the card and report.html", async () => {
    const { dir } = await mini();
    const result = await buildManifest({ sourcesDir: dir });
    expect(countRows(result.rows).eos_ok_per_cell).toEqual({ alpha: "3/4, 7 unknown", beta: "0/0, 2 unknown" });
    const card = indexCard(result);
    expect(card).toContain("| `alpha` | 3/4, 7 unknown |\n| `beta` | 0/0, 2 unknown |\n\n`ok/known`:");
    const { reportHtml } = await import("../src/writers/report-html.js");
    const html = await reportHtml(result);
    expect(html).toContain("<td>0/0, 2 unknown</td>");
    expect(html).toContain("counted neither as correct nor as broken");
  }, 120_000);
});

describe("--tolerance-h is the validation gate only; --outlier-floor-h moves the fit", () => {
  // hour = step/10 with step 40 written 2 h late; anchor at step 60 on the line.
  const points = [10, 20, 30, 40, 50].map((step) => ({ step, hour: step / 10 + (step === 40 ? 2 : 0) }));
  const anchors = [{ step: 60, hour: 6 }];

  it("fitCadence: the tolerance never changes the points used; the floor does", () => {
    const narrow = fitCadence(points, anchors, 1.5)!;
    const wide = fitCadence(points, anchors, 5)!;
    expect([narrow.used, narrow.outliers, wide.used, wide.outliers]).toEqual([
      [10, 20, 30, 50],
      [40],
      [10, 20, 30, 50],
      [40],
    ]);
    expect(wide.slopeHPerStep).toBe(narrow.slopeHPerStep);
    expect([narrow.validated, wide.validated]).toEqual([true, true]);
    const floor = fitCadence(points, anchors, 1.5, 2.5)!;
    expect([floor.used, floor.outliers, floor.validated]).toEqual([[10, 20, 30, 40, 50], [], false]);
    expect(floor.reason).toMatch(/^leave-one-out max error \d+\.\d\d h exceeds 1\.5 h$/);
  });

  it("on the embedded sources: every row whose hour_source the gate does not change keeps its hour", async () => {
    const sourcesDir = join(repo, "sources");
    const byKey = async (opts: { toleranceH?: number; outlierFloorH?: number }) =>
      new Map((await buildManifest({ sourcesDir, ...opts })).rows.map((r) => [`${r.cell}/${r.family}/${r.step}`, r]));
    const base = await byKey({});
    const wide = await byKey({ toleranceH: 5 });
    expect([...wide.keys()].sort()).toEqual([...base.keys()].sort());
    let compared = 0;
    for (const [k, r] of base) {
      const w = wide.get(k)!;
      if (w.hour_source !== r.hour_source) continue;
      expect([k, w.hour, w.model_id]).toEqual([k, r.hour, r.model_id]);
      compared++;
    }
    expect(compared).toBeGreaterThan(260);
    expect(base.get("sol-high/sft2/200")!.hour).toBe(5.5);
    expect(wide.get("sol-high/sft2/200")!.hour).toBe(5.5);
    // The outlier cut's floor is its own option: a floor of 5 h keeps the point the default rejects, and the fit then fails.
    const floor = await byKey({ outlierFloorH: 5 });
    expect([floor.get("sol-high/sft2/200")!.hour, floor.get("sol-high/sft2/200")!.hour_source]).toEqual([
      null,
      "unrecoverable",
    ]);
  }, 300_000);
});

describe("explain and validate describe the last build into --out", () => {
  it("a build with --tolerance-h 0.4 makes alpha/grpo/5 unrecoverable: explain and validate show that build, and say which", async () => {
    const { dir, out } = await mini();
    // Derived now (no build in --out): the default tolerance extrapolates the row.
    const fresh = await runCli("explain", "alpha/grpo/5", "--sources", dir, "--out", out);
    expect(fresh.code).toBe(0);
    expect(fresh.stdout.split("\n")[0]).toBe(
      `Build: none in ${out}/ (no build-report.json): derived now from ${dir}/ with --tolerance-h 1.5 --outlier-floor-h 1.5 (no --pvc, no --hub).`,
    );
    expect(fresh.stdout).toContain("agentic-ptb/alpha.h038.grpo.5\n");

    expect((await runCli("build", "--sources", dir, "--out", out, "--quiet", "--tolerance-h", "0.4")).code).toBe(0);
    const x = await runCli("explain", "alpha/grpo/5", "--out", out, "--sources", dir);
    expect(x.code).toBe(0);
    expect(x.stdout.split("\n")[0]).toBe(
      `Build: ${out}/ (ptb-manifest ${JSON.parse(await readFile(join(out, "build-report.json"), "utf8")).version}; --sources ${dir} --tolerance-h 0.4 --outlier-floor-h 1.5); inputs in ${dir}/ unchanged since that build.`,
    );
    expect(x.stdout).toContain("agentic-ptb/alpha.hNA.grpo.5\n");
    expect(x.stdout).toContain("  hour null   hour_source unrecoverable");
    const json = JSON.parse((await runCli("explain", "alpha/grpo/5", "--out", out, "--sources", dir, "--json")).stdout);
    expect([json.row.hour, json.build.found, json.build.arguments.tolerance_h, json.build.inputs.state]).toEqual([
      null,
      true,
      0.4,
      "unchanged",
    ]);

    // An option the build did not use is reported, not silently applied.
    const given = await runCli("explain", "alpha/grpo/5", "--out", out, "--sources", dir, "--tolerance-h", "1.5");
    expect(given.stdout.split("\n")[1]).toBe(
      `  note: --tolerance-h 1.5 does not apply: the build in ${out}/ decided with --tolerance-h 0.4 (rebuild with --tolerance-h 1.5, or give --out a folder without a build to derive now)`,
    );
    expect(given.stdout).toContain("agentic-ptb/alpha.hNA.grpo.5\n");

    // validate checks that build at its own tolerance: the anchor misses the fit by 0.5 h.
    const v = await runCli("validate", "--out", out, "--sources", dir, "--json");
    expect(v.code).toBe(1);
    const report = JSON.parse(v.stdout);
    expect([report.tolerance_h, report.build.found]).toEqual([0.4, true]);
    expect(report.anchors.map((a: any) => [a.step, a.row_hour, a.hour_source, a.residual_h, a.miss])).toEqual([
      [5, null, "unrecoverable", -0.5, true],
    ]);
    const vt = await runCli("validate", "--out", out, "--sources", dir);
    expect(vt.stdout.split("\n")[0]).toMatch(
      new RegExp(`^Build: ${out}/ .*--tolerance-h 0\\.4 .*; inputs in ${dir}/ unchanged since that build\\.$`),
    );

    // An input edited after the build: still that build's decisions, and the change is named.
    await appendFile(join(dir, "alpha", "RUNLOG.md"), "one more note\n");
    const changed = await runCli("explain", "alpha/grpo/5", "--out", out, "--sources", dir);
    expect(changed.stdout.split("\n")[0]).toContain(
      `; inputs in ${dir}/ CHANGED since that build (1 changed: alpha/RUNLOG.md): this is what that build decided; rebuild to see the change.`,
    );
    expect(changed.stdout).toContain("agentic-ptb/alpha.hNA.grpo.5\n");
  }, 120_000);

  it("explain run from another working folder compares the sources the build read (recorded from the output folder)", async () => {
    const { dir } = await mini();
    const { spawnSync } = await import("node:child_process");
    const { basename, dirname } = await import("node:path");
    const cli = (cwd: string, ...args: string[]) =>
      spawnSync(process.execPath, [join(repo, "bin", "ptb-manifest.js"), ...args], { cwd, encoding: "utf8" });
    const parent = dirname(dir);
    const out = `${basename(dir)}-out`;
    expect(cli(parent, "build", "--sources", basename(dir), "--out", out, "--quiet").status).toBe(0);
    const report = JSON.parse(await readFile(join(parent, out, "build-report.json"), "utf8"));
    expect(report.arguments.sources_from_out).toBe(`../${basename(dir)}`);
    // From inside the sources folder: a relative "sources" would name the wrong folder; the recorded one does not.
    const x = cli(join(dir, "alpha"), "explain", "alpha/grpo/5", "--out", join(parent, out));
    expect(x.status).toBe(0);
    expect(x.stdout.split("\n")[0]).toBe(
      `Build: ${join(parent, out)}/ (ptb-manifest ${report.version}; --sources ${basename(dir)} --tolerance-h 1.5 --outlier-floor-h 1.5); inputs in ${dir}/ unchanged since that build.`,
    );
  }, 120_000);

  it("a build of other sources in --out does not describe the sources asked about; a broken report is an error", async () => {
    const a = await mini();
    const b = await mini();
    expect((await runCli("build", "--sources", a.dir, "--out", a.out, "--quiet", "--tolerance-h", "0.4")).code).toBe(0);
    const x = await runCli("explain", "alpha/grpo/5", "--out", a.out, "--sources", b.dir);
    expect(x.stdout.split("\n")[0]).toBe(
      `Build: the one in ${a.out}/ is of ${a.dir}/, not of ${b.dir}/: derived now from ${b.dir}/ with --tolerance-h 1.5 --outlier-floor-h 1.5 (no --pvc, no --hub).`,
    );
    expect(x.stdout).toContain("agentic-ptb/alpha.h038.grpo.5\n");
    // Without --sources, the build's own recorded sources are compared.
    const own = await runCli("explain", "alpha/grpo/5", "--out", a.out);
    expect(own.stdout).toContain(`; inputs in ${a.dir}/ unchanged since that build.`);
    // A manifest.json edited by hand into something that is not a row is named by its line, never explained.
    const manifest = await readFile(join(a.out, "manifest.json"), "utf8");
    await writeFile(join(a.out, "manifest.json"), manifest.replace(/"hour": [0-9.]+/, '"hour": "soon"'));
    const edited = await runCli("explain", "alpha/grpo/5", "--out", a.out);
    expect(edited.code).toBe(1);
    expect(edited.stderr).toMatch(
      /^ptb-manifest: error OUT_BUILD_UNREADABLE at .*manifest\.json:2: row 1 \(".*"\) is not a manifest row: hour: .*\(got "soon"\): rebuild\n$/,
    );
    // A plausible edit (another hour, still a row) is no build's decision either: explain and validate refuse it.
    await writeFile(join(a.out, "manifest.json"), manifest.replace(/"hour": ([0-9]+)\.([0-9]+)/, '"hour": 9$1.$2'));
    for (const cmd of [["explain", "alpha/grpo/5"], ["validate"]]) {
      const r = await runCli(...cmd, "--out", a.out);
      expect([r.code, r.stdout]).toEqual([1, ""]);
      expect(r.stderr).toBe(
        `ptb-manifest: error OUT_BUILD_UNREADABLE at ${join(a.out, "manifest.json")}: ${join(a.out, "manifest.json")} is not as the build wrote it: changed since ptb-manifest build wrote it (its sha256 is not the output marker's record); what it says is no build's decision: rebuild\n`,
      );
    }
    // A marker made garbage cannot vouch for the files: refused too, not read as an earlier version's folder.
    const marker = await readFile(join(a.out, ".ptb-manifest-outputs.json"), "utf8");
    await writeFile(join(a.out, ".ptb-manifest-outputs.json"), "garbage");
    const noMarker = await runCli("validate", "--out", a.out);
    expect([noMarker.code, noMarker.stderr.split(" at ")[0]]).toEqual([1, "ptb-manifest: error OUT_BUILD_UNREADABLE"]);
    expect(noMarker.stderr).toContain("is not a marker ptb-manifest wrote");
    // No marker at all (a copy made without dotfiles): nothing vouches for the files either.
    await rm(join(a.out, ".ptb-manifest-outputs.json"));
    await writeFile(join(a.out, "manifest.json"), manifest);
    for (const cmd of [["explain", "alpha/grpo/5"], ["validate"]]) {
      const r = await runCli(...cmd, "--out", a.out);
      expect([r.code, r.stdout]).toEqual([1, ""]);
      expect(r.stderr).toBe(
        `ptb-manifest: error OUT_BUILD_UNREADABLE at ${join(a.out, ".ptb-manifest-outputs.json")}: ${a.out} has no output marker (.ptb-manifest-outputs.json: a copy made without dotfiles, or an earlier version's folder), so whether its files are as the build wrote them is unknown: rebuild, or copy the whole folder (cp -a)\n`,
      );
    }
    await writeFile(join(a.out, ".ptb-manifest-outputs.json"), marker);
    // A file with rows that explain and validate do not read (manifest.csv, which the Hub's viewer shows) edited.
    const csv = await readFile(join(a.out, "manifest.csv"), "utf8");
    await writeFile(join(a.out, "manifest.csv"), csv.replace(/,mtime,/, ",janitor,"));
    const csvEdited = await runCli("validate", "--out", a.out);
    expect([csvEdited.code, csvEdited.stderr]).toEqual([
      1,
      `ptb-manifest: error OUT_BUILD_UNREADABLE at ${join(a.out, "manifest.csv")}: ${join(a.out, "manifest.csv")} is not as the build wrote it: changed since ptb-manifest build wrote it (its sha256 is not the output marker's record); what it says is no build's decision: rebuild\n`,
    ]);
    await writeFile(join(a.out, "manifest.csv"), csv);
    expect((await runCli("validate", "--out", a.out)).stderr).not.toContain("OUT_BUILD_UNREADABLE");
    await writeFile(join(a.out, "build-report.json"), "{ not json");
    const broken = await runCli("validate", "--out", a.out);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^ptb-manifest: error OUT_BUILD_UNREADABLE at .*build-report\.json: .* is not JSON/);
  }, 120_000);
});

describe("warnings are listed by code, with what is new since the previous build into --out", () => {
  // Made-up codes ("A", "B"): the rendering works on any code, and short ones keep the expected text short.
  const w = (code: string, file: string | null, line: number | null, message: string): Warning => ({
    code: code as Warning["code"],
    file,
    line,
    message,
  });

  it("a warning keeps its identity when its line moves; duplicates count one by one", () => {
    const prev = [w("A", "f", 3, "x"), w("A", "f", 4, "x"), w("B", "g", 1, "y")];
    const now = [w("A", "f", 10, "x"), w("A", "f", 11, "x"), w("A", "f", 12, "x"), w("C", null, null, "z")];
    expect(compareWarnings(now, prev)).toEqual({ isNew: [false, false, true, true], gone: 1 });
    expect(compareWarnings(now, null)).toBeNull();
  });

  it("one line per code with its count and an example (a new one first), how many are not shown; --verbose lists all", () => {
    const now = [w("A", "f", 1, "old\tone"), w("A", "f", 2, "new one"), w("B", null, null, "b")];
    const compared = compareWarnings(now, [
      w("A", "f", 1, "old\tone"),
      w("B", null, null, "b"),
      w("D", "d", 1, "gone"),
    ]);
    expect(renderWarnings(now, { compared, out: "out/" })).toEqual([
      "warnings: 3 (1 new, 1 gone since the previous build into out/); by code:",
      "  A    2 (1 new)  e.g. f:2: new one  [new]",
      "  B    1  e.g. b",
      "  1 more not shown (one example per code): --verbose prints all 3; build-report.json lists them",
    ]);
    expect(renderWarnings(now, { compared, verbose: true })).toEqual([
      "warnings: 3 (1 new, 1 gone since the previous build into out/); by code:",
      "  A    2 (1 new)",
      "      f:1: old\\tone",
      "      f:2: new one  [new]",
      "  B    1",
      "      b",
      "  all 3 shown; build-report.json lists them",
    ]);
    expect(renderWarnings([], { compared: null })).toEqual(["warnings: 0"]);
  });

  it("the build's summary (stdout) and --strict's failure (stderr) use it; a new warning is counted as new", async () => {
    const { dir, out } = await mini();
    const first = await runCli("build", "--sources", dir, "--out", out, "--quiet");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      `warnings: 6 (no previous build in ${out}/ to compare with); by code:\n  CHECKPOINT_LOST            1  e.g. alpha/janitor/ckpt-janitor.log:5: alpha sft2 step 400: seen in janitor_other but its weights survive nowhere (no row)\n`,
    );
    expect(first.stdout).toContain("  all 6 shown; build-report.json lists them\n");
    // A line added at the top of the janitor log shifts the known warnings' lines and adds one new warning.
    const log = await readFile(join(dir, "alpha", "janitor", "ckpt-janitor.log"), "utf8");
    await writeFile(
      join(dir, "alpha", "janitor", "ckpt-janitor.log"),
      lines("archived step_700 to spare (partial write)") + log,
    );
    const second = await runCli("build", "--sources", dir, "--out", out, "--quiet");
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(
      `warnings: 7 (1 new, 0 gone since the previous build into ${out}/); by code:\n  JANITOR_UNPARSED_LINE      2 (1 new)  e.g. alpha/janitor/ckpt-janitor.log:1: names a checkpoint or action but fits neither janitor format: archived step_700 to spare (partial write)  [new]\n`,
    );
    expect(second.stdout).toContain(
      "  1 more not shown (one example per code): --verbose prints all 7; build-report.json lists them\n",
    );
    const verbose = await runCli("build", "--sources", dir, "--out", out, "--quiet", "--verbose");
    expect(verbose.stdout).toContain(
      `warnings: 7 (0 new, 0 gone since the previous build into ${out}/); by code:\n  JANITOR_UNPARSED_LINE      2\n      alpha/janitor/ckpt-janitor.log:1: names a checkpoint`,
    );
    expect(verbose.stdout).toContain("  all 7 shown; build-report.json lists them\n");
    const strict = await runCli("build", "--sources", dir, "--out", out, "--quiet", "--strict");
    expect(strict.code).toBe(2);
    expect(strict.stdout).toBe("");
    expect(strict.stderr).toContain(
      `ptb-manifest: --strict: 7 warning(s); nothing written\nwarnings: 7 (0 new, 0 gone since the previous build into ${out}/); by code:\n  JANITOR_UNPARSED_LINE      2  e.g. `,
    );
    expect(strict.stderr).toContain("  1 more not shown (one example per code): --verbose prints all 7\n");
  }, 120_000);
});

describe("validate's text (found by a new user: 'residual - h', FAIL twice)", () => {
  const report: ValidationReport = {
    tolerance_h: 1.5,
    ok: false,
    families: [
      {
        cell: "c",
        family: "f",
        points: 2,
        fit: {
          slope_min_per_step: 4.2,
          used: [1, 2],
          outliers: [3],
          loo_max_h: null,
          loo_p95_h: null,
          validated: false,
          reason: "only 2 points",
        },
      },
    ],
    anchors: [
      {
        cell: "c",
        family: "kd",
        step: 100,
        anchor_hour: 41.25,
        row_hour: null,
        hour_source: "unrecoverable",
        residual_h: null,
        miss: false,
        file: "c/anchors.tsv",
        line: 2,
      },
      {
        cell: "c",
        family: "f",
        step: 4,
        anchor_hour: 7.12,
        row_hour: null,
        hour_source: "unrecoverable",
        residual_h: -2.37,
        miss: true,
        file: "c/anchors.tsv",
        line: 3,
      },
    ],
    unused_anchors: [],
    conflicts: [
      {
        model_id: "o/c.h012.f.2",
        hour: 12,
        kind: "janitor_archive",
        evidence_hour: 10,
        diff_h: -2,
        file: "c/janitor/ckpt-janitor.log",
        line: null,
      },
    ],
    step_order: [],
  };

  it("says n/a for a residual it cannot compute, names the fit, prints file:line without null, and the verdict once", () => {
    expect(renderValidation(report)).toBe(
      [
        "Cadence fits (tolerance 1.5 h):",
        "  c/f: 4.2 min/step on 2 points (outliers: 3), LOO max n/a p95 n/a: not validated (only 2 points)",
        "",
        "Anchors (2):",
        "  n/a  c/kd/100: anchor h 41.25, row h null (unrecoverable), no residual: the row has no hour and its family no fit  c/anchors.tsv:2",
        "  MISS c/f/4: anchor h 7.12, row h null (unrecoverable), residual -2.37 h against the family's fit  c/anchors.tsv:3",
        "",
        "Conflicts between sources (1):",
        "  o/c.h012.f.2: hour 12, janitor_archive says 10 (-2 h)  c/janitor/ckpt-janitor.log",
        "",
        "Step-order contradictions (0):",
        "",
        "validate: FAIL (1 anchor miss, 1 conflict, 0 step-order contradictions)",
        "",
      ].join("\n"),
    );
  });

  it("the CLI prints FAIL once, on stdout, and exits 1", async () => {
    const { dir, out } = await mini({
      "alpha/anchors.tsv": lines(
        "family\tstep\ttime\tkind\tnote",
        "grpo\t5\t2026-10-03T06:00:00+00:00\teval-log\tfar off",
      ),
    });
    const r = await runCli("validate", "--sources", dir, "--out", out);
    expect(r.code).toBe(1);
    expect(r.stdout.match(/FAIL/g)).toEqual(["FAIL"]);
    expect(r.stdout).toContain("validate: FAIL (1 anchor miss, 0 conflicts, 0 step-order contradictions)\n");
    expect(r.stderr).toBe("");
  });
});
