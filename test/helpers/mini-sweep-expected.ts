import type { Row } from "../../src/schema.js";
import { ALPHA_HEARTBEATS } from "./mini-sweep.js";

/**
 * The true answer of the mini sweep of ./mini-sweep.ts, worked out by hand:
 * every row, every warning (code, file, line) and every lost checkpoint.
 * test/build.test.ts checks a build against it; the bad-input corpus
 * (test/bad-input.test.ts) states each case as edits of it.
 */

const alpha = { cell: "alpha", driver: "Codex / gpt-x", effort: "high" };
/** alpha's budget hour at `iso` (run 2026-10-01T00:00Z, paused 10:00–12:00Z). */
const alphaHour = (iso: string): number => {
  const wall = (Date.parse(iso) - Date.parse("2026-10-01T00:00:00Z")) / 3_600_000;
  return wall <= 10 ? wall : wall <= 12 ? 10 : wall - 2;
};
/** The calls of alpha's second session (one token each) up to budget hour `h`. */
const beats = (h: number): number => ALPHA_HEARTBEATS.filter((t) => alphaHour(t) <= h).length;
const beta = { cell: "beta", driver: "Codex / gpt-x", effort: "max" };
const row = (o: Partial<Row>): Row =>
  ({
    hour_upper_bound: null,
    role: "intermediate",
    eos_ok: null,
    eos_token_id: null,
    hour_lower_bound: null,
    hour_error_h: null,
    ...o,
  }) as Row;

/** Every row of the mini sweep, worked out by hand from test/helpers/mini-sweep.ts. */
export const EXPECTED_ROWS: Row[] = [
  {
    model_id: "Qwen/Qwen3.5-9B-Base",
    cell: "BASELINE",
    driver: null,
    effort: null,
    hour: 0,
    hour_source: "baseline",
    hour_upper_bound: null,
    driver_tokens_at_hour: 0,
    role: "baseline",
    eos_ok: true,
    eos_token_id: [248044, 248046],
    source: "Qwen/Qwen3.5-9B-Base",
    family: null,
    step: null,
    hour_lower_bound: null,
    hour_error_h: null,
  },
  // STABLE at 05:00Z, before the pause: hour 5. Submitted first, then replaced by a later submit; still a fallback.
  row({
    model_id: "agentic-ptb/alpha.h005.sft2.100",
    ...alpha,
    hour: 5,
    hour_source: "mtime",
    driver_tokens_at_hour: 1100 + beats(5),
    role: "fallback",
    eos_ok: true,
    eos_token_id: [248044, 248046],
    source: "/pvc/ptb/alpha/sft2/weights/step_100",
    family: "sft2",
    step: 100,
  }),
  // STABLE at 14:00Z less the 2 h pause; its directory mtime moved to the next day by pruning; eos from config.json top level.
  row({
    model_id: "agentic-ptb/alpha.h012.sft2.200",
    ...alpha,
    hour: 12,
    hour_source: "mtime",
    driver_tokens_at_hour: 3300 + beats(12),
    eos_ok: false,
    eos_token_id: [248044],
    source: "/pvc/ptb/alpha/sft2/weights/step_200",
    family: "sft2",
    step: 200,
  }),
  // Copy-back mtime after run_end: the first of two v1 archive lines, 19:10Z (17 h 10 min of budget).
  row({
    model_id: "agentic-ptb/alpha.h017.sft2.300",
    ...alpha,
    hour: 17.17,
    hour_source: "janitor",
    driver_tokens_at_hour: 3300 + beats(17.17),
    eos_ok: true,
    eos_token_id: [248044, 248046],
    source: "/pvc/ptb/alpha/sft2/weights/step_300",
    family: "sft2",
    step: 300,
  }),
  row({
    model_id: "agentic-ptb/alpha.h022.sft3.10",
    ...alpha,
    hour: 22,
    hour_source: "mtime",
    driver_tokens_at_hour: 3300 + beats(22),
    source: "/pvc/ptb/alpha/sft 3/weights/step_10",
    family: "sft3",
    step: 10,
  }),
  row({
    model_id: "agentic-ptb/alpha.h028.sft3.30",
    ...alpha,
    hour: 28,
    hour_source: "mtime",
    driver_tokens_at_hour: 3300 + beats(28),
    source: "/pvc/ptb/alpha/sft 3/weights/step_30",
    family: "sft3",
    step: 30,
  }),
  ...[1, 2, 3, 4].map((s) =>
    row({
      model_id: `agentic-ptb/alpha.h0${28 + 2 * s}.grpo.${s}`,
      ...alpha,
      hour: 28 + 2 * s,
      hour_source: "mtime",
      driver_tokens_at_hour: 6600 + beats(28 + 2 * s),
      source: `/pvc/ptb/alpha/runs/grpo/weights/step_${s}`,
      family: "grpo",
      step: s,
    }),
  ),
  // Spare repo only: the cadence (2 h/step) predicts 38 h; the anchor says 38.5 h: error bound 0.5 h.
  row({
    model_id: "agentic-ptb/alpha.h038.grpo.5",
    ...alpha,
    hour: 38,
    hour_source: "extrapolated",
    driver_tokens_at_hour: 6600 + beats(38),
    source: "msr-spare/alpha.grpo.step_5",
    family: "grpo",
    step: 5,
    hour_lower_bound: 36,
    hour_error_h: 0.5,
  }),
  // Known from a published hNA repo and a submit event only.
  row({
    model_id: "agentic-ptb/alpha.hNA.sft3.20",
    ...alpha,
    hour: null,
    hour_source: "unrecoverable",
    hour_upper_bound: 28,
    driver_tokens_at_hour: null,
    role: "SUBMITTED",
    eos_ok: true,
    eos_token_id: [248046],
    source: "agentic-ptb/alpha.hNA.sft3.20",
    family: "sft3",
    step: 20,
    hour_lower_bound: 22,
  }),
  row({
    model_id: "agentic-ptb/beta.h020.a.1",
    ...beta,
    hour: 20.75,
    hour_source: "mtime",
    driver_tokens_at_hour: null,
    source: "/pvc/ptb/beta/a/weights/step_1",
    family: "a",
    step: 1,
  }),
  // 01:30 Los Angeles after a line at 01:50: the second occurrence, 09:30Z.
  row({
    model_id: "agentic-ptb/beta.h021.a.2",
    ...beta,
    hour: 21.5,
    hour_source: "janitor",
    driver_tokens_at_hour: null,
    source: "/pvc/ptb/beta/a/weights/step_2",
    family: "a",
    step: 2,
  }),
];

/** The warnings of a build of the mini sweep, as `[code, file, line]`, in the order found. */
export const EXPECTED_WARNINGS: [string, string | null, number | null][] = [
  ["PVC_CUT_LINE", "alpha/pvc/listing.tsv", 23],
  ["JANITOR_UNPARSED_LINE", "alpha/janitor/ckpt-janitor.log", 7],
  ["CHECKPOINT_LOST", "alpha/janitor/ckpt-janitor.log", 5],
  ["PVC_MTIME_AFTER_RUN_END", "alpha/pvc/listing.tsv", 8],
  ["SUPERVISOR_NO_SUBMIT", "beta/supervisor/history.jsonl", null],
  ["TRAJECTORY_NO_FILES", "beta/trajectory", null],
];

/** The lost checkpoints of the mini sweep (build-report.json `lost`). */
export const EXPECTED_LOST = [{ cell: "alpha", family: "sft2", step: 400, seen_in: ["janitor_other"] }];
