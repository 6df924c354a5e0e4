import { describe, expect, it } from "vitest";
import { CountsMap } from "../src/extractors/trajectory/counts-map.js";

describe("CountsMap", () => {
  it("keys by all four counts, chains equal first counts, replaces on set", () => {
    const m = new CountsMap<string>();
    m.set(10, 1, 2, 3, "a");
    m.set(10, 1, 2, 4, "b");
    m.set(10, 0, 2, 3, "c");
    m.set(11, 1, 2, 3, "d");
    expect([m.get(10, 1, 2, 3), m.get(10, 1, 2, 4), m.get(10, 0, 2, 3), m.get(11, 1, 2, 3)]).toEqual([
      "a",
      "b",
      "c",
      "d",
    ]);
    expect(m.get(10, 1, 3, 3)).toBeUndefined();
    expect(m.get(12, 1, 2, 3)).toBeUndefined();
    m.set(10, 1, 2, 4, "e");
    expect(m.get(10, 1, 2, 4)).toBe("e");
    m.set(2 ** 52 + 1, 0, 0, 0, "big");
    expect(m.get(2 ** 52 + 1, 0, 0, 0)).toBe("big");
    expect(m.get(2 ** 52, 0, 0, 0)).toBeUndefined();
  });
});
