import type { Warning } from "../../diagnostics.js";

/** Token counts normalised to the four parts of TRAJECTORIES.md "The quantity". */
export interface TokenParts {
  uncachedInput: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

/** One counted model call, after every de-duplication rule of its format. */
export interface TokenCall extends TokenParts {
  /** UTC epoch milliseconds at which the call completed, or null when the log cannot place it in time. */
  timeMs: number | null;
  /** Where the call's usage was read: file (as given) and 1-based line. */
  file: string;
  line: number;
}

/** Totals over a set of calls (TRAJECTORIES.md: "The quantity"). */
export interface TokenTotals extends TokenParts {
  total: number;
  calls: number;
  /** Epoch ms of the last counted call that has a time, or null. */
  lastCallTimeMs: number | null;
}

/** What reading a run's trajectory gives. */
export interface TrajectoryReading {
  /** Counted calls, sorted by (timeMs, file, line); calls with null time last. */
  calls: TokenCall[];
  /** Malformed lines, unplaceable calls, known under-counts: never fatal. */
  warnings: Warning[];
}
