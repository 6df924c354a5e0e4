import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, writeFile, mkdir } from "node:fs/promises";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { makeMiniSweep, miniCells } from "./helpers/mini-sweep.js";
import { removeTree } from "./helpers/tree.js";
import { runCli } from "./helpers/cli.js";
import { diffSides, loadSide } from "../src/diff/diff.js";
import { manifestCsv, manifestJson, parseCsvCell } from "../src/writers/manifest.js";
import { HOUR_SOURCES, ROLES, ROW_KEYS, type Row } from "../src/schema.js";

/**
 * `diff` (P6, P7): the CSV of a build is typed back by the row schema, so a
 * build's JSON and CSV compare equal; a side that is not a manifest is the
 * error DIFF_INPUT naming the file and the row's line.
 */

const repo = join(import.meta.dirname, "..");
const roots: string[] = [];
afterAll(async () => Promise.all(roots.map(removeTree)));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "ptb-diff-"));
  roots.push(dir);
  return dir;
}

/** The one stderr line of a refused diff, with its exit code. */
async function refused(...args: string[]): Promise<{ code: number; stderr: string }> {
  const r = await runCli("diff", ...args);
  expect(r.stdout).toBe("");
  return { code: r.code, stderr: r.stderr };
}

const noChanges = (d: { added: unknown[]; removed: unknown[]; changed: unknown[]; renames: unknown[] }) => [
  d.added,
  d.removed,
  d.changed,
  d.renames,
];

describe("diff: a build's JSON and CSV compare equal (P6)", () => {
  it("the embedded sources: diff out out/manifest.csv has 0 changes, either way round", async () => {
    const dir = await tempDir();
    const out = join(dir, "out");
    expect(
      (await runCli("build", "--sources", join(repo, "sources"), "--out", out, "--quiet", "--no-cache")).code,
    ).toBe(0);
    for (const [a, b] of [
      [out, `${out}/manifest.csv`],
      [`${out}/manifest.csv`, out],
      [`${out}/manifest.csv`, `${out}/manifest.json`],
    ] as const) {
      const r = await runCli("diff", a, b, "--json");
      expect(r.code).toBe(0);
      expect(noChanges(JSON.parse(r.stdout))).toEqual([[], [], [], []]);
    }
    const text = await runCli("diff", out, `${out}/manifest.csv`);
    expect(text.stdout).toBe(
      `diff ${out} → ${out}/manifest.csv\nadded (0):\nremoved (0):\nchanged (0):\nrenames (0):\n`,
    );
    // The CSV side holds typed values: the baseline's hour is the number 0, its driver null, eos_ok true.
    const csv = await loadSide(`${out}/manifest.csv`);
    const json = await loadSide(`${out}/manifest.json`);
    expect(csv.size).toBe(json.size);
    expect(csv.get("Qwen/Qwen3.5-9B-Base")).toEqual(json.get("Qwen/Qwen3.5-9B-Base"));
    expect(csv.get("Qwen/Qwen3.5-9B-Base")![0]).toMatchObject({
      hour: 0,
      driver: null,
      eos_ok: true,
      eos_token_id: [248044, 248046],
      step: null,
    });
  });

  it("values the CSV writer escapes as formulas come back unescaped (mini sweep with a formula driver and effort)", async () => {
    const dir = await makeMiniSweep({
      "cells.json": miniCells((c) => {
        c.cells[0].driver = '=HYPERLINK("http://x","y")';
        c.cells[0].effort = "-high";
        c.cells[1].driver = "'quoted";
        c.cells[1].effort = "@max";
      }),
    });
    roots.push(dir, `${dir}-out`);
    expect((await runCli("build", "--sources", dir, "--out", `${dir}-out`, "--quiet", "--no-cache")).code).toBe(0);
    const csvText = await readFile(`${dir}-out/manifest.csv`, "utf8");
    expect(csvText).toContain(`"'=HYPERLINK(""http://x"",""y"")",'-high,`);
    expect(csvText).toContain(`''quoted,'@max,`);
    const d = JSON.parse(
      (await runCli("diff", `${dir}-out/manifest.json`, `${dir}-out/manifest.csv`, "--json")).stdout,
    );
    expect(noChanges(d)).toEqual([[], [], [], []]);
    const csv = await loadSide(`${dir}-out/manifest.csv`);
    expect(csv.get("alpha/sft2/100")![0]).toMatchObject({ driver: '=HYPERLINK("http://x","y")', effort: "-high" });
    expect(csv.get("beta/a/1")![0]).toMatchObject({ driver: "'quoted", effort: "@max" });
  });

  it("property: any valid rows give the same side from manifestJson and manifestCsv", async () => {
    const dir = await tempDir();
    // Text made of the characters that matter: formula starts, the escape, quotes, separators, line ends.
    const text = fc.string({
      unit: fc.constantFrom("=", "+", "-", "@", "\t", "\r", "\n", "'", '"', ",", "|", "a", "é", " ", "0"),
      maxLength: 8,
    });
    const number = fc.double({ noNaN: true, noDefaultInfinity: true });
    const row = (i: number): fc.Arbitrary<Row> =>
      fc.record({
        model_id: fc.constant(`agentic-ptb/c${i}.h001.f.${i}`),
        cell: text,
        driver: fc.option(text.filter((t) => t !== "")),
        effort: fc.option(text.filter((t) => t !== "")),
        hour: fc.option(number),
        hour_source: fc.constantFrom(...HOUR_SOURCES),
        hour_upper_bound: fc.option(number),
        driver_tokens_at_hour: fc.option(fc.nat()),
        role: fc.constantFrom(...ROLES),
        eos_ok: fc.option(fc.boolean()),
        eos_token_id: fc.option(fc.array(fc.integer(), { maxLength: 3 })),
        source: text,
        family: fc.constant("f"),
        step: fc.constant(i),
        hour_lower_bound: fc.option(number),
        hour_error_h: fc.option(number),
      });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.tuple(row(1), row(2), row(3)), async (rows) => {
        n += 1;
        await writeFile(join(dir, `${n}.json`), manifestJson(rows));
        await writeFile(join(dir, `${n}.csv`), manifestCsv(rows));
        const json = await loadSide(join(dir, `${n}.json`));
        const csv = await loadSide(join(dir, `${n}.csv`));
        // -0 is written as 0 by both writers.
        expect(JSON.stringify([...csv])).toBe(JSON.stringify([...json]));
        expect(noChanges(diffSides(json, csv, "a", "b"))).toEqual([[], [], [], []]);
      }),
      { numRuns: 150 },
    );
  });

  it("parseCsvCell types each column by the row schema and refuses what the writer cannot have written", () => {
    expect(ROW_KEYS.map((k) => [k, parseCsvCell(k, "")])).toEqual(
      ROW_KEYS.map((k) => [k, ["model_id", "cell", "hour_source", "role", "source"].includes(k) ? "" : null]),
    );
    expect([
      parseCsvCell("hour", "0"),
      parseCsvCell("hour", "-0.5"),
      parseCsvCell("hour", "1e-7"),
      parseCsvCell("step", "750"),
    ]).toEqual([0, -0.5, 1e-7, 750]);
    expect([
      parseCsvCell("eos_ok", "true"),
      parseCsvCell("eos_ok", "false"),
      parseCsvCell("eos_token_id", "[248044,248046]"),
    ]).toEqual([true, false, [248044, 248046]]);
    expect([
      parseCsvCell("driver", "'=x"),
      parseCsvCell("driver", "''x"),
      parseCsvCell("driver", "'-1"),
      parseCsvCell("driver", "a'b"),
    ]).toEqual(["=x", "'x", "-1", "a'b"]);
    const err = (k: string, t: string) => {
      try {
        parseCsvCell(k, t);
        return null;
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(err("hour", "=cmd()")).toBe('"=cmd()" is not a number');
    expect(err("hour", "5 h")).toBe('"5 h" is not a number');
    expect(err("hour", "Infinity")).toBe('"Infinity" is not a number');
    expect(err("eos_ok", "TRUE")).toBe('"TRUE" is not true or false');
    expect(err("eos_token_id", "248044")).toBe('"248044" is not a list written as JSON text');
    expect(err("driver", "=cmd()")).toBe(
      '"=cmd()" starts with "=" without the \' escape: a spreadsheet would run it as a formula, and ptb-manifest never writes it so',
    );
    expect(err("driver", "'abc")).toBe(
      `"'abc" starts with a ' that escapes nothing (ptb-manifest escapes only a text starting with =, +, -, @, tab, carriage return or ')`,
    );
    expect(err("nope", "x")).toBe("is not a manifest column");
  });
});

describe("diff: a side that is not a manifest is DIFF_INPUT naming the file and line (P7)", () => {
  let dir: string;
  let out: string;
  let rows: Row[];
  /** A manifest.json with one row a line: row i (1-based) is on line i + 1. */
  const oneRowALine = (rs: unknown[]) => `[\n${rs.map((r) => JSON.stringify(r)).join(",\n")}\n]\n`;
  beforeAll(async () => {
    dir = await makeMiniSweep();
    out = `${dir}-out`;
    roots.push(dir, out);
    expect((await runCli("build", "--sources", dir, "--out", out, "--quiet", "--no-cache")).code).toBe(0);
    rows = JSON.parse(await readFile(`${out}/manifest.json`, "utf8"));
    expect(rows.map((r) => r.model_id).slice(0, 3)).toEqual([
      "Qwen/Qwen3.5-9B-Base",
      "agentic-ptb/alpha.h005.sft2.100",
      "agentic-ptb/alpha.h012.sft2.200",
    ]);
  });

  it("keeps the valid sides: a sources folder, an output folder, manifest.json, manifest.csv, model-ids.txt", async () => {
    for (const side of [dir, out, `${out}/manifest.json`, `${out}/manifest.csv`, `${out}/model-ids.txt`]) {
      const r = await runCli("diff", side, out, "--json");
      // The sources folder's Hub snapshot differs from the build (exit 1); the build's own files do not (exit 0).
      expect({ side, code: r.code, stderr: r.stderr }).toEqual({ side, code: side === dir ? 1 : 0, stderr: "" });
    }
    const ids = JSON.parse((await runCli("diff", `${out}/model-ids.txt`, `${out}/manifest.csv`, "--json")).stdout);
    expect(noChanges(ids)).toEqual([[], [], [], []]);
  });

  it("refuses provenance.jsonl at its first line (its lines are not model ids)", async () => {
    const r = await refused(out, `${out}/provenance.jsonl`);
    const first = (await readFile(`${out}/provenance.jsonl`, "utf8")).split("\n")[0]!;
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `ptb-manifest: error DIFF_INPUT at ${out}/provenance.jsonl:1: ${JSON.stringify(first).slice(0, 77)}... is not owner/name: a model-ids.txt holds one Hub model id (owner/name) a line\n`,
    );
  });

  it("refuses /dev/null, a FIFO, an empty file, a blank file, a missing path and a folder that is no manifest", async () => {
    const fifo = join(dir, "..", `${dir.split("/").pop()}-fifo`);
    execFileSync("mkfifo", [fifo]);
    roots.push(fifo);
    await writeFile(`${out}/empty.json`, "");
    await writeFile(`${out}/blank.txt`, "\n  \n");
    await mkdir(`${out}/folder`);
    const cases: [string, string][] = [
      [
        "/dev/null",
        "ptb-manifest: error DIFF_INPUT at /dev/null: not a regular file (a device, FIFO or socket): a diff side is a manifest file or folder\n",
      ],
      [
        fifo,
        `ptb-manifest: error DIFF_INPUT at ${fifo}: not a regular file (a device, FIFO or socket): a diff side is a manifest file or folder\n`,
      ],
      [`${out}/empty.json`, `ptb-manifest: error DIFF_INPUT at ${out}/empty.json: an empty file is not a manifest\n`],
      [`${out}/blank.txt`, `ptb-manifest: error DIFF_INPUT at ${out}/blank.txt: a blank file is not a manifest\n`],
      [
        `${out}/missing.json`,
        `ptb-manifest: error DIFF_INPUT at ${out}/missing.json: no such file or folder: ${out}/missing.json\n`,
      ],
      [
        `${out}/folder`,
        `ptb-manifest: error DIFF_INPUT at ${out}/folder: a folder that is neither a sources folder (cells.json) nor a build's output folder (manifest.json)\n`,
      ],
    ];
    for (const [side, stderr] of cases) {
      expect(await refused(out, side)).toEqual({ code: 2, stderr });
      expect(await refused(side, out)).toEqual({ code: 2, stderr }); // either side
    }
  });

  it("refuses manifest.json rows that fail the row schema, naming the row and its line", async () => {
    const edit = async (name: string, f: (rs: Record<string, unknown>[]) => unknown[]) => {
      const path = `${out}/${name}`;
      await writeFile(path, oneRowALine(f(rows.map((r) => ({ ...r })))));
      return path;
    };
    const nullId = await edit("null-id.json", (rs) => ((rs[2]!.model_id = null), rs));
    expect(await refused(out, nullId)).toEqual({
      code: 2,
      stderr: `ptb-manifest: error DIFF_INPUT at ${nullId}:4: row 3 is not a manifest row: model_id: Invalid input: expected string, received null\n`,
    });
    const formula = await edit("formula.json", (rs) => ((rs[1]!.hour = "=cmd()"), rs));
    expect(await refused(out, formula)).toEqual({
      code: 2,
      stderr: `ptb-manifest: error DIFF_INPUT at ${formula}:3: row 2 ("agentic-ptb/alpha.h005.sft2.100") is not a manifest row: hour: Invalid input: expected number, received string (got "=cmd()")\n`,
    });
    const notHubId = await edit("not-hub-id.json", (rs) => ((rs[1]!.model_id = "alpha.h005.sft2.100"), rs));
    expect(await refused(out, notHubId)).toEqual({
      code: 2,
      stderr: `ptb-manifest: error DIFF_INPUT at ${notHubId}:3: row 2: model_id "alpha.h005.sft2.100" is not owner/name: not a Hub model id\n`,
    });
    const unknownKey = await edit("unknown-key.json", (rs) => ((rs[0]!.note = "x"), rs));
    expect((await refused(out, unknownKey)).stderr).toBe(
      `ptb-manifest: error DIFF_INPUT at ${unknownKey}:2: row 1 ("Qwen/Qwen3.5-9B-Base") is not a manifest row: Unrecognized key: "note"\n`,
    );
    const dupId = await edit("dup-id.json", (rs) => [...rs, { ...rs[1]!, step: 999 }]);
    expect(await refused(out, dupId)).toEqual({
      code: 2,
      stderr: `ptb-manifest: error DIFF_INPUT at ${dupId}:${rows.length + 2}: row ${rows.length + 1}: model_id agentic-ptb/alpha.h005.sft2.100 is also the id of row 2: a manifest holds each id once\n`,
    });
    const dupCheckpoint = await edit("dup-checkpoint.json", (rs) => [
      ...rs,
      { ...rs[1]!, model_id: "agentic-ptb/alpha.h006.sft2.100" },
    ]);
    expect(await refused(out, dupCheckpoint)).toEqual({
      code: 2,
      stderr: `ptb-manifest: error DIFF_INPUT at ${dupCheckpoint}:${rows.length + 2}: row ${rows.length + 1} (agentic-ptb/alpha.h006.sft2.100): checkpoint alpha/sft2/100 is also the checkpoint of row 2 (agentic-ptb/alpha.h005.sft2.100): a manifest holds each checkpoint once\n`,
    });
    await writeFile(`${out}/object.json`, '{"rows": []}\n');
    expect((await refused(out, `${out}/object.json`)).stderr).toBe(
      `ptb-manifest: error DIFF_INPUT at ${out}/object.json:1: a manifest.json is a JSON array of rows, not object\n`,
    );
    await writeFile(`${out}/no-rows.json`, "[]\n");
    expect((await refused(out, `${out}/no-rows.json`)).stderr).toBe(
      `ptb-manifest: error DIFF_INPUT at ${out}/no-rows.json:1: a manifest with no rows (every build has at least the baseline row)\n`,
    );
    await writeFile(`${out}/cut.json`, '[\n{"model_id": \n');
    expect((await refused(out, `${out}/cut.json`)).stderr).toMatch(
      new RegExp(`^ptb-manifest: error DIFF_INPUT at ${out}/cut\\.json(:\\d+)?: not JSON: .+\\n$`),
    );
    // The line is that of the row's "{" also in the indented file the build writes.
    const indented = `${out}/indented.json`;
    const edited = rows.map((r) => ({ ...r })) as Record<string, unknown>[];
    edited[2]!.model_id = null;
    await writeFile(indented, manifestJson(edited as unknown as Row[]));
    const line =
      (await readFile(indented, "utf8"))
        .split("\n")
        .findIndex((l, i, all) => l === "  {" && all.slice(0, i).filter((x) => x === "  {").length === 2) + 1;
    expect((await refused(out, indented)).stderr).toContain(`at ${indented}:${line}: row 3 is not a manifest row`);
  });

  it("refuses manifest.csv fields its writer cannot have written and other headers, naming the row and its line", async () => {
    const csv = await readFile(`${out}/manifest.csv`, "utf8");
    const csvLines = csv.split("\n");
    const withLine = async (name: string, lineNo: number, f: (l: string) => string) => {
      const ls = [...csvLines];
      ls[lineNo - 1] = f(ls[lineNo - 1]!);
      expect(ls[lineNo - 1]).not.toBe(csvLines[lineNo - 1]);
      await writeFile(`${out}/${name}`, ls.join("\n"));
      return `${out}/${name}`;
    };
    const formula = await withLine("formula.csv", 3, (l) => l.replace(",Codex / gpt-x,", ",=cmd(),"));
    expect(await refused(out, formula)).toEqual({
      code: 2,
      stderr: `ptb-manifest: error DIFF_INPUT at ${formula}:3: row 2 ("agentic-ptb/alpha.h005.sft2.100") is not a manifest row: driver: "=cmd()" starts with "=" without the ' escape: a spreadsheet would run it as a formula, and ptb-manifest never writes it so\n`,
    });
    const hour = await withLine("hour.csv", 3, (l) => l.replace(",5,mtime,", ",5 h,mtime,"));
    expect((await refused(out, hour)).stderr).toBe(
      `ptb-manifest: error DIFF_INPUT at ${hour}:3: row 2 ("agentic-ptb/alpha.h005.sft2.100") is not a manifest row: hour: "5 h" is not a number\n`,
    );
    const role = await withLine("role.csv", 3, (l) => l.replace(",fallback,", ",boss,"));
    expect((await refused(out, role)).stderr).toBe(
      `ptb-manifest: error DIFF_INPUT at ${role}:3: row 2 ("agentic-ptb/alpha.h005.sft2.100") is not a manifest row: role: Invalid option: expected one of "SUBMITTED"|"fallback"|"intermediate"|"baseline" (got "boss")\n`,
    );
    const header = await withLine("header.csv", 1, (l) => l.replace(",hour,", ",hours,"));
    expect((await refused(out, header)).stderr).toBe(
      `ptb-manifest: error DIFF_INPUT at ${header}:1: the header row is not manifest.csv's: without hour and with "hours" (unknown or twice)\n`,
    );
    const dup = `${out}/dup.csv`;
    await writeFile(dup, `${csv}${csvLines[2]}\n`);
    expect((await refused(out, dup)).stderr).toBe(
      `ptb-manifest: error DIFF_INPUT at ${dup}:${csvLines.length}: row ${csvLines.length - 1}: model_id agentic-ptb/alpha.h005.sft2.100 is also the id of row 2: a manifest holds each id once\n`,
    );
    const short = await withLine("short.csv", 4, (l) => l.split(",").slice(0, 3).join(","));
    expect((await refused(out, short)).stderr).toMatch(
      new RegExp(`^ptb-manifest: error DIFF_INPUT at ${out}/short\\.csv:4: not CSV: Invalid Record Length: .+\\n$`),
    );
  });

  it("refuses model-ids.txt lines that are not owner/name Hub ids, and an id twice", async () => {
    const ids = (await readFile(`${out}/model-ids.txt`, "utf8")).split("\n");
    const bad = `${out}/bad-ids.txt`;
    await writeFile(bad, [...ids.slice(0, 2), "null", ...ids.slice(2)].join("\n"));
    expect(await refused(out, bad)).toEqual({
      code: 2,
      stderr: `ptb-manifest: error DIFF_INPUT at ${bad}:3: "null" is not owner/name: a model-ids.txt holds one Hub model id (owner/name) a line\n`,
    });
    const name = `${out}/bad-name.txt`;
    await writeFile(name, `${ids[0]}\nagentic-ptb/alpha..x\n`);
    expect((await refused(out, name)).stderr).toBe(
      `ptb-manifest: error DIFF_INPUT at ${name}:2: "agentic-ptb/alpha..x" has a name that contains "..": a model-ids.txt holds one Hub model id (owner/name) a line\n`,
    );
    const dup = `${out}/dup-ids.txt`;
    await writeFile(dup, `${ids[0]}\n${ids[1]}\n\n${ids[1]}\n`);
    expect(await refused(out, dup)).toEqual({
      code: 2,
      stderr: `ptb-manifest: error DIFF_INPUT at ${dup}:4: ${ids[1]} is also on line 2: a model-ids.txt holds each id once\n`,
    });
  });
});

describe("what diff cannot use is said on stderr (never a silent removal)", () => {
  it("a Hub snapshot's bad .hub.json (HUB_BAD_JSON) and a build without its provenance.jsonl (PROVENANCE_UNREADABLE)", async () => {
    const dir = await makeMiniSweep();
    const out = `${dir}-out`;
    roots.push(dir, out);
    expect((await runCli("build", "--sources", dir, "--out", out, "--quiet")).code).toBe(0);
    await writeFile(join(dir, "hub", "agentic-ptb", "alpha.h012.sft2.200", ".hub.json"), "{not json");
    const sources = await runCli("diff", dir, out);
    expect(sources.stderr).toContain(
      `ptb-manifest: warning HUB_BAD_JSON at ${join(dir, "hub/agentic-ptb/alpha.h012.sft2.200/.hub.json")}`,
    );
    await writeFile(join(out, "provenance.jsonl"), "{broken\n");
    const noProvenance = await runCli("diff", out, join(out, "manifest.csv"));
    expect(noProvenance.code).toBe(0);
    expect(noProvenance.stderr).toContain(
      `ptb-manifest: warning PROVENANCE_UNREADABLE at ${join(out, "provenance.jsonl")}:1: 1 line(s) are not JSON; ids published under a family's earlier name (family_aliases) cannot be paired with their rows where they are named\n`,
    );
  }, 60_000);
});
