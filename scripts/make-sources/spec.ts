/**
 * The hand-designed ground truth of the sample sweep: cells, runs, families,
 * and the fate of every checkpoint (which evidence survives).
 *
 * Fates (one char per checkpoint, in step order):
 *   M  PVC keeps STABLE (in-run mtime) and the shards            -> mtime
 *   D  like M, but the janitor later deleted the shards in place (dir mtime moves; STABLE kept; spare exists) -> mtime
 *   1  pruned locally after a janitor v1 archive line             -> janitor (v1 action time)
 *   2  pruned locally after a janitor v2 archive line             -> janitor (v2 src_mtime)
 *   C  copied back after run_end (STABLE mtime = copy time) + a janitor archive line -> janitor
 *   X  pruned, no janitor line, spare repo exists; family fit validates -> extrapolated
 *   U  pruned, no janitor line, spare repo exists; family fit does not validate -> unrecoverable
 *   P  pruned, no janitor line, no spare; known from a supervisor fallback + a published repo -> unrecoverable/extrapolated
 *   L  pruned without archive (janitor prune line), never published -> lost (no row)
 *   S  shards deleted without archive (prune line), STABLE kept, never published -> lost (no row)
 */

export type EosStyle =
  | "gen-list-ok" // generation_config.json eos [248044, 248046]
  | "gen-int-bad" // generation_config.json eos 248044
  | "top-int-ok" // no generation_config; config.json top-level eos 248046
  | "text-list-ok" // no generation_config; config.json text_config eos [248046, 248044]
  | "text-int-bad" // no generation_config; config.json text_config eos 248044
  | "gen-bad-top-ok" // generation_config [248044] wins over config.json top-level 248046
  | "gen-nokey-top-ok"; // generation_config without eos_token_id; config.json top-level [248046]

export interface FamSpec {
  dir: string; // directory name on the PVC
  id?: string; // family id when the directory name is not usable (family_aliases)
  nested?: string; // parent directory under pvc_root (e.g. "runs")
  steps: { first: number; every: number };
  hours: { start: number; cadence: number; jitter: number; exactLine?: boolean } | number[];
  /** Override hours (budget) or wall times (ISO) per index. */
  at?: Record<number, number | string>;
  fates: string;
  eos: EosStyle | EosStyle[];
  logs?: { attempts: number };
  rollouts?: boolean;
  latestLink?: boolean;
}

export interface SessionSpec {
  name: string;
  from: number; // budget hours (may be negative: before run_start)
  to: number;
  kind: string; // format-specific
  parent?: string;
  extra?: Record<string, number | string | boolean>;
}

export interface CellSpec {
  cell: string;
  driver: string;
  effort: string;
  format: "codex" | "claude-code" | "pi" | "kimi-code";
  tz: string;
  plotted?: boolean;
  excluded?: string;
  runId: string;
  start: string; // ISO
  pauses: [number, number][]; // [budget hour, duration h]
  runEnd: number | null; // budget hour of run_end, null = no run_end event
  /** Budget hour after which nothing happens any more (the run died). */
  diedAt?: number;
  pvcFormat: "find" | "ls";
  families: FamSpec[];
  janitor: {
    logStart: number; // budget hour; older lines are lost (rotated away)
    v2From: number; // budget hour of the upgrade (0 = always v2, Infinity = never)
    gaps: [number, number][]; // janitor down
    rotations: (number | string)[]; // budget hours, or "dir:idx" = split that checkpoint's archive line
    gzFrom: number; // rotated part index from which parts are gzipped
    errorRetry?: string[];
    dupArchive?: string[];
    stopAt?: number; // budget hour the janitor stopped (default run end + 2 h)
  };
  incomplete?: { dir: string; step: number; hour: number }[];
  roles: { submits: [string, number][]; fallbacks: [string, number][] };
  events?: { hour: number; event: Record<string, unknown> }[];
  anchors?: { key: string; deltaMin: number; kind: string; note: string; offset?: string }[];
  unpublished?: string[];
  stalePublished?: Record<string, string>; // key -> "hNNN" or "hNA" used in the published name
  dupPublished?: string[]; // key: an older published copy with another hour and bad eos also exists
  sessions: SessionSpec[];
  runlog: string[];
}

export const ORG = "agentic-ptb";
export const SPARE = "msr-spare";
export const BASELINE = "Qwen/Qwen3.5-9B-Base";
export const EOS = 248046;

export const CELLS: CellSpec[] = [
  {
    cell: "sol-high",
    driver: "Codex / gpt-5.6-sol",
    effort: "high",
    format: "codex",
    tz: "UTC",
    plotted: true,
    runId: "a-main",
    start: "2026-10-02T08:00:00Z",
    pauses: [[30.2, 3.5]],
    runEnd: 100.02,
    pvcFormat: "find",
    families: [
      {
        dir: "sft1",
        steps: { first: 250, every: 250 },
        hours: { start: 2.0, cadence: 1.6, jitter: 0.1 },
        fates: "UUMUMMMM",
        eos: [
          "gen-int-bad",
          "gen-int-bad",
          "gen-bad-top-ok",
          "gen-int-bad",
          "text-int-bad",
          "gen-int-bad",
          "gen-int-bad",
          "gen-int-bad",
        ],
        logs: { attempts: 1 },
      },
      {
        dir: "sft2",
        steps: { first: 200, every: 200 },
        hours: { start: 5.5, cadence: 1.25, jitter: 0.04, exactLine: true },
        at: { 9: 21.25 },
        fates: "XXXMMMMMMM",
        eos: "gen-int-bad",
        logs: { attempts: 2 },
      },
      {
        dir: "grpo-a",
        steps: { first: 100, every: 100 },
        hours: { start: 18.0, cadence: 2.1, jitter: 0.15 },
        fates: "MM1MMLMMCMMMMMM",
        eos: "gen-list-ok",
        rollouts: true,
        logs: { attempts: 2 },
        latestLink: true,
      },
      {
        dir: "grpo-b",
        nested: "runs",
        steps: { first: 50, every: 50 },
        hours: { start: 46.0, cadence: 3.6, jitter: 0.2 },
        fates: "MMDMMMSMMMMMM",
        eos: "text-list-ok",
        rollouts: true,
        logs: { attempts: 1 },
      },
      {
        dir: "dpo",
        steps: { first: 40, every: 40 },
        hours: { start: 60.0, cadence: 3.0, jitter: 0.15 },
        fates: "MMMM2MMM2MCMM",
        eos: ["gen-list-ok", "gen-nokey-top-ok", "gen-list-ok"],
        logs: { attempts: 3 },
      },
    ],
    janitor: { logStart: 15, v2From: 45, gaps: [], rotations: [40, 65, "dpo:8"], gzFrom: 2, dupArchive: [] },
    incomplete: [{ dir: "dpo", step: 560, hour: 99.6 }],
    roles: {
      submits: [["dpo:11", 99.5]],
      fallbacks: [
        ["grpo-b:9", 95.0],
        ["grpo-a:5", 96.0],
      ],
    },
    events: [
      { hour: 40.0, event: { event: "driver_restart", reason: "oom" } },
      { hour: 70.0, event: { event: "driver_restart", reason: "context_exhausted" } },
      {
        hour: 50.5,
        event: { event: "checkpoint_eval", checkpoint: "/pvc/ptb/sol-high/grpo-a/weights/step_1200", score: 0.412 },
      },
    ],
    anchors: [
      { key: "sft2:1", deltaMin: 22, kind: "eval-log", note: "eval harness log line 'loaded step_400'" },
      { key: "sft2:5", deltaMin: 4, kind: "local-copy", note: "mtime of laptop copy of config.json" },
      { key: "sft2:7", deltaMin: 31, kind: "eval-log", note: "first eval of step_1600" },
      { key: "grpo-a:3", deltaMin: 12, kind: "wandb", note: "wandb run summary updated" },
    ],
    sessions: [
      { name: "A", from: -0.35, to: 40.0, kind: "main", extra: { resetAt: 25.0, cutLast: true } },
      { name: "A-resume", from: 40.1, to: 70.0, kind: "resume", parent: "A" },
      { name: "B", from: 55.0, to: 57.5, kind: "fork", parent: "A-resume" },
      { name: "C", from: 70.1, to: 100.04, kind: "main", extra: { newer: true } },
    ],
    runlog: [
      "# sol-high RUNLOG",
      "",
      "- 09:10 started sft1 on the 40k mix (lr 1e-5). Looks fine.",
      "- ~14:00 sft2 with packing; step_400 saved around 14:40 I think",
      "- Day 2, 03:15: grpo-a kicked off from sft2 step_1600.",
      "- node went down for maintenance for a few hours, resumed.",
      "- final pick: dpo step_480 (submitted 11:30).",
    ],
  },
  {
    cell: "grok",
    driver: "pi / grok-4.6",
    effort: "xhigh",
    format: "pi",
    tz: "UTC",
    plotted: true,
    runId: "a-main",
    start: "2026-10-09T06:00:00Z",
    pauses: [[55.0, 2.0]],
    runEnd: 100.01,
    pvcFormat: "find",
    families: [
      {
        dir: "sft-a",
        steps: { first: 500, every: 500 },
        hours: { start: 1.0, cadence: 1.9, jitter: 0.12 },
        fates: "DMM2MMMMMM2MMMM",
        eos: "gen-int-bad",
        logs: { attempts: 1 },
      },
      {
        dir: "grpo",
        nested: "runs",
        steps: { first: 20, every: 20 },
        hours: { start: 28.5, cadence: 3.2, jitter: 0.2 },
        fates: "MMMMMMMMMMMMMMMMMCMMMM",
        eos: "text-int-bad",
        rollouts: true,
        logs: { attempts: 2 },
        latestLink: true,
      },
      {
        dir: "sft-b",
        steps: { first: 300, every: 300 },
        hours: { start: 30.0, cadence: 3.4, jitter: 0.15 },
        fates: "MMMMUMMMMM2MMLMMMMM",
        eos: ["gen-int-bad", "text-int-bad"],
        logs: { attempts: 1 },
      },
      {
        dir: "kd",
        steps: { first: 100, every: 100 },
        hours: [41.0, 43.5, 46.0, 52.0],
        fates: "UUUM",
        eos: "gen-bad-top-ok",
        logs: { attempts: 1 },
      },
    ],
    janitor: {
      logStart: 0,
      v2From: 0,
      gaps: [[40.0, 48.5]],
      rotations: ["sft-a:10"],
      gzFrom: 2,
      errorRetry: ["sft-a:3"],
    },
    roles: {
      submits: [
        ["grpo:10", 62.0],
        ["sft-b:16", 99.2],
      ],
      fallbacks: [["sft-a:14", 99.3]],
    },
    events: [
      { hour: 30.0, event: { event: "driver_restart", reason: "oom" } },
      { hour: 80.0, event: { event: "budget_warning", remaining_hours: 20 } },
    ],
    anchors: [
      { key: "kd:0", deltaMin: 15, kind: "eval-log", note: "kd step_100 eval" },
      { key: "kd:3", deltaMin: 9, kind: "local-copy", note: "laptop copy" },
    ],
    sessions: [
      { name: "G1", from: 0.02, to: 30.0, kind: "main" },
      { name: "G2", from: 30.1, to: 100.0, kind: "main", extra: { aborted: true } },
      { name: "G3", from: 70.0, to: 72.0, kind: "fork", parent: "G2" },
      { name: "G4", from: 80.0, to: 86.0, kind: "orphan-branch", extra: { headerAt: 84.5 } },
    ],
    runlog: [
      "# grok notes",
      "",
      "sft-a done by lunch (12:30?).",
      "grpo under runs/ because I moved it. kd experiment was a bust.",
    ],
  },
  {
    cell: "dpsk-v4-flash",
    driver: "pi / DeepSeek v4-flash",
    effort: "thinking",
    format: "pi",
    tz: "UTC",
    plotted: true,
    runId: "a-main",
    start: "2026-10-20T09:30:00Z",
    pauses: [],
    runEnd: 100.03,
    pvcFormat: "find",
    families: [
      {
        dir: "sft",
        steps: { first: 400, every: 400 },
        hours: { start: 2.0, cadence: 2.5, jitter: 0.15 },
        fates: "MMM1MMMMUMMM",
        eos: "top-int-ok",
        logs: { attempts: 1 },
      },
      {
        dir: "grpo",
        steps: { first: 25, every: 25 },
        hours: { start: 31.0, cadence: 4.1, jitter: 0.2 },
        fates: "MMMMMMMM2MCMMMMM",
        eos: "text-list-ok",
        rollouts: true,
        logs: { attempts: 2 },
      },
      {
        dir: "sft-ctx",
        steps: { first: 150, every: 150 },
        hours: { start: 12.0, cadence: 6.5, jitter: 0.2 },
        fates: "MMUMMMLMMMMMM",
        eos: ["gen-list-ok", "gen-int-bad", "gen-list-ok", "gen-list-ok"],
        logs: { attempts: 1 },
      },
    ],
    janitor: { logStart: 0, v2From: 50, gaps: [[20.0, 27.0]], rotations: [60], gzFrom: 2 },
    roles: { submits: [["grpo:14", 99.0]], fallbacks: [["sft-ctx:10", 99.1]] },
    events: [{ hour: 20.0, event: { event: "driver_restart", reason: "upgrade pi 0.30 -> 0.41" } }],
    dupPublished: ["sft:5"],
    sessions: [
      { name: "D1", from: 0.02, to: 20.0, kind: "v1" },
      { name: "D2", from: 20.1, to: 100.0, kind: "main", extra: { aborted: true } },
      { name: "D3", from: 50.0, to: 51.2, kind: "fork", parent: "D2" },
    ],
    runlog: [
      "# dpsk-v4-flash",
      "",
      "- sft-ctx is the long-context variant, started ~21:30",
      "- janitor was down for a while overnight",
    ],
  },
  {
    cell: "kimi",
    driver: "kimi-code / kimi-k3",
    effort: "high",
    format: "kimi-code",
    tz: "America/Los_Angeles",
    plotted: true,
    runId: "a-main",
    start: "2026-10-30T18:00:00Z",
    pauses: [[20.0, 2.0]],
    runEnd: 100.02,
    pvcFormat: "find",
    families: [
      {
        dir: "sft mix",
        id: "sft-mix",
        steps: { first: 300, every: 300 },
        hours: [4.2, 8.1, 14.0, 19.2, 25.0, 30.6, 0, 0, 41.5, 46.0],
        at: { 6: "2026-11-01T08:14:30.250Z", 7: "2026-11-01T09:21:10.730Z" },
        fates: "UUMMMM111M",
        eos: "text-list-ok",
        logs: { attempts: 1 },
      },
      {
        dir: "grpo@len",
        id: "grpo-len",
        steps: { first: 40, every: 40 },
        hours: { start: 3.5, cadence: 2.5, jitter: 0.04, exactLine: true },
        at: { 13: 40.5 },
        fates: "XXXXMMMMMMMMM1",
        eos: "gen-list-ok",
        rollouts: true,
        logs: { attempts: 2 },
      },
      {
        dir: "dpo",
        steps: { first: 60, every: 60 },
        hours: { start: 44.0, cadence: 4.0, jitter: 0.15 },
        fates: "MDMM2MMMMCMMMM",
        eos: ["text-list-ok", "top-int-ok"],
        logs: { attempts: 1 },
      },
    ],
    janitor: { logStart: 0, v2From: 45, gaps: [[3.0, 12.5]], rotations: [25, 50], gzFrom: 2 },
    roles: { submits: [["dpo:12", 99.0]], fallbacks: [["grpo@len:11", 99.1]] },
    events: [
      { hour: 50.0, event: { event: "driver_restart", reason: "session_limit" } },
      { hour: 61.0, event: { event: "disk_pressure", used_pct: 91 } },
    ],
    anchors: [
      {
        key: "grpo-len:1",
        deltaMin: 25,
        kind: "eval-log",
        note: "eval of grpo@len step_80",
        offset: "America/Los_Angeles",
      },
      { key: "grpo-len:6", deltaMin: 5, kind: "local-copy", note: "rsync'd copy", offset: "America/Los_Angeles" },
      { key: "grpo-len:10", deltaMin: 18, kind: "eval-log", note: "eval of step_440", offset: "+00:00" },
    ],
    stalePublished: {},
    sessions: [
      { name: "K0", from: 0.5, to: 1.0, kind: "notime" },
      { name: "K1", from: 1.05, to: 50.0, kind: "main", extra: { compactAt: 30.0, cancelAt: 35.0, cutLast: true } },
      { name: "K1-sub", from: 10.0, to: 10.6, kind: "subagent", parent: "K1" },
      { name: "K2", from: 50.1, to: 100.0, kind: "main" },
      { name: "K3", from: 80.0, to: 81.0, kind: "fork", parent: "K2" },
    ],
    runlog: [
      "# kimi run log",
      "",
      "01:20 saved sft mix step_2100 (PDT? PST? the clock changed tonight)",
      "grpo@len: length-penalised GRPO",
    ],
  },
  {
    cell: "opus-max",
    driver: "Claude Code / claude-opus-5",
    effort: "max",
    format: "claude-code",
    tz: "Asia/Shanghai",
    plotted: true,
    runId: "a-main",
    start: "2026-10-12T00:00:00Z",
    pauses: [],
    runEnd: 100.0,
    pvcFormat: "ls",
    families: [
      {
        dir: "sft",
        steps: { first: 1000, every: 1000 },
        hours: { start: 5.0, cadence: 8.0, jitter: 0.2 },
        fates: "M1MMMM",
        eos: "gen-list-ok",
        logs: { attempts: 1 },
      },
      {
        dir: "grpo",
        steps: { first: 30, every: 30 },
        hours: { start: 22.0, cadence: 11.0, jitter: 0.2 },
        fates: "MUMM1MM",
        eos: "top-int-ok",
        rollouts: true,
        logs: { attempts: 1 },
      },
    ],
    janitor: { logStart: 0, v2From: Infinity, gaps: [[30.0, 38.0]], rotations: [50], gzFrom: 2, dupArchive: ["sft:1"] },
    roles: { submits: [["grpo:6", 99.0]], fallbacks: [] },
    events: [{ hour: 45.0, event: { event: "driver_restart", reason: "api_error" } }],
    sessions: [
      { name: "S1", from: 0.02, to: 45.0, kind: "main" },
      { name: "S1-agent", from: 10.0, to: 10.6, kind: "subagent", parent: "S1", extra: { progress: true } },
      { name: "S2", from: 45.1, to: 100.0, kind: "resume", parent: "S1" },
      { name: "S2-agent", from: 60.0, to: 60.5, kind: "subagent", parent: "S2" },
    ],
    runlog: ["# opus-max", "", "sft step_2000 at about 21:00 local."],
  },
  {
    cell: "sol-max",
    driver: "Codex / gpt-5.6-sol",
    effort: "max",
    format: "codex",
    tz: "UTC",
    plotted: true,
    runId: "a-main",
    start: "2026-10-05T12:00:00Z",
    pauses: [],
    runEnd: null,
    diedAt: 16.3,
    pvcFormat: "find",
    families: [
      {
        dir: "sft",
        steps: { first: 200, every: 200 },
        hours: { start: 0.8, cadence: 1.5, jitter: 0.1 },
        fates: "MMM2MMMM",
        eos: "gen-list-ok",
        logs: { attempts: 1 },
      },
      {
        dir: "grpo",
        steps: { first: 10, every: 10 },
        hours: { start: 9.5, cadence: 1.5, jitter: 0.08 },
        fates: "UMMMM",
        eos: "gen-list-ok",
        rollouts: true,
        logs: { attempts: 1 },
      },
    ],
    janitor: { logStart: 0, v2From: 0, gaps: [[9.0, 10.5]], rotations: [], gzFrom: 2, stopAt: 18.0 },
    incomplete: [{ dir: "grpo", step: 60, hour: 16.2 }],
    roles: { submits: [["grpo:3", 15.0]], fallbacks: [] },
    events: [{ hour: 16.1, event: { event: "driver_restart", reason: "node_lost" } }],
    sessions: [{ name: "M", from: 0.02, to: 16.05, kind: "main", extra: { cutLast: true } }],
    runlog: ["# sol-max", "", "node is flaky. step_60 of grpo was being written when it died (16:10?)"],
  },
  {
    cell: "opus-high-v1",
    driver: "Claude Code / claude-opus-5",
    effort: "high",
    format: "claude-code",
    tz: "UTC",
    plotted: true,
    runId: "a-main",
    start: "2026-10-15T10:00:00Z",
    pauses: [],
    runEnd: 100.01,
    pvcFormat: "find",
    families: [
      {
        dir: "sft",
        steps: { first: 500, every: 500 },
        hours: [20.3, 55.1, 90.4],
        fates: "MMM",
        eos: "gen-list-ok",
        logs: { attempts: 1 },
      },
    ],
    janitor: { logStart: 0, v2From: 0, gaps: [], rotations: [], gzFrom: 2 },
    roles: { submits: [["sft:2", 99.0]], fallbacks: [] },
    sessions: [{ name: "V1", from: 0.02, to: 100.0, kind: "main", extra: { noRequestId: true } }],
    runlog: ["# opus-high-v1", "", "three long SFT rounds only."],
  },
  {
    cell: "sol-max-opusnode",
    driver: "Codex / gpt-5.6-sol",
    effort: "max",
    format: "codex",
    tz: "UTC",
    plotted: false,
    runId: "a-opusnode",
    start: "2026-10-22T14:00:00Z",
    pauses: [],
    runEnd: 100.0,
    pvcFormat: "ls",
    families: [
      {
        dir: "sft",
        steps: { first: 300, every: 300 },
        hours: { start: 4.0, cadence: 9.0, jitter: 0.2 },
        fates: "MMMMM",
        eos: "gen-list-ok",
        logs: { attempts: 1 },
      },
      {
        dir: "grpo",
        steps: { first: 20, every: 20 },
        hours: { start: 50.0, cadence: 12.0, jitter: 0.2 },
        fates: "MM2M",
        eos: "text-list-ok",
        rollouts: true,
        logs: { attempts: 1 },
      },
    ],
    janitor: { logStart: 0, v2From: 0, gaps: [], rotations: [], gzFrom: 2 },
    roles: { submits: [["grpo:3", 99.0]], fallbacks: [] },
    sessions: [
      { name: "O", from: 0.02, to: 100.0, kind: "main" },
      { name: "O-sub", from: 30.0, to: 31.5, kind: "subagent", parent: "O" },
    ],
    runlog: ["# sol-max on the opus node", "", "extra attempt, not plotted."],
  },
  {
    cell: "sol-max-v2",
    driver: "Codex / gpt-5.6-sol",
    effort: "max",
    format: "codex",
    tz: "UTC",
    plotted: true,
    runId: "a-redo",
    start: "2026-10-26T16:00:00Z",
    pauses: [[40.0, 1.5]],
    runEnd: 100.01,
    pvcFormat: "find",
    families: [
      {
        dir: "sft",
        steps: { first: 100, every: 100 },
        hours: { start: 0.9, cadence: 0.95, jitter: 0.08 },
        fates: "MMM1MMMMMM",
        eos: "gen-list-ok",
        logs: { attempts: 1 },
      },
      {
        dir: "grpo",
        steps: { first: 15, every: 15 },
        hours: { start: 12.0, cadence: 4.0, jitter: 0.2 },
        fates: "MMMMMMMMM2MMMM",
        eos: ["gen-list-ok", "text-int-bad"],
        rollouts: true,
        logs: { attempts: 2 },
      },
      {
        dir: "grpo-b",
        steps: { first: 25, every: 25 },
        hours: { start: 66.5, cadence: 4.0, jitter: 0.2 },
        fates: "MMMMMMMM",
        eos: "top-int-ok",
        rollouts: true,
        logs: { attempts: 1 },
      },
      {
        dir: "kd",
        steps: { first: 50, every: 50 },
        hours: [61.0, 62.5, 70.0, 80.0],
        fates: "PUMM",
        eos: "gen-list-ok",
        logs: { attempts: 1 },
      },
    ],
    janitor: { logStart: 0, v2From: 30, gaps: [[60.0, 66.0]], rotations: [50], gzFrom: 2 },
    roles: {
      submits: [
        ["grpo:5", 35.0],
        ["sft:7", 99.0],
      ],
      fallbacks: [["kd:0", 75.0]],
    },
    events: [{ hour: 50.0, event: { event: "driver_restart", reason: "oom" } }],
    anchors: [{ key: "kd:2", deltaMin: 10, kind: "eval-log", note: "kd eval" }],
    unpublished: ["grpo-b:7"],
    stalePublished: { "kd:0": "h058" },
    sessions: [
      { name: "A", from: 0.02, to: 50.0, kind: "main" },
      { name: "A-resume", from: 50.1, to: 100.0, kind: "resume", parent: "A" },
    ],
    runlog: ["# sol-max-v2 (redo)", "", "Submitting sft step_800 from ~7h in; nothing later beat it."],
  },
  {
    cell: "opus-high-v2",
    driver: "Claude Code / claude-opus-5",
    effort: "high",
    format: "claude-code",
    tz: "UTC",
    excluded: "aborted rerun: stopped checkpointing at ~h12 and submitted the base model unchanged",
    runId: "a-rerun",
    start: "2026-10-27T09:00:00Z",
    pauses: [],
    runEnd: 100.0,
    pvcFormat: "find",
    families: [
      { dir: "sft1", steps: { first: 100, every: 100 }, hours: [1.2, 2.3], fates: "MM", eos: "gen-list-ok" },
      { dir: "sft2", steps: { first: 100, every: 100 }, hours: [3.4, 4.6], fates: "M2", eos: "gen-list-ok" },
      { dir: "sft3", steps: { first: 100, every: 100 }, hours: [5.5, 6.7], fates: "MM", eos: "gen-list-ok" },
      { dir: "sft4", steps: { first: 100, every: 100 }, hours: [7.8, 9.1], fates: "MM", eos: "gen-list-ok" },
      { dir: "sft5", steps: { first: 100, every: 100 }, hours: [10.2, 11.9], fates: "MM", eos: "gen-list-ok" },
    ],
    janitor: { logStart: 0, v2From: 0, gaps: [], rotations: [], gzFrom: 2 },
    roles: { submits: [["base:0", 99.0]], fallbacks: [] },
    sessions: [{ name: "R", from: 0.02, to: 14.0, kind: "main" }],
    runlog: ["# opus-high-v2 (rerun)", "", "All five SFT runs regressed; submitting base."],
  },
];
