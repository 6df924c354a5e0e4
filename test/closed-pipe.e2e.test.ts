import { beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildDist } from "./helpers/build-dist.js";
import { removeTree } from "./helpers/tree.js";

/**
 * A reader that goes away (`ptb-manifest tokens --help | head -1`) ends the
 * output, not the command: no EPIPE stack on stderr, and the command's own
 * exit code (README: Terminal). The pipes are closed before the command has
 * written anything, so every write of it meets a closed pipe.
 */
const REPO = join(import.meta.dirname, "..");
const BIN = join(REPO, "bin", "ptb-manifest.js");

beforeAll(() => buildDist());

/** Runs the command with its stdout (or stderr) closed at once; resolves to its exit code and what it said on the other stream. */
function runClosed(close: "stdout" | "stderr", args: string[]): Promise<{ code: number | null; other: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
    child[close].destroy();
    let other = "";
    const keep = close === "stdout" ? child.stderr : child.stdout;
    keep.setEncoding("utf8").on("data", (d: string) => (other += d));
    child.on("error", fail);
    child.on("close", (code) => done({ code, other }));
  });
}

describe("output into a pipe whose reader has gone", () => {
  it("help, tokens and a build: no stack, the command's own exit code", async () => {
    const help = await runClosed("stdout", ["tokens", "--help"]);
    expect(help.other).toBe("");
    expect(help.code).toBe(0);
    const tokens = await runClosed("stdout", ["tokens", "--format", "pi", "sources", "--json"]);
    expect(tokens.other).not.toMatch(/EPIPE|at |node:/);
    expect(tokens.code).toBe(0);
    const out = await mkdtemp(join(tmpdir(), "ptb-closed-pipe-"));
    try {
      // The build's warnings go to the closed stderr; it still writes its files and exits 0.
      const build = await runClosed("stderr", ["build", "--sources", "sources", "--out", out]);
      expect(build.code).toBe(0);
      expect(build.other).toMatch(/manifest/);
    } finally {
      await removeTree(out);
    }
  });
});
