/**
 * Call times that cannot be a call's (TRAJECTORIES.md, "What cannot be
 * recovered": do not invent numbers). A time in the wrong unit (epoch seconds
 * read as milliseconds lands in January 1970; milliseconds read as seconds,
 * or microseconds as milliseconds, thousands of years ahead) or in the wrong
 * year places its call where no run was: it would drop out of every count it
 * belongs to, silently. Such a call is treated as a call without a time:
 * counted in totals, left out of `tokens(t)`, with a warning naming the first.
 */
import type { Warning } from "../../diagnostics.js";
import type { WarningCode } from "../../diagnostics/registry.js";
import { isTimeMs, UNIT_ERROR_FROM_MS } from "../../util/values.js";
import type { TokenCall } from "./types.js";

/** Before this no coding agent logged a model call: 2020-01-01T00:00:00Z. */
const EARLIEST_CALL_MS = Date.UTC(2020, 0, 1);

/**
 * `calls` with every time outside `[fromMs, toMs)` set to null (a new array;
 * the calls kept as they are when none is), and the warning `code` naming how
 * many, the first of them (file, line, time) and `why`; no warning when none
 * is. Defaults: the years 2020–2099 ({@link EARLIEST_CALL_MS},
 * {@link UNIT_ERROR_FROM_MS}), code `TRAJECTORY_IMPLAUSIBLE_TIME`.
 */
export function unplaceImplausibleTimes(
  calls: readonly TokenCall[],
  fromMs: number = EARLIEST_CALL_MS,
  toMs: number = UNIT_ERROR_FROM_MS,
  code: WarningCode = "TRAJECTORY_IMPLAUSIBLE_TIME",
  why = "no model call of a coding agent can be dated there (a time in the wrong unit: epoch seconds read as milliseconds, or milliseconds as seconds?)",
): { calls: readonly TokenCall[]; warning: Warning | null } {
  const outside = (c: TokenCall): boolean => c.timeMs !== null && !(c.timeMs >= fromMs && c.timeMs < toMs);
  // Most readings have none: the calls are then kept as they are, not copied.
  if (!calls.some(outside)) return { calls, warning: null };
  let first: TokenCall | null = null;
  let n = 0;
  const out = calls.map((c) => {
    if (!outside(c)) return c;
    n += 1;
    if (first === null || c.file < first.file || (c.file === first.file && c.line < first.line)) first = c;
    return { ...c, timeMs: null };
  });
  const at = first as unknown as TokenCall;
  // A bound or a time no Date can hold (an open end, a unit error of thousands of years) is shown as a number.
  const shown = (ms: number): string => (isTimeMs(ms) ? new Date(ms).toISOString() : String(ms));
  return {
    calls: out,
    warning: {
      code,
      message: `${n} call(s) are timed outside ${shown(fromMs)} – ${shown(toMs)} (the first at ${shown(at.timeMs!)}): ${why}; they count in the totals but are not placed in time, as calls without a time`,
      file: at.file,
      line: at.line,
    },
  };
}
