import { readFile } from "node:fs/promises";
import { join } from "node:path";
import fg from "fast-glob";
import { describe, expect, it } from "vitest";
import { codesSection, currentCodesSection, END, replaceCodesSection, START } from "../scripts/codes-table.js";
import { Diagnostics, inputErrorLine, warningLine, where } from "../src/diagnostics.js";
import { type CodeInfo, isCode, REGISTRY } from "../src/diagnostics/registry.js";
import { InputError } from "../src/errors.js";

/** The diagnostics registry, collector and formatter (DESIGN.md: "Warnings are data"; README: "Warnings and errors"). */

const ROOT = join(import.meta.dirname, "..");
const CODE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;
// String literals in src/ shaped like a code (UPPER_SNAKE) that name other things.
const NOT_CODES = new Set([
  "BAD_PORT",
  "EAI_NONAME",
  "ERR_INVALID_URL",
  "HF_TOKEN",
  "PTB_MANIFEST_THREADS",
  "XDG_CACHE_HOME",
]);

async function sources(): Promise<{ file: string; text: string }[]> {
  const files = (await fg("**/*.ts", { cwd: join(ROOT, "src") })).sort();
  return Promise.all(files.map(async (file) => ({ file, text: await readFile(join(ROOT, "src", file), "utf8") })));
}

describe("the registry (src/diagnostics/registry.ts)", () => {
  it("gives every code a level, a meaning and a remedy, each one table cell", () => {
    expect(Object.keys(REGISTRY).length).toBeGreaterThan(140);
    for (const [code, info] of Object.entries(REGISTRY) as [string, CodeInfo][]) {
      expect(code).toMatch(CODE);
      expect(["warning", "error"]).toContain(info.level);
      for (const text of [info.meaning, info.remedy]) {
        expect(text.trim().length, code).toBeGreaterThan(3);
        expect(text, code).not.toMatch(/[|\n]/);
      }
    }
  });

  it("registers every code literal in src/, and every registered code is raised in src/", async () => {
    const raised = new Set<string>();
    for (const { text } of await sources())
      for (const m of text.matchAll(/"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"/g)) if (!NOT_CODES.has(m[1]!)) raised.add(m[1]!);
    expect([...raised].filter((c) => !isCode(c)).sort()).toEqual([]);
    expect(Object.keys(REGISTRY).filter((c) => !raised.has(c) || NOT_CODES.has(c))).toEqual([]);
  });

  // The types check this too: `warn` and `Warning.code` take only warning codes, `InputError` and `inputErrorLine`
  // only error codes (the next test); this scan shows it on the source text, where a code is raised as a literal.
  it("levels match how each code is raised: InputError and the error line an error, warn and the warning line a warning", async () => {
    const asError = [
      /new InputError\(\s*"([A-Z0-9_]+)"/g,
      /unreadableError\(\s*"([A-Z0-9_]+)"/g,
      /inputErrorLine\(\{\s*code: "([A-Z0-9_]+)"/g,
    ];
    const asWarning = [
      /\.warn\(\s*"([A-Z0-9_]+)"/g,
      /warnUnreadable\(\s*[\w.]+,\s*"([A-Z0-9_]+)"/g,
      /warningLine\(\{\s*code: "([A-Z0-9_]+)"/g,
    ];
    const wrong: string[] = [];
    let seen = 0;
    for (const { file, text } of await sources()) {
      for (const [level, patterns] of [
        ["error", asError],
        ["warning", asWarning],
      ] as const)
        for (const re of patterns)
          for (const m of text.matchAll(re)) {
            seen += 1;
            const info = isCode(m[1]!) ? REGISTRY[m[1]!] : null;
            if (info?.level !== level) wrong.push(`${file}: ${m[1]} raised as ${level}, registered as ${info?.level}`);
          }
    }
    expect(seen).toBeGreaterThan(180);
    expect(wrong).toEqual([]);
  });

  it("rejects an unknown code, and a code of the other level, at compile time", () => {
    const diag = new Diagnostics();
    // @ts-expect-error an unregistered code does not type-check
    diag.warn("NO_SUCH_CODE", "m");
    // @ts-expect-error an error code is not a warning
    diag.warn("CELLS_MISSING", "m");
    // @ts-expect-error an unregistered code does not type-check
    expect(new InputError("NO_SUCH_CODE", "m").code).toBe("NO_SUCH_CODE");
    // @ts-expect-error a warning code is not an error
    expect(new InputError("JANITOR_CUT_LINE", "m").code).toBe("JANITOR_CUT_LINE");
    expect(isCode("NO_SUCH_CODE")).toBe(false);
    expect(isCode("toString")).toBe(false);
    expect(isCode("JANITOR_CUT_LINE")).toBe(true);
  });
});

describe("the README's codes (npm run readme:codes)", () => {
  it("are the tables the registry generates", async () => {
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    expect(currentCodesSection(readme)).toBe(codesSection());
  });

  it("names no code outside the registry", async () => {
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    const named = new Set([...readme.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/g)].map((m) => m[1]!));
    // environment variables and the like: not codes
    const other = new Set([
      "BAD_PORT",
      "FORCE_COLOR",
      "HF_ENDPOINT",
      "HF_TOKEN",
      "HF_TOKEN_PATH",
      "LC_ALL",
      "NO_COLOR",
      "PTB_MANIFEST_THREADS",
    ]);
    expect([...named].filter((c) => !isCode(c) && !other.has(c)).sort()).toEqual([]);
  });

  it("generate a table per level, sorted by code, between the markers", () => {
    const registry: Record<string, CodeInfo> = {
      B_WARN: { level: "warning", meaning: "m2", remedy: "r2" },
      A_ERR: { level: "error", meaning: "m1", remedy: "r1" },
      A_WARN: { level: "warning", meaning: "m3", remedy: "none" },
    };
    const section = codesSection(registry);
    expect(section).toBe(
      "### Warning codes\n\n| code | meaning | what to do |\n|---|---|---|\n| `A_WARN` | m3 | none |\n| `B_WARN` | m2 | r2 |\n\n" +
        "### Error codes\n\n| code | meaning | what to do |\n|---|---|---|\n| `A_ERR` | m1 | r1 |\n",
    );
    const readme = `# t\n\n${START}\nold\n${END}\n\nafter\n`;
    expect(replaceCodesSection(readme, section)).toBe(`# t\n\n${START}\n${section}${END}\n\nafter\n`);
    expect(currentCodesSection(replaceCodesSection(readme, section))).toBe(section);
    expect(() => replaceCodesSection("# no markers\n", section)).toThrow(/no "<!-- codes:start/);
  });
});

describe("the collector (Diagnostics)", () => {
  it("records warnings in order, with null file and line by default", () => {
    const diag = new Diagnostics();
    diag.warn("JANITOR_CUT_LINE", "cut", "c/janitor/ckpt-janitor.log", 7);
    diag.warn("HUB_NO_EOS", "no eos", "hub/o/r");
    diag.warn("JANITOR_MISSING", "no log");
    expect(diag.warnings).toEqual([
      { code: "JANITOR_CUT_LINE", message: "cut", file: "c/janitor/ckpt-janitor.log", line: 7 },
      { code: "HUB_NO_EOS", message: "no eos", file: "hub/o/r", line: null },
      { code: "JANITOR_MISSING", message: "no log", file: null, line: null },
    ]);
  });
});

describe("the formatter (warningLine, inputErrorLine)", () => {
  it("prints `ptb-manifest: warning CODE at FILE[:LINE]: message` with a line end", () => {
    expect(warningLine({ code: "PVC_BAD_LINE", file: "a/pvc/listing.tsv", line: 3, message: "bad" })).toBe(
      "ptb-manifest: warning PVC_BAD_LINE at a/pvc/listing.tsv:3: bad\n",
    );
    expect(warningLine({ code: "HUB_NO_EOS", file: "hub/o/r", line: null, message: "x" })).toBe(
      "ptb-manifest: warning HUB_NO_EOS at hub/o/r: x\n",
    );
    expect(warningLine({ code: "JANITOR_MISSING", file: null, line: null, message: "y" })).toBe(
      "ptb-manifest: warning JANITOR_MISSING: y\n",
    );
  });

  it("prints `ptb-manifest: error CODE at FILE[:LINE]: message` for an InputError or its fields", () => {
    expect(inputErrorLine(new InputError("CELLS_BAD_JSON", "not JSON", "cells.json", 4))).toBe(
      "ptb-manifest: error CELLS_BAD_JSON at cells.json:4: not JSON\n",
    );
    expect(inputErrorLine(new InputError("SOURCES_NOT_GIVEN", "no sources"))).toBe(
      "ptb-manifest: error SOURCES_NOT_GIVEN: no sources\n",
    );
    expect(inputErrorLine({ code: "FILE_ERROR", file: "/x", line: null, message: "cannot open it" })).toBe(
      "ptb-manifest: error FILE_ERROR at /x: cannot open it\n",
    );
    expect(
      inputErrorLine({ code: "PUBLISH_CONFLICTS_LEFT", file: null, line: null, message: "1 left:\n  a → b" }),
    ).toBe("ptb-manifest: error PUBLISH_CONFLICTS_LEFT: 1 left:\n  a → b\n");
  });

  it("locates by file and line", () => {
    expect([where(null, null), where(null, 3), where("f", null), where("f", 3)]).toEqual(["", "", "f", "f:3"]);
  });
});
