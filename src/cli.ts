import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { Command, CommanderError, Help } from "commander";
import { inputErrorLine } from "./diagnostics.js";
import { EXIT, ExitCodeError, InputError } from "./errors.js";
import type { CliIo, CommandIo } from "./options.js";
import { VERSION } from "./version.js";
import { fsReason, isFsError } from "./util/fs-errors.js";
import { colourWanted, type Style, styleOf } from "./util/colour.js";

/** A command module: registers its one command on the root program, printing through `io`. */
interface CommandModule {
  register(program: Command, io: CommandIo): void;
}

/**
 * Every command, in the order of the top-level `--help`: its name, its term
 * and line there (what `--help` shows without loading it), and how to load
 * it. Only the command that runs is imported.
 */
const COMMANDS: { name: string; term: string; summary: string; load: () => Promise<CommandModule> }[] = [
  {
    name: "build",
    term: "build [options]",
    summary: "Build the manifest from a sources folder (SOURCES.md layout) into an output folder.",
    load: () => import("./commands/build.js"),
  },
  {
    name: "explain",
    term: "explain [options] <id>",
    summary:
      "Explain one row of the last build into --out: every observation considered, the rule that chose its hour, why the others lost, fit, bounds, tokens, role, eos.",
    load: () => import("./commands/explain.js"),
  },
  {
    name: "validate",
    term: "validate [options]",
    summary:
      "Check the hours of the last build into --out against independent evidence: cadence fits, anchors, source conflicts, step order. Exit 1 on any miss.",
    load: () => import("./commands/validate.js"),
  },
  {
    name: "diff",
    term: "diff [options] <old> <new>",
    summary:
      "Compare two manifests: rows added, removed, changed field by field, and the rename plan (old id → new id).",
    load: () => import("./commands/diff.js"),
  },
  {
    name: "cost",
    term: "cost [options]",
    summary:
      "Join eval scores to the manifest: gain over the baseline and driver tokens per point of gain (eos_ok rows only), plus cost.html.",
    load: () => import("./commands/cost.js"),
  },
  {
    name: "publish",
    term: "publish [options]",
    summary:
      "Publish the index: upload README.md, manifest.json and manifest.csv in one commit, then rename the checkpoint repos a rebuild moved. Without --yes, only print the plan.",
    load: () => import("./commands/publish.js"),
  },
  {
    name: "tokens",
    term: "tokens [options] [path...]",
    summary: "count a driver trajectory's tokens (TRAJECTORIES.md), or one cell's as the build does",
    load: () => import("./commands/tokens.js"),
  },
  {
    name: "snapshot-pvc",
    term: "snapshot-pvc [options] <dir>",
    summary:
      "Print the find-format listing (pvc/listing.tsv) of a mounted PVC tree, to keep before the volume is released.",
    load: () => import("./commands/snapshot-pvc.js"),
  },
  {
    name: "snapshot-hub",
    term: "snapshot-hub [options]",
    summary: "Write the Hub's published repos, spare repos and baseline as a hub/ snapshot folder (small files only).",
    load: () => import("./commands/snapshot-hub.js"),
  },
];

/**
 * The command `args` (after node and the script) run: the first operand, or
 * the one after `help` (`ptb-manifest help build`). The root's options take
 * no value, so the first word that is not an option names it.
 */
function commandNamed(args: string[]): string | undefined {
  const words = args.filter((a) => !a.startsWith("-"));
  return words[0] === "help" ? words[1] : words[0];
}

/**
 * `argv` without its `help` word when the command after it is none of ours
 * (`ptb-manifest help biuld`): commander would print the whole help with no
 * word of why; as `ptb-manifest biuld`, it is the usage error
 * `unknown command 'biuld' (did you mean build?)`, exit 64 (README: Terminal).
 * `help help` is `help`: the top-level help, exit 0.
 */
function withoutHelpOfUnknown(argv: string[], picked: string | undefined): string[] {
  if (picked === undefined || COMMANDS.some((c) => c.name === picked)) return argv;
  const at = argv.indexOf("help", 2);
  return at < 0 || at > argv.indexOf(picked, 2) ? argv : [...argv.slice(0, at), ...argv.slice(at + 1)];
}

/**
 * Whether `args` (after node and the script) turn colour off: `--no-color`
 * anywhere before a `--`. Read before commander parses, since the styles are
 * fixed when the commands are registered and a usage error is printed
 * before any option is parsed; commander still declares the option (help,
 * and no "unknown option").
 */
function noColorGiven(args: string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).includes("--no-color");
}

/**
 * A usage error as one line: commander's message with its suggestion on the
 * same line (`error: unknown option '--jsn' (did you mean --json?)`), its
 * `error:` styled for the terminal. The hint to the command's help follows
 * it (`showHelpAfterError`).
 */
function usageLine(message: string, style: Style): string {
  return message
    .replace(/\n\(Did you mean (.*)\?\)\n?$/, " (did you mean $1?)\n")
    .replace(/^error:/, style.error("error:"));
}

/** The process's streams and environment: what `bin/ptb-manifest.js` runs with. */
const PROCESS_IO: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env };

/** The streams {@link endQuietlyOnClosedPipe} already guards (one listener each, however many runs). */
const pipeGuarded = new WeakSet<object>();

/**
 * A reader that goes away (`ptb-manifest tokens --help | head -3`) ends the
 * output, not the command: an EPIPE on `stream` is not an error (no stack),
 * as `find`'s output into `head` is not; the command finishes and exits with
 * its own code (README: Terminal). Any other error of the stream is thrown.
 */
function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  if (typeof stream.on !== "function" || pipeGuarded.has(stream)) return;
  pipeGuarded.add(stream);
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
  });
}

/**
 * Runs the CLI on `argv` (as `process.argv`: node, script, args...) and
 * returns the exit code: 0 ok, 1 fatal input error (nothing written; a file
 * system error that escaped every reader is `FILE_ERROR`, naming the path),
 * 2 `build --strict` with warnings, 64 usage error, 70 an internal error (a
 * bug: one line on stderr, the stack only with `PTB_MANIFEST_DEBUG=1`).
 * Every byte goes to `io.stdout` or `io.stderr` (commander's help and errors
 * too); `io.env` is the environment the commands read. Only the command that
 * runs is loaded; the others stand in the top-level help by their table line.
 * Each stream's colour is decided once from `io` (util/colour.ts: a terminal,
 * `NO_COLOR`, `FORCE_COLOR`, the global `--no-color`) and handed to the
 * command as `CommandIo.style`. A usage error is one line (commander's, its
 * "did you mean" on it) and `see 'ptb-manifest CMD --help'` (README: Terminal).
 */
export async function main(argv: string[], io: CliIo = PROCESS_IO): Promise<number> {
  endQuietlyOnClosedPipe(io.stdout);
  endQuietlyOnClosedPipe(io.stderr);
  const noColor = noColorGiven(argv.slice(2));
  const style = {
    stdout: styleOf(colourWanted(io.stdout, io.env, noColor)),
    stderr: styleOf(colourWanted(io.stderr, io.env, noColor)),
  };
  const commandIo: CommandIo = { ...io, style };
  const hint = (command: string): string => style.stderr.hint(`see 'ptb-manifest ${command}--help'`);
  const program = new Command();
  program
    .name("ptb-manifest")
    .description("Builds the manifest of the AgentPTB checkpoint index from a sources snapshot.")
    .version(VERSION)
    .option("--no-color", "no colour in terminal text (as NO_COLOR=1; FORCE_COLOR=1 forces it when not a terminal)")
    .showHelpAfterError(hint(""))
    .exitOverride()
    .configureOutput({
      writeOut: (str) => void io.stdout.write(str),
      writeErr: (str) => void io.stderr.write(str),
      outputError: (str, write) => write(usageLine(str, style.stderr)),
      getOutHelpWidth: () => (io.stdout.isTTY ? io.stdout.columns : 80),
      getErrHelpWidth: () => (io.stderr.isTTY ? io.stderr.columns : 80),
      getOutHasColors: () => style.stdout.on,
      getErrHasColors: () => style.stderr.on,
    })
    .configureHelp({
      showGlobalOptions: true,
      // A command not loaded stands in the list by its table line, as it would print once loaded.
      subcommandTerm: (cmd) => COMMANDS.find((c) => c.name === cmd.name())?.term ?? new Help().subcommandTerm(cmd),
    })
    .addHelpText(
      "after",
      "\nExample (on the embedded sources/):\n  ptb-manifest build --sources sources --out out && ptb-manifest validate --out out",
    );
  const picked = commandNamed(argv.slice(2));
  for (const entry of COMMANDS) {
    if (entry.name === picked) (await entry.load()).register(program, commandIo);
    else program.command(entry.name).description(entry.summary);
  }
  // A mistyped flag or a missing argument: commander's one line and where to look, not the whole help.
  for (const command of program.commands) command.showHelpAfterError(hint(`${command.name()} `));
  // Commander checks required options before unknown ones, so `cost --scors F` would say "--scores not specified":
  // they are checked here instead, once a misspelt flag has been named.
  const required = new Map(program.commands.map((c) => [c, c.options.filter((o) => o.mandatory)]));
  for (const options of required.values()) for (const o of options) o.mandatory = false;
  program.hook("preAction", (_root, action) => {
    for (const o of required.get(action) ?? [])
      if (action.getOptionValue(o.attributeName()) === undefined)
        action.error(`error: required option '${o.flags}' not specified`, {
          exitCode: EXIT.usage,
          code: "commander.missingMandatoryOptionValue",
        });
  });
  program.hook("preAction", async (_root, action) => checkDefaultSources(action));
  try {
    await program.parseAsync(withoutHelpOfUnknown(argv, picked));
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof InputError) {
      io.stderr.write(inputErrorLine(err, style.stderr.error));
      return EXIT.inputError;
    }
    if (err instanceof ExitCodeError) {
      // An empty message: the command has already said why (validate's verdict line).
      if (err.message) io.stderr.write(err.raw ? err.message : `ptb-manifest: ${err.message}\n`);
      return err.exitCode;
    }
    if (isFsError(err) && err.path !== undefined) {
      // The net under every reader: a file system error that no more specific code covers is still an input fault.
      io.stderr.write(
        inputErrorLine(
          {
            code: "FILE_ERROR",
            file: err.path,
            line: null,
            message: `cannot ${err.syscall ?? "use"} it: ${fsReason(err)}`,
          },
          style.stderr.error,
        ),
      );
      return EXIT.inputError;
    }
    const e = err instanceof Error ? err : new Error(String(err));
    io.stderr.write(
      `ptb-manifest: internal error (${e.name}): ${e.message.split("\n")[0]}\n` +
        (io.env.PTB_MANIFEST_DEBUG
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
