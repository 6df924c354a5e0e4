import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { main } from "../src/cli.js";
import { runBuild } from "../src/pipeline/run-build.js";
import { summarise } from "../src/pipeline/build-summary.js";
import { makeMiniSweep } from "./helpers/mini-sweep.js";
import { lines, removeTree } from "./helpers/tree.js";
import { fakeStream } from "./helpers/fake-tty.js";
import { startHubServer, type HubServer } from "./helpers/hub-server.js";

/** Runs the CLI with stdout and stderr each a terminal or not, and exactly `env` as its environment. */
async function run(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; tty?: boolean } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = fakeStream(opts.tty ?? false);
  const stderr = fakeStream(opts.tty ?? false);
  const code = await main(["node", "ptb-manifest", ...args], { stdout, stderr, env: opts.env ?? {} });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const RED_BOLD = (s: string) => `\u001b[1m\u001b[31m${s}\u001b[39m\u001b[22m`;
const CYAN = (s: string) => `\u001b[36m${s}\u001b[39m`;
const PLAIN_ERROR = "error: unknown option '--strcit' (did you mean --strict?)\nsee 'ptb-manifest build --help'\n";
const COLOURED_ERROR = `${RED_BOLD("error:")} unknown option '--strcit' (did you mean --strict?)\n${CYAN("see 'ptb-manifest build --help'")}\n`;
const TERM = { TERM: "xterm-256color" };
const TOKEN = "hf_terminalTestToken0000000000000";

/** Every command of the CLI, in the order of its help. */
const COMMANDS = ["build", "explain", "validate", "diff", "cost", "publish", "tokens", "snapshot-pvc", "snapshot-hub"];

describe("colour (NO_COLOR, --no-color, FORCE_COLOR, a terminal or not)", () => {
  it("a terminal: coloured", async () => {
    expect(await run(["build", "--strcit"], { tty: true, env: TERM })).toEqual({
      code: 64,
      stdout: "",
      stderr: COLOURED_ERROR,
    });
  });
  it("a terminal with NO_COLOR=1: plain", async () => {
    expect((await run(["build", "--strcit"], { tty: true, env: { ...TERM, NO_COLOR: "1" } })).stderr).toBe(PLAIN_ERROR);
  });
  it("a terminal with --no-color (before or after the command): plain", async () => {
    expect((await run(["build", "--strcit", "--no-color"], { tty: true, env: TERM })).stderr).toBe(PLAIN_ERROR);
    expect((await run(["--no-color", "build", "--strcit"], { tty: true, env: TERM })).stderr).toBe(PLAIN_ERROR);
  });
  it("not a terminal: plain", async () => {
    expect((await run(["build", "--strcit"], { tty: false, env: TERM })).stderr).toBe(PLAIN_ERROR);
  });
  it("FORCE_COLOR=1 when not a terminal: coloured", async () => {
    expect((await run(["build", "--strcit"], { tty: false, env: { FORCE_COLOR: "1" } })).stderr).toBe(COLOURED_ERROR);
  });
  it("FORCE_COLOR=0 on a terminal: plain", async () => {
    expect((await run(["build", "--strcit"], { tty: true, env: { ...TERM, FORCE_COLOR: "0" } })).stderr).toBe(
      PLAIN_ERROR,
    );
  });
});

describe("usage errors: one line and a hint, exit 64", () => {
  it("an unknown command", async () => {
    expect(await run(["buld"])).toEqual({
      code: 64,
      stdout: "",
      stderr: "error: unknown command 'buld' (did you mean build?)\nsee 'ptb-manifest --help'\n",
    });
  });
  it("a misspelt flag of every command, and of the root", async () => {
    for (const cmd of COMMANDS)
      expect(await run([cmd, "--verbse"])).toEqual({
        code: 64,
        stdout: "",
        stderr: `error: unknown option '--verbse'${cmd === "build" ? " (did you mean --verbose?)" : ""}\nsee 'ptb-manifest ${cmd} --help'\n`,
      });
    expect(await run(["validate", "--jsn"])).toEqual({
      code: 64,
      stdout: "",
      stderr: "error: unknown option '--jsn' (did you mean --json?)\nsee 'ptb-manifest validate --help'\n",
    });
    expect(await run(["--jsn"])).toEqual({
      code: 64,
      stdout: "",
      stderr: "error: unknown option '--jsn'\nsee 'ptb-manifest --help'\n",
    });
  });
  it("a bad value, a missing value, a missing option, an extra argument", async () => {
    expect((await run(["build", "--tolerance-h", "abc"])).stderr).toBe(
      "error: option '--tolerance-h <hours>' argument 'abc' is invalid. expected a positive number of hours, got \"abc\"\nsee 'ptb-manifest build --help'\n",
    );
    expect((await run(["validate", "--out"])).stderr).toBe(
      "error: option '--out <dir>' argument missing\nsee 'ptb-manifest validate --help'\n",
    );
    expect((await run(["cost"])).stderr).toBe(
      "error: required option '--scores <file>' not specified\nsee 'ptb-manifest cost --help'\n",
    );
    expect((await run(["build", "extra"])).stderr).toBe(
      "error: too many arguments for 'build'. Expected 0 arguments but got 1.\nsee 'ptb-manifest build --help'\n",
    );
  });
});

describe("--help", () => {
  it("every command's help ends with an example; --no-color is listed as a global option", async () => {
    for (const cmd of ["", ...COMMANDS]) {
      const r = await run([...(cmd ? [cmd] : []), "--help"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/\nExamples? \(|\nExamples?:/);
      expect(r.stdout).toContain("--no-color");
    }
    expect((await run(["validate", "--help"])).stdout).toContain("  -j, --json ");
  });
});

describe("on a built mini sweep", () => {
  let dir: string;
  let out: string;
  let hub: HubServer;
  beforeAll(async () => {
    dir = await makeMiniSweep();
    out = `${dir}-out`;
    expect((await run(["build", "--sources", dir, "--out", out, "--quiet"])).code).toBe(0);
    await writeFile(
      join(out, "scores.csv"),
      lines("model_id,suite,score", "Qwen/Qwen3.5-9B-Base,mmlu,40", "agentic-ptb/alpha.h010.sft2.300,mmlu,51"),
    );
    hub = await startHubServer({ hubDir: join(dir, "hub"), token: TOKEN });
  });
  afterAll(async () => {
    await hub.close();
    await removeTree(dir);
    await removeTree(out);
    await removeTree(`${out}-colour`);
  });

  it("-j prints exactly what --json prints, for every command that has --json", async () => {
    const cases: string[][] = [
      ["validate", "--out", out],
      ["explain", "alpha/grpo/5", "--out", out],
      ["diff", dir, out],
      ["cost", "--scores", join(out, "scores.csv"), "--manifest", join(out, "manifest.json")],
      ["tokens", "--sources", dir, "--cell", "alpha", "--hour", "10"],
      ["publish", "--out", out, "--hub-url", hub.url],
    ];
    // The token of the local Hub, and no token file of this machine.
    const env = { HF_TOKEN: TOKEN, HF_TOKEN_PATH: join(dir, "no-such-token-file") };
    for (const args of cases) {
      const long = await run([...args, "--json"], { env });
      const short = await run([...args, "-j"], { env });
      expect(long.stdout.startsWith("{"), args[0]).toBe(true);
      expect(short, args[0]).toEqual(long);
    }
  });

  it("the build summary ends with what to do next; --strict's failure with the first warning to fix", async () => {
    const built = await run(["build", "--sources", dir, "--out", out, "--quiet"]);
    expect(built.stdout.trimEnd().split("\n").at(-1)).toBe(
      `next: ptb-manifest validate --out ${out}; a build to publish is made with --strict (the release gate)`,
    );
    const strict = await run(["build", "--sources", dir, "--out", out, "--quiet", "--strict"]);
    expect(strict.code).toBe(2);
    expect(strict.stderr.trimEnd().split("\n").at(-1)).toBe(
      `next: fix PVC_CUT_LINE at alpha/pvc/listing.tsv:23 first (the first found; the README's "Warnings and errors" says how), then build with --strict again`,
    );
    const { result } = await runBuild({ sources: dir, out, quiet: true });
    expect(summarise(result, "out", undefined, undefined, true).split("\n").at(-1)).toBe(
      "next: ptb-manifest validate, then ptb-manifest publish (prints the plan; --yes applies it)",
    );
    expect(summarise(result, "my out/", undefined).split("\n").at(-1)).toBe(
      "next: ptb-manifest validate --out 'my out'; a build to publish is made with --strict (the release gate)",
    );
  });

  it("FORCE_COLOR colours the terminal text only: every file written is the same bytes", async () => {
    const coloured = await run(["build", "--sources", dir, "--out", `${out}-colour`, "--quiet"], {
      env: { FORCE_COLOR: "1" },
    });
    expect(coloured.stdout).toContain(`${CYAN(`next: ptb-manifest validate --out ${out}-colour;`)}`.slice(0, -5));
    expect(coloured.stdout).toMatch(/\u001b\[1m\d+\u001b\[22m rows: /);
    for (const f of ["manifest.json", "manifest.csv", "model-ids.txt", "provenance.jsonl", "report.html", "README.md"])
      expect(await readFile(join(`${out}-colour`, f), "utf8"), f).toBe(await readFile(join(out, f), "utf8"));
    const json = await run(["validate", "--out", out, "-j"], { env: { FORCE_COLOR: "1" } });
    expect(json.stdout).not.toContain("\u001b");
  });
});
