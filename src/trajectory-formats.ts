/**
 * The five driver log formats of TRAJECTORIES.md (cells.json
 * `trajectory_format`), in a module of their own so that `tokens` knows them
 * without loading the zod schemas (`schema.ts` uses them).
 */

/** The five driver log formats of TRAJECTORIES.md (cells.json `trajectory_format`). */
export const TRAJECTORY_FORMATS = ["codex", "claude-code", "pi", "kimi-cli", "kimi-code"] as const;

/** One of {@link TRAJECTORY_FORMATS}. */
export type TrajectoryFormat = (typeof TRAJECTORY_FORMATS)[number];
