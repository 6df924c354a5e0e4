import { Command, CommanderError } from "commander";
import { InputError, where } from "./diagnostics.js";
import { VERSION } from "./version.js";
import { fsReason, isFsError } from "./util/fs-errors.js";

/** Exit codes, in one place (DESIGN.md: "errors mapped to exit codes in one place"). */
export const EXIT = { ok: 0, inputError: 1, strictWarnings: 2, usage: 64, internal: 70 } as const;

/** Raised by a command that finished but must exit non-zero (e.g. `--strict` with warnings). */
export class ExitCodeError extends Error {
  constructor(readonly exitCode: number, message: string) {
    super(message);
  }
}

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
    .showHelpAfterError()
    .exitOverride();
  const commands = await import("./commands/index.js");
  commands.register(program);
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof InputError) {
      const at = where(err.file, err.line);
      process.stderr.write(`ptb-manifest: error ${err.code}${at ? ` at ${at}` : ""}: ${err.message}\n`);
      return EXIT.inputError;
    }
    if (err instanceof ExitCodeError) {
      process.stderr.write(`ptb-manifest: ${err.message}\n`);
      return err.exitCode;
    }
    if (isFsError(err) && err.path !== undefined) {
      // The net under every reader: a file system error that no more specific code covers is still an input fault.
      process.stderr.write(`ptb-manifest: error FILE_ERROR at ${err.path}: cannot ${err.syscall ?? "use"} it: ${fsReason(err)}\n`);
      return EXIT.inputError;
    }
    const e = err instanceof Error ? err : new Error(String(err));
    process.stderr.write(
      `ptb-manifest: internal error (${e.name}): ${e.message.split("\n")[0]}\n` +
        (process.env.PTB_MANIFEST_DEBUG ? `${e.stack}\n` : "ptb-manifest: this is a bug; rerun with PTB_MANIFEST_DEBUG=1 for the stack and report it\n"),
    );
    return EXIT.internal;
  }
}
