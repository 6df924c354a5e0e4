import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { Command, CommanderError } from "commander";
import { inputErrorLine } from "./diagnostics.js";
import { EXIT, ExitCodeError, InputError } from "./errors.js";
import { VERSION } from "./version.js";
import { fsReason, isFsError } from "./util/fs-errors.js";

/**
 * Runs the CLI on `argv` (as `process.argv`: node, script, args...) and
 * returns the exit code: 0 ok, 1 fatal input error (nothing written; a file
 * system error that escaped every reader is `FILE_ERROR`, naming the path),
 * 2 `build --strict` with warnings, 64 usage error, 70 an internal error (a
 * bug: one line on stderr, the stack only with `PTB_MANIFEST_DEBUG=1`).
 */
export async function main(argv: string[]): Promise<number> {
  const program = new Command();
  program
    .name("ptb-manifest")
    .description("Builds the manifest of the AgentPTB checkpoint index from a sources snapshot.")
    .version(VERSION)
    .showHelpAfterError("(see 'ptb-manifest --help')")
    .exitOverride();
  const commands = await import("./commands/index.js");
  commands.register(program);
  // A mistyped flag or a missing argument: commander's one line and where to look, not the whole help.
  for (const command of program.commands) command.showHelpAfterError(`(see 'ptb-manifest ${command.name()} --help')`);
  program.hook("preAction", async (_root, action) => checkDefaultSources(action));
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof InputError) {
      process.stderr.write(inputErrorLine(err));
      return EXIT.inputError;
    }
    if (err instanceof ExitCodeError) {
      // An empty message: the command has already said why (validate's verdict line).
      if (err.message) process.stderr.write(err.raw ? err.message : `ptb-manifest: ${err.message}\n`);
      return err.exitCode;
    }
    if (isFsError(err) && err.path !== undefined) {
      // The net under every reader: a file system error that no more specific code covers is still an input fault.
      process.stderr.write(
        inputErrorLine({
          code: "FILE_ERROR",
          file: err.path,
          line: null,
          message: `cannot ${err.syscall ?? "use"} it: ${fsReason(err)}`,
        }),
      );
      return EXIT.inputError;
    }
    const e = err instanceof Error ? err : new Error(String(err));
    process.stderr.write(
      `ptb-manifest: internal error (${e.name}): ${e.message.split("\n")[0]}\n` +
        (process.env.PTB_MANIFEST_DEBUG
          ? `${e.stack}\n`
          : "ptb-manifest: this is a bug; rerun with PTB_MANIFEST_DEBUG=1 for the stack and report it\n"),
    );
    return EXIT.internal;
  }
}

/**
 * `--sources` left at its default, `sources/` of the working folder, where
 * there is no such folder (the tool run outside its clone): the error says to
 * pass `--sources`, rather than naming a missing `cells.json`.
 *
 * @throws InputError `SOURCES_NOT_GIVEN`.
 */
async function checkDefaultSources(command: Command): Promise<void> {
  if (!["build", "snapshot-hub"].includes(command.name()) || command.getOptionValueSource("sources") !== "default")
    return;
  const dir = resolve(String(command.opts().sources));
  if (await stat(dir).catch(() => null)) return;
  throw new InputError(
    "SOURCES_NOT_GIVEN",
    `no --sources given and no sources/ folder in ${process.cwd()}: pass --sources DIR, the folder laid out as SOURCES.md describes (cells.json, the cells' folders, hub/)`,
    dir,
  );
}
