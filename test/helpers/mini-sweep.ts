import { makeTree, lines } from "./tree.js";

/** A codex token_count line with a running total (TRAJECTORIES.md: codex). */
export function codexTokenCount(ts: string, input: number, cached: number, output: number): string {
  const usage = {
    input_tokens: input,
    cached_input_tokens: cached,
    output_tokens: output,
    reasoning_output_tokens: 0,
    total_tokens: input + output,
  };
  return JSON.stringify({
    timestamp: ts,
    type: "event_msg",
    payload: { type: "token_count", info: { total_token_usage: usage, last_token_usage: usage } },
  });
}

const hubJson = (id: string) =>
  JSON.stringify({
    id,
    sha: "0".repeat(40),
    lastModified: "2026-11-20T00:00:00.000Z",
    createdAt: "2026-11-20T00:00:00.000Z",
  });

/** The cells.json of the mini sweep; `patch` edits it before it is written. */
export function miniCells(patch?: (cells: Record<string, any>) => void): string {
  const cells: Record<string, any> = {
    org: "agentic-ptb",
    spare_owner: "msr-spare",
    baseline: "Qwen/Qwen3.5-9B-Base",
    required_eos_token_id: 248046,
    cells: [
      {
        cell: "alpha",
        driver: "Codex / gpt-x",
        effort: "high",
        trajectory_format: "codex",
        pvc_root: "/pvc/ptb/alpha",
        janitor_tz: "UTC",
        plotted: true,
        family_aliases: { "sft 3": "sft3" },
      },
      {
        cell: "beta",
        driver: "Codex / gpt-x",
        effort: "max",
        trajectory_format: "codex",
        pvc_root: "/pvc/ptb/beta",
        janitor_tz: "America/Los_Angeles",
        plotted: false,
      },
      {
        cell: "gamma",
        driver: "Claude Code / x",
        effort: "high",
        trajectory_format: "claude-code",
        pvc_root: "/pvc/ptb/gamma",
        janitor_tz: "UTC",
        excluded: "aborted rerun",
      },
    ],
  };
  patch?.(cells);
  return JSON.stringify(cells, null, 2);
}

const A = "/pvc/ptb/alpha";
const tsv = (iso: string, type: string, size: number, path: string) =>
  `${(Date.parse(iso) / 1000).toFixed(10)}\t${type}\t${size}\t${path}`;

/**
 * The times of the calls of alpha's second session: every 45 minutes from 00:30Z on 2026-10-01 to
 * 16:30Z on 2026-10-02, none in the pause (10:00–12:00Z on 10-01). A row of alpha counts one token
 * more for each of them up to its write time.
 */
export const ALPHA_HEARTBEATS: string[] = Array.from({ length: 54 }, (_v, k) =>
  new Date(Date.parse("2026-10-01T00:30:00Z") + k * 45 * 60_000).toISOString(),
).filter((t) => t < "2026-10-01T10:00:00Z" || t > "2026-10-01T12:00:00Z");

/** The files of a small sweep whose every row is known by hand (see test/build.test.ts). */
export function miniSweepFiles(): Record<string, string> {
  return {
    "cells.json": miniCells(),
    // alpha: run 2026-10-01T00:00Z, paused 10:00-12:00Z, ended 2026-10-04T00:00Z.
    "alpha/supervisor/history.jsonl": lines(
      '{"ts":"2026-10-01T00:00:00Z","event":"run_start","run_id":"a-main"}',
      '{"ts":"2026-10-01T10:00:00Z","event":"pause","reason":"maintenance"}',
      '{"ts":"2026-10-01T12:00:00Z","event":"resume"}',
      '{"ts":"2026-10-03T00:00:00Z","event":"submit","checkpoint":"/pvc/ptb/alpha/sft2/weights/step_100"}',
      '{"ts":"2026-10-03T00:00:00Z","event":"fallback","checkpoint":"/pvc/ptb/alpha/sft2/weights/step_100"}',
      '{"ts":"2026-10-03T01:00:00Z","event":"submit","checkpoint":"/pvc/ptb/alpha/sft 3/weights/step_20"}',
      '{"ts":"2026-10-04T00:00:00Z","event":"run_end"}',
    ),
    "alpha/pvc/listing.tsv": `${lines(
      tsv("2026-10-01T00:00:00Z", "d", 4096, A),
      tsv("2026-10-01T05:00:00Z", "d", 4096, `${A}/sft2/weights/step_100`),
      tsv("2026-10-01T05:00:00Z", "f", 0, `${A}/sft2/weights/step_100/STABLE`),
      tsv("2026-10-01T04:59:00Z", "f", 999, `${A}/sft2/weights/step_100/model-00001-of-00001.safetensors`),
      tsv("2026-10-01T04:00:00Z", "f", 999, `${A}/sft2/checkpoints/step_100/STABLE`),
      tsv("2026-10-02T20:00:00Z", "d", 4096, `${A}/sft2/weights/step_200`),
      tsv("2026-10-01T14:00:00Z", "f", 0, `${A}/sft2/weights/step_200/STABLE`),
      tsv("2026-10-10T00:00:00Z", "f", 0, `${A}/sft2/weights/step_300/STABLE`),
      tsv("2026-10-10T00:00:00Z", "f", 999, `${A}/sft2/weights/step_300/model.safetensors`),
      tsv("2026-10-01T23:00:00Z", "f", 999, `${A}/sft2/weights/step_500/model.safetensors`),
      tsv("2026-10-02T00:00:00Z", "f", 0, `${A}/sft 3/weights/step_10/STABLE`),
      tsv("2026-10-02T00:00:00Z", "f", 9, `${A}/sft 3/weights/step_10/model.safetensors`),
      tsv("2026-10-02T06:00:00Z", "f", 0, `${A}/sft 3/weights/step_30/STABLE`),
      tsv("2026-10-02T06:00:00Z", "f", 9, `${A}/sft 3/weights/step_30/model.safetensors`),
      ...[1, 2, 3, 4].flatMap((s) => [
        tsv(
          `2026-10-02T${String(6 + 2 * s).padStart(2, "0")}:00:00Z`,
          "f",
          0,
          `${A}/runs/grpo/weights/step_${s}/STABLE`,
        ),
        tsv(
          `2026-10-02T${String(6 + 2 * s).padStart(2, "0")}:00:00Z`,
          "f",
          9,
          `${A}/runs/grpo/weights/step_${s}/model.safetensors`,
        ),
      ]),
    )}1790000000.0\tf\t0\t/pvc/ptb/alpha/sft2/wei`,
    "alpha/janitor/ckpt-janitor.log": lines(
      "2026-10-01 00:00:05 ckpt-janitor starting",
      `2026-10-01T15:00:00.000+00:00 level=info action=archive family=sft2 step=200 src_mtime=${Date.parse("2026-10-01T14:00:00Z") / 1000} dest=msr-spare/alpha.sft2.step_200`,
      "2026-10-01 19:10:00 archived /pvc/ptb/alpha/sft2/weights/step_300 -> msr-spare/alpha.sft2.step_300",
      "2026-10-01 19:20:00 archived /pvc/ptb/alpha/sft2/weights/step_300 -> msr-spare/alpha.sft2.step_300",
      "2026-10-01T19:30:00.000+00:00 level=info action=prune family=sft2 step=400",
      "Terminated",
      "archived step_600 to spare (partial write)",
    ),
    "alpha/anchors.tsv": lines(
      "family\tstep\ttime\tkind\tnote",
      "grpo\t5\t2026-10-02T16:30:00+00:00\teval-log\tfirst eval of step 5",
    ),
    "alpha/RUNLOG.md": "# notes\nstep 5 written 2026-10-02 09:00 (not a source of hours)\n",
    "alpha/trajectory/sessions/2026/10/01/rollout-2026-10-01T00-00-00-0000.jsonl": lines(
      JSON.stringify({
        timestamp: "2026-10-01T00:00:01Z",
        type: "session_meta",
        payload: { id: "s1", timestamp: "2026-10-01T00:00:01Z" },
      }),
      codexTokenCount("2026-10-01T04:00:00.000Z", 1000, 200, 100),
      codexTokenCount("2026-10-01T13:00:00.000Z", 3000, 1000, 300),
      codexTokenCount("2026-10-01T13:00:00.000Z", 3000, 1000, 300),
      codexTokenCount("2026-10-02T07:00:00.000Z", 6000, 2000, 600),
      // The driver keeps working after the last checkpoint: its logs reach past every row (resolve/token-coverage.ts).
      codexTokenCount("2026-10-02T16:30:00.000Z", 7000, 2500, 700),
    ),
    // A second session of alpha's driver: one output token every 45 minutes of the run (none in the pause),
    // so that its logs have no stretch without a call longer than 1 budget hour (resolve/token-coverage.ts).
    "alpha/trajectory/sessions/2026/10/01/rollout-2026-10-01T00-15-00-0001.jsonl": lines(
      JSON.stringify({
        timestamp: "2026-10-01T00:15:00Z",
        type: "session_meta",
        payload: { id: "s2", timestamp: "2026-10-01T00:15:00Z" },
      }),
      ...ALPHA_HEARTBEATS.map((t, k) => codexTokenCount(t, 0, 0, k + 1)),
    ),
    // beta: LA janitor across the end of DST; no run_end; ls-lR listing.
    "beta/supervisor/history.jsonl": lines('{"ts":"2026-10-31T12:00:00Z","event":"run_start"}'),
    "beta/pvc/ls-lR.txt": lines(
      "/pvc/ptb/beta/a/weights/step_1:",
      "total 2",
      "-rw-r--r-- 1 root root 0 2026-11-01 08:45:00.000000000 +0000 STABLE",
      "-rw-r--r-- 1 root root 9 2026-10-31 19:59:00.000000000 +0000 model.safetensors",
    ),
    "beta/janitor/ckpt-janitor.log": lines(
      "2026-11-01 01:50:00 archived /pvc/ptb/beta/a/weights/step_1 -> msr-spare/beta.a.step_1",
      "2026-11-01 01:30:00 archived /pvc/ptb/beta/a/weights/step_2 -> msr-spare/beta.a.step_2",
    ),
    "beta/trajectory/.keep": "",
    // gamma: excluded, but its files exist.
    "gamma/supervisor/history.jsonl": lines('{"ts":"2026-10-01T00:00:00Z","event":"run_start"}'),
    // hub
    "hub/Qwen/Qwen3.5-9B-Base/.hub.json": hubJson("Qwen/Qwen3.5-9B-Base"),
    "hub/Qwen/Qwen3.5-9B-Base/generation_config.json": JSON.stringify({ eos_token_id: [248046, 248044] }),
    "hub/Qwen/Qwen3.5-9B-Base/tokenizer_config.json": JSON.stringify({
      chat_template: "{% for m in messages %}{% endfor %}",
    }),
    "hub/agentic-ptb/alpha.h005.sft2.100/.hub.json": hubJson("agentic-ptb/alpha.h005.sft2.100"),
    "hub/agentic-ptb/alpha.h005.sft2.100/generation_config.json": JSON.stringify({ eos_token_id: [248044, 248046] }),
    "hub/agentic-ptb/alpha.h012.sft2.200/.hub.json": hubJson("agentic-ptb/alpha.h012.sft2.200"),
    "hub/agentic-ptb/alpha.h012.sft2.200/config.json": JSON.stringify({
      eos_token_id: 248044,
      text_config: { eos_token_id: 248046 },
    }),
    "hub/agentic-ptb/alpha.h010.sft2.300/.hub.json": hubJson("agentic-ptb/alpha.h010.sft2.300"),
    "hub/agentic-ptb/alpha.h010.sft2.300/config.json": JSON.stringify({
      architectures: ["Qwen3_5ForConditionalGeneration"],
      text_config: { eos_token_id: [248046, 248044] },
    }),
    "hub/agentic-ptb/alpha.h010.sft2.300/chat_template.jinja": "{{ x }}",
    "hub/agentic-ptb/alpha.hNA.sft3.20/.hub.json": hubJson("agentic-ptb/alpha.hNA.sft3.20"),
    "hub/agentic-ptb/alpha.hNA.sft3.20/generation_config.json": JSON.stringify({ eos_token_id: 248046 }),
    "hub/agentic-ptb/gamma.h001.x.1/.hub.json": hubJson("agentic-ptb/gamma.h001.x.1"),
    "hub/agentic-ptb/alpha-record/.hub.json": hubJson("agentic-ptb/alpha-record"),
    "hub/msr-spare/alpha.sft2.step_200/.hub.json": hubJson("msr-spare/alpha.sft2.step_200"),
    "hub/msr-spare/alpha.grpo.step_5/.hub.json": hubJson("msr-spare/alpha.grpo.step_5"),
    "hub/msr-spare/beta.a.step_2/.hub.json": hubJson("msr-spare/beta.a.step_2"),
  };
}

export async function makeMiniSweep(overrides: Record<string, string | null> = {}): Promise<string> {
  const files: Record<string, string> = { ...miniSweepFiles() };
  for (const [k, v] of Object.entries(overrides)) {
    if (v === null) delete files[k];
    else files[k] = v;
  }
  return makeTree(files, "ptb-mini-");
}
