import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";

/**
 * Usage errors (exit 64): commander's one line (with its "did you mean" on
 * it), then where to look, never the whole help.
 */
describe("usage errors", () => {
  it("an unknown command: one line, a suggestion and the hint to the root help", async () => {
    expect(await runCli("buld")).toEqual({
      code: 64,
      stdout: "",
      stderr: "error: unknown command 'buld' (did you mean build?)\nsee 'ptb-manifest --help'\n",
    });
  });

  it("help of an unknown command is that usage error, not the whole help; help of help is the help", async () => {
    expect(await runCli("help", "buld")).toEqual({
      code: 64,
      stdout: "",
      stderr: "error: unknown command 'buld' (did you mean build?)\nsee 'ptb-manifest --help'\n",
    });
    expect(await runCli("--no-color", "help", "nope")).toEqual({
      code: 64,
      stdout: "",
      stderr: "error: unknown command 'nope'\nsee 'ptb-manifest --help'\n",
    });
    const root = await runCli("--help");
    expect(root.code).toBe(0);
    expect(await runCli("help", "help")).toEqual(root);
    expect(await runCli("help")).toEqual(root);
    const tokens = await runCli("help", "tokens");
    expect(tokens).toEqual(await runCli("tokens", "--help"));
    expect(tokens.stdout).toMatch(/^Usage: ptb-manifest tokens \[options\] \[path\.\.\.\]\n/);
  });

  it("an unknown flag: one line, a suggestion and the hint to that command's help", async () => {
    expect(await runCli("build", "--strcit")).toEqual({
      code: 64,
      stdout: "",
      stderr: "error: unknown option '--strcit' (did you mean --strict?)\nsee 'ptb-manifest build --help'\n",
    });
    expect(await runCli("cost", "--scores", "x.csv", "--frobnicate")).toEqual({
      code: 64,
      stdout: "",
      stderr: "error: unknown option '--frobnicate'\nsee 'ptb-manifest cost --help'\n",
    });
    // A misspelt required option is named as misspelt, not as missing.
    expect(await runCli("cost", "--scors", "x.csv")).toEqual({
      code: 64,
      stdout: "",
      stderr: "error: unknown option '--scors' (did you mean --scores?)\nsee 'ptb-manifest cost --help'\n",
    });
  });

  it("a missing argument names the command's help too", async () => {
    expect(await runCli("diff")).toEqual({
      code: 64,
      stdout: "",
      stderr: "error: missing required argument 'old'\nsee 'ptb-manifest diff --help'\n",
    });
  });
});
