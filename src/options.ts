/**
 * What the commands share on the command line: the streams and environment
 * a command runs with ({@link CliIo}) and the commander parsers of options
 * used by more than one command. A parser throws commander's
 * `InvalidArgumentError`, which commander prints as a usage error (exit 64).
 */
import { InvalidArgumentError } from "commander";
import type { Style } from "./util/colour.js";

/**
 * The streams and environment of one CLI run (`main(argv, io)` of cli.ts):
 * every byte a command prints goes to `stdout` or `stderr` (progress bars
 * decide whether to draw from `stderr.isTTY`), and `env` is read instead of
 * `process.env` (`HF_TOKEN`, `HF_ENDPOINT`, `XDG_CACHE_HOME`, ...).
 */
export interface CliIo {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

/**
 * {@link CliIo} as a command receives it: with the style of each stream,
 * decided once per run by cli.ts (`util/colour.ts`: a terminal, `NO_COLOR`,
 * `FORCE_COLOR`, `--no-color`). Only terminal text is styled; JSON, CSV and
 * files never are.
 */
export interface CommandIo extends CliIo {
  style: { stdout: Style; stderr: Style };
}

/** Parses a `--tolerance-h` value: a positive number of hours (a usage error otherwise). */
export function parseHours(value: string): number {
  const n = /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError(`expected a positive number of hours, got "${value}"`);
  return n;
}

/** A positive integer option (`--concurrency`). */
export function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return n;
}

/**
 * The commander parser of an output path option (`build --out`,
 * `snapshot-hub --out`, `cost --html`): an empty or blank value is a usage
 * error (exit 64) rather than the current folder.
 */
export function outPathOption(value: string): string {
  if (value.trim() === "")
    throw new InvalidArgumentError("an empty path is not an output folder or file (use . for the current folder)");
  return value;
}

/**
 * The commander parser of a repeatable `CELL=DIR` option (`--pvc`,
 * `--trajectory`): collects them into cell → folder; a value without
 * `CELL=` or `DIR`, or a cell given twice, is a usage error.
 */
export function collectCellDirs(
  option: string,
): (value: string, previous: Record<string, string> | undefined) => Record<string, string> {
  return (value, previous) => {
    const i = value.indexOf("=");
    if (i <= 0 || i === value.length - 1) throw new InvalidArgumentError(`expected CELL=DIR, got "${value}"`);
    const cell = value.slice(0, i);
    if (previous && cell in previous) throw new InvalidArgumentError(`${option} ${cell}= given twice`);
    return { ...previous, [cell]: value.slice(i + 1) };
  };
}
