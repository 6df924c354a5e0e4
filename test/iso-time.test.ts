/**
 * The ISO time reader of the trajectory readers (src/util/iso-time.ts, used by
 * `isoMs` and `NoOffsetTimes`): it must accept exactly the times the former
 * regular expressions + `parseIsoTime` accepted, and give `Date.parse`'s
 * millisecond for each (the fraction truncated to whole milliseconds; V8's
 * `Date.parse` misreads fractions of more than 9 digits, which are truncated
 * all the same).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IsoTimeReader } from "../src/util/iso-time.js";
import { isoMs } from "../src/extractors/trajectory/line-times.js";
import { parseIsoTime } from "../src/util/values.js";

/** The reading before IsoTimeReader: two regular expressions, then the strict `parseIsoTime`. */
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;
const ISO_NO_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
function formerIsoMs(value: string): { ms: number; zoneless: boolean } | null {
  let s = value.trim();
  const zoneless = ISO_NO_ZONE.test(s);
  if (zoneless) s += "Z";
  else if (!ISO_WITH_ZONE.test(s)) return null;
  const ms = parseIsoTime(s);
  return Number.isFinite(ms) ? { ms: Math.floor(ms), zoneless } : null;
}

/** `Date.parse` of the same time written in the ECMAScript form (`T`, `Z` or `±HH:MM`). */
function dateParse(value: string): number {
  let s = value.trim().replace(/^(.{10})[t ]/i, "$1T");
  if (/[zZ]$/.test(s)) s = `${s.slice(0, -1)}Z`;
  else if (/[+-]\d{4}$/.test(s)) s = `${s.slice(0, -2)}:${s.slice(-2)}`;
  else if (!/[+-]\d{2}:\d{2}$/.test(s)) s += "Z";
  return Date.parse(s);
}

const reader = new IsoTimeReader();
const read = (s: string): { ms: number; zoneless: boolean } | null =>
  reader.read(s) ? { ms: reader.ms, zoneless: reader.zoneless } : null;

describe("IsoTimeReader", () => {
  it("reads the forms the logs write, to the millisecond", () => {
    expect(read("2026-10-02T08:00:00.123Z")).toEqual({ ms: 1_790_928_000_123, zoneless: false });
    expect(read("2026-10-02T08:00:00.123456Z")).toEqual({ ms: 1_790_928_000_123, zoneless: false });
    expect(read("2026-10-02T08:00:00.9999999Z")).toEqual({ ms: 1_790_928_000_999, zoneless: false });
    expect(read("2026-10-02T08:00Z")).toEqual({ ms: 1_790_928_000_000, zoneless: false });
    expect(read("2026-10-02 10:00:00+02:00")).toEqual({ ms: 1_790_928_000_000, zoneless: false });
    expect(read("2026-10-02t03:30:00-0430")).toEqual({ ms: 1_790_928_000_000, zoneless: false });
    expect(read(" 2026-10-02T08:00:00.5 ")).toEqual({ ms: 1_790_928_000_500, zoneless: true });
    expect(read("1969-12-31T23:59:59.999Z")).toEqual({ ms: -1, zoneless: false });
    expect(read("2024-02-29T00:00:00Z")).toEqual({ ms: 1_709_164_800_000, zoneless: false });
  });

  it("refuses what is not such a time, or out of range", () => {
    for (const s of [
      "",
      "2026-10-02",
      "2026-10-02T08:00:00.Z",
      "2026-10-02T08:00:00.1234567890123Z",
      "2026-10-02t08:00:00",
      "2026-02-30T00:00:00Z",
      "2025-02-29T00:00:00Z",
      "2026-10-02T24:00:00Z",
      "2026-10-02T23:60:00Z",
      "2026-10-02T23:59:60Z",
      "2026-10-02T08:00:00+24:00",
      "2026-10-02T08:00:00+01:60",
      "2026-10-02T08:00:00+01",
      "2026-10-02T08:00:00+01:0",
      "2026-10-02T08:00:00ZZ",
      "2026-10-02T08:00:00,5Z",
      "+02026-10-02T08:00:00Z",
      "2026-1-02T08:00:00Z",
      "2026-10-02T08:00:00.5Z x",
    ]) {
      expect(read(s), s).toBeNull();
      expect(isoMs(s), s).toBeNull();
    }
    expect(isoMs(1_790_928_000_000)).toBeNull();
  });

  it("agrees with the former reading and with Date.parse on generated times", () => {
    const d2 = (lo: number, hi: number) => fc.integer({ min: lo, max: hi }).map((n) => String(n).padStart(2, "0"));
    const time = fc
      .record({
        year: fc.integer({ min: 100, max: 9999 }).map((n) => String(n).padStart(4, "0")),
        month: d2(0, 13),
        day: d2(0, 32),
        sep: fc.constantFrom("T", "t", " ", "x"),
        hour: d2(0, 25),
        minute: d2(0, 61),
        second: fc.option(d2(0, 61)),
        frac: fc.option(fc.stringMatching(/^[0-9]{0,14}$/)),
        zone: fc.constantFrom("", "Z", "z", "+", "-", "+05:30", "-0800", "+23:59", "-24:00", "+01:60", "+01", "Y"),
        pad: fc.constantFrom("", " ", "\t", "\n"),
      })
      .map(
        (t) =>
          `${t.pad}${t.year}-${t.month}-${t.day}${t.sep}${t.hour}:${t.minute}` +
          (t.second === null ? "" : `:${t.second}${t.frac === null ? "" : `.${t.frac}`}`) +
          `${t.zone}${t.pad}`,
      );
    fc.assert(
      fc.property(time, (s) => {
        const got = read(s);
        const former = formerIsoMs(s);
        expect(got === null, s).toBe(former === null);
        if (got === null || former === null) return;
        expect(got.zoneless, s).toBe(former.zoneless);
        // V8's Date.parse misreads a fraction of more than 9 digits (.0001000000 as 1 ms): truncation there.
        if (!/\.\d{10}/.test(s)) expect(got.ms, s).toBe(dateParse(s));
        // The former float sum (whole seconds + fraction × 1000, then floored) could round up to the
        // next millisecond with more than 3 fraction digits (…999…); with at most 3 it is exact.
        if (/\.\d{4}/.test(s)) expect([0, 1], s).toContain(former.ms - got.ms);
        else expect(got.ms, s).toBe(former.ms);
      }),
      { numRuns: 20_000, seed: 14 },
    );
  });

  it("gives Date.parse's millisecond for years below 100 (the former reading put them in the 1900s)", () => {
    expect(read("0050-03-01T00:00:00Z")?.ms).toBe(Date.parse("0050-03-01T00:00:00Z"));
    expect(read("0000-02-29T12:00:00.250Z")?.ms).toBe(Date.parse("0000-02-29T12:00:00.250Z"));
  });

  it("reads every time of the real samples and the embedded sources as before", () => {
    const roots = [
      resolve(import.meta.dirname, "../../shared/samples/trajectories"),
      resolve(import.meta.dirname, "../sources"),
    ];
    const seen = new Set<string>();
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith(".jsonl"))
          for (const m of readFileSync(p, "utf8").matchAll(/"(?:timestamp|time|created_at)": ?"([^"]{10,40})"/g))
            seen.add(m[1]!);
      }
    };
    for (const r of roots) if (existsSync(r)) walk(r);
    expect(seen.size).toBeGreaterThan(0);
    for (const s of seen) {
      const former = formerIsoMs(s);
      expect(read(s), s).toEqual(former);
      if (former !== null) expect(former.ms, s).toBe(dateParse(s));
    }
  });
});
