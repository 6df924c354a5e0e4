/**
 * Warnings and fatal input errors, as data (DESIGN.md: "Warnings are data").
 *
 * A warning never stops a build: the offending line or value is skipped and
 * recorded in `build-report.json`. A fatal `InputError` (errors.ts) stops the build
 * before anything is written (exit code 1).
 */
import type { InputError } from "./errors.js";

/** One warning: a stable `code`, a human message, and where it came from. */
export interface Warning {
  /** Stable, upper-case code, e.g. `JANITOR_UNPARSED_LINE`. */
  code: string;
  message: string;
  /** Input file (path relative to the sources folder where there is one), or null. */
  file: string | null;
  /** 1-based line number in `file`, or null. */
  line: number | null;
}

/** Collects warnings in the order they were found. */
export class Diagnostics {
  readonly warnings: Warning[] = [];

  /** Records one warning. */
  warn(code: string, message: string, file: string | null = null, line: number | null = null): void {
    this.warnings.push({ code, message, file, line });
  }
}

/** Formats a warning or error location as `file:line` (or `file`, or ``). */
export function where(file: string | null, line: number | null): string {
  if (file === null) return "";
  return line === null ? file : `${file}:${line}`;
}

/**
 * A warning as every command prints it on stderr (the fatal form is
 * `ptb-manifest: error CODE at FILE[:LINE]: message`):
 * `ptb-manifest: warning CODE at FILE[:LINE]: message`, with a line end.
 */
export function warningLine(w: { code: string; file: string | null; line: number | null; message: string }): string {
  const at = where(w.file, w.line);
  return `ptb-manifest: warning ${w.code}${at ? ` at ${at}` : ""}: ${w.message}\n`;
}

/** The one line an input error prints on stderr: `ptb-manifest: error CODE at FILE[:LINE]: message`. */
export function inputErrorLine(err: InputError): string {
  const at = where(err.file, err.line);
  return `ptb-manifest: error ${err.code}${at ? ` at ${at}` : ""}: ${err.message}\n`;
}
