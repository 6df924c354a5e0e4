/** In-memory data for the resolver's unit tests (test/resolve-*.test.ts): no files, no clock. */
import type { Cell, CellsFile } from "../../src/schema.js";
import type { Observation, Pause } from "../../src/observations.js";
import type { SupervisorHistory } from "../../src/extractors/supervisor.js";
import { type HubRepo, type HubRepoObservation, hubRepoObservation } from "../../src/extractors/hub-files.js";
import type { Candidate, TimeDecision } from "../../src/resolve/decision.js";
import { type RunWindow, runWindow } from "../../src/resolve/run-window.js";

/** run_start: 2026-01-01T00:00:00Z. */
export const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
/** T0 + h hours, epoch ms. */
export const at = (h: number): number => T0 + h * HOUR;

export const registry: CellsFile = {
  org: "agentic-ptb",
  spare_owner: "msr-spare",
  baseline: "Qwen/Qwen3.5-9B-Base",
  required_eos_token_id: 7,
  cells: [],
};

export const cell: Cell = {
  cell: "c",
  driver: "d",
  effort: "e",
  trajectory_format: "codex",
  pvc_root: "/pvc/ptb/c/",
  janitor_tz: "UTC",
};

/** One observation; `line` defaults to `seq + 1`, the file to `c/<kind>`. */
export function obs(
  kind: Observation["kind"],
  family: string,
  step: number,
  utcMs: number | null,
  more: Partial<Observation> = {},
): Observation {
  const seq = more.seq ?? 0;
  return {
    cell: "c",
    family,
    step,
    kind,
    familyDir: kind === "anchor" ? null : family,
    utcMs,
    timeNote: kind === "janitor_archive" ? "src_mtime" : null,
    extractor: "test",
    origin: { file: `c/${kind}`, line: seq + 1, offset: null, raw: `${kind} ${family} ${step}` },
    detail: kind === "janitor_archive" ? { version: "v2" } : {},
    seq,
    ...more,
  };
}

export function repo(id: string, eosIds: number[] | null = [7], lastModified: string | null = null): HubRepo {
  return {
    id,
    owner: id.split("/")[0]!,
    name: id.split("/")[1]!,
    dir: `hub/${id}`,
    sha: null,
    lastModified,
    eos: { ids: eosIds, from: eosIds ? "generation_config.json" : null, chatTemplate: null },
  };
}

/** A published repo observation `agentic-ptb/c.h<hourPart>.<family>.<step>`. */
export function published(
  family: string,
  step: number,
  hourPart: string,
  eosIds: number[] | null = [7],
): HubRepoObservation {
  return hubRepoObservation("published_repo", repo(`agentic-ptb/c.h${hourPart}.${family}.${step}`, eosIds), {
    cell: "c",
    family,
    step,
    hourPart,
  });
}

/** A spare repo observation `msr-spare/c.<family>.step_<step>`. */
export function spare(family: string, step: number): HubRepoObservation {
  return hubRepoObservation("spare_repo", repo(`msr-spare/c.${family}.step_${step}`), { cell: "c", family, step });
}

export function candidate(
  family: string,
  step: number,
  o: Observation[] = [],
  more: Partial<Candidate> = {},
): Candidate {
  const pvcDirs = new Set(o.filter((x) => x.kind.startsWith("pvc") && x.familyDir).map((x) => x.familyDir!));
  return { family, step, obs: o, pvcDirs, published: [], spares: [], ...more };
}

export function supervisor(
  runEndH: number | null = 10,
  pauses: Pause[] = [],
  roleEvents: Observation[] = [],
): SupervisorHistory {
  return {
    runStartMs: T0,
    runStartOrigin: { file: "c/supervisor/history.jsonl", line: 1, offset: 0, raw: "" },
    runEndMs: runEndH === null ? null : at(runEndH),
    pauses,
    roleEvents,
    eventCount: 0,
  };
}

/** The window of a run of `runEndH` hours at tolerance 1.5 h. */
export function window(runEndH: number | null = 10, pauses: Pause[] = []): RunWindow {
  return runWindow(supervisor(runEndH, pauses), 1.5);
}

/** An exact decision at hour `h` (source mtime). */
export function exactAt(h: number): TimeDecision {
  return {
    chosen: null,
    rejected: [],
    writeMs: at(h),
    hourExact: h,
    hour: Math.round(h * 100) / 100,
    source: "mtime",
    rule: "mtime: STABLE file mtime within the run",
    errorH: null,
    clockUnknown: false,
  };
}

/** An undecided (untimed) decision. */
export function untimed(): TimeDecision {
  return { ...exactAt(0), writeMs: null, hourExact: null, hour: null, source: "unrecoverable", rule: "" };
}
