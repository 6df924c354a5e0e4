/**
 * Property tests (fast-check) for the parts of the build that follow rules
 * (issue 5): hour ↔ id agreement, sound bounds on generated families, the
 * budget clock under arbitrary pauses, token accumulation under duplicated
 * lines, reordered files and forked sessions, and the CSV round trip.
 * Seeds are fixed so that a failure is reproducible.
 */
import { afterAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parse } from "csv-parse/sync";
import { BudgetClock, round2 } from "../src/resolve/clock.js";
import { hourPart, modelId } from "../src/resolve/ids.js";
import {
  hubRepoObservation,
  parsePublishedName,
  type HubRepo,
  type HubRepoObservation,
} from "../src/extractors/hub-files.js";
import { resolveCell } from "../src/resolve/resolve-cell.js";
import { Diagnostics } from "../src/diagnostics.js";
import type { Observation } from "../src/observations.js";
import type { Cell, CellsFile, Row } from "../src/schema.js";
import { ROW_KEYS, RowSchema } from "../src/schema.js";
import type { Pause } from "../src/observations.js";
import { readTrajectory, TokenLedger, type TrajectoryFormat } from "../src/extractors/trajectory/index.js";
import { csvCell, manifestCsv, unescapeCsvText } from "../src/writers/manifest.js";
import { runCli } from "./helpers/cli.js";
import { miniSweepFiles } from "./helpers/mini-sweep.js";
import { makeTree, removeTree } from "./helpers/tree.js";

const SEED = 20261101;
const HOUR = 3_600_000;
const T0 = Date.parse("2026-10-01T00:00:00.000Z");

const tmpRoots: string[] = [];
afterAll(() => tmpRoots.forEach((d) => rmSync(d, { recursive: true, force: true })));

// ------------------------------------------------------------------ hour ↔ id

describe("hour ↔ id", () => {
  it("round2 gives at most 2 decimals, within 0.005 of the input, idempotent; HHH is floor of the rounded hour", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 2000, noNaN: true }), (x) => {
        const h = round2(x);
        expect(Math.abs(h * 100 - Math.round(h * 100))).toBeLessThan(1e-6);
        expect(Math.abs(h - x)).toBeLessThanOrEqual(0.005 + 1e-9);
        expect(round2(h)).toBe(h);
        const hhh = hourPart(h);
        expect(hhh).toMatch(/^\d{3,}$/);
        expect(Number(hhh)).toBe(Math.floor(h));
        expect(Number(hhh) <= h && h < Number(hhh) + 1).toBe(true);
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it("round2 rounds a half away from zero (x.xx5 → up), without binary drift", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 199_999 }), (k) => {
        expect(round2((10 * k + 5) / 1000)).toBe((k + 1) / 100);
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  const family = fc
    .stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,20}[A-Za-z0-9]$/)
    .filter((f) => !f.includes("--") && !f.includes(".."));
  it("a model id parses back to the cell, the hour part, the family and the step", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("alpha", "sol-high", "sol-high-v2", "kimi"),
        fc.option(fc.double({ min: 0, max: 999.99, noNaN: true }), { nil: null }),
        family,
        fc.nat({ max: 10_000_000 }),
        (cell, x, fam, step) => {
          const hour = x === null ? null : round2(x);
          const id = modelId("agentic-ptb", cell, hour, fam, step);
          const p = parsePublishedName(id.slice("agentic-ptb/".length), ["alpha", "sol-high", "sol-high-v2", "kimi"]);
          expect(p).toEqual({
            cell,
            hourPart: hour === null ? "NA" : String(Math.floor(hour)).padStart(3, "0"),
            family: fam,
            step,
          });
        },
      ),
      { seed: SEED, numRuns: 1000 },
    );
  });
});

// ------------------------------------------------------------------ budget clock

/** Paused ms in [run_start, t]: the measure of the union of the pauses (the reference, computed independently). */
function pausedRef(runStart: number, pauses: Pause[], t: number): number {
  const iv = pauses
    .map((p) => [Math.max(p.startMs, runStart), Math.min(p.endMs ?? Number.POSITIVE_INFINITY, t)] as [number, number])
    .filter(([a, b]) => b > a)
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let curA = Number.NaN;
  let curB = Number.NaN;
  for (const [a, b] of iv) {
    if (Number.isNaN(curA) || a > curB) {
      if (!Number.isNaN(curA)) total += curB - curA;
      curA = a;
      curB = b;
    } else curB = Math.max(curB, b);
  }
  if (!Number.isNaN(curA)) total += curB - curA;
  return total;
}

const pauseArb = fc
  .tuple(
    fc.integer({ min: -10 * HOUR, max: 150 * HOUR }),
    fc.option(fc.integer({ min: 1, max: 30 * HOUR }), { nil: null, freq: 6 }),
  )
  .map(([s, d]): Pause => ({ startMs: T0 + s, endMs: d === null ? null : T0 + s + d }));
const pausesArb = fc.array(pauseArb, { maxLength: 5 }); // any order, overlaps and open pauses included
const momentArb = fc.integer({ min: -20 * HOUR, max: 250 * HOUR }).map((x) => T0 + x);

describe("budget clock with arbitrary pauses", () => {
  it("hourAt is (t − run_start − paused time before t) / 1 h, paused time being the union of the pauses", () => {
    fc.assert(
      fc.property(pausesArb, momentArb, (pauses, t) => {
        const clock = new BudgetClock(T0, pauses);
        expect(clock.hourAt(t)).toBeCloseTo((t - T0 - pausedRef(T0, pauses, t)) / HOUR, 9);
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });

  it("hourAt is monotonic and never runs faster than the wall clock", () => {
    fc.assert(
      fc.property(pausesArb, momentArb, momentArb, (pauses, a, b) => {
        const [t1, t2] = a <= b ? [a, b] : [b, a];
        const clock = new BudgetClock(T0, pauses);
        const d = clock.hourAt(t2) - clock.hourAt(t1);
        expect(d).toBeGreaterThanOrEqual(-1e-9);
        expect(d).toBeLessThanOrEqual((t2 - t1) / HOUR + 1e-9);
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });

  it("timeAt is the first moment the clock reads an hour: hourAt(timeAt(h)) = h and timeAt(hourAt(t)) ≤ t", () => {
    fc.assert(
      fc.property(pausesArb, fc.double({ min: 0, max: 200, noNaN: true }), momentArb, (pauses, h, t) => {
        const clock = new BudgetClock(T0, pauses);
        const th = clock.timeAt(h);
        if (Number.isFinite(th)) {
          expect(clock.hourAt(th)).toBeCloseTo(h, 6);
          expect(clock.hourAt(th - 1)).toBeLessThan(h); // nothing earlier reads h
        } else {
          // Only a pause that never ended stops the clock short of h.
          expect(clock.stoppedAtMs()).not.toBeNull();
          expect(clock.hourAt(clock.stoppedAtMs()!)).toBeLessThan(h + 1e-9);
        }
        if (t >= T0) expect(clock.timeAt(clock.hourAt(t))).toBeLessThanOrEqual(t + 1e-3);
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });
});

// ------------------------------------------------------------------ bounds on generated families

const registry: CellsFile = {
  org: "agentic-ptb",
  spare_owner: "msr-spare",
  baseline: "Qwen/Qwen3.5-9B-Base",
  required_eos_token_id: 248046,
  cells: [],
};
const cell: Cell = {
  cell: "c",
  driver: "d",
  effort: "e",
  trajectory_format: "codex",
  pvc_root: "/pvc/ptb/c",
  janitor_tz: "UTC",
};
const repo = (id: string): HubRepo => ({
  id,
  owner: id.split("/")[0]!,
  name: id.split("/")[1]!,
  dir: `hub/${id}`,
  sha: null,
  lastModified: null,
  eos: { ids: null, from: null, chatTemplate: null },
});

function obs(kind: Observation["kind"], family: string, step: number, utcMs: number | null, seq: number): Observation {
  return {
    cell: "c",
    family,
    step,
    kind,
    familyDir: kind === "anchor" ? null : family,
    utcMs,
    timeNote: kind,
    extractor: "test",
    origin: { file: `c/${kind}`, line: seq + 1, offset: null, raw: `${kind} ${family} ${step}` },
    detail: { version: "v2" },
    seq,
  };
}

/**
 * A family: strictly increasing steps with strictly increasing true write
 * hours, either at random or on a noisy cadence (so that fits validate and
 * rows get extrapolated); each checkpoint timed (mtime or janitor) or not,
 * some with an anchor near their true hour.
 */
const familyArb = fc
  .uniqueArray(fc.integer({ min: 1, max: 2000 }), { minLength: 1, maxLength: 12 })
  .chain((steps) => {
    const n = steps.length;
    return fc.tuple(
      fc.constant([...steps].sort((a, b) => a - b)),
      fc.oneof(
        fc
          .uniqueArray(fc.integer({ min: 1, max: 9_800 }), { minLength: n, maxLength: n })
          .map((hs) => hs.map((h) => h / 100)),
        fc
          .tuple(
            fc.double({ min: 0.5, max: 10, noNaN: true }),
            fc.double({ min: 0.005, max: 0.04, noNaN: true }),
            fc.array(fc.double({ min: -0.4, max: 0.4, noNaN: true }), { minLength: n, maxLength: n }),
          )
          .map(([offset, slope, noise]) =>
            [...steps].sort((a, b) => a - b).map((st, i) => offset + slope * st + noise[i]!),
          ),
      ),
      fc.array(fc.constantFrom("mtime", "janitor", "untimed", "untimed"), { minLength: n, maxLength: n }),
      fc.array(fc.boolean(), { minLength: n, maxLength: n }),
      fc.array(fc.double({ min: -0.5, max: 0.5, noNaN: true }), { minLength: n, maxLength: n }),
    );
  })
  .map(([steps, hs, how, anchored, anchorNoise]) => {
    const hours = [...hs].sort((a, b) => a - b).map((h, i) => h + i * 1e-4); // strictly increasing with step
    return steps.map((step, i) => ({
      step,
      hour: hours[i]!,
      how: how[i]!,
      anchored: anchored[i]!,
      anchorNoise: anchorNoise[i]!,
    }));
  });

describe("bounds are sound on generated families", () => {
  it("lower ≤ round2(true hour) ≤ upper for every untimed row; extrapolated hours stay within the bounds; ids agree with hours", () => {
    const seen = { bothBounds: 0, extrapolated: 0, unrecoverable: 0 };
    fc.assert(
      fc.property(
        familyArb,
        fc.array(
          pauseArb.map((p) => ({ ...p, endMs: p.endMs ?? p.startMs + HOUR })),
          { maxLength: 3 },
        ),
        (fam, pauses) => {
          const clock = new BudgetClock(T0, pauses);
          const observations: Observation[] = [];
          const spares: HubRepoObservation[] = [];
          let seq = 0;
          for (const m of fam) {
            const t = clock.timeAt(m.hour);
            if (m.how === "mtime") {
              observations.push(obs("pvc_stable", "f", m.step, t, seq++), obs("pvc_weights", "f", m.step, t, seq++));
            } else {
              if (m.how === "janitor") observations.push(obs("janitor_archive", "f", m.step, t, seq++));
              spares.push(
                hubRepoObservation("spare_repo", repo(`msr-spare/c.f.step_${m.step}`), {
                  cell: "c",
                  family: "f",
                  step: m.step,
                }),
              );
            }
            if (m.anchored)
              observations.push(obs("anchor", "f", m.step, clock.timeAt(Math.max(0, m.hour + m.anchorNoise)), seq++));
          }
          const diag = new Diagnostics();
          const res = resolveCell(
            {
              registry,
              cell,
              observations,
              published: [],
              spares,
              tokens: new TokenLedger([]),
              supervisor: {
                runStartMs: T0,
                runStartOrigin: { file: "h", line: 1, offset: 0, raw: "" },
                runEndMs: null,
                pauses,
                roleEvents: [],
                eventCount: 1,
              },
            },
            diag,
          );
          expect(res.rows).toHaveLength(fam.length);
          for (const row of res.rows) {
            RowSchema.parse(row);
            const truth = fam.find((m) => m.step === row.step)!;
            expect(row.model_id).toBe(`agentic-ptb/c.h${hourPart(row.hour)}.f.${row.step}`);
            if (row.hour_source === "mtime" || row.hour_source === "janitor") {
              expect(Math.abs(row.hour! - truth.hour)).toBeLessThanOrEqual(0.005 + 1e-6);
              expect([row.hour_lower_bound, row.hour_upper_bound]).toEqual([null, null]);
              continue;
            }
            const t = round2(truth.hour);
            if (row.hour_lower_bound !== null) expect(row.hour_lower_bound).toBeLessThanOrEqual(t + 1e-9);
            if (row.hour_upper_bound !== null) expect(row.hour_upper_bound).toBeGreaterThanOrEqual(t - 1e-9);
            if (row.hour_lower_bound !== null && row.hour_upper_bound !== null) seen.bothBounds += 1;
            seen[row.hour_source === "extrapolated" ? "extrapolated" : "unrecoverable"] += 1;
            if (row.hour_source === "extrapolated") {
              if (row.hour_lower_bound !== null) expect(row.hour!).toBeGreaterThanOrEqual(row.hour_lower_bound - 1e-9);
              if (row.hour_upper_bound !== null) expect(row.hour!).toBeLessThanOrEqual(row.hour_upper_bound + 1e-9);
            } else {
              expect(row.hour).toBeNull();
            }
          }
        },
      ),
      { seed: SEED, numRuns: 400 },
    );
    expect(seen.bothBounds).toBeGreaterThan(50);
    expect(seen.extrapolated).toBeGreaterThan(20);
    expect(seen.unrecoverable).toBeGreaterThan(50);
  });
});

// ------------------------------------------------------------------ token accumulation

type U = [uncached: number, cacheRead: number, cacheWrite: number, output: number];
interface Call {
  s: number; // seconds after T0
  u: U;
}
interface Session {
  calls: Call[];
  /** A fork: copies the first `prefix` calls of session `of`, then makes its own `calls`. */
  fork?: { of: number; prefix: number };
}

const iso = (s: number) => new Date(T0 + s * 1000).toISOString();
const sum = (cs: Call[]): U =>
  cs.reduce<U>((a, c) => [a[0] + c.u[0], a[1] + c.u[1], a[2] + c.u[2], a[3] + c.u[3]], [0, 0, 0, 0]);

/** How each format writes a run's sessions: `dup` repeats some lines in the format's own way of repeating. */
interface FormatWriter {
  format: TrajectoryFormat;
  /** The files of session `i` (path → JSON lines), given every session's name, and the lines to duplicate. */
  write(
    sessions: Session[],
    names: string[],
    i: number,
    root: string,
    dup: (k: number) => boolean,
  ): Record<string, unknown[]>;
}

const cc = (c: Call, id: string) => ({
  type: "assistant",
  timestamp: iso(c.s),
  sessionId: "S",
  uuid: `u-${id}`,
  parentUuid: null,
  isSidechain: false,
  requestId: `r-${id}`,
  message: {
    id,
    role: "assistant",
    model: "claude-x",
    content: [],
    usage: {
      input_tokens: c.u[0],
      cache_read_input_tokens: c.u[1],
      cache_creation_input_tokens: c.u[2],
      output_tokens: c.u[3],
    },
  },
});
const piEntry = (c: Call, id: string) => ({
  type: "message",
  id,
  parentId: null,
  timestamp: iso(c.s),
  message: {
    role: "assistant",
    content: [],
    stopReason: "stop",
    timestamp: T0,
    usage: {
      input: c.u[0],
      output: c.u[3],
      cacheRead: c.u[1],
      cacheWrite: c.u[2],
      totalTokens: c.u[0] + c.u[1] + c.u[2] + c.u[3],
      cost: { total: 0 },
    },
  },
});
const kimiCli = (c: Call, id: string) => ({
  timestamp: T0 / 1000 + c.s,
  message: {
    type: "StatusUpdate",
    payload: {
      token_usage: { input_other: c.u[0], output: c.u[3], input_cache_read: c.u[1], input_cache_creation: c.u[2] },
      message_id: id,
    },
  },
});
const kimiCode = (c: Call) => ({
  type: "usage.record",
  model: "k",
  usageScope: "turn",
  time: T0 + c.s * 1000,
  usage: { inputOther: c.u[0], output: c.u[3], inputCacheRead: c.u[1], inputCacheCreation: c.u[2] },
});

/** The lines of session i: the fork's copied prefix (ids as in the parent), then its own calls; some lines repeated. */
function linesOf(
  sessions: Session[],
  i: number,
  line: (c: Call, id: string) => unknown,
  dup: (k: number) => boolean,
): unknown[] {
  const s = sessions[i]!;
  const own = s.calls.map((c, k) => ({ c, id: `s${i}-c${k}` }));
  const copied = s.fork
    ? sessions[s.fork.of]!.calls.slice(0, s.fork.prefix).map((c, k) => ({ c, id: `s${s.fork!.of}-c${k}` }))
    : [];
  const out: unknown[] = [];
  [...copied, ...own].forEach(({ c, id }, k) => {
    out.push(line(c, id));
    if (dup(k)) out.push(line(c, id));
  });
  return out;
}

const WRITERS: FormatWriter[] = [
  {
    format: "claude-code",
    write: (ss, names, i, _root, dup) => ({ [`${names[i]}.jsonl`]: linesOf(ss, i, cc, dup) }),
  },
  {
    format: "pi",
    write: (ss, names, i, root, dup) => {
      const s = ss[i]!;
      const header = {
        type: "session",
        version: 3,
        id: names[i],
        timestamp: iso(0),
        cwd: "/w",
        ...(s.fork ? { parentSession: join(root, `${names[s.fork.of]}.jsonl`) } : {}),
      };
      return { [`${names[i]}.jsonl`]: [header, ...linesOf(ss, i, piEntry, dup)] };
    },
  },
  {
    format: "kimi-cli",
    write: (ss, names, i, _root, dup) => ({
      [`${names[i]}/wire.jsonl`]: [{ type: "metadata", protocol_version: "1.4" }, ...linesOf(ss, i, kimiCli, dup)],
    }),
  },
  {
    format: "kimi-code",
    write: (ss, names, i) => {
      const s = ss[i]!;
      const meta = { type: "metadata", protocol_version: "1.4", created_at: T0 };
      const copied = s.fork ? ss[s.fork.of]!.calls.slice(0, s.fork.prefix).map(kimiCode) : [];
      const forkAt = s.calls.length ? s.calls[0]!.s - 0.5 : 0;
      const marker = s.fork ? [{ type: "forked", time: T0 + forkAt * 1000 }] : [];
      return { [`${names[i]}/agents/main/wire.jsonl`]: [meta, ...copied, ...marker, ...s.calls.map(kimiCode)] }; // no ids: a repeated record is a new call
    },
  },
  {
    format: "codex",
    write: (ss, names, i, _root, dup) => {
      const s = ss[i]!;
      const vec = (u: U) => ({
        input_tokens: u[0] + u[1] + u[2],
        cached_input_tokens: u[1],
        cache_write_input_tokens: u[2],
        output_tokens: u[3],
        reasoning_output_tokens: 0,
        total_tokens: u[0] + u[1] + u[2] + u[3],
      });
      const tc = (ts: string, total: U, last: U) => ({
        timestamp: ts,
        type: "event_msg",
        payload: { type: "token_count", info: { total_token_usage: vec(total), last_token_usage: vec(last) } },
      });
      const id = `T${i}`;
      const out: unknown[] = [];
      let total: U = [0, 0, 0, 0];
      let k = 0;
      if (s.fork) {
        // A fork replays the parent's history at its own creation, then continues the running total.
        const created = s.calls.length ? s.calls[0]!.s - 30 : 0;
        const pid = `T${s.fork.of}`;
        out.push({
          timestamp: iso(created),
          type: "session_meta",
          payload: { id, timestamp: iso(created), forked_from_id: pid },
        });
        out.push({ timestamp: iso(created), type: "session_meta", payload: { id: pid, timestamp: iso(0) } });
        for (const c of ss[s.fork.of]!.calls.slice(0, s.fork.prefix)) {
          total = sum([{ s: 0, u: total }, c]);
          out.push(tc(iso(created + 0.001 * ++k), total, c.u));
        }
      } else {
        out.push({ timestamp: iso(0), type: "session_meta", payload: { id, timestamp: iso(0) } });
      }
      s.calls.forEach((c, j) => {
        total = sum([{ s: 0, u: total }, c]);
        out.push(tc(iso(c.s), total, c.u));
        if (dup(j)) out.push(tc(iso(c.s), total, c.u)); // the same running total again: not a call
      });
      return { [`sessions/${names[i]}.jsonl`]: out };
    },
  },
];

const usageArb = fc.tuple(
  fc.nat({ max: 5000 }),
  fc.nat({ max: 50_000 }),
  fc.nat({ max: 3000 }),
  fc.integer({ min: 10, max: 4000 }),
) as fc.Arbitrary<U>;

/** Sessions with distinct call times (seconds), some of them forks of an earlier session. */
const runArb = fc
  .tuple(
    fc.uniqueArray(fc.integer({ min: 3600, max: 300_000 }), { minLength: 1, maxLength: 30 }),
    fc.integer({ min: 1, max: 4 }),
    fc.infiniteStream(fc.tuple(fc.nat(), usageArb, fc.boolean(), fc.nat())),
  )
  .map(([times, nSessions, rnd]) => {
    const it = rnd[Symbol.iterator]();
    const sorted = [...times].sort((a, b) => a - b);
    const sessions: Session[] = Array.from({ length: nSessions }, () => ({ calls: [] }));
    for (const s of sorted) {
      const [pick, u] = it.next().value as [number, U, boolean, number];
      sessions[pick % nSessions]!.calls.push({ s, u });
    }
    // Session j > 0 may be a fork of an earlier session whose copied prefix ends before the fork's first own call.
    for (let j = 1; j < nSessions; j++) {
      const [, , isFork, p] = it.next().value as [number, U, boolean, number];
      const first = sessions[j]!.calls[0]?.s ?? Number.POSITIVE_INFINITY;
      const parent = j - 1;
      const eligible = sessions[parent]!.calls.filter((c) => c.s < first - 60).length;
      if (isFork && eligible > 0 && !sessions[parent]!.fork)
        sessions[j]!.fork = { of: parent, prefix: 1 + (p % eligible) };
    }
    return sessions;
  });

describe("token accumulation", () => {
  for (const w of WRITERS) {
    it(`${w.format}: totals and tokens(t) are invariant under duplicated lines, file order and forks`, async () => {
      const seen = { forks: 0, dups: 0, multiFile: 0 };
      await fc.assert(
        fc.asyncProperty(
          runArb,
          fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9]{2,8}$/), { minLength: 4, maxLength: 4 }),
          fc.func(fc.boolean()),
          async (sessions, names, dupFn) => {
            const root = mkdtempSync(join(tmpdir(), `ptb-prop-${w.format}-`));
            tmpRoots.push(root);
            const dup = w.format === "kimi-code" ? () => false : (k: number) => dupFn(k) && ++seen.dups > 0;
            if (sessions.some((s) => s.fork)) seen.forks += 1;
            if (sessions.length > 1) seen.multiFile += 1;
            for (let i = 0; i < sessions.length; i++) {
              for (const [rel, lines] of Object.entries(w.write(sessions, names, i, root, dup))) {
                const path = join(root, rel);
                mkdirSync(dirname(path), { recursive: true });
                writeFileSync(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
              }
            }
            const reading = await readTrajectory(w.format, [root]);
            const ledger = new TokenLedger(reading.calls);
            const all = sessions.flatMap((s) => s.calls).sort((a, b) => a.s - b.s);
            const t = ledger.totals();
            expect([t.uncachedInput, t.cacheRead, t.cacheWrite, t.output, t.calls]).toEqual([...sum(all), all.length]);
            for (const c of all) {
              const upTo = sum(all.filter((x) => x.s <= c.s));
              const at = ledger.at(T0 + c.s * 1000);
              expect([at.uncachedInput, at.cacheRead, at.cacheWrite, at.output]).toEqual(upTo);
            }
            expect(
              reading.warnings.filter((x) => x.code === "TRAJECTORY_BAD_JSON" || x.code === "TRAJECTORY_BAD_USAGE"),
            ).toEqual([]);
            rmSync(root, { recursive: true, force: true });
          },
        ),
        { seed: SEED, numRuns: 40 },
      );
      // The generated runs did exercise each transformation.
      expect(seen.forks).toBeGreaterThan(3);
      expect(seen.multiFile).toBeGreaterThan(10);
      if (w.format !== "kimi-code") expect(seen.dups).toBeGreaterThan(10);
    });
  }
});

// ------------------------------------------------------------------ CSV round trip

const text = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({
    unit: fc.constantFrom("=", "+", "-", "@", "'", "\t", "\r", "\n", '"', ",", ";", " ", "a", "1", "é", "\u0000"),
    maxLength: 12,
  }),
  fc.constantFrom('=HYPERLINK("http://x","y")', "+1", "-1", "@SUM(A1)", "'quoted", "''", "\t=1", "-0.5"),
);
const num = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
  fc.integer(),
);
const rowArb: fc.Arbitrary<Row> = fc.record({
  model_id: text,
  cell: text,
  driver: fc.option(text, { nil: null }),
  effort: fc.option(text, { nil: null }),
  hour: fc.option(num, { nil: null }),
  hour_source: fc.constantFrom("mtime", "janitor", "extrapolated", "unrecoverable", "baseline"),
  hour_upper_bound: fc.option(num, { nil: null }),
  driver_tokens_at_hour: fc.option(fc.nat(), { nil: null }),
  role: fc.constantFrom("SUBMITTED", "fallback", "intermediate", "baseline"),
  eos_ok: fc.option(fc.boolean(), { nil: null }),
  eos_token_id: fc.option(fc.array(fc.integer(), { maxLength: 3 }), { nil: null }),
  source: text,
  family: fc.option(text, { nil: null }),
  step: fc.option(fc.nat(), { nil: null }),
  hour_lower_bound: fc.option(num, { nil: null }),
  hour_error_h: fc.option(num, { nil: null }),
}) as fc.Arbitrary<Row>;

describe("CSV round trip", () => {
  it("every row comes back from manifest.csv (csv-parse, then unescapeCsvText) as the text of each value; no text cell starts like a formula", () => {
    fc.assert(
      fc.property(fc.array(rowArb, { minLength: 1, maxLength: 5 }), (rows) => {
        const records = parse(manifestCsv(rows), { columns: true }) as Record<string, string>[];
        expect(records).toHaveLength(rows.length);
        rows.forEach((row, i) => {
          for (const k of ROW_KEYS) {
            const v = row[k];
            const cellText = records[i]![k]!;
            if (typeof v === "string") {
              expect(cellText).not.toMatch(/^[=+\-@\t\r]/); // a spreadsheet shows it as text
              expect(unescapeCsvText(cellText)).toBe(v);
            } else {
              expect(cellText).toBe(csvCell(v)); // numbers, booleans, lists, null: never escaped
              if (typeof v === "number") expect(Number(cellText)).toBe(v);
            }
          }
        });
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });
});

// ------------------------------------------------------------------ no input crashes the build

describe("no input crashes the build", () => {
  const base = miniSweepFiles();
  const files = Object.keys(base).sort();
  const edit = fc.record({
    file: fc.constantFrom(...files),
    kind: fc.constantFrom("byte", "truncate", "insert", "duplicate line", "delete line", "swap lines"),
    at: fc.nat(),
    other: fc.nat(),
    byte: fc.nat({ max: 255 }),
    text: fc.constantFrom(
      "\u0000",
      "\ufffd",
      "99999999999999999999",
      "-1",
      "..",
      "/",
      "NaN",
      "1e400",
      "step_",
      '"',
      "{",
      "}",
      "[]",
      "null",
      "__proto__",
      "constructor",
      "\r",
      "\t",
      "2026-13-45T99:99:99Z",
      "/weights/step_1/STABLE",
    ),
  });

  it("random edits of the mini sweep's files give a build (exit 0) or one error line with a code (exit 1), never a crash", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 4 }), async (edits) => {
        const tree: Record<string, Buffer> = Object.fromEntries(
          Object.entries(base).map(([k, v]) => [k, Buffer.from(v)]),
        );
        for (const e of edits) {
          let b = tree[e.file]!;
          const p = b.length ? e.at % b.length : 0;
          if (e.kind === "byte" && b.length) (b = Buffer.from(b))[p] = e.byte;
          else if (e.kind === "truncate") b = b.subarray(0, p);
          else if (e.kind === "insert") b = Buffer.concat([b.subarray(0, p), Buffer.from(e.text), b.subarray(p)]);
          else {
            const ls = b.toString("latin1").split("\n");
            const i = e.at % ls.length;
            const j = e.other % ls.length;
            if (e.kind === "duplicate line") ls.splice(i, 0, ls[i]!);
            else if (e.kind === "delete line") ls.splice(i, 1);
            else [ls[i], ls[j]] = [ls[j]!, ls[i]!];
            b = Buffer.from(ls.join("\n"), "latin1");
          }
          tree[e.file] = b;
        }
        const dir = await makeTree(tree, "ptb-fuzz-");
        try {
          const r = await runCli("build", "--sources", dir, "--out", `${dir}-out`, "--quiet");
          expect([0, 1]).toContain(r.code);
          if (r.code === 1) expect(r.stderr).toMatch(/^ptb-manifest: error [A-Z][A-Z0-9_]+( at [^\n]+)?: [^\n]+\n$/);
        } finally {
          await removeTree(dir);
          await removeTree(`${dir}-out`);
        }
      }),
      { seed: SEED, numRuns: 60 },
    );
  });
});
