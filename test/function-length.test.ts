/**
 * DESIGN.md "Layers": the resolver is small pure steps, and a command is
 * thin. Measured on the syntax tree: no function (declaration, method, arrow
 * or function expression, with its docstring excluded) in src/resolve/ is
 * longer than 80 lines.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const MAX_LINES = 80;

/** Every function in `file` longer than `max` lines: `name (N lines)`. */
function longFunctions(file: string, max: number): string[] {
  const text = readFileSync(file, "utf8");
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = src.getLineAndCharacterOfPosition(node.getStart(src)).line;
      const end = src.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      const name = node.name && ts.isIdentifier(node.name) ? node.name.text : `<anonymous at line ${start + 1}>`;
      if (lines > max) out.push(`${name} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return out;
}

describe("function length", () => {
  it(`no function in src/resolve/ is longer than ${MAX_LINES} lines`, () => {
    const dir = join(import.meta.dirname, "..", "src", "resolve");
    const long = readdirSync(dir)
      .filter((f) => f.endsWith(".ts"))
      .flatMap((f) => longFunctions(join(dir, f), MAX_LINES).map((l) => `${f}: ${l}`));
    expect(long).toEqual([]);
  });
});
