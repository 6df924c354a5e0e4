import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";

/**
 * Usage errors (exit 64): commander's one line (with its "did you mean"),
 * then where to look, never the whole help.
 */
describe("usage errors", () => {
  it("an unknown command: one line, a suggestion and the hint to the root help", async () => {
    expect(await runCli("buld")).toEqual({
      code: 64,
      stdout: "",
      stderr: "error: unknown command 'buld'\n(Did you mean build?)\n(see 'ptb-manifest --help')\n",
    });
  });

  it("an unknown flag: one line, a suggestion and the hint to that command's help", async () => {
    expect(await runCli("build", "--strcit")).toEqual({
      code: 64,
      stdout: "",
      stderr: "error: unknown option '--strcit'\n(Did you mean --strict?)\n(see 'ptb-manifest build --help')\n",
    });
    expect(await runCli("cost", "--scores", "x.csv", "--frobnicate")).toEqual({
      code: 64,
      stdout: "",
      stderr: "error: unknown option '--frobnicate'\n(see 'ptb-manifest cost --help')\n",
    });
  });

  it("a missing argument names the command's help too", async () => {
    expect(await runCli("diff")).toEqual({
      code: 64,
      stdout: "",
      stderr: "error: missing required argument 'old'\n(see 'ptb-manifest diff --help')\n",
    });
  });
});
