/**
 * The library modules under the commands, on in-memory data: the model-id
 * parser, the shared option parsers, the live-replaced input rule, the
 * manifest reader on strings, `validateBuild` on a small build result, and
 * `main` on in-memory streams (two runs at once).
 */
import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import { validateBuild } from "../src/audit/validate.js";
import { InputError } from "../src/errors.js";
import { checkpointKeyOfId, orgOfRows, parseModelId } from "../src/manifest/model-id.js";
import { checkRows, checkpointKeyOfRecord, csvRows, hubIdProblem, jsonRows } from "../src/manifest/read.js";
import type { BuildResult } from "../src/model.js";
import { collectCellDirs, outPathOption, parseCount, parseHours } from "../src/options.js";
import { isReplaced, liveReplacedPrefixes } from "../src/pipeline/live-inputs.js";
import type { CellsFile, Row } from "../src/schema.js";
import { runCli } from "./helpers/cli.js";

const row = (over: Partial<Row>): Row => ({
  model_id: "ptb/sol-high.h012.sft.40",
  cell: "sol-high",
  driver: "codex",
  effort: "high",
  hour: 12.5,
  hour_source: "mtime",
  hour_upper_bound: null,
  driver_tokens_at_hour: 100,
  role: "intermediate",
  eos_ok: true,
  eos_token_id: [1],
  source: "pvc",
  family: "sft",
  step: 40,
  hour_lower_bound: null,
  hour_error_h: null,
  ...over,
});
const baseline = row({
  model_id: "Qwen/base",
  cell: "BASELINE",
  driver: null,
  effort: null,
  hour: 0,
  hour_source: "baseline",
  role: "baseline",
  driver_tokens_at_hour: 0,
  family: null,
  step: null,
});

/** The error a function throws (fails when it returns). */
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error("did not throw");
}

describe("model ids (manifest/model-id.ts)", () => {
  it("the org is the owner of the first checkpoint row, not the baseline's", () => {
    expect(orgOfRows([baseline, row({})])).toBe("ptb");
    expect(orgOfRows([baseline])).toBeUndefined();
  });

  it("parses a name against the known cells, longest cell first, and checks the owner when an org is given", () => {
    expect(parseModelId("ptb/sol-high.h012.sft.40", ["sol", "sol-high"])).toEqual({
      cell: "sol-high",
      hourPart: "012",
      family: "sft",
      step: 40,
    });
    expect(parseModelId("ptb/sol-high.hNA.a.b.7", ["sol-high"], "ptb")).toEqual({
      cell: "sol-high",
      hourPart: "NA",
      family: "a.b",
      step: 7,
    });
    expect(parseModelId("other/sol-high.h012.sft.40", ["sol-high"], "ptb")).toBeNull();
    expect(parseModelId("ptb/", ["sol-high"])).toBeNull();
    expect(parseModelId("ptb/sol-high.h12.sft.40", ["sol-high"])).toBeNull();
  });

  it("keys an id by checkpoint: with the cells, else the shortest cell the format accepts, the step as written", () => {
    expect(checkpointKeyOfId("ptb/sol-high.h012.sft.40", ["sol-high"])).toBe("sol-high/sft/40");
    expect(checkpointKeyOfId("ptb/sol-high.h012.sft.40", null)).toBe("sol-high/sft/40");
    expect(checkpointKeyOfId("ptb/a.hb.h012.f.007", null)).toBe("a.hb/f/007");
    expect(checkpointKeyOfId("ptb/c.h100.h200.f.1", null)).toBe("c/h200.f/1");
    expect(checkpointKeyOfId("Qwen/base", null)).toBe("Qwen/base");
    expect(checkpointKeyOfId("/c.h001.f.1", null)).toBe("/c.h001.f.1");
  });
});

describe("shared option parsers (options.ts)", () => {
  it("parseHours takes a positive decimal number of hours", () => {
    expect(parseHours("1.5")).toBe(1.5);
    expect(parseHours(" 5 ")).toBe(5);
    for (const bad of ["0", "-1", "1e3", "abc", ""]) {
      const err = thrown(() => parseHours(bad));
      expect(err).toBeInstanceOf(InvalidArgumentError);
      expect((err as Error).message).toBe(`expected a positive number of hours, got "${bad}"`);
    }
  });

  it("parseCount takes a positive integer", () => {
    expect(parseCount("8")).toBe(8);
    expect((thrown(() => parseCount("0")) as Error).message).toBe('expected a positive integer, got "0"');
    expect((thrown(() => parseCount("1.5")) as Error).message).toBe('expected a positive integer, got "1.5"');
  });

  it("outPathOption refuses a blank path", () => {
    expect(outPathOption("out")).toBe("out");
    expect((thrown(() => outPathOption("  ")) as Error).message).toBe(
      "an empty path is not an output folder or file (use . for the current folder)",
    );
  });

  it("collectCellDirs collects CELL=DIR once per cell", () => {
    const add = collectCellDirs("--pvc");
    expect(add("b=/x=y", add("a=/m", undefined))).toEqual({ a: "/m", b: "/x=y" });
    expect((thrown(() => add("=dir", undefined)) as Error).message).toBe('expected CELL=DIR, got "=dir"');
    expect((thrown(() => add("a=", undefined)) as Error).message).toBe('expected CELL=DIR, got "a="');
    expect((thrown(() => add("a=/n", { a: "/m" })) as Error).message).toBe("--pvc a= given twice");
  });
});

describe("inputs a live source replaces (pipeline/live-inputs.ts)", () => {
  it("hub/ with --hub, <cell>/pvc/ per --pvc, <cell>/trajectory/ per --trajectory", () => {
    const prefixes = liveReplacedPrefixes({ hub: true, pvc: { a: "/m" }, trajectory: { b: "/t" } });
    expect(prefixes).toEqual(["hub/", "a/pvc/", "b/trajectory/"]);
    expect(liveReplacedPrefixes({})).toEqual([]);
    expect(isReplaced("a/pvc/listing.tsv", prefixes)).toBe(true);
    expect(isReplaced("a/pvcx/listing.tsv", prefixes)).toBe(false);
    expect(isReplaced("b/supervisor.jsonl", prefixes)).toBe(false);
  });
});

describe("the manifest reader on strings (manifest/read.ts)", () => {
  const json = (rows: unknown[]): string => `[\n${rows.map((r) => `  ${JSON.stringify(r)}`).join(",\n")}\n]\n`;

  it("reads JSON rows with the line each starts on, keyed by checkpoint", () => {
    const text = json([baseline, row({})]);
    expect(jsonRows("m.json", text).map((r) => [r.line, r.label])).toEqual([
      [2, "row 1"],
      [3, "row 2"],
    ]);
    expect(checkRows("m.json", jsonRows("m.json", text)).map((r) => r.key)).toEqual(["Qwen/base", "sol-high/sft/40"]);
    expect(checkpointKeyOfRecord({ model_id: "ptb/c.h001.f.2" })).toBe("c/f/2");
  });

  it("names the file and line of a bad row, a repeated checkpoint, a bad header", () => {
    const err = thrown(() => checkRows("m.json", jsonRows("m.json", json([baseline, row({ hour: "x" as never })]))));
    expect(err).toBeInstanceOf(InputError);
    expect([(err as InputError).code, (err as InputError).file, (err as InputError).line]).toEqual([
      "DIFF_INPUT",
      "m.json",
      3,
    ]);
    expect((err as Error).message).toBe(
      'row 2 ("ptb/sol-high.h012.sft.40") is not a manifest row: hour: Invalid input: expected number, received string (got "x")',
    );
    const twice = thrown(() =>
      checkRows("m.json", jsonRows("m.json", json([row({}), row({ model_id: "ptb/sol-high.h013.sft.40" })]))),
    ) as InputError;
    expect([twice.line, twice.message]).toEqual([
      3,
      "row 2 (ptb/sol-high.h013.sft.40): checkpoint sol-high/sft/40 is also the checkpoint of row 1 (ptb/sol-high.h012.sft.40): a manifest holds each checkpoint once",
    ]);
    const header = thrown(() => csvRows("m.csv", "model_id,cell\nx,y\n")) as InputError;
    expect([header.code, header.line]).toEqual(["DIFF_INPUT", 1]);
    expect(header.message).toMatch(/^the header row is not manifest\.csv's: without driver, effort, hour/);
    const notJson = thrown(() => jsonRows("m.json", "[\n  {},\n  oops\n]")) as InputError;
    expect([notJson.code, notJson.file]).toEqual(["DIFF_INPUT", "m.json"]);
    expect(notJson.message).toMatch(/^not JSON: /);
  });

  it("hubIdProblem: an id is owner/name", () => {
    expect(hubIdProblem("ptb/x")).toBeNull();
    expect(hubIdProblem("ptb/x/y")).toBe("is not owner/name");
  });
});

describe("validateBuild on a build result in memory (audit/validate.ts)", () => {
  it("a build of the baseline alone passes with nothing to check", () => {
    const result: BuildResult = {
      registry: { org: "ptb", baseline: "Qwen/base", cells: [] } as unknown as CellsFile,
      rows: [baseline],
      provenance: [
        {
          model_id: "Qwen/base",
          cell: "BASELINE",
          hour_source: "baseline",
          rule: "baseline",
          eos: { repo: "Qwen/base", from: null, chatTemplate: null, ids: null },
        },
      ],
      warnings: [],
      excluded: [],
      lost: [],
      fits: {},
      runs: {},
      tokenCurves: {},
    };
    const v = validateBuild(result, 2);
    expect([v.ok, v.tolerance_h, v.families, v.anchors, v.conflicts]).toEqual([true, 2, [], [], []]);
  });
});

describe("main on in-memory streams (cli.ts)", () => {
  it("two runs at once keep their output apart", async () => {
    const [version, unknown] = await Promise.all([runCli("--version"), runCli("bogus")]);
    expect(version).toEqual({ code: 0, stdout: "0.1.0\n", stderr: "" });
    expect(unknown.code).toBe(64);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toBe("error: unknown command 'bogus'\nsee 'ptb-manifest --help'\n");
  });
});
