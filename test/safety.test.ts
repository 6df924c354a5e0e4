import { afterAll, describe, expect, it } from "vitest";
import { lstat, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { escapeCsvText, manifestCsv, unescapeCsvText } from "../src/writers/manifest.js";
import type { Row } from "../src/schema.js";
import { runCli } from "./helpers/cli.js";
import { makeMiniSweep, miniCells } from "./helpers/mini-sweep.js";
import { removeTree } from "./helpers/tree.js";

/** Safety (issue 5): spreadsheet formulas in manifest.csv, and reads and writes confined to the folders given. */

const roots: string[] = [];
afterAll(async () => Promise.all(roots.map(removeTree)));

const base: Row = {
  model_id: "agentic-ptb/c.h001.f.1",
  cell: "c",
  driver: "d",
  effort: "high",
  hour: 1.5,
  hour_source: "mtime",
  hour_upper_bound: null,
  driver_tokens_at_hour: 12,
  role: "intermediate",
  eos_ok: false,
  eos_token_id: [248044],
  source: "/pvc/ptb/c/f/weights/step_1",
  family: "f",
  step: 1,
  hour_lower_bound: -0.5,
  hour_error_h: null,
};

describe("CSV formula escaping (OWASP: a leading ')", () => {
  it("escapes text that starts with = + - @ tab CR or ', and nothing else", () => {
    expect(
      ["=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1", "'x", "x=1", "1", "", "Codex / gpt"].map(escapeCsvText),
    ).toEqual(["'=1+1", "'+1", "'-1", "'@SUM(A1)", "'\t=1", "'\r=1", "''x", "x=1", "1", "", "Codex / gpt"]);
    for (const s of ["=1+1", "'x", "''", "-", "plain"]) expect(unescapeCsvText(escapeCsvText(s))).toBe(s);
  });

  it("applies to string fields only: a negative number stays a number", () => {
    const csv = manifestCsv([{ ...base, driver: '=HYPERLINK("http://evil","x")', effort: "-high" }]);
    expect(csv.split("\n")[1]).toBe(
      `agentic-ptb/c.h001.f.1,c,"'=HYPERLINK(""http://evil"",""x"")",'-high,1.5,mtime,,12,intermediate,false,[248044],/pvc/ptb/c/f/weights/step_1,f,1,-0.5,`,
    );
  });

  it("a build escapes a formula-like driver in manifest.csv, keeps it as it is in manifest.json, and diff undoes the escape", async () => {
    const dir = await makeMiniSweep({ "cells.json": miniCells((c) => (c.cells[0].driver = "=cmd|' /C calc'!A0")) });
    roots.push(dir, `${dir}-out`);
    expect((await runCli("build", "--sources", dir, "--out", `${dir}-out`, "--quiet")).code).toBe(0);
    const csv = parse(await readFile(join(`${dir}-out`, "manifest.csv"), "utf8"), { columns: true }) as Record<
      string,
      string
    >[];
    const json = JSON.parse(await readFile(join(`${dir}-out`, "manifest.json"), "utf8")) as Row[];
    expect(csv[1]!.driver).toBe("'=cmd|' /C calc'!A0");
    expect(json[1]!.driver).toBe("=cmd|' /C calc'!A0");
    const plain = await makeMiniSweep();
    roots.push(plain, `${plain}-out`);
    expect((await runCli("build", "--sources", plain, "--out", `${plain}-out`, "--quiet")).code).toBe(0);
    const d = JSON.parse(
      (await runCli("diff", join(`${plain}-out`, "manifest.csv"), join(`${dir}-out`, "manifest.csv"), "--json")).stdout,
    );
    expect(d.changed).toHaveLength(11); // every alpha row: the driver, read back as written in cells.json
    expect(d.changed[0].fields).toEqual({ driver: { old: "Codex / gpt-x", new: "=cmd|' /C calc'!A0" } });
  });
});

describe("reads and writes stay inside the folders given", () => {
  it("an output file that is a link to a file outside --out is not ours (OUT_FOREIGN_FILE); with --force it is replaced, never written through", async () => {
    const dir = await makeMiniSweep();
    const out = `${dir}-out`;
    const victim = `${dir}-victim.txt`;
    roots.push(dir, out, victim);
    await mkdir(out);
    await writeFile(victim, "do not touch\n");
    await symlink(victim, join(out, "manifest.json"));
    await symlink(victim, join(out, "manifest.csv"));
    const refused = await runCli("build", "--sources", dir, "--out", out, "--quiet");
    expect({ code: refused.code, stderr: refused.stderr }).toEqual({
      code: 1,
      stderr: `ptb-manifest: error OUT_FOREIGN_FILE at ${out}/manifest.json: --out ${out} holds 2 files that an output would replace but ptb-manifest did not write there: manifest.json (a symbolic link), manifest.csv (a symbolic link); nothing written (use another folder, move them away, or pass --force to replace them)\n`,
    });
    expect((await lstat(join(out, "manifest.json"))).isSymbolicLink()).toBe(true);
    expect((await runCli("build", "--sources", dir, "--out", out, "--quiet", "--force")).code).toBe(0);
    expect(await readFile(victim, "utf8")).toBe("do not touch\n");
    expect((await lstat(join(out, "manifest.json"))).isFile()).toBe(true);
    expect((await lstat(join(out, "manifest.csv"))).isFile()).toBe(true);
  });

  it("every command that reads a sources folder refuses a link out of it", async () => {
    const dir = await makeMiniSweep();
    roots.push(dir, `${dir}-secret.jsonl`);
    await writeFile(`${dir}-secret.jsonl`, "{}\n");
    await symlink(`${dir}-secret.jsonl`, join(dir, "beta", "trajectory", "rollout-x.jsonl"));
    for (const args of [
      ["build", "--sources", dir, "--out", `${dir}-out`, "--quiet"],
      ["validate", "--sources", dir],
      ["explain", "agentic-ptb/alpha.h005.sft2.100", "--sources", dir],
      ["diff", dir, dir],
    ]) {
      const r = await runCli(...args);
      expect([args[0], r.code]).toEqual([args[0], args[0] === "diff" ? 2 : 1]); // diff: 2 is "cannot compare", as diff(1)
      expect(r.stderr).toContain("error SOURCES_LINK_OUTSIDE at beta/trajectory/rollout-x.jsonl: ");
    }
  });
});
