/**
 * The trajectory readers' fast path (issue 7) changes no result: every sample
 * and every embedded trajectory gives the same calls and warnings with the
 * fast path on and off; the line reader's filter keeps every line that can
 * matter (needles, broken shapes, glued lines, NUL bytes, cut-off last line).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readTrajectory, TRAJECTORY_FORMATS, type TrajectoryFormat } from "../src/extractors/trajectory/index.js";
import { setTrajectoryFastPath } from "../src/extractors/trajectory/common.js";
import { LINE_SKIP, LINE_TAKE, LINE_UNKNOWN, scanLines, type LineScanOptions } from "../src/util/line-scan.js";
import { LeadingScalarReader } from "../src/util/json-prefix.js";

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
  return out;
}

describe("scanLines filter", () => {
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

  it("hands every line over without a filter, and wantAll lines in the fast path", async () => {
    const text = `${[ok("a"), ok("b"), ok("c")].join("\n")}\n`;
    expect(await kept(text, {})).toEqual([1, 2, 3]);
    let n = 0;
    expect(await kept(text, { markers, wantAll: () => n++ < 2 })).toEqual([1, 2]);
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
