/**
 * The whole-line JSON validator and member finder of the trajectory readers'
 * fast path: it accepts only what JSON.parse accepts, and finds the values
 * JSON.parse gives at the wanted paths.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonMembers } from "../src/util/json-members.js";

const PATHS = ["type", "message.usage", "message.id", "a.b.c"];

function get(v: unknown, path: string): unknown {
  let cur = v;
  for (const k of path.split(".")) {
    if (typeof cur !== "object" || cur === null || Array.isArray(cur)) return undefined;
    cur = Object.hasOwn(cur, k) ? (cur as Record<string, unknown>)[k] : undefined;
  }
  return cur;
}

/** Reads `text` inside a buffer with other bytes around it (as the scanner's buffer has). */
function read(r: JsonMembers, text: string, after = "}1\n") {
  const b = Buffer.from(`x${text}${after}`);
  return r.read(b, 1, b.length - Buffer.byteLength(after));
}

describe("JsonMembers", () => {
  it("finds the wanted members of a line and reads them as JSON.parse does", () => {
    const r = new JsonMembers(PATHS);
    const line = ` {"type":"assistant","message":{"id":"m\\u00e91","usage":{"input":3,"cache":[1,2.5e-3]}},"x":[{"type":1}]}\t`;
    expect(read(r, line)).toBe(true);
    expect(r.string(0)).toBe("assistant");
    expect(r.json(1)).toEqual({ input: 3, cache: [1, 0.0025] });
    expect(r.string(2)).toBe("mé1");
    expect(r.has(3)).toBe(false);
    expect(r.is(0, Buffer.from('"assistant"'))).toBe(true);
  });

  it("refuses broken lines, a cut-off line followed by other bytes, a key written twice, an escaped wanted name", () => {
    const r = new JsonMembers(PATHS);
    for (const bad of [
      '{"type":"a"',
      '{"type":"a",}',
      '{"type":"a\u0001"}',
      '{"type":"a\\x"}',
      '{"n":01}',
      '{"n":1.}',
      '{"n":-}',
      '{"n":tru}',
      '{"type":"a"}{"type":"b"}',
      '{"type":"a","type":"b"}',
      '{"message":{},"message":{"usage":{}}}',
      '["type"]',
      '{"t\\u0079pe":"a"}',
      "",
    ])
      expect(read(r, bad), bad).toBe(false);
    expect(read(r, '{"n":1', "2}\n")).toBe(false);
    expect(read(r, '{"n":"ab', 'c"}\n')).toBe(false);
  });

  it("never accepts what JSON.parse refuses, and agrees on every wanted value (random lines and damaged copies)", () => {
    const r = new JsonMembers(PATHS);
    const obj = fc.record(
      {
        type: fc.oneof(fc.string(), fc.integer()),
        message: fc.oneof(fc.record({ id: fc.string(), usage: fc.jsonValue() }, { requiredKeys: [] }), fc.jsonValue()),
        a: fc.record({ b: fc.record({ c: fc.jsonValue() }) }),
        other: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(obj, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.boolean(), (o, at, byte, damage) => {
        let text = JSON.stringify(o);
        if (damage && text.length > 0) {
          const b = Buffer.from(text);
          b[at % b.length] = byte;
          text = b.toString("latin1");
        }
        const bytes = Buffer.from(`x${text}}\n`, "latin1");
        let parsed: unknown;
        let ok = true;
        try {
          parsed = JSON.parse(bytes.toString("utf8", 1, bytes.length - 2));
        } catch {
          ok = false;
        }
        const mine = r.read(bytes, 1, bytes.length - 2);
        if (!ok) expect(mine).toBe(false);
        if (!damage && !text.includes("\\")) expect(mine).toBe(true); // an escaped name on a wanted path: left to JSON.parse
        if (mine) PATHS.forEach((p, slot) => expect(r.json(slot)).toEqual(get(parsed, p)));
      }),
      { numRuns: 3000 },
    );
  });
});
