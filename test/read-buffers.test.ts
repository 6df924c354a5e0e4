import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scanLines } from "../src/util/line-scan.js";
import { releaseReadBuffer, takeReadBuffer } from "../src/util/read-buffers.js";

describe("read buffers kept across files", () => {
  it("hands released memory out again, the smallest that fits, as a buffer of the size asked", () => {
    const big = takeReadBuffer(1 << 20);
    const small = takeReadBuffer(64 << 10);
    releaseReadBuffer(big);
    releaseReadBuffer(small);
    const a = takeReadBuffer(32 << 10);
    expect([a.length, a.buffer]).toEqual([32 << 10, small.buffer]);
    const b = takeReadBuffer(100 << 10);
    expect([b.length, b.buffer]).toEqual([100 << 10, big.buffer]);
    const fresh = takeReadBuffer(2 << 20);
    expect(fresh.buffer).not.toBe(big.buffer);
    expect(fresh.length).toBe(2 << 20);
    for (const x of [a, b, fresh]) releaseReadBuffer(x);
    expect([1, 2, 3].map(() => takeReadBuffer(1).buffer)).toEqual([small.buffer, big.buffer, fresh.buffer]);
  });

  it("keeps no memory it did not hand out (Node's shared pool), none over 16 MiB, at most four (the largest)", () => {
    const pooled = Buffer.allocUnsafe(16); // a slice of Node's shared pool: never to be handed out
    releaseReadBuffer(pooled);
    expect(takeReadBuffer(16).buffer).not.toBe(pooled.buffer);
    const huge = takeReadBuffer((16 << 20) + 1);
    releaseReadBuffer(huge);
    expect(takeReadBuffer(16 << 20).buffer).not.toBe(huge.buffer);
    const kept = [1, 2, 3, 4, 5].map((k) => takeReadBuffer(k << 10));
    for (const b of kept) releaseReadBuffer(b);
    const out = [1, 2, 3, 4, 5].map(() => takeReadBuffer(1).buffer);
    expect(out.slice(0, 4)).toEqual(kept.slice(1).map((b) => b.buffer));
    expect(kept.map((b) => b.buffer)).not.toContain(out[4]);
  });

  it("a buffer reused by the next file's scan shows nothing of the last file's lines", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ptb-read-buffers-"));
    const first = join(dir, "first.jsonl");
    const second = join(dir, "second.jsonl");
    writeFileSync(first, `${"x".repeat(5000)}\nlong line two ${"y".repeat(3000)}\n`);
    writeFileSync(second, "a\nbb\nccc"); // shorter, and cut off
    const lines = async (path: string, chunkBytes?: number): Promise<string[]> => {
      const got: string[] = [];
      await scanLines(path, { chunkBytes }, (buf, s, e, _n, cut) =>
        got.push(`${buf.toString("utf8", s, e)}${cut ? "!" : ""}`),
      );
      return got;
    };
    expect((await lines(first)).map((l) => l.length)).toEqual([5000, 3014]);
    expect(await lines(second)).toEqual(["a", "bb", "ccc!"]);
    // Two-byte buffers: every line is longer than a buffer and grows it, the cut-off line included.
    expect(await lines(second, 2)).toEqual(["a", "bb", "ccc!"]);
    expect((await lines(first, 2)).map((l) => l.length)).toEqual([5000, 3014]);
  });

  it("a visitor that throws stops the scan with its error; the next scan reads the file whole", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ptb-read-buffers-"));
    const p = join(dir, "many.jsonl");
    writeFileSync(p, "line\n".repeat(100_000));
    await expect(
      scanLines(p, { chunkBytes: 4096 }, (_b, _s, _e, lineNo) => {
        if (lineNo === 2000) throw new Error("stop at 2000");
      }),
    ).rejects.toThrow("stop at 2000");
    let seen = 0;
    expect(await scanLines(p, { chunkBytes: 4096 }, () => (seen += 1))).toBe(100_000);
    expect(seen).toBe(100_000);
  });
});
