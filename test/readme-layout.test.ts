/** The README's Layout section is what `npm run readme:layout` (scripts/readme-layout.ts) writes from the file tree. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  DESCRIPTIONS,
  END,
  firstSentence,
  layoutSection,
  moduleDocstring,
  START,
  withLayout,
} from "../scripts/readme-layout.js";

const REPO = join(import.meta.dirname, "..");

describe("README Layout", () => {
  it("the README's Layout section is up to date (run `npm run readme:layout`)", () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const { text, missing } = layoutSection(REPO);
    expect(missing).toEqual([]);
    expect(readme).toBe(withLayout(readme, text));
  });

  it("every hand-kept description names a file or folder that exists", () => {
    expect(Object.keys(DESCRIPTIONS).filter((p) => !existsSync(join(REPO, p)))).toEqual([]);
  });

  it("a module's description is the first sentence of its first docstring, links unwrapped", () => {
    expect(moduleDocstring('/**\n * Reads a thing (SOURCES.md: x). More text.\n */\nimport "a";\n')).toBe(
      "Reads a thing (SOURCES.md: x)",
    );
    expect(moduleDocstring("import a from 'a';\n\n/** Options of {@link run}. */\nexport interface O {}\n")).toBe(
      "Options of run",
    );
    expect(moduleDocstring("export const A = 1;\n")).toBeUndefined();
    expect(firstSentence(`Long ${"word ".repeat(10)}end: ${"more ".repeat(20)}`)).toBe(`Long ${"word ".repeat(10)}end`);
    expect(firstSentence(`Short: ${"word ".repeat(30)}`)).toBe(`Short: ${"word ".repeat(17)}word...`);
  });

  it("replaces only what lies between the markers", () => {
    expect(withLayout(`a\n${START}\nold\n${END}\nb\n`, "new")).toBe(`a\n${START}\nnew\n${END}\nb\n`);
    expect(() => withLayout("no markers", "new")).toThrow(/no Layout markers/);
  });
});
