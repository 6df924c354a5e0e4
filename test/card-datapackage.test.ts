import { describe, expect, it, beforeAll, afterAll } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, readFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse } from "csv-parse/sync";
import { runBuild } from "../src/pipeline/run-build.js";

const repo = join(import.meta.dirname, "..");
const CARD = join(repo, "..", "shared", "index-card.md");

/** The body rows of the markdown table in the section under `## heading` (or `### heading`). */
function tableUnder(md: string, heading: string): string[][] {
  const after = (md.split(new RegExp(`^#{2,3} ${heading}\\s*$`, "m"))[1] ?? "").split("\n");
  const next = after.findIndex((l) => l.startsWith("#"));
  const section = next < 0 ? after : after.slice(0, next);
  return section
    .filter((l) => l.startsWith("|"))
    .slice(2)
    .map((l) =>
      l
        .split("|")
        .slice(1, -1)
        .map((c) => c.trim()),
    );
}

describe("generated index card, datapackage.json and manifest.schema.json", () => {
  let out: string;
  beforeAll(async () => {
    out = await mkdtemp(join(tmpdir(), "ptb-card-"));
    await runBuild({ sources: join(repo, "sources"), out, quiet: true });
  }, 300_000);
  afterAll(async () => rm(out, { recursive: true, force: true }));

  it("the card declares manifest.csv as the dataset viewer's default config", async () => {
    const card = await readFile(join(out, "README.md"), "utf8");
    expect(card.split("---\n")[1]).toBe(
      "tags: [agentic-ptb, index]\nconfigs:\n  - config_name: default\n    default: true\n    data_files:\n      - split: train\n        path: manifest.csv\n",
    );
    expect(card).not.toMatch(/\{\{\w+\}\}/);
  });

  it.skipIf(!existsSync(CARD))(
    existsSync(CARD)
      ? "states the same tables as the published index card"
      : "published card: skipped, ../shared/index-card.md not found",
    async () => {
      const ours = await readFile(join(out, "README.md"), "utf8");
      const published = readFileSync(CARD, "utf8");
      expect(tableUnder(ours, "Cells")).toEqual(tableUnder(published, "Cells"));
      const counts = (md: string) => tableUnder(md, "hour_source").map((r) => [r[0], r[1]]);
      expect(counts(ours)).toEqual(counts(published));
      expect(tableUnder(ours, "eos_ok per cell").filter((r) => r[0] === "`grok`" || r[0] === "`sol-high`")).toEqual([
        ["`sol-high`", "39/57"],
        ["`grok`", "0/59"],
      ]);
      expect(published).toContain("grok is 0/59 correct while\nsol-high is 39/57");
    },
  );

  it("manifest.json validates against the JSON Schema generated from the zod row schema", async () => {
    const schema = JSON.parse(await readFile(join(out, "manifest.schema.json"), "utf8"));
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    const validate = new Ajv2020({ strict: false }).compile(schema);
    const manifest = JSON.parse(await readFile(join(out, "manifest.json"), "utf8"));
    expect(validate(manifest), JSON.stringify(validate.errors)).toBe(true);
    const broken = structuredClone(manifest);
    broken[3].hour_source = "guessed";
    expect(validate(broken)).toBe(false);
  });

  it("manifest.csv validates against the Table Schema of datapackage.json, whose hash and size match", async () => {
    const pkg = JSON.parse(await readFile(join(out, "datapackage.json"), "utf8"));
    const res = pkg.resources[0];
    const csv = await readFile(join(out, "manifest.csv"));
    expect(res.hash).toBe(`sha256:${createHash("sha256").update(csv).digest("hex")}`);
    expect(res.bytes).toBe(csv.length);
    expect(res.schema.primaryKey).toEqual(["model_id"]);
    const records = parse(csv, { columns: true }) as Record<string, string>[];
    expect(Object.keys(records[0]!)).toEqual(res.schema.fields.map((f: any) => f.name));
    const problems: string[] = [];
    const seen = new Set<string>();
    records.forEach((rec, i) => {
      for (const f of res.schema.fields) {
        const v = rec[f.name]!;
        if (res.schema.missingValues.includes(v)) {
          if (f.constraints?.required) problems.push(`row ${i + 1} ${f.name}: required`);
          continue;
        }
        const ok =
          f.type === "string"
            ? true
            : f.type === "number"
              ? /^-?\d+(\.\d+)?$/.test(v)
              : f.type === "integer"
                ? /^-?\d+$/.test(v)
                : f.type === "boolean"
                  ? [...f.trueValues, ...f.falseValues].includes(v)
                  : f.type === "array"
                    ? Array.isArray(JSON.parse(v))
                    : false;
        if (!ok) problems.push(`row ${i + 1} ${f.name}: ${v} is not ${f.type}`);
        if (f.constraints?.enum && !f.constraints.enum.includes(v))
          problems.push(`row ${i + 1} ${f.name}: ${v} not in enum`);
      }
      if (seen.has(rec.model_id!)) problems.push(`row ${i + 1}: duplicate primary key`);
      seen.add(rec.model_id!);
    });
    expect(problems).toEqual([]);
    expect(res.schema.fields.find((f: any) => f.name === "hour_source").categories).toEqual([
      "mtime",
      "janitor",
      "extrapolated",
      "unrecoverable",
      "baseline",
    ]);
  });
});
