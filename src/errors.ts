/**
 * Errors and exit codes, in one place (DESIGN.md, "Layers": the bottom;
 * "errors mapped to exit codes in one place"). This module imports nothing
 * but a type: the registered error codes (diagnostics/registry.ts, itself a
 * leaf), so that an unknown code does not type-check.
 */
import type { ErrorCode } from "./diagnostics/registry.js";

/** Exit codes of every command: 0 ok, 1 fatal input error, 2 `--strict` with warnings, 64 usage, 70 internal. */
export const EXIT = { ok: 0, inputError: 1, strictWarnings: 2, usage: 64, internal: 70 } as const;

/**
 * `diff`'s exit codes, as `diff(1)` and `git diff --exit-code` give them:
 * 0 the sides are equal, 1 they differ, 2 a side could not be read (an
 * input error); usage and internal errors keep 64 and 70.
 */
export const DIFF_EXIT = { same: 0, differ: 1, trouble: 2 } as const;

/**
 * A fatal input error: the build cannot give a right answer from this input,
 * so it writes nothing (exit 1). `code` is stable; `file`/`line` say where.
 */
export class InputError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly file: string | null = null,
    readonly line: number | null = null,
  ) {
    super(message);
    this.name = "InputError";
  }
}

/** Raised by a command that finished but must exit non-zero (e.g. `--strict` with warnings). */
export class ExitCodeError extends Error {
  /** `raw`: `message` is printed as it is (it already has its prefix and line end). */
  constructor(
    readonly exitCode: number,
    message: string,
    readonly raw = false,
  ) {
    super(message);
  }
}
