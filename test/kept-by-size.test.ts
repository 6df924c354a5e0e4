import { describe, expect, it } from "vitest";
import { KeptBySize } from "../src/util/kept-by-size.js";

describe("KeptBySize", () => {
  const sized = (n: number) => ({ n });

  it("gives the smallest kept thing large enough, once, and nothing when none is", () => {
    const kept = new KeptBySize<{ n: number }>(4, (x) => x.n);
    const [a, b, c] = [sized(10), sized(30), sized(20)];
    for (const x of [a, b, c]) kept.put(x);
    expect(kept.take(15)).toBe(c);
    expect(kept.take(15)).toBe(b);
    expect(kept.take(15)).toBeUndefined();
    expect(kept.take(5)).toBe(a);
    expect(kept.take(1)).toBeUndefined();
  });

  it("keeps a thing once however often it is given, and at most `keep` of them: the largest", () => {
    const kept = new KeptBySize<{ n: number }>(2, (x) => x.n);
    const [a, b, c] = [sized(10), sized(30), sized(20)];
    for (const x of [a, a, b, c]) kept.put(x);
    expect([kept.take(1), kept.take(1), kept.take(1)]).toEqual([c, b, undefined]);
  });
});
