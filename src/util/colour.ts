/**
 * Colour of terminal text: whether one output stream gets it, and the few
 * styles the commands use. The escape codes are Node's (`util.styleText`),
 * the colour support is Node's (`tty.WriteStream#hasColors`, which reads
 * `FORCE_COLOR`, `NO_COLOR`, `NODE_DISABLE_COLORS` and `TERM`); only text
 * meant for a reader's eyes is styled, never a file nor JSON (README:
 * Terminal).
 */
import { WriteStream } from "node:tty";
import { styleText } from "node:util";

/**
 * The styles of terminal text, each returning `text` with its words
 * unchanged (wrapped in escape codes, or as is when colour is off).
 */
export interface Style {
  /** Whether this stream gets colour at all. */
  readonly on: boolean;
  /** A fatal error's code or `error:` prefix (bold red). */
  error(text: string): string;
  /** A warning's code (yellow). */
  warning(text: string): string;
  /** A count a reader scans for (bold). */
  count(text: string): string;
  /** A verdict that holds: PASS, met (green). */
  good(text: string): string;
  /** A verdict that fails: FAIL, not met (red). */
  bad(text: string): string;
  /** What to do next, and where to look (cyan). */
  hint(text: string): string;
}

type Format = Parameters<typeof styleText>[0];

/** A {@link Style} that writes escape codes when `on`, else returns every text as given. */
export function styleOf(on: boolean): Style {
  // validateStream: false — the choice is made here, per stream; styleText would look at process.stdout.
  const paint =
    (format: Format) =>
    (text: string): string =>
      on && text !== "" ? styleText(format, text, { validateStream: false }) : text;
  return {
    on,
    error: paint(["bold", "red"]),
    warning: paint("yellow"),
    count: paint("bold"),
    good: paint("green"),
    bad: paint("red"),
    hint: paint("cyan"),
  };
}

/** The style that adds nothing: for files, JSON, and every caller that gives none. */
export const PLAIN: Style = styleOf(false);

/**
 * Whether text written to `stream` gets colour (the conventions of
 * no-color.org and of Node's `FORCE_COLOR`): never with `noColorFlag`
 * (`--no-color`); with `FORCE_COLOR` set, as it says (`1`, `2`, `3`, `true`
 * or empty: on, even when `stream` is not a terminal; `0` or anything else:
 * off); else only on a terminal (`stream.isTTY`) whose `TERM` has colours,
 * and not when `NO_COLOR` is set to a non-empty value (an empty `NO_COLOR`
 * is unset, as no-color.org says). `env` is the run's environment, not
 * necessarily `process.env`.
 */
export function colourWanted(
  stream: { readonly isTTY?: boolean },
  env: NodeJS.ProcessEnv,
  noColorFlag: boolean,
): boolean {
  if (noColorFlag) return false;
  const forced = env.FORCE_COLOR !== undefined;
  if (!forced && !stream.isTTY) return false;
  // FORCE_COLOR wins over NO_COLOR (Node's order); leaving NO_COLOR out also spares Node's warning about it.
  const { NO_COLOR, ...rest } = env;
  const seen = forced || NO_COLOR === "" ? rest : env;
  // hasColors reads only the environment given, never the stream, so any stream (an in-memory one too) can ask.
  return WriteStream.prototype.hasColors.call(stream, 16, seen);
}
