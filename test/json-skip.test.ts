/**
 * The WebAssembly JSON value check (util/json-skip.wat) gives exactly the
 * answer of the JavaScript one (json-bytes.ts `skipValue`) for a value read
 * into a marker search's memory: the same end, or the same refusal, on
 * random JSON, on fuzzed JSON, on every kind of bad string, number and
 * literal, on values cut off by `end`, and at the nesting limit.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { skipValue } from "../src/extractors/trajectory/json-bytes.js";
import { skipInMemory } from "../src/util/json-skip.js";
import { MarkerSearch } from "../src/util/marker-scan.js";
import { applyEdits, fuzzEdits } from "./helpers/usage-lines.js";

const region = MarkerSearch.takeRegion(1 << 20);
if (region === null) throw new Error("the WebAssembly search is not built (npm run build)");
const inMemory = region.a;

/**
 * Both checks of `text` placed at offset 3 of a line that goes on after it
 * (`tail`), with `end` at `cut` bytes after the value's start (default: its
 * whole length): [WebAssembly, JavaScript].
 */
function both(text: string, depth = 0, cut?: number, tail = ',"next":1}\n'): [number | undefined, number] {
  const bytes = Buffer.from(`{"a":${text}${tail}`);
  const end = 5 + (cut ?? Buffer.byteLength(text));
  bytes.copy(inMemory, 0);
  const plain = Buffer.from(bytes); // not in a search's memory: checked in JavaScript
  return [skipInMemory(inMemory, 5, end, depth), skipValue(plain, 5, end, depth)];
}

function same(text: string, depth = 0, cut?: number, tail?: string): number {
  const [wasm, js] = both(text, depth, cut, tail);
  expect(wasm, `${JSON.stringify(text)} depth ${depth} cut ${cut}`).toBe(js);
  return js;
}

describe("the JSON value check in WebAssembly", () => {
  it("runs for a value in a search's memory, not for any other buffer", () => {
    expect(skipInMemory(inMemory, 0, 2, 0)).toBeDefined();
    expect(skipInMemory(Buffer.from("{}"), 0, 2, 0)).toBeUndefined();
  });

  it("ends every valid container where JavaScript does, whitespace and all", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.array(fc.jsonValue()), fc.dictionary(fc.string(), fc.jsonValue())),
        fc.nat(3),
        (value, pad) => {
          const text = JSON.stringify(value, null, pad === 0 ? undefined : " \t\r\n".slice(0, pad));
          expect(same(text)).toBe(5 + Buffer.byteLength(text));
        },
      ),
      { numRuns: 3000, seed: 7 },
    );
  });

  it("refuses exactly what JavaScript refuses in fuzzed containers, and cut off at any byte", () => {
    const bases = [
      '{"content":[{"type":"text","text":"a\\n\\"b\\" \\u00e9 \\/ \\\\ c"},{"type":"tool_use","input":{"x":[1,-2.5e+3,0,true,false,null]}}],"n":{}}',
      `[{"k":"${"long plain text ".repeat(8)}"},[],[[]],{"e":-0.5E-7}]`,
    ];
    let valid = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...bases),
        fuzzEdits,
        fc.double({ min: 0, max: 1, noNaN: true }),
        (base, edits, at) => {
          const text = applyEdits(base, edits);
          if (same(text) > 0) valid += 1;
          same(text, 0, Math.floor(at * Buffer.byteLength(text)));
        },
      ),
      { numRuns: 6000, seed: 11 },
    );
    expect(valid).toBeGreaterThan(300); // the fuzz reaches valid values, not only refusals
  });

  it("agrees on every kind of string, number and literal", () => {
    const values = [
      '"plain"',
      '""',
      '"\\""',
      '"\\\\"',
      '"\\/"',
      '"\\b\\f\\n\\r\\t"',
      '"\\u0041\\u00e9\\uFFFF"',
      '"\\u00G1"',
      '"\\u00"',
      '"\\x"',
      '"\\',
      '"a\u0001b"',
      '"a\u001fb"',
      '"a\u007fb"',
      '"é漢字🙂"',
      `"${"x".repeat(40)}\\n${"y".repeat(17)}"`,
      "0",
      "-0",
      "01",
      "-",
      "1.",
      "1.5",
      ".5",
      "1e",
      "1e+",
      "1E-9",
      "1e5",
      "-12.34e+56",
      "123456789012345678901234567890",
      "true",
      "tru",
      "false",
      "fals",
      "null",
      "nul",
      "nulls",
      "True",
      "[1,]",
      "[,1]",
      '{"a":1,}',
      '{"a" :1 }',
      '{"a"}',
      "{1:2}",
      "[1 2]",
      '{"a":1 "b":2}',
      "[]",
      "{}",
      "[ ]",
      "{ }",
      "[[[]]]",
      "]",
      "}",
      "",
    ];
    for (const v of values) {
      same(`[${v}]`);
      same(`{"k":${v}}`);
      for (let cut = 0; cut <= Buffer.byteLength(v) + 4; cut += 1) same(`[${v}]`, 0, cut);
    }
  });

  it("refuses a container at depth 64 or more, as JavaScript does", () => {
    for (const depth of [0, 1, 30, 62, 63, 64, 65])
      for (const n of [1, 2, 30, 62, 63, 64, 65]) same(`${"[".repeat(n)}${"]".repeat(n)}`, depth);
    for (const n of [63, 64, 65]) same(`${'{"a":'.repeat(n)}1${"}".repeat(n)}`);
  });

  it("never reads past end: a value whose rest lies after end is refused", () => {
    // The bytes after end would complete the value; both must refuse it.
    for (const text of ['{"a":"bc"}', "[1,2,3]", '{"k":[true,false]}', `["${"z".repeat(40)}"]`])
      for (let cut = 1; cut < text.length; cut += 1) expect(both(text, 0, cut, text.slice(cut))).toEqual([-1, -1]);
  });
});
