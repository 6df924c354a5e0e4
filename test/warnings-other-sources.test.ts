import { afterAll, describe, expect, it } from "vitest";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compareWarnings, renderWarnings } from "../src/writers/warnings.js";
import type { Warning } from "../src/diagnostics.js";
import { makeMiniSweep } from "./helpers/mini-sweep.js";
import { removeTree } from "./helpers/tree.js";
import { runCli } from "./helpers/cli.js";

/** The "new since the previous build" line says when that build read another sources folder. */
const roots: string[] = [];
afterAll(async () => Promise.all(roots.map(removeTree)));
// Made-up codes ("A", "B"): the rendering works on any code.
const w = (code: string, file: string | null, message: string): Warning => ({
  code: code as Warning["code"],
  file,
  line: null,
  message,
});

describe("new warnings against a previous build of other sources", () => {
  it("renderWarnings names both --sources", () => {
    const now = [w("A", "f", "x")];
    const compared = compareWarnings(now, [w("B", "g", "y")]);
    expect(renderWarnings(now, { compared, out: "out", otherSources: { previous: "s1", current: "s2" } })[0]).toBe(
      "warnings: 1 (1 new, 1 gone since the previous build into out/, which read other sources (--sources s1, not s2)); by code:",
    );
    expect(
      renderWarnings([], {
        compared: compareWarnings([], [w("B", "g", "y")]),
        out: "out",
        otherSources: { previous: "s1", current: "s2" },
      }),
    ).toEqual([
      "warnings: 0 (0 new, 1 gone since the previous build into out/, which read other sources (--sources s1, not s2))",
    ]);
  });

  it("build: the same sources say nothing more; another sources folder into the same --out is named", async () => {
    const a = await makeMiniSweep();
    const b = await makeMiniSweep({ "alpha/RUNLOG.md": null });
    const outRoot = await mkdtemp(join(tmpdir(), "ptb-other-"));
    roots.push(a, b, outRoot);
    const out = join(outRoot, "out");
    expect((await runCli("build", "--sources", a, "--out", out, "--quiet")).code).toBe(0);
    const same = await runCli("build", "--sources", a, "--out", out, "--quiet");
    expect(same.stdout).toContain(`warnings: 6 (0 new, 0 gone since the previous build into ${out}/); by code:`);
    const other = await runCli("build", "--sources", b, "--out", out, "--quiet");
    expect(other.code).toBe(0);
    expect(other.stdout).toContain(
      `warnings: 6 (0 new, 0 gone since the previous build into ${out}/, which read other sources (--sources ${a}, not ${b})); by code:`,
    );
  }, 120_000);
});
