import { afterAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { mkdtemp, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { removeTree } from "./helpers/tree.js";
import { VERSION } from "../src/version.js";

/**
 * The README's install for use anywhere: `npm install -g .` from the clone
 * (a link to it; no network: `--offline`), then the command on the PATH run
 * from another folder. Needs dist/ and its bundle dist/bundle/ (`npm ci` or `npm run build`).
 */
const REPO = join(import.meta.dirname, "..");
const run = promisify(execFile);
const roots: string[] = [];
afterAll(async () => Promise.all(roots.map(removeTree)));

async function bin(
  prefix: string,
  cwd: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(join(prefix, "bin", "ptb-manifest"), args, {
      cwd,
      env: { ...process.env, HF_TOKEN: "" },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("installed for use anywhere (npm install -g from the clone)", () => {
  it("runs from another folder: --version, a build with --sources, and a clear error without it", async () => {
    const prefix = await mkdtemp(join(tmpdir(), "ptb-install-"));
    const elsewhere = await mkdtemp(join(tmpdir(), "ptb-elsewhere-"));
    roots.push(prefix, elsewhere);
    await run(
      "npm",
      ["install", "-g", "--prefix", prefix, "--offline", "--ignore-scripts", "--no-audit", "--no-fund", REPO],
      {
        cwd: elsewhere,
        env: { ...process.env, npm_config_update_notifier: "false" },
      },
    );
    expect(await bin(prefix, elsewhere, "--version")).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
    const built = await bin(
      prefix,
      elsewhere,
      "build",
      "--sources",
      join(REPO, "sources"),
      "--out",
      "out",
      "--quiet",
      "--no-cache",
    );
    expect({ code: built.code, stderr: built.stderr }).toEqual({ code: 0, stderr: "" });
    expect(built.stdout.split("\n")[1]).toBe("269 rows: 268 checkpoints + 1 baseline");
    expect((await stat(join(elsewhere, "out", "manifest.json"))).isFile()).toBe(true);
    expect(await bin(prefix, elsewhere, "build", "--out", "out2")).toEqual({
      code: 1,
      stdout: "",
      stderr: `ptb-manifest: error SOURCES_NOT_GIVEN at ${elsewhere}/sources: no --sources given and no sources/ folder in ${elsewhere}: pass --sources DIR, the folder laid out as SOURCES.md describes (cells.json, the cells' folders, hub/)\n`,
    });
  }, 240_000);
});
