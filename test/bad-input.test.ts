import { afterAll, describe, expect, it } from "vitest";
import { mkdtemp, readdir, readFile, stat } from "node:fs/promises";
import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isCode, REGISTRY } from "../src/diagnostics/registry.js";
import type { Row } from "../src/schema.js";
import { runCli } from "./helpers/cli.js";
import { miniSweepFiles } from "./helpers/mini-sweep.js";
import { EXPECTED_LOST, EXPECTED_ROWS, EXPECTED_WARNINGS } from "./helpers/mini-sweep-expected.js";
import { applyEdits, writeCase, type BadCase, type WarningKey } from "./helpers/bad-case.js";
import { removeTree } from "./helpers/tree.js";

/**
 * The bad-input corpus (issue 5): one case per kind of fault, each the mini
 * sweep plus the edits in test/fixtures/bad/<case>/case.json (the format is
 * described in test/helpers/bad-case.ts), run through the real CLI. Every
 * case must exit with its code, report exactly its warnings or its error
 * (code, file, line), never print a stack trace, and leave every row it does
 * not name exactly as in the mini sweep: nothing good is dropped in silence.
 */

const CORPUS = join(import.meta.dirname, "fixtures", "bad");
const cases = readdirSync(CORPUS, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort()
  .map((name) => ({ name, spec: JSON.parse(readFileSync(join(CORPUS, name, "case.json"), "utf8")) as BadCase }));

const roots: string[] = [];
afterAll(async () => Promise.all(roots.map(removeTree)));

const key = (w: WarningKey): string => JSON.stringify([w[0], w[1], w[2]]);
const byId = (rows: Row[]): Row[] =>
  [...rows].sort((a, b) => (a.model_id < b.model_id ? -1 : a.model_id > b.model_id ? 1 : 0));

function expectedWarnings(spec: BadCase): string[] {
  const out = EXPECTED_WARNINGS.map((w) => key(w));
  for (const r of spec.warnings?.removed ?? []) {
    const i = out.indexOf(key(r));
    if (i < 0) throw new Error(`case removes a warning the mini sweep does not have: ${key(r)}`);
    out.splice(i, 1);
  }
  out.push(...(spec.warnings?.added ?? []).map(key));
  return out.sort();
}

function expectedRows(spec: BadCase): Row[] {
  const removed = new Set(spec.rows?.removed ?? []);
  const changed = spec.rows?.changed ?? {};
  for (const id of [...removed, ...Object.keys(changed)]) {
    if (!EXPECTED_ROWS.some((r) => r.model_id === id))
      throw new Error(`case names a row the mini sweep does not have: ${id}`);
  }
  const rows = EXPECTED_ROWS.filter((r) => !removed.has(r.model_id)).map((r) => ({
    ...r,
    ...(changed[r.model_id] ?? {}),
  }));
  return byId([...rows, ...(spec.rows?.added ?? [])]);
}

/** Every entry under `dir` (links not followed) with its type, and size and mtime for files: "nothing written" means this does not change. */
async function treeState(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for (const e of (await readdir(join(dir, prefix), { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(`${rel}/`, ...(await treeState(dir, rel)));
    else if (e.isFile()) {
      const s = await stat(join(dir, rel));
      out.push(`${rel} ${s.size} ${s.mtimeMs}`);
    } else out.push(`${rel} (not a file or folder)`);
  }
  return out;
}

const STACK_TRACE = /^\s+at .+(:\d+:\d+\)?|\(native\))$/m;

describe("bad-input corpus (test/fixtures/bad)", () => {
  it("has at least 30 cases, each with its own fault", () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
    expect(new Set(cases.map((c) => c.spec.fault)).size).toBe(cases.length);
  });

  for (const { name, spec } of cases) {
    it(`${name}: ${spec.fault} → exit ${spec.exit}${spec.error ? ` ${spec.error.code}` : ""}`, async () => {
      const root = await mkdtemp(join(tmpdir(), `ptb-bad-${name}-`));
      roots.push(root);
      const sources = await writeCase(root, applyEdits(miniSweepFiles(), spec.edits));
      const out = join(root, "out");
      const expand = (text: string): string => text.replaceAll("$SOURCES", sources).replaceAll("$ROOT", root);
      const before = await treeState(root);
      const r = await runCli("build", "--sources", sources, "--out", out, "--quiet", ...(spec.args ?? []).map(expand));
      expect(r.stderr).not.toMatch(STACK_TRACE);
      expect({ code: r.code, stderr: r.code === spec.exit ? "" : r.stderr }).toEqual({ code: spec.exit, stderr: "" });

      if (spec.exit !== 0) {
        expect(r.stdout).toBe("");
        await expect(stat(out)).rejects.toThrow(); // nothing written
        expect(await treeState(root)).toEqual(before); // nor anywhere else under the case's folder (e.g. an --out inside the sources)
        if (spec.exit === 1) {
          const e = spec.error!;
          const file = e.file === null ? null : expand(e.file);
          const at = file === null ? "" : ` at ${file}${e.line === null ? "" : `:${e.line}`}`;
          expect(r.stderr).toContain(`ptb-manifest: error ${e.code}${at}: `);
          expect(r.stderr).toContain(expand(e.message));
          expect(r.stderr.trim().split("\n")).toHaveLength(1);
        } else if (spec.exit === 64) {
          expect(r.stderr).toContain(spec.usage!);
        } else {
          expect(r.stderr).toContain("--strict:");
        }
        return;
      }
      for (const text of spec.stdout ?? []) expect(r.stdout).toContain(text);
      for (const [file, texts] of Object.entries(spec.files ?? {})) {
        const body = await readFile(join(out, file), "utf8");
        for (const text of texts) expect(body).toContain(text);
      }

      const report = JSON.parse(await readFile(join(out, "build-report.json"), "utf8")) as {
        warnings: { code: string; message: string; file: string | null; line: number | null }[];
        lost: unknown[];
      };
      expect(report.warnings.map((w) => key([w.code, w.file, w.line])).sort()).toEqual(expectedWarnings(spec));
      for (const w of report.warnings) {
        expect(w.message.length).toBeGreaterThan(10);
        if (w.file !== null) expect(w.file).toMatch(/^(?!\/)(?!.*(^|\/)\.\.(\/|$)).+$/); // relative, inside the sources
      }
      for (const [code, file, line, message] of spec.warnings?.added ?? []) {
        if (message === undefined) continue;
        const w = report.warnings.find((x) => x.code === code && x.file === file && x.line === line)!;
        expect(w.message).toContain(message);
      }
      const rows = JSON.parse(await readFile(join(out, "manifest.json"), "utf8")) as Row[];
      expect(byId(rows)).toEqual(expectedRows(spec));
      const lost = [...EXPECTED_LOST, ...(spec.lost?.added ?? [])].filter(
        (l) => !(spec.lost?.removed ?? []).some((x) => JSON.stringify(x) === JSON.stringify(l)),
      );
      expect(report.lost).toEqual(expect.arrayContaining(lost as object[]));
      expect(report.lost).toHaveLength(lost.length);
      expect((await readdir(out)).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    });
  }

  // Every code in src/ is registered, and the README's table is generated from the registry: test/diagnostics.test.ts.
  it("every code the corpus expects is registered (diagnostics/registry.ts), with its level", () => {
    const levels = new Map<string, string>();
    for (const { spec } of cases) {
      if (spec.error) levels.set(spec.error.code, "error");
      for (const w of spec.warnings?.added ?? []) levels.set(w[0], "warning");
    }
    expect(levels.size).toBeGreaterThan(30);
    const wrong = [...levels].filter(([code, level]) => !isCode(code) || REGISTRY[code].level !== level);
    expect(wrong).toEqual([]);
  });
});
