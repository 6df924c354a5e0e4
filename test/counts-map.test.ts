import { describe, expect, it } from "vitest";
import { CountsMap, hashCounts, sameParts } from "../src/extractors/trajectory/counts-map.js";

const v = (input: number, cached: number, cacheWrite: number, output: number) => ({
  input,
  cached,
  cacheWrite,
  output,
});

describe("CountsMap", () => {
  it("keys by all four counts (by value, not by object), replaces on set", () => {
    const m = new CountsMap<string>(2);
    m.set(v(10, 1, 2, 3), "a");
    m.set(v(10, 1, 2, 4), "b");
    m.set(v(10, 0, 2, 3), "c");
    m.set(v(11, 1, 2, 3), "d");
    expect([m.get(v(10, 1, 2, 3)), m.get(v(10, 1, 2, 4)), m.get(v(10, 0, 2, 3)), m.get(v(11, 1, 2, 3))]).toEqual([
      "a",
      "b",
      "c",
      "d",
    ]);
    expect(m.get(v(10, 1, 3, 3))).toBeUndefined();
    expect(m.get(v(12, 1, 2, 3))).toBeUndefined();
    m.set(v(10, 1, 2, 4), "e");
    expect(m.get(v(10, 1, 2, 4))).toBe("e");
    m.set(v(2 ** 52 + 1, 0, 0, 0), "big");
    expect(m.get(v(2 ** 52 + 1, 0, 0, 0))).toBe("big");
    expect(m.get(v(2 ** 52, 0, 0, 0))).toBeUndefined();
    expect(m.get(v(2 ** 52 + 1 + 2 ** 32, 0, 0, 0))).toBeUndefined();
  });

  it("holds many entries past its first room", () => {
    const m = new CountsMap<number>(1);
    for (let i = 0; i < 5000; i += 1) m.set(v(i * 7919, i % 3, 0, i), i);
    let found = 0;
    for (let i = 0; i < 5000; i += 1) if (m.get(v(i * 7919, i % 3, 0, i)) === i) found += 1;
    expect(found).toBe(5000);
    expect(m.get(v(7919, 0, 0, 1))).toBeUndefined();
  });
});

describe("hashCounts", () => {
  it("hashes equal counts alike, 0 and -0 alike, and depends on the seed and the order", () => {
    expect(hashCounts(1, 5, 6, 7, 8)).toBe(hashCounts(1, 5, 6, 7, 8));
    expect(hashCounts(1, 0, 6, 7, 8)).toBe(hashCounts(1, -0, 6, 7, 8));
    expect(hashCounts(1, 5, 6, 7, 8)).not.toBe(hashCounts(2, 5, 6, 7, 8));
    expect(hashCounts(1, 5, 6, 7, 8)).not.toBe(hashCounts(1, 6, 5, 7, 8));
  });
});

describe("sameParts", () => {
  it("is true only when all four parts are equal", () => {
    const p = { uncachedInput: 1, cacheRead: 2, cacheWrite: 3, output: 4 };
    expect(sameParts(p, { ...p })).toBe(true);
    for (const k of ["uncachedInput", "cacheRead", "cacheWrite", "output"] as const)
      expect(sameParts(p, { ...p, [k]: p[k] + 1 }), k).toBe(false);
  });
});
