/**
 * Small deterministic helpers for the sample-sources generator:
 * a seeded PRNG (mulberry32), the budget clock, time formatting in a zone.
 * No wall clock, no Math.random.
 */
import { TZDate } from "@date-fns/tz";
import { format } from "date-fns";

/** mulberry32: a tiny 32-bit seeded PRNG returning floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a hash of a string, used to derive independent seeds per purpose. */
function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export class Rng {
  private readonly f: () => number;
  constructor(label: string) {
    this.f = mulberry32(hashString(`ptb-sources-v1:${label}`));
  }
  next(): number {
    return this.f();
  }
  uniform(a: number, b: number): number {
    return a + (b - a) * this.f();
  }
  /** Integer in [a, b] inclusive. */
  int(a: number, b: number): number {
    return a + Math.floor(this.f() * (b - a + 1));
  }
  chance(p: number): boolean {
    return this.f() < p;
  }
  pick<T>(xs: readonly T[]): T {
    const x = xs[Math.floor(this.f() * xs.length)];
    if (x === undefined) throw new Error("pick from empty list");
    return x;
  }
  hex(n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += "0123456789abcdef"[Math.floor(this.f() * 16)];
    return s;
  }
  alnum(n: number): string {
    const a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let s = "";
    for (let i = 0; i < n; i++) s += a[Math.floor(this.f() * a.length)];
    return s;
  }
  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${"89ab"[Math.floor(this.f() * 4)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
  /** UUIDv7-looking id with the given ms time (codex thread ids). */
  uuid7(ms: number): string {
    const t = Math.floor(ms).toString(16).padStart(12, "0");
    const h = this.hex(20);
    return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${h.slice(0, 3)}-${"89ab"[Math.floor(this.f() * 4)]}${h.slice(3, 6)}-${h.slice(6, 18)}`;
  }
  shuffle<T>(xs: T[]): T[] {
    const a = xs.slice();
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(this.f() * (i + 1));
      const t = a[i]!;
      a[i] = a[j]!;
      a[j] = t;
    }
    return a;
  }
}

export const HOUR_MS = 3_600_000;

/** The budget clock of a cell (SOURCES.md: supervisor). Pauses are wall-ms intervals. */
export class Clock {
  readonly pauses: [number, number][];
  constructor(
    readonly startMs: number,
    pausesBudget: [number, number][], // [startHour, durationHours]
  ) {
    this.pauses = [];
    for (const [h, d] of pausesBudget) {
      const s = this.wallOf(h);
      this.pauses.push([s, s + d * HOUR_MS]);
    }
  }
  /** Budget hours of wall moment t (a moment inside a pause has the hour at which it began). */
  hourOf(t: number): number {
    let paused = 0;
    for (const [s, e] of this.pauses) {
      if (t <= s) break;
      paused += Math.min(t, e) - s;
    }
    return (t - this.startMs - paused) / HOUR_MS;
  }
  /** Wall ms of budget hour h (a pause starting exactly at h is skipped over). */
  wallOf(h: number): number {
    let remaining = h * HOUR_MS;
    let cur = this.startMs;
    for (const [s, e] of this.pauses) {
      const before = s - cur;
      if (remaining < before) return cur + remaining;
      remaining -= before;
      cur = e;
    }
    return cur + remaining;
  }
  inPause(t: number): boolean {
    return this.pauses.some(([s, e]) => t >= s && t < e);
  }
}

export function iso(ms: number): string {
  return new Date(Math.floor(ms)).toISOString();
}
/** ISO without milliseconds, `Z` (supervisor style). */
export function isoSec(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** Local time in a zone, date-fns pattern. */
export function fmtTz(ms: number, tz: string, pattern: string): string {
  return format(new TZDate(Math.floor(ms), tz), pattern);
}

/** Round half away from zero to 2 decimals (docs/resolution.md). */
export function round2(x: number): number {
  const s = Math.sign(x);
  return (s * Math.round(Math.abs(x) * 100 + 1e-9)) / 100;
}

export function hhh(hour: number | null): string {
  if (hour === null) return "hNA";
  return `h${String(Math.floor(hour)).padStart(3, "0")}`;
}
