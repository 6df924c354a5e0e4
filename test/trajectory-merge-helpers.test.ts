import { describe, expect, it } from "vitest";
import { displayOrder, displayRanks, joinByDisplay, sightedBefore } from "../src/extractors/trajectory/call-order.js";
import { withFile, withoutFiles } from "../src/extractors/trajectory/cached-calls.js";
import { HashIndex, hashNumber, hashString } from "../src/extractors/trajectory/hash-index.js";
import { timeKey } from "../src/extractors/trajectory/record-key.js";
import type { TokenCall } from "../src/extractors/trajectory/types.js";

const file = (display: string) => ({ path: `/abs/${display}`, display });
const at = (f: string, line: number, timeMs: number | null = 1): TokenCall => ({
  uncachedInput: 1,
  cacheRead: 0,
  cacheWrite: 0,
  output: 1,
  timeMs,
  file: f,
  line,
});

describe("HashIndex", () => {
  it("finds every entry stored under a hash, none under another, across growth", () => {
    const idx = new HashIndex(1);
    for (let e = 0; e < 1000; e += 1) idx.add(e % 10, e); // 10 hashes, 100 entries each
    expect(idx.count).toBe(1000);
    const under = (h: number): number[] => {
      const out: number[] = [];
      for (let e = idx.first(h); e !== -1; e = idx.next()) out.push(e);
      return out.sort((a, b) => a - b);
    };
    expect(under(3)).toEqual(Array.from({ length: 100 }, (_x, k) => k * 10 + 3));
    expect(under(10)).toEqual([]);
    expect(under(-7)).toEqual([]);
  });

  it("hashes numbers and strings by value", () => {
    expect(hashNumber(1, 1790000000123)).toBe(hashNumber(1, 1790000000123));
    expect(hashNumber(1, 1790000000123)).not.toBe(hashNumber(1, 1790000000123 + 2 ** 32));
    expect(hashNumber(1, 0)).toBe(hashNumber(1, -0));
    expect(hashString(1, `ab${"c".repeat(3)}`)).toBe(hashString(1, "abccc"));
    expect(hashString(1, "ab")).not.toBe(hashString(1, "ba"));
    expect(hashString(1, "")).not.toBe(hashString(2, ""));
  });
});

describe("timeKey", () => {
  it("is equal exactly when String(time ?? '-') is", () => {
    expect(timeKey(1700000000000)).toBe(1700000000000);
    expect(timeKey("1700000000000")).toBe(1700000000000);
    expect(timeKey(-0)).toBe(0);
    expect(Object.is(timeKey(-0), 0)).toBe(true);
    expect(timeKey("0")).toBe(0);
    expect(timeKey("-0")).toBe("-0");
    expect(timeKey(" 5")).toBe(" 5");
    expect(timeKey("1e+21")).toBe(1e21);
    expect(timeKey(1e21)).toBe(1e21);
    expect(timeKey(Number.POSITIVE_INFINITY)).toBe("Infinity");
    expect(timeKey("Infinity")).toBe("Infinity");
    expect(timeKey("NaN")).toBe("NaN");
    expect(timeKey(null)).toBe("-");
    expect(timeKey(undefined)).toBe("-");
    expect(timeKey("-")).toBe("-");
    expect(timeKey(true)).toBe("true");
    expect(timeKey({})).toBe("[object Object]");
    expect(timeKey(1.5)).toBe(1.5);
    expect(timeKey("1.50")).toBe("1.50");
  });
});

describe("call order helpers", () => {
  it("ranks files by display name, equal names alike", () => {
    expect([...displayRanks([file("b"), file("a"), file("c"), file("a")])]).toEqual([1, 0, 2, 0]);
    expect([...displayRanks([])]).toEqual([]);
  });

  it("orders sightings by time (null last), then file rank, then line", () => {
    expect(sightedBefore(5, 9, 9, 6, 0, 0)).toBe(true);
    expect(sightedBefore(6, 0, 0, 5, 9, 9)).toBe(false);
    expect(sightedBefore(5, 1, 9, 5, 2, 0)).toBe(true);
    expect(sightedBefore(5, 1, 3, 5, 1, 4)).toBe(true);
    expect(sightedBefore(5, 1, 4, 5, 1, 4)).toBe(false);
    expect(sightedBefore(5, 9, 9, null, 0, 0)).toBe(true);
    expect(sightedBefore(null, 0, 0, 5, 9, 9)).toBe(false);
    expect(sightedBefore(null, 0, 1, null, 0, 2)).toBe(true);
  });

  it("joins per-file calls in display order, or gives null for a repeated display name", () => {
    const files = [file("b.jsonl"), file("a.jsonl"), file("B.jsonl")];
    expect(displayOrder(files)).toEqual([2, 1, 0]);
    const joined = joinByDisplay(files, [[at("b.jsonl", 1), at("b.jsonl", 4)], [at("a.jsonl", 2)], []]);
    expect(joined?.map((c) => `${c.file}:${c.line}`)).toEqual(["a.jsonl:2", "b.jsonl:1", "b.jsonl:4"]);
    expect(displayOrder([file("a"), file("a")])).toBeNull();
    expect(joinByDisplay([file("a"), file("a")], [[], []])).toBeNull();
  });
});

describe("cached calls", () => {
  it("store calls without their file name, same keys in the same order, and put it back", () => {
    const records = [
      { call: at("s/wire.jsonl", 3, 7), timeText: "7" },
      { call: at("s/wire.jsonl", 5, null), timeText: "x" },
    ];
    const stored = JSON.parse(JSON.stringify(withoutFiles(records)));
    expect(JSON.stringify(stored)).not.toContain("wire.jsonl");
    expect(records[0]!.call.file).toBe("s/wire.jsonl"); // the scan is not changed
    const back = withFile(stored, "s/wire.jsonl");
    expect(JSON.stringify(back)).toBe(JSON.stringify(records));
  });
});
