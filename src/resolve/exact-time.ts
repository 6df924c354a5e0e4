/**
 * Exact time by precedence (SOURCES.md: "Where a checkpoint's hour comes
 * from"): a STABLE mtime within the run, else the first janitor archive within
 * the run; never a directory mtime, a copy-back or a retry.
 */
import type { Diagnostics } from "../diagnostics.js";
import type { Observation } from "../observations.js";
import { round2 } from "./clock.js";
import type { Candidate, Rejection, TimeDecision } from "./decision.js";
import { contradictsWrite, timeIsOf } from "./hour-conflict.js";
import type { ZoneDoubt } from "./janitor-zone.js";
import { clockUnknownAt, iso, type RunWindow, withinRun } from "./run-window.js";
import { firstStableWithinRun, stableMtimes } from "./stable-mtime.js";
import { UNIT_ERROR_FROM_MS } from "../util/values.js";

/**
 * The exact time of a checkpoint, with every time set aside and why; an
 * unrecoverable decision (rule empty, filled by the cadence step) when no time
 * survives. A write inside a pause never resumed before run_end is
 * `clock_unknown`: unrecoverable, with its own rule.
 *
 * `zoneDoubt` (janitor-zone.ts): the cell's v1 janitor times are off as a
 * whole, so each is set aside (`zone_in_doubt`), never a write time.
 *
 * Warnings: `PVC_DUPLICATE_ENTRY`, `PVC_MTIME_AFTER_RUN_END`,
 * `PVC_MTIME_BEFORE_RUN_START`, `JANITOR_TIME_OUTSIDE_RUN`, `HOUR_CONFLICT`
 * (see {@link contradictsWrite}).
 */
export function exactTime(
  c: Candidate,
  w: RunWindow,
  diag: Diagnostics,
  zoneDoubt: ZoneDoubt | null = null,
): TimeDecision {
  const stable = pickStable(c, w, diag);
  const dirs: Rejection[] = c.obs
    .filter((o) => o.kind === "pvc_dir")
    .map((o) => ({
      observation: o,
      reason: "directory_mtime",
      why: "a directory's mtime moves when entries inside it change (e.g. shards deleted by pruning): never a write time",
    }));
  const archive = pickArchive(c, w, diag, zoneDoubt);
  const rejected = [...stable.rejected, ...dirs, ...archive.rejected];
  const d: TimeDecision = {
    chosen: null,
    rejected,
    writeMs: null,
    hourExact: null,
    hour: null,
    source: "unrecoverable",
    rule: "",
    errorH: null,
    clockUnknown: false,
  };
  const mtime = stable.chosen;
  const first = archive.first;
  if (mtime) {
    d.chosen = { observation: mtime, why: "STABLE mtime within the run: the write time (precedence 1, mtime)" };
    d.writeMs = mtime.utcMs;
    d.source = "mtime";
    d.rule = "mtime: STABLE file mtime within the run";
    if (first) {
      rejected.push({
        observation: first,
        reason: "lower_precedence",
        why: "janitor evidence is lower in precedence than a trustworthy mtime",
      });
      warnHourConflict(c, mtime, first, w, diag);
    }
  } else if (first) {
    d.chosen = {
      observation: first,
      why: `first janitor archive of this checkpoint (precedence 2, janitor): ${first.timeNote}`,
    };
    d.writeMs = first.utcMs;
    d.source = "janitor";
    d.rule = `janitor: first archive line, ${first.timeNote}`;
  }
  if (d.writeMs !== null && clockUnknownAt(w, d.writeMs)) return unknownClock(d, w);
  if (d.writeMs !== null) {
    d.hourExact = w.clock.hourAt(d.writeMs);
    d.hour = round2(d.hourExact);
  }
  return d;
}

/** The decision `d` when its write time falls where the budget clock is unknown: the chosen time is rejected. */
function unknownClock(d: TimeDecision, w: RunWindow): TimeDecision {
  const at = d.chosen!.observation;
  const why = `written at ${iso(d.writeMs)}, inside the pause begun ${iso(w.unknownFromMs)} that is never resumed before run_end: the budget clock is unknown there`;
  return {
    ...d,
    chosen: null,
    rejected: [...d.rejected, { observation: at, reason: "clock_unknown", why }],
    clockUnknown: true,
    writeMs: null,
    source: "unrecoverable",
    rule: `unrecoverable: written inside a pause (from ${iso(w.unknownFromMs)}) never resumed before run_end, so its budget hour is unknown`,
  };
}

/**
 * The first STABLE mtime within the run (in listing order), and the ones set
 * aside: `copy_back` after the run's end, `before_run_start`. One directory
 * holds one STABLE file: a second entry with another mtime warns
 * `PVC_DUPLICATE_ENTRY`.
 */
function pickStable(
  c: Candidate,
  w: RunWindow,
  diag: Diagnostics,
): { chosen: Observation | null; rejected: Rejection[] } {
  const stables = stableMtimes(c);
  for (const o of stables.slice(1)) {
    if (o.utcMs !== stables[0]!.utcMs) {
      diag.warn(
        "PVC_DUPLICATE_ENTRY",
        `${c.family} step ${c.step}: STABLE listed again with mtime ${iso(o.utcMs)} (line ${stables[0]!.origin.line} says ${iso(stables[0]!.utcMs)}); the first one within the run is used`,
        o.origin.file,
        o.origin.line,
      );
    }
  }
  const rejected: Rejection[] = [];
  for (const o of stables) {
    const t = o.utcMs!;
    if (t > w.runEndMs) {
      const why = `copy-back: STABLE mtime ${iso(t)} is after the run's end ${iso(w.runEndMs)} (${w.runEndFrom})`;
      rejected.push({ observation: o, reason: "copy_back", why });
      // Centuries after the run: no copy-back but a listing in another unit (`%T@` is seconds; milliseconds read as seconds).
      const unit = t >= UNIT_ERROR_FROM_MS ? " (no plausible time: a listing in milliseconds, not seconds?)" : "";
      diag.warn(
        "PVC_MTIME_AFTER_RUN_END",
        `${c.family} step ${c.step}: STABLE mtime ${iso(t) ?? t} is after the run ended (${iso(w.runEndMs)})${unit}; treated as a copy-back, not a write time`,
        o.origin.file,
        o.origin.line,
      );
    } else if (t < w.runStartMs) {
      rejected.push({ observation: o, reason: "before_run_start", why: `STABLE mtime ${iso(t)} is before run_start` });
      diag.warn(
        "PVC_MTIME_BEFORE_RUN_START",
        `${c.family} step ${c.step}: STABLE mtime ${iso(t)} is before run_start`,
        o.origin.file,
        o.origin.line,
      );
    }
  }
  return { chosen: firstStableWithinRun(stables, w) ?? null, rejected };
}

/**
 * The first janitor archive within the run (in log order), and the ones set
 * aside: `zone_in_doubt` (a v1 time when `zoneDoubt`), `outside_run` (warns
 * `JANITOR_TIME_OUTSIDE_RUN`), `retry` (a later archive of the same
 * checkpoint).
 */
function pickArchive(
  c: Candidate,
  w: RunWindow,
  diag: Diagnostics,
  zoneDoubt: ZoneDoubt | null,
): { first: Observation | null; rejected: Rejection[] } {
  const archives = c.obs.filter((o) => o.kind === "janitor_archive").sort((a, b) => a.seq - b.seq);
  let first: Observation | null = null;
  // The first archive's time in doubt: no later archive (a retry, after the write) stands in for it.
  let doubtfulFirst: Observation | null = null;
  const rejected: Rejection[] = [];
  for (const o of archives) {
    const t = o.utcMs;
    if (t === null) {
      if (!first) doubtfulFirst ??= o;
      rejected.push({ observation: o, reason: "time_in_doubt", why: o.timeNote ?? "its time is unknown" });
    } else if (doubtfulFirst && !first) {
      const why = `a later archive of the same checkpoint (retry); the first, ${doubtfulFirst.origin.file}:${doubtfulFirst.origin.line}, counts, and its time is unknown`;
      rejected.push({ observation: o, reason: "retry", why });
    } else if (zoneDoubt && o.detail.version === "v1") {
      rejected.push({ observation: o, reason: "zone_in_doubt", why: zoneDoubt.why });
    } else if (!withinRun(t, w)) {
      rejected.push({ observation: o, reason: "outside_run", why: `janitor time ${iso(t)} is outside the run` });
      diag.warn(
        "JANITOR_TIME_OUTSIDE_RUN",
        `${c.family} step ${c.step}: janitor time ${iso(t)} is outside the run`,
        o.origin.file,
        o.origin.line,
      );
    } else if (!first) {
      first = o;
    } else {
      const why = `a later archive of the same checkpoint (retry); the first, ${first.origin.file}:${first.origin.line}, counts`;
      rejected.push({ observation: o, reason: "retry", why });
      warnRetrySrcMtime(c, first, o, diag);
    }
  }
  return { first, rejected };
}

/**
 * Warns `JANITOR_ARCHIVE_TIMES_DIFFER` when a retry's v2 `src_mtime` (the
 * weights' write time, which a retry of the same checkpoint reads again)
 * differs from the first archive's by more than a second: the two cannot
 * both be the write time (DESIGN.md: disagreeing times are reported, not a
 * tie broken in silence). The first still counts (SOURCES.md: janitor).
 */
function warnRetrySrcMtime(c: Candidate, first: Observation, retry: Observation, diag: Diagnostics): void {
  if (first.detail.version !== "v2" || retry.detail.version !== "v2") return;
  if (first.utcMs === null || retry.utcMs === null || Math.abs(retry.utcMs - first.utcMs) <= 1000) return;
  diag.warn(
    "JANITOR_ARCHIVE_TIMES_DIFFER",
    `${c.family} step ${c.step}: archived again with src_mtime ${iso(retry.utcMs)}, ${((retry.utcMs - first.utcMs) / 3_600_000).toFixed(2)} h from the first archive's ${iso(first.utcMs)} (${first.origin.file}:${first.origin.line}), which counts: were the weights rewritten?`,
    retry.origin.file,
    retry.origin.line,
  );
}

/** Warns `HOUR_CONFLICT` when the first archive's time contradicts the STABLE mtime ({@link contradictsWrite}). */
function warnHourConflict(c: Candidate, mtime: Observation, first: Observation, w: RunWindow, diag: Diagnostics): void {
  // A v1 time is when the janitor acted, so it may only be later than the write (SOURCES.md: janitor).
  const diffH = w.clock.hourAt(first.utcMs!) - w.clock.hourAt(mtime.utcMs!);
  const timeIs = timeIsOf(first)!;
  if (!contradictsWrite(diffH, timeIs, w.toleranceH)) return;
  diag.warn(
    "HOUR_CONFLICT",
    `${c.family} step ${c.step}: STABLE mtime and janitor ${timeIs === "after_write" ? "action time (before the write!)" : "src_mtime"} differ by ${diffH.toFixed(2)} h`,
    first.origin.file,
    first.origin.line,
  );
}

/**
 * Warns `HOUR_IN_UNRESUMED_PAUSE` once for a cell whose checkpoints were
 * written inside a pause never resumed before run_end, at the pause's line.
 */
export function warnUnresumedPause(
  cellName: string,
  decided: { cand: Candidate; time: TimeDecision }[],
  w: RunWindow,
  supervisor: { runEndMs: number | null; pauses: { endMs: number | null; line?: number }[] },
  diag: Diagnostics,
): void {
  const unknown = decided.filter((d) => d.time.clockUnknown).map((d) => d.cand);
  if (unknown.length === 0) return;
  const pause = supervisor.pauses.filter((p) => p.endMs === null).pop();
  diag.warn(
    "HOUR_IN_UNRESUMED_PAUSE",
    `cell "${cellName}": ${unknown.length} checkpoint(s) written after the pause at ${iso(w.unknownFromMs)}, which is never resumed before run_end (${iso(supervisor.runEndMs)}), get no hour (unrecoverable, with bounds): the budget clock there is unknown (${unknown
      .slice(0, 3)
      .map((c) => `${c.family} step ${c.step}`)
      .join(", ")}${unknown.length > 3 ? ", ..." : ""})`,
    `${cellName}/supervisor/history.jsonl`,
    pause?.line ?? null,
  );
}
