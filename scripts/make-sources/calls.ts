/**
 * The clean list of model calls of every session of a cell (the truth of
 * tokens(t)); the format renderers write these with each format's messiness.
 */
import { HOUR_MS, Rng } from "./lib.js";
import type { CellModel } from "./model.js";
import type { SessionSpec } from "./spec.js";

export interface Call {
  session: string;
  ms: number; // completion time (UTC epoch ms)
  u: number; // uncached input
  r: number; // cache read
  w: number; // cache write
  o: number; // output (as recorded)
  timeless?: boolean; // kimi-code file without times: not in tokens(t)
  flag?: "aborted" | "error" | "under" | "compaction";
}

export interface SessionCalls {
  spec: SessionSpec;
  calls: Call[];
}

export function total(c: Call): number {
  return c.u + c.r + c.w + c.o;
}

/** Generate each session's own calls; avoid the instants in `avoid` by ±margin ms. */
export function makeCalls(m: CellModel, avoid: number[], marginMs = 150_000): SessionCalls[] {
  const { spec, clock } = m;
  const out: SessionCalls[] = [];
  const sortedAvoid = avoid.slice().sort((a, b) => a - b);
  const near = (t: number) => {
    let lo = 0;
    let hi = sortedAvoid.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sortedAvoid[mid]! < t - marginMs) lo = mid + 1;
      else hi = mid;
    }
    return lo < sortedAvoid.length && sortedAvoid[lo]! <= t + marginMs;
  };
  for (const s of spec.sessions) {
    const rng = new Rng(`calls:${spec.cell}:${s.name}`);
    const from = s.from < 0 ? clock.startMs + s.from * HOUR_MS : clock.wallOf(s.from);
    const to = clock.wallOf(s.to);
    const sub = s.kind === "subagent" || s.kind === "fork" || s.kind === "orphan-branch";
    const calls: Call[] = [];
    let t = from + rng.int(20_000, 90_000);
    while (t < to) {
      if (!clock.inPause(t) && !near(t) && t <= m.endMs + 0.1 * HOUR_MS) {
        const c: Call = { session: s.name, ms: t, u: 0, r: 0, w: 0, o: 0 };
        switch (spec.format) {
          case "codex":
            c.u = rng.int(600, 9000);
            c.r = rng.int(18, 140) * 1024;
            c.w = s.extra?.newer ? rng.int(0, 4000) : 0;
            c.o = rng.int(120, 3600);
            break;
          case "claude-code":
            c.u = rng.int(1, 24);
            c.w = rng.int(150, 9000);
            c.r = rng.int(18_000, 150_000);
            if (rng.chance(0.3)) {
              c.o = rng.int(1, 9);
              c.flag = "under";
            } else c.o = rng.int(90, 2600);
            break;
          case "pi":
            c.u = rng.int(150, 5200);
            c.r = rng.int(8, 120) * 1024;
            c.w = 0;
            c.o = rng.int(80, 3200);
            break;
          case "kimi-code":
            c.u = rng.int(150, 6000);
            c.r = rng.int(10, 120) * 1024;
            c.w = 0;
            c.o = rng.int(90, 3000);
            break;
        }
        if (s.kind === "notime") c.timeless = true;
        calls.push(c);
      }
      const slow = spec.format === "claude-code" || spec.format === "codex";
      t += sub ? rng.int(60_000, 240_000) : slow ? rng.int(9 * 60_000, 22 * 60_000) : rng.int(6 * 60_000, 16 * 60_000);
    }
    out.push({ spec: s, calls });
  }
  return out;
}
