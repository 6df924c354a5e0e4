/** The counter of each format (TRAJECTORIES.md, one section per format), for the readers and the scan workers. */
import { claudeCodeCounter } from "./claude-code.js";
import { codexCounter } from "./codex.js";
import type { FormatCounter } from "./common.js";
import { kimiCliCounter } from "./kimi-cli.js";
import { kimiCodeCounter } from "./kimi-code.js";
import { piCounter } from "./pi.js";
import type { TrajectoryFormat } from "../../schema.js";

/** Format → its counter (`scan` one file, `merge` the scans of a run). */
export const COUNTERS: Record<TrajectoryFormat, FormatCounter<unknown>> = {
  codex: codexCounter as FormatCounter<unknown>,
  "claude-code": claudeCodeCounter as FormatCounter<unknown>,
  pi: piCounter as FormatCounter<unknown>,
  "kimi-cli": kimiCliCounter as FormatCounter<unknown>,
  "kimi-code": kimiCodeCounter as FormatCounter<unknown>,
};
