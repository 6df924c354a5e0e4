/**
 * Warnings and fatal input errors, as data (DESIGN.md: "Warnings are data"):
 * the one collector ({@link Diagnostics}) and the one formatter of the lines
 * every command prints ({@link warningLine}, {@link inputErrorLine}). The
 * codes, with their level, meaning and remedy, are in diagnostics/registry.ts.
 *
 * A warning never stops a build: the offending line or value is skipped and
 * recorded in `build-report.json`. A fatal `InputError` (errors.ts) stops the build
 * before anything is written (exit code 1).
 */
import type { ErrorCode, WarningCode } from "./diagnostics/registry.js";

/** One warning: a stable `code`, a human message, and where it came from. */
export interface Warning {
  /** Stable, upper-case code, e.g. `JANITOR_UNPARSED_LINE`. */
  code: WarningCode;
  message: string;
  /** Input file (path relative to the sources folder where there is one), or null. */
  file: string | null;
  /** 1-based line number in `file`, or null. */
  line: number | null;
}

/**
 * Collects warnings in the order they were found: the one collector of the
 * build, the extractors (the trajectory readers included) and every command.
 * `warn` takes only a registered warning code (diagnostics/registry.ts).
 */
export class Diagnostics {
  readonly warnings: Warning[] = [];

  /** Records one warning. */
  warn(code: WarningCode, message: string, file: string | null = null, line: number | null = null): void {
    this.warnings.push({ code, message, file, line });
  }
}

/** Formats a warning or error location as `file:line` (or `file`, or ``). */
export function where(file: string | null, line: number | null): string {
  if (file === null) return "";
  return line === null ? file : `${file}:${line}`;
}

/** Styles `KIND CODE` for a terminal (util/colour.ts); the words stay as they are. */
type Paint = (text: string) => string;

const asIs: Paint = (text) => text;

/**
 * `ptb-manifest: KIND CODE at FILE[:LINE]: message`, with a line end (no ` at …` without a file);
 * `paint` styles `KIND CODE` (on a terminal; as is by default).
 */
function diagnosticLine(
  kind: "warning" | "error",
  d: { code: string; file: string | null; line: number | null; message: string },
  paint: Paint,
): string {
  const at = where(d.file, d.line);
  return `ptb-manifest: ${paint(`${kind} ${d.code}`)}${at ? ` at ${at}` : ""}: ${d.message}\n`;
}

/**
 * A warning as every command prints it on stderr (the fatal form is
 * `ptb-manifest: error CODE at FILE[:LINE]: message`):
 * `ptb-manifest: warning CODE at FILE[:LINE]: message`, with a line end;
 * `paint` styles `warning CODE` on a terminal (as is by default).
 */
export function warningLine(
  w: { code: string; file: string | null; line: number | null; message: string },
  paint: Paint = asIs,
): string {
  return diagnosticLine("warning", w, paint);
}

/**
 * The one line a fatal error prints on stderr: `ptb-manifest: error CODE at FILE[:LINE]: message`,
 * with a line end. `err` is an `InputError` (errors.ts), or the same fields for an error a
 * command reports itself (`FILE_ERROR`, `PUBLISH_CONFLICTS_LEFT`). `paint` styles `error CODE`
 * on a terminal (as is by default).
 */
export function inputErrorLine(
  err: {
    code: ErrorCode;
    file: string | null;
    line: number | null;
    message: string;
  },
  paint: Paint = asIs,
): string {
  return diagnosticLine("error", err, paint);
}
