/**
 * One cell's driver tokens, counted the way the build counts them
 * (MANIFEST.md `driver_tokens_at_hour`): `tokens --sources --cell --at`
 * reproduces the manifest's rows, `tokens --since` scopes a plain count, and
 * `build --trajectory CELL=DIR` reads a trajectory folder kept outside the
 * sources exactly as if it were inside.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildManifest } from "../src/pipeline/build-manifest.js";
import { snapshotSources, withTrajectoryDirs } from "../src/sources/sources.js";
import type { BuildResult } from "../src/model.js";
import { runCli } from "./helpers/cli.js";
import { makeMiniSweep } from "./helpers/mini-sweep.js";
import { removeTree } from "./helpers/tree.js";
import { at, ms, tempDir, useTempDirs, writeJsonl } from "./trajectory-helpers.js";

useTempDirs();

const SOURCES = resolve(import.meta.dirname, "../sources");
const roots: string[] = [];
afterAll(async () => Promise.all(roots.map(removeTree)));

describe("tokens --sources --cell --at gives the manifest's driver_tokens_at_hour", () => {
  let result: BuildResult;
  beforeAll(async () => {
    result = await buildManifest({ sourcesDir: SOURCES });
  }, 120_000);

  it("for rows of every format of the embedded sources (at their provenance write_time)", async () => {
    // One row per cell: the middle one with a token count (the formats: codex, pi, kimi-code, claude-code).
    const checked: [string, number, number | null][] = [];
    for (const cell of result.registry.cells.filter((c) => !c.excluded)) {
      const rows = result.rows.filter((r) => r.cell === cell.cell && r.driver_tokens_at_hour !== null);
      const row = rows[Math.floor(rows.length / 2)]!;
      const prov = result.provenance.find((p) => p.model_id === row.model_id) as { write_time: string };
      const r = await runCli("tokens", "--sources", SOURCES, "--cell", cell.cell, "--at", prov.write_time, "--json");
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout);
      expect([report.cell, report.format, report.at]).toEqual([
        cell.cell,
        cell.trajectory_format,
        new Date(prov.write_time).toISOString(),
      ]);
      checked.push([row.model_id, row.driver_tokens_at_hour!, report.total]);
    }
    expect(checked.length).toBe(9);
    for (const [id, want, got] of checked) expect(got, id).toBe(want);
  }, 120_000);

  it("without --at, --hour or --since: the whole run's totals, every call of its logs (untimed ones too), as --format counts its folder", async () => {
    for (const [cell, format] of [
      ["kimi", "kimi-code"],
      ["sol-high", "codex"],
    ]) {
      const whole = await runCli("tokens", "--sources", SOURCES, "--cell", cell!, "--json");
      const folder = await runCli("tokens", "--format", format!, join(SOURCES, cell!, "trajectory"), "--json");
      expect([whole.code, folder.code]).toEqual([0, 0]);
      const { cell: c, format: f, since, at: moment, warnings: _w, ...totals } = JSON.parse(whole.stdout);
      const { warnings: _v, ...want } = JSON.parse(folder.stdout);
      expect([c, f, since, moment]).toEqual([cell, format, null, null]);
      expect(totals).toEqual(want);
    }
    // kimi's four calls without a time (TRAJECTORY_UNPLACED_CALLS: "counted in totals") are in: 549 calls, not 545.
    const kimi = JSON.parse((await runCli("tokens", "--sources", SOURCES, "--cell", "kimi", "--json")).stdout);
    expect([kimi.total, kimi.calls]).toEqual([38_558_683, 549]);
  }, 120_000);

  it("--cell warns TRAJECTORY_FILE_NOT_READ for a file of the cell's trajectory it does not read, as build does", async () => {
    const dir = await makeMiniSweep({
      "alpha/trajectory/sessions/2026/10/01/rollout-2026-10-01T00-00-00-0000.jsonl.bak": "{}\n",
    });
    roots.push(dir);
    const r = await runCli("tokens", "--sources", dir, "--cell", "alpha", "--json");
    expect(r.code, r.stderr).toBe(0);
    const unread = JSON.parse(r.stdout).warnings.filter((w: { code: string }) => w.code === "TRAJECTORY_FILE_NOT_READ");
    expect(unread.map((w: { file: string }) => w.file)).toEqual([
      "alpha/trajectory/sessions/2026/10/01/rollout-2026-10-01T00-00-00-0000.jsonl.bak",
    ]);
  });

  it("the README's example: sol-high step grpo-a 1400 (hour 45.2) is 15,341,537 tokens", async () => {
    const row = result.rows.find((r) => r.model_id === "agentic-ptb/sol-high.h045.grpo-a.1400")!;
    expect(row.driver_tokens_at_hour).toBe(15_341_537);
    const r = await runCli("tokens", "--sources", SOURCES, "--cell", "sol-high", "--at", "2026-10-04T08:41:58.200Z");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/total\s+15,341,537\n/);
    expect(r.stdout).toContain(
      "scope           calls completed from 2026-10-02T08:00:00.000Z, at or before 2026-10-04T08:41:58.200Z",
    );
  }, 60_000);

  it("--hour: the moment the cell's budget clock reads H", async () => {
    const r = await runCli("tokens", "--sources", SOURCES, "--cell", "sol-high", "--hour", "45.2", "--json");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect([report.since, report.at, report.total]).toEqual([
      "2026-10-02T08:00:00.000Z",
      "2026-10-04T08:42:00.000Z",
      15_341_537,
    ]);
  }, 60_000);

  it("usage errors (64) and an unknown cell (1)", async () => {
    expect((await runCli("tokens", "--hour", "3", "--format", "codex", "x")).code).toBe(64);
    const both = await runCli("tokens", "--sources", SOURCES, "--cell", "sol-high", "--format", "codex");
    expect([both.code, both.stderr]).toEqual([64, expect.stringContaining("do not give --format")]);
    expect(
      (await runCli("tokens", "--sources", SOURCES, "--cell", "sol-high", "sources/sol-high/trajectory")).code,
    ).toBe(64);
    expect((await runCli("tokens", "--sources", SOURCES, "--cell", "sol-high", "--hour", "ten")).code).toBe(64);
    expect(
      (
        await runCli(
          "tokens",
          "--sources",
          SOURCES,
          "--cell",
          "sol-high",
          "--at",
          "2026-10-04T08:00:00Z",
          "--hour",
          "3",
        )
      ).code,
    ).toBe(64);
    expect((await runCli("tokens", "--sources", SOURCES, "--format", "codex", "x")).code).toBe(64);
    // An empty window, an hour outside the run: usage errors, never a plausible total of 0 or of the whole run.
    const empty = await runCli(
      "tokens",
      "--format",
      "codex",
      "sources/sol-high/trajectory",
      "--since",
      "2026-10-05T00:00:00Z",
      "--at",
      "2026-10-04T00:00:00Z",
    );
    expect([empty.code, empty.stdout, empty.stderr]).toEqual([
      64,
      "",
      "error: --since 2026-10-05T00:00:00Z is after --at 2026-10-04T00:00:00Z: no call can be completed in that window\nsee 'ptb-manifest tokens --help'\n",
    ]);
    const late = await runCli("tokens", "--sources", SOURCES, "--cell", "sol-high", "--hour", "150");
    expect([late.code, late.stdout, late.stderr]).toEqual([
      64,
      "",
      "error: --hour 150 is after the end of sol-high's run (2026-10-06T15:31:12.000Z, budget hour 100.02, its run_end): no row can be at that hour\nsee 'ptb-manifest tokens --help'\n",
    ]);
    const negative = await runCli("tokens", "--sources", SOURCES, "--cell", "sol-high", "--hour", "-3");
    expect([negative.code, negative.stderr]).toEqual([
      64,
      "error: option '--hour <h>' argument '-3' is before the run's start: budget hours start at 0\nsee 'ptb-manifest tokens --help'\n",
    ]);
    const afterHour = await runCli(
      "tokens",
      "--sources",
      SOURCES,
      "--cell",
      "sol-high",
      "--since",
      "2026-10-09T00:00:00Z",
      "--hour",
      "3",
    );
    expect([afterHour.code, afterHour.stderr]).toEqual([
      64,
      "error: --since 2026-10-09T00:00:00Z is after the moment of --hour 3 (2026-10-02T11:00:00.000Z): no call can be completed in that window\nsee 'ptb-manifest tokens --help'\n",
    ]);
    // Counted from run_start (2026-10-02T08:00:00Z): an --at before it is an empty window; with --since, not.
    const early = await runCli("tokens", "--sources", SOURCES, "--cell", "sol-high", "--at", "2026-10-01T00:00:00Z");
    expect([early.code, early.stdout, early.stderr]).toEqual([
      64,
      "",
      "error: --at 2026-10-01T00:00:00Z is before sol-high's run_start (2026-10-02T08:00:00.000Z): no call of the run can be completed by then (give --since to count calls before run_start)\nsee 'ptb-manifest tokens --help'\n",
    ]);
    const earlySince = await runCli(
      "tokens",
      "--sources",
      SOURCES,
      "--cell",
      "sol-high",
      "--since",
      "2026-09-01T00:00:00Z",
      "--at",
      "2026-10-01T00:00:00Z",
      "--json",
    );
    expect(earlySince.code).toBe(0);
    const unknown = await runCli("tokens", "--sources", SOURCES, "--cell", "nosuch");
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining("error TRAJECTORY_UNKNOWN_CELL")]);
  });
});

describe("tokens --since and unknown tokens", () => {
  const fixture = () => {
    const d = tempDir();
    const rec = (s: number) => ({
      type: "usage.record",
      model: "m",
      usageScope: "turn",
      usage: { inputOther: 1, output: 10, inputCacheRead: 100, inputCacheCreation: 0 },
      time: ms(s),
    });
    writeJsonl(d, "s1/agents/main/wire.jsonl", [rec(10), rec(20), rec(30)]);
    return d;
  };

  it("--since counts the calls from that moment on (inclusive), --at up to it", async () => {
    const d = fixture();
    const r = await runCli("tokens", "--format", "kimi-code", d, "--since", at(20), "--json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ since: at(20), at: null, calls: 2, total: 222 });
    const both = await runCli("tokens", "--format", "kimi-code", d, "--since", at(15), "--at", at(25), "--json");
    expect(JSON.parse(both.stdout)).toMatchObject({ calls: 1, total: 111, last_call_time: at(20) });
    expect((await runCli("tokens", "--format", "kimi-code", d, "--since", "yesterday")).code).toBe(64);
  });

  it("an empty folder: the counts are null (unknown), not 0, with the warning", async () => {
    const d = tempDir();
    const r = await runCli("tokens", "--format", "codex", d, "--json");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect([report.total, report.uncached_input, report.calls]).toEqual([null, null, null]);
    expect(report.warnings.map((w: { code: string }) => w.code)).toEqual(["TRAJECTORY_NO_FILES"]);
    const text = await runCli("tokens", "--format", "codex", d);
    expect(text.stdout).toMatch(/total\s+null \(unknown\)\n/);
  });
});

describe("build --trajectory CELL=DIR", () => {
  it("a trajectory folder outside the sources gives the same build as the same files inside", async () => {
    const inside = await makeMiniSweep();
    const outside = await mkdtemp(join(tmpdir(), "ptb-traj-disk-"));
    roots.push(inside, outside);
    const want = await buildManifest({ sourcesDir: inside });
    await cp(join(inside, "alpha", "trajectory"), outside, { recursive: true });
    await rm(join(inside, "alpha", "trajectory"), { recursive: true });
    const got = await buildManifest({ sources: withTrajectoryDirs(snapshotSources(inside), { alpha: outside }) });
    expect(got.rows).toEqual(want.rows);
    expect(got.provenance).toEqual(want.provenance);
    expect(got.warnings).toEqual(want.warnings);
    expect(got.tokenCurves).toEqual(want.tokenCurves);
    expect(want.rows.filter((r) => r.cell === "alpha" && r.driver_tokens_at_hour !== null).length).toBeGreaterThan(5);
    // A file there that is not read is warned, as it would be inside the sources (which the build checks whole).
    await writeFile(join(outside, "sessions", "notes.jsonl.bak"), "{}\n");
    const more = await buildManifest({ sources: withTrajectoryDirs(snapshotSources(inside), { alpha: outside }) });
    expect(more.warnings.filter((w) => w.code === "TRAJECTORY_FILE_NOT_READ").map((w) => w.file)).toEqual([
      "alpha/trajectory/sessions/notes.jsonl.bak",
    ]);
  });

  it("through the CLI: the same manifest and inputs, and the report records the folder", async () => {
    const inside = await makeMiniSweep();
    const outside = await mkdtemp(join(tmpdir(), "ptb-traj-disk-"));
    roots.push(inside, outside, `${inside}-o1`, `${inside}-o2`);
    const a = await runCli("build", "--sources", inside, "--out", `${inside}-o1`, "-q", "--no-cache");
    expect(a.code, a.stderr).toBe(0);
    await cp(join(inside, "alpha", "trajectory"), outside, { recursive: true });
    await rm(join(inside, "alpha", "trajectory"), { recursive: true });
    const b = await runCli(
      "build",
      "--sources",
      inside,
      "--out",
      `${inside}-o2`,
      "-q",
      "--no-cache",
      "--trajectory",
      `alpha=${outside}`,
    );
    expect(b.code, b.stderr).toBe(0);
    for (const f of ["manifest.json", "manifest.csv", "provenance.jsonl"]) {
      expect(await readFile(join(`${inside}-o2`, f), "utf8"), f).toBe(await readFile(join(`${inside}-o1`, f), "utf8"));
    }
    const r1 = JSON.parse(await readFile(join(`${inside}-o1`, "build-report.json"), "utf8"));
    const r2 = JSON.parse(await readFile(join(`${inside}-o2`, "build-report.json"), "utf8"));
    expect(JSON.stringify(r2)).toContain(`"trajectory":{"alpha":"${outside}"}`);
    const inputs = (r: { inputs?: Record<string, string> }) => r.inputs;
    expect(inputs(r2)).toEqual(inputs(r1));
  });

  it("an unknown or excluded cell, a missing folder, a malformed value: coded errors, nothing written", async () => {
    const inside = await makeMiniSweep();
    roots.push(inside);
    const dir = tempDir();
    const unknown = await runCli(
      "build",
      "--sources",
      inside,
      "--out",
      `${inside}-x1`,
      "-q",
      "--trajectory",
      `nosuch=${dir}`,
    );
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining("TRAJECTORY_UNKNOWN_CELL")]);
    const excluded = await runCli(
      "build",
      "--sources",
      inside,
      "--out",
      `${inside}-x2`,
      "-q",
      "--trajectory",
      `gamma=${dir}`,
    );
    expect([excluded.code, excluded.stderr]).toEqual([1, expect.stringContaining("the cell is excluded")]);
    const missing = await runCli(
      "build",
      "--sources",
      inside,
      "--out",
      `${inside}-x3`,
      "-q",
      "--trajectory",
      `alpha=${join(dir, "absent")}`,
    );
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining("TRAJECTORY_DIR_MISSING")]);
    const bad = await runCli("build", "--sources", inside, "--out", `${inside}-x4`, "-q", "--trajectory", "alpha");
    expect([bad.code, bad.stderr]).toEqual([64, expect.stringContaining("expected CELL=DIR")]);
    const twice = await runCli(
      "build",
      "--sources",
      inside,
      "--out",
      `${inside}-x5`,
      "-q",
      "--trajectory",
      `alpha=${dir}`,
      "--trajectory",
      `alpha=${dir}`,
    );
    expect(twice.code).toBe(64);
    // tokens --cell reads the same outside folder with --trajectory.
    await cp(join(inside, "alpha", "trajectory"), join(dir, "t"), { recursive: true });
    const here = await runCli("tokens", "--sources", inside, "--cell", "alpha", "--json");
    const there = await runCli(
      "tokens",
      "--sources",
      inside,
      "--cell",
      "alpha",
      "--trajectory",
      join(dir, "t"),
      "--json",
    );
    expect(there.code, there.stderr).toBe(0);
    expect(JSON.parse(there.stdout)).toEqual(JSON.parse(here.stdout));
    expect((await runCli("tokens", "--format", "codex", "--trajectory", dir, dir)).code).toBe(64);
    for (const o of ["x1", "x2", "x3", "x4", "x5"])
      await expect(readFile(join(`${inside}-${o}`, "manifest.json"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("null tokens through every consumer (the mini sweep's beta has an empty trajectory/)", () => {
  it("the manifest, explain, report.html and cost say unknown, never 0", async () => {
    const dir = await makeMiniSweep();
    const out = `${dir}-out`;
    roots.push(dir, out);
    const b = await runCli("build", "--sources", dir, "--out", out, "-q", "--no-cache");
    expect(b.code, b.stderr).toBe(0);
    const rows = JSON.parse(await readFile(join(out, "manifest.json"), "utf8")) as {
      model_id: string;
      cell: string;
      driver_tokens_at_hour: number | null;
    }[];
    expect(rows.filter((r) => r.cell === "beta").map((r) => r.driver_tokens_at_hour)).toEqual([null, null]);
    const report = JSON.parse(await readFile(join(out, "build-report.json"), "utf8"));
    expect(JSON.stringify(report.warnings)).toContain("TRAJECTORY_NO_FILES");
    const ex = await runCli("explain", "agentic-ptb/beta.h020.a.1", "--sources", dir);
    expect(ex.code, ex.stderr).toBe(0);
    expect(ex.stdout).toContain("driver_tokens_at_hour null");
    expect(ex.stdout).toContain(
      "Driver tokens: null (unknown), after the build's warning(s) on the cell's trajectory:\n  TRAJECTORY_NO_FILES at beta/trajectory: ",
    );
    const html = await readFile(join(out, "report.html"), "utf8");
    const beta = html.slice(html.indexOf('id="cell-beta"'));
    expect(beta.slice(0, beta.indexOf("</section>"))).toContain("Driver tokens unknown (null)");
    const alpha = html.slice(html.indexOf('id="cell-alpha"'));
    expect(alpha.slice(0, alpha.indexOf("</section>"))).not.toContain("Driver tokens unknown");
    await writeFile(
      join(out, "scores.csv"),
      "model_id,suite,score\nQwen/Qwen3.5-9B-Base,mmlu,40\nagentic-ptb/beta.h020.a.1,mmlu,45\n",
    );
    const cost = await runCli(
      "cost",
      "--scores",
      join(out, "scores.csv"),
      "--manifest",
      join(out, "manifest.json"),
      "--json",
      "--include-eos-broken",
    );
    expect(cost.code, cost.stderr).toBe(0);
    expect(
      JSON.parse(cost.stdout).rows.map(
        (c: { model_id: string; driver_tokens_at_hour: unknown; cost_per_point: unknown; note: unknown }) => [
          c.model_id,
          c.driver_tokens_at_hour,
          c.cost_per_point,
          c.note,
        ],
      ),
    ).toEqual([
      ["agentic-ptb/beta.h020.a.1", null, null, expect.stringMatching(/driver tokens unknown \(null\): no cost$/)],
    ]);
  });
});
