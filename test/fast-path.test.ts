/**
 * The trajectory readers' fast path (issue 7) changes no result: every sample
 * and every embedded trajectory gives the same calls and warnings with the
 * fast path on and off; the line reader's filter keeps every line that can
 * matter (needles, broken shapes, glued lines, NUL bytes, cut-off last line).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readTrajectory, TRAJECTORY_FORMATS, type TrajectoryFormat } from "../src/extractors/trajectory/index.js";
import { setTrajectoryFastPath } from "../src/extractors/trajectory/common.js";
import {
  LINE_SKIP,
  LINE_TAKE,
  LINE_UNKNOWN,
  scanLines,
  setWasmMarkerSearch,
  type LineScanOptions,
} from "../src/util/line-scan.js";
import { MarkerSearch } from "../src/util/marker-scan.js";
import { LeadingScalarReader } from "../src/util/json-prefix.js";
import { skipInMemory } from "../src/util/json-skip.js";

const REPO = resolve(import.meta.dirname, "..");
const SAMPLES = resolve(REPO, "../shared/samples/trajectories");
/** The real samples live in the shared folder beside the project; a clone without it skips their comparison. */
const samplesPresent = existsSync(SAMPLES);
const tmp = mkdtempSync(join(tmpdir(), "ptb-fast-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function both(format: TrajectoryFormat, dir: string, displayRoot?: string) {
  const opts = displayRoot === undefined ? {} : { displayRoot };
  setTrajectoryFastPath(false);
  try {
    const slow = await readTrajectory(format, [dir], opts);
    setTrajectoryFastPath(true);
    const fast = await readTrajectory(format, [dir], opts);
    return { slow, fast };
  } finally {
    setTrajectoryFastPath(true);
  }
}

describe("fast path = slow path", () => {
  for (const format of TRAJECTORY_FORMATS) {
    const name = samplesPresent
      ? `on the real ${format} samples`
      : `on the real ${format} samples: skipped, ${SAMPLES} not found (the shared folder is not beside the project)`;
    it.skipIf(!samplesPresent)(name, async () => {
      const { slow, fast } = await both(format, join(SAMPLES, format));
      expect(fast).toEqual(slow);
      expect(fast.calls.length).toBeGreaterThan(0);
    });
  }

  it("on every trajectory of the embedded sweep (cut-off and glued lines included)", async () => {
    const cells = (await import("../sources/cells.json", { with: { type: "json" } })).default as {
      cells: { cell: string; trajectory_format: TrajectoryFormat }[];
    };
    const sources = join(REPO, "sources");
    for (const c of cells.cells) {
      const { slow, fast } = await both(c.trajectory_format, join(sources, c.cell, "trajectory"), sources);
      expect(fast, c.cell).toEqual(slow);
    }
  });
});

async function kept(text: string | Buffer, opts: LineScanOptions): Promise<number[]> {
  const p = join(tmp, `f-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(p, text);
  const out: number[] = [];
  await scanLines(p, opts, (_b, _s, _e, lineNo) => out.push(lineNo));
  // The WebAssembly marker search and Buffer.indexOf hand over the same lines.
  setWasmMarkerSearch(false);
  try {
    const js: number[] = [];
    await scanLines(p, opts, (_b, _s, _e, lineNo) => js.push(lineNo));
    expect(js).toEqual(out);
  } finally {
    setWasmMarkerSearch(true);
  }
  // So does classify mode with its line ends and record starts found by the WebAssembly search.
  if (opts.classify && opts.detectGlued) {
    const searched: number[] = [];
    await scanLines(p, { ...opts, searchLines: true }, (_b, _s, _e, lineNo) => searched.push(lineNo));
    expect(searched).toEqual(out);
  }
  return out;
}

describe("scanLines filter", () => {
  it("has its WebAssembly marker search built (npm ci / npm run build)", () => {
    expect(MarkerSearch.load()).not.toBeNull();
  });

  it("takes one or two needles of 2–28 bytes without a `{` to the WebAssembly search (Buffer.indexOf finds the others)", () => {
    const b = (s: string) => Buffer.from(s);
    expect(MarkerSearch.fits([b('"usage"')])).toBe(true);
    expect(MarkerSearch.fits([b('"usage"'), b('"assistant"')])).toBe(true);
    expect(MarkerSearch.fits([])).toBe(false);
    expect(MarkerSearch.fits([b("a"), b("bb"), b("cc")])).toBe(false);
    expect(MarkerSearch.fits([b("x")])).toBe(false);
    expect(MarkerSearch.fits([b("y".repeat(29))])).toBe(false);
    expect(MarkerSearch.fits([b('{"usage"')])).toBe(false); // the pad after the data is `{`
  });

  it("gives a search its own two buffers of the size asked, kept for the next file, searched in place", () => {
    // Larger than any buffer the other tests' scans keep (2 MiB at most), so a new one.
    const size = 3 << 20;
    const first = MarkerSearch.takeRegion(size)!;
    expect([first.a.length, first.b.length]).toEqual([size, size]);
    expect(first.search.owns(first.a) && first.search.owns(first.b)).toBe(true);
    expect(first.search.owns(Buffer.alloc(16))).toBe(false);
    expect(MarkerSearch.load()!.owns(first.a)).toBe(false);
    // Only its own buffers: anything else is for the shared search, which copies.
    expect(() => first.search.begin(Buffer.from('{"usage":1}\n'), 0, 12, [Buffer.from('"usage"')])).toThrow(
      "searches only them",
    );
    const line = Buffer.from('{"a":1}\n{"usage":2}\n{"b":3}\n');
    line.copy(first.b);
    first.search.begin(first.b, 0, line.length, [Buffer.from('"usage"')]);
    const events: number[] = [];
    while (first.search.next()) for (let k = 0; k < first.search.count; k += 1) events.push(first.search.pos(k));
    expect(events).toEqual([9]);
    MarkerSearch.releaseRegion(first.search);
    // (Searches are compared with `===`: a failing toBe would print their whole memory.)
    const again = MarkerSearch.takeRegion(size - 1)!;
    expect(again.search === first.search).toBe(true);
    expect([again.a.length, again.b.byteOffset]).toEqual([size - 1, first.b.byteOffset]);
    MarkerSearch.releaseRegion(again.search);
    const larger = MarkerSearch.takeRegion(size + 1)!;
    expect(larger.search === first.search).toBe(false);
    MarkerSearch.releaseRegion(larger.search);
  });

  it("marker mode: a search's buffers reused by the next file, or left by a visitor that threw, show nothing of the last file", async () => {
    const many = join(tmp, "many-usage.jsonl");
    writeFileSync(many, `${ok("token_count")}\n`.repeat(20_000));
    await expect(
      scanLines(many, { markers, chunkBytes: 4096 }, (_b, _s, _e, lineNo) => {
        if (lineNo === 500) throw new Error("stop at 500");
      }),
    ).rejects.toThrow("stop at 500");
    const short = join(tmp, "short-usage.jsonl");
    writeFileSync(short, `${ok("a")}\n${ok("token_count")}\n${ok("token_count").slice(0, 40)}`);
    const got: string[] = [];
    expect(
      await scanLines(short, { markers, chunkBytes: 4096 }, (b, s, e, lineNo, cut) =>
        got.push(`${lineNo}${cut ? "!" : ""} ${b.toString("utf8", s, e)}`),
      ),
    ).toBe(3);
    expect(got).toEqual([`2 ${ok("token_count")}`, `3! ${ok("token_count").slice(0, 40)}`]);
    let seen = 0;
    expect(await scanLines(many, { markers, chunkBytes: 4096 }, () => (seen += 1))).toBe(20_000);
    expect(seen).toBe(20_000);
  });

  it("hands over the same lines with a needle the WebAssembly search cannot take", async () => {
    const line = (k: string) => JSON.stringify({ [k]: 1, n: "{x}" });
    const text = `${[line("a"), line("{b"), line("c"), "{", line("{b")].join("\n")}\n`;
    expect(await kept(text, { markers: [Buffer.from('"{b"')] })).toEqual([2, 4, 5]);
  });

  const markers = [Buffer.from("token_count")];
  const needles = markers;
  const classify = () => LINE_UNKNOWN;
  const ok = (type: string) =>
    JSON.stringify({ timestamp: "2026-10-02T08:00:00.000Z", type, payload: { type: "x", text: 'a "quoted" {brace}' } });

  it("marker mode: skips well-shaped lines without a marker, keeps the others", async () => {
    const text = `${[ok("a"), ok("token_count"), "not json", "", ok("b"), '  {"x":1}  ', "[1,2]", `${ok("c")}\r`].join("\n")}\n`;
    expect(await kept(text, { markers })).toEqual([2, 3, 4, 7]);
  });

  it("marker mode: a marker line glued after a cut-off line is kept (whatever the byte before it)", async () => {
    const glued = `${ok("a").slice(0, 50)} ${ok("token_count")}`;
    expect(await kept(`${[ok("a"), glued, ok("c")].join("\n")}\n`, { markers })).toEqual([2]);
  });

  it("classify mode: keeps a glued line (a cut-off record continued by the next one)", async () => {
    const glued = ok("a").slice(0, 50) + ok("b");
    const text = `${[ok("a"), glued, ok("c")].join("\n")}\n`;
    expect(await kept(text, { classify, needles, detectGlued: true })).toEqual([2]);
    expect(await kept(text, { classify, needles })).toEqual([]);
  });

  it("classify mode: does not take a nested object after ':' '[' ',' for a glued line", async () => {
    const nested = JSON.stringify({
      timestamp: "t",
      a: { timestamp: "u" },
      b: [{ timestamp: "v" }, { timestamp: "w" }],
    });
    expect(await kept(`${[ok("a"), nested].join("\n")}\n`, { classify, needles, detectGlued: true })).toEqual([]);
  });

  it("keeps a line with a NUL byte and the cut-off last line", async () => {
    const nul = Buffer.concat([Buffer.from('{"timestamp":"t","a":"'), Buffer.from([0, 0]), Buffer.from('"}\n')]);
    const text = Buffer.concat([Buffer.from(`${ok("a")}\n`), nul, Buffer.from(ok("b"))]);
    expect(await kept(text, { markers })).toEqual([2, 3]);
    expect(await kept(text, { classify, needles })).toEqual([2, 3]);
  });

  it("follows the classifier: skip, take, or the needles", async () => {
    const classify = (buf: Buffer, s: number) =>
      buf[s + 2] === 0x61 ? LINE_SKIP : buf[s + 2] === 0x62 ? LINE_TAKE : LINE_UNKNOWN;
    const text = `${['{"a":"token_count"}', '{"b":1}', '{"c":1}', '{"c":"token_count"}'].join("\n")}\n`;
    expect(await kept(text, { needles, classify })).toEqual([2, 4]);
  });

  it("classify mode reads into WebAssembly memory, where a line's values are checked (json-skip), also without the line search", async () => {
    const classify = () => LINE_TAKE;
    const p = join(tmp, "in-memory.jsonl");
    writeFileSync(p, '{"a":{"b":[1,2]}}\n{"a":{"b":[1,2,]}}\n');
    for (const wasm of [true, false]) {
      setWasmMarkerSearch(wasm);
      const got: (number | undefined)[] = [];
      try {
        await scanLines(p, { classify, needles }, (b, s, e) => got.push(skipInMemory(b, s + 5, e, 1)));
      } finally {
        setWasmMarkerSearch(true);
      }
      // In WebAssembly memory: the end of `{"b":[1,2]}` (line 1), -1 for the trailing comma (line 2); else not there.
      expect(got).toEqual(wasm ? [16, -1] : [undefined, undefined]);
    }
  });

  it("hands every line over without a filter, and wantAll lines in the fast path", async () => {
    const text = `${[ok("a"), ok("b"), ok("c")].join("\n")}\n`;
    expect(await kept(text, {})).toEqual([1, 2, 3]);
    const p = join(tmp, "want-all.jsonl");
    writeFileSync(p, text);
    for (const wasm of [true, false]) {
      setWasmMarkerSearch(wasm);
      let n = 0;
      const got: number[] = [];
      await scanLines(p, { markers, wantAll: () => n++ < 2 }, (_b, _s, _e, lineNo) => got.push(lineNo));
      setWasmMarkerSearch(true);
      expect(got).toEqual([1, 2]);
      expect(n).toBe(3); // asked until it first says false
    }
  });

  it("counts lines across buffer refills and long lines; drops \\r and a first-line BOM", async () => {
    const long = JSON.stringify({ timestamp: "t", text: "y".repeat(30_000), type: "token_count" });
    const lines = [ok("a"), long, ok("b"), long, ok("c")];
    const p = join(tmp, "long.jsonl");
    // The BOM makes line 1 look not well-shaped to the filter: it is handed over, without its BOM.
    writeFileSync(p, `\ufeff${lines.join("\r\n")}\r\n${ok("token_count")}`);
    for (const opts of [{ markers }, { classify, needles }, {}] as LineScanOptions[]) {
      const got: { lineNo: number; text: string; cut: boolean }[] = [];
      const n = await scanLines(p, { ...opts, chunkBytes: 4096 }, (b, s, e, lineNo, cut) =>
        got.push({ lineNo, text: b.toString("utf8", s, e), cut }),
      );
      expect(n).toBe(6);
      const want = [
        { lineNo: 1, text: ok("a"), cut: false },
        { lineNo: 2, text: long, cut: false },
        { lineNo: 4, text: long, cut: false },
        { lineNo: 6, text: ok("token_count"), cut: true },
      ];
      if (opts.markers || opts.classify) expect(got).toEqual(want);
      else expect(got.map((g) => g.text)).toEqual([...lines, ok("token_count")]);
    }
  });
});

describe("LeadingScalarReader", () => {
  const read = (paths: string[], text: string) => {
    const r = new LeadingScalarReader(paths);
    const b = Buffer.from(text);
    return r.read(b, 0, b.length) ? [...r.values] : null;
  };

  it("reads top-level scalars up to the first object, then that object's", () => {
    expect(
      read(
        ["timestamp", "type", "payload.type"],
        '{"timestamp":"2026","type":"event_msg","payload":{"type":"token_count","info":{}}}',
      ),
    ).toEqual(["2026", "event_msg", "token_count"]);
    expect(
      read(["message.type", "timestamp"], '{"timestamp": 1.5, "message": {"type": "StatusUpdate", "payload": {}}}'),
    ).toEqual(["StatusUpdate", "1.5"]);
  });

  it("stops at an array and leaves later members unknown", () => {
    expect(read(["type"], '{"content":[{"type":"x"}],"type":"assistant"}')).toEqual([undefined]);
    expect(read(["type", "message.role"], '{"type":"message","message":{"content":[],"role":"assistant"}}')).toEqual([
      "message",
      undefined,
    ]);
  });

  it("gives up on escapes and non-objects", () => {
    expect(read(["type"], '{"ty\\u0070e":"assistant"}')).toBeNull();
    expect(read(["type"], '{"type":"assi\\"stant"}')).toBeNull();
    expect(read(["type"], "[1]")).toBeNull();
  });
});

describe("readLineBatches and epochMsAt", () => {
  it("gives every line, its number and byte offset, CRLF and BOM removed, the cut-off last line marked", async () => {
    const p = join(tmp, "batches.txt");
    writeFileSync(p, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("a\r\nü-b\n\nlast")]));
    const { readLineBatches } = await import("../src/util/lines.js");
    const got = [];
    for await (const batch of readLineBatches(p, { chunkBytes: 4 })) got.push(...batch);
    expect(got).toEqual([
      { text: "a", lineNo: 1, offset: 0, unterminated: false },
      { text: "ü-b", lineNo: 2, offset: 6, unterminated: false },
      { text: "", lineNo: 3, offset: 11, unterminated: false },
      { text: "last", lineNo: 4, offset: 12, unterminated: true },
    ]);
  });

  it("epochMsAt gives epochToMs's double for every well-formed epoch, NaN for the others", async () => {
    const { epochMsAt, epochToMs } = await import("../src/extractors/pvc-listing.js");
    let x = 7;
    const r = () => (x = (x * 1103515245 + 12345) & 0x7fffffff);
    const cases = [
      "0",
      "1790003123.4567891230",
      "1790003123.5",
      "1790003123.",
      ".5",
      "12a",
      "1.2.3",
      "1790003123.1234567890123456789",
    ];
    for (let i = 0; i < 20_000; i += 1) {
      const d = r() % 17;
      let f = "";
      for (let k = 0; k < d; k += 1) f += String(r() % 10);
      cases.push(`${1_700_000_000 + (r() % 200_000_000)}${d ? `.${f}` : ""}`);
    }
    for (const c of cases) {
      const want = /^\d+(?:\.\d+)?$/.test(c) ? epochToMs(c) : Number.NaN;
      expect(Object.is(epochMsAt(c, 0, c.length), want), c).toBe(true);
    }
  });
});

describe("scale", () => {
  it("counts 140,000 calls of one file and reports 140,000 bad lines without overflowing the stack", async () => {
    const dir = join(tmp, "big-kimi", "agents", "main");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(dir, { recursive: true });
    const lines: string[] = ['{"type":"metadata","protocol_version":"1.4","created_at":1783999150312}'];
    for (let i = 0; i < 140_000; i += 1) {
      lines.push(
        `{"type":"usage.record","model":"m","usage":{"inputOther":1,"output":2,"inputCacheRead":3,"inputCacheCreation":0},"usageScope":"turn","time":${1783999150312 + i}}`,
      );
      lines.push("not json");
    }
    writeFileSync(join(dir, "wire.jsonl"), `${lines.join("\n")}\n`);
    const reading = await readTrajectory("kimi-code", [join(tmp, "big-kimi")]);
    expect(reading.calls.length).toBe(140_000);
    expect(reading.warnings.filter((w) => w.code === "TRAJECTORY_BAD_JSON").length).toBe(140_000);
  });
});

describe("a usage line glued after a line cut off at a blank", () => {
  // A writer killed mid-line leaves a record cut off; the next session's first record is appended to it.
  // The cut falls after a blank, so the glued record start looks like an object nested after a blank.
  const usageLines: Record<TrajectoryFormat, { head: object[]; before: object; usage: object }> = {
    "claude-code": {
      head: [],
      before: {
        parentUuid: null,
        type: "user",
        message: { role: "user", content: "run the tests please" },
        uuid: "u1",
      },
      usage: {
        parentUuid: "u1",
        type: "assistant",
        message: {
          id: "m1",
          role: "assistant",
          model: "claude-x",
          usage: { input_tokens: 3, cache_creation_input_tokens: 5, cache_read_input_tokens: 7, output_tokens: 11 },
        },
        requestId: "r1",
        uuid: "a1",
        timestamp: "2026-03-01T10:00:01.000Z",
      },
    },
    "kimi-cli": {
      head: [{ type: "metadata", protocol_version: "1.3" }],
      before: {
        timestamp: 1772359200.5,
        message: { type: "ContentPart", payload: { type: "text", text: "run the tests" } },
      },
      usage: {
        timestamp: 1772359201.5,
        message: {
          type: "StatusUpdate",
          payload: {
            token_usage: { input_other: 3, output: 11, input_cache_read: 7, input_cache_creation: 5 },
            message_id: "m1",
          },
        },
      },
    },
    pi: {
      head: [{ type: "session", version: 3, id: "s1", timestamp: "2026-03-01T10:00:00.000Z", cwd: "/w" }],
      before: { type: "message", id: "e1", message: { role: "user", content: "run the tests please" } },
      usage: {
        type: "message",
        id: "e2",
        timestamp: "2026-03-01T10:00:01.000Z",
        message: {
          role: "assistant",
          usage: { input: 3, output: 11, cacheRead: 7, cacheWrite: 5, totalTokens: 26 },
          timestamp: 1772359201000,
        },
      },
    },
    codex: {
      head: [{ timestamp: "2026-03-01T10:00:00.000Z", type: "session_meta", payload: { id: "t1" } }],
      before: {
        timestamp: "2026-03-01T10:00:00.500Z",
        type: "response_item",
        payload: { type: "message", text: "run the tests please" },
      },
      usage: {
        timestamp: "2026-03-01T10:00:01.000Z",
        type: "event_msg",
        payload: {
          type: "token_count",
          info: {
            total_token_usage: { input_tokens: 10, cached_input_tokens: 7, output_tokens: 11, total_tokens: 21 },
            last_token_usage: { input_tokens: 10, cached_input_tokens: 7, output_tokens: 11, total_tokens: 21 },
          },
        },
      },
    },
    "kimi-code": {
      head: [],
      before: { type: "context.append", text: "run the tests please" },
      usage: {
        type: "usage.record",
        model: "k2",
        usage: { inputOther: 3, output: 11, inputCacheRead: 7, inputCacheCreation: 5 },
        time: 1772359201000,
      },
    },
  };
  const names: Record<TrajectoryFormat, string> = {
    "claude-code": "s.jsonl",
    "kimi-cli": "wire.jsonl",
    pi: "2026-03-01T10-00-00-000Z_s1.jsonl",
    codex: "rollout-2026-03-01T10-00-00-t1.jsonl",
    "kimi-code": "agents/main/wire.jsonl",
  };

  for (const format of TRAJECTORY_FORMATS) {
    it(`is warned by the fast path as by the slow path: ${format}`, async () => {
      const { head, before, usage } = usageLines[format];
      const cutText = JSON.stringify(before);
      const cut = cutText.slice(0, cutText.indexOf("the ") + 4); // ends with a blank inside a string
      const dir = join(tmp, `glued-${format}`);
      const path = join(dir, names[format]);
      mkdirSync(dirname(path), { recursive: true });
      const lines = [...head, before, usage].map((l) => JSON.stringify(l));
      lines.push(cut + JSON.stringify(usage));
      writeFileSync(path, `${lines.join("\n")}\n`);
      const { slow, fast } = await both(format, dir, dir);
      expect(fast).toEqual(slow);
      const gluedLine = head.length + 3;
      expect(fast.warnings.filter((w) => w.code === "TRAJECTORY_BAD_JSON").map((w) => w.line)).toEqual([gluedLine]);
    });
  }
});

describe("marker mode: the WebAssembly search hands over the lines Buffer.indexOf does", () => {
  const pieces = [
    '{"type":"user","text":"plain"}',
    '{"type":"assistant","usage":{"input":1}}',
    '  {"type":"x"}  ',
    '{"a":"b"}\r',
    "",
    "not json at all",
    '{"a":"x\u0000y"}',
    '{"cut":"off',
    '{"a":"usage"}',
    '{"n":"\\"usage\\""}',
    "}",
    "{",
    '[{"usage":1}]',
    `{"long":"${"z".repeat(5000)}","usage":2}`,
    `{"long":"${"q".repeat(300)}"}`,
  ];
  it("on random files, across buffer refills", async () => {
    const markers = [Buffer.from('"usage"'), Buffer.from('"assistant"')];
    await sameOnRandomFiles(pieces, "prop.jsonl", async (p, chunkBytes) => {
      const wasm = await handed(p, { markers, chunkBytes });
      setWasmMarkerSearch(false);
      try {
        expect(await handed(p, { markers, chunkBytes })).toEqual(wasm);
      } finally {
        setWasmMarkerSearch(true);
      }
    });
  });
});

describe("classify mode: the WebAssembly line search (searchLines) hands over the lines Buffer.indexOf does", () => {
  const pieces = [
    '{"type":"a","text":"plain"}',
    '{"type":"usage.record","usage":{"input":1}}',
    '{"type":"b","parts":[{"type":"text"},{"type":"x"}],"o":{"type":"y"},"p": {"type":"z"}}',
    '{"type":"c","x":"cut off{"type":"d"}',
    '{"type":"e","x":1} {"type":"f"}',
    '{"type":"g","s":"{\\"type\\":1}"}',
    '  {"type":"x"}  ',
    '{"type":"h"}\r',
    "",
    "not json at all",
    '{"type":"i","a":"x\u0000y"}',
    '{"type":"cut',
    "}",
    "{",
    '{"other":"usage.record"}',
    `{"type":"j","long":"${"z".repeat(5000)}","n":{"type":"k"}}`,
    `{"type":"l","long":"${"q".repeat(300)}"}`,
  ];
  it("on random files, across buffer refills", async () => {
    const needles = [Buffer.from("usage.record")];
    const classify = (buf: Buffer, s: number, e: number) =>
      e - s > 9 && buf[s + 9] === 0x61 ? LINE_SKIP : e - s > 9 && buf[s + 9] === 0x75 ? LINE_TAKE : LINE_UNKNOWN;
    await sameOnRandomFiles(pieces, "prop-classify.jsonl", async (p, chunkBytes) => {
      const opts = { classify, needles, detectGlued: true, chunkBytes };
      expect(await handed(p, { ...opts, searchLines: true })).toEqual(await handed(p, { ...opts, searchLines: false }));
    });
  });
});

/** What `scanLines` hands over from `p` with `opts`: the file's line count and each line handed (`!`: the cut-off last). */
async function handed(p: string, opts: LineScanOptions): Promise<{ n: number; got: string[] }> {
  const got: string[] = [];
  const n = await scanLines(p, opts, (b, s, e, lineNo, cut) =>
    got.push(`${lineNo}${cut ? "!" : ""}:${b.toString("latin1", s, e)}`),
  );
  return { n, got };
}

/**
 * Runs `compare` on 300 random files of `pieces` (joined by line ends, with
 * or without a last one), written to `name` in the temp folder, each with a
 * read buffer of 64–9000 bytes (`chunkBytes`), so lines cross buffer refills.
 */
async function sameOnRandomFiles(
  pieces: readonly string[],
  name: string,
  compare: (p: string, chunkBytes: number) => Promise<void>,
): Promise<void> {
  const fc = await import("fast-check");
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.integer({ min: 0, max: pieces.length - 1 }), { maxLength: 60 }),
      fc.boolean(),
      fc.integer({ min: 64, max: 9000 }),
      async (picks, endNl, chunkBytes) => {
        const p = join(tmp, name);
        writeFileSync(p, picks.map((i) => pieces[i]).join("\n") + (endNl ? "\n" : ""));
        await compare(p, chunkBytes);
      },
    ),
    { numRuns: 300 },
  );
}
