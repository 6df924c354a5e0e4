import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fileFiller, SYNC_READ_MAX_BYTES } from "../src/util/file-reads.js";

const dir = mkdtempSync(join(tmpdir(), "ptb-file-reads-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every byte `path` gives through fileFiller, read into a buffer of `chunk` bytes at a time, and the bytes onBytes was told. */
async function readAll(path: string, chunk: number): Promise<{ bytes: Buffer; told: number; fills: number }> {
  let told = 0;
  const file = fileFiller(path, (n) => {
    told += n;
  });
  const parts: Buffer[] = [];
  let fills = 0;
  try {
    const buf = Buffer.alloc(chunk);
    for (;;) {
      // Start at 3 as the line readers start after a carried partial line.
      const got = await file.fill(buf, 3);
      fills += 1;
      if (got === 0) break;
      parts.push(Buffer.from(buf.subarray(3, 3 + got)));
    }
  } finally {
    file.close();
  }
  return { bytes: Buffer.concat(parts), told, fills };
}

/** `n` bytes that differ from one position to the next, so a misplaced read shows. */
function pattern(n: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i += 1) b[i] = (i * 7 + (i >> 11)) & 0xff;
  return b;
}

describe("fileFiller", () => {
  it("reads a small file whole, in order, telling every byte", async () => {
    const path = join(dir, "small.bin");
    const data = pattern(200_003);
    writeFileSync(path, data);
    const got = await readAll(path, 65_539);
    expect(got.bytes.equals(data)).toBe(true);
    expect(got.told).toBe(200_003);
    expect(got.fills).toBe(Math.ceil(200_003 / 65_536) + 1);
  });

  it("reads a file larger than SYNC_READ_MAX_BYTES (read ahead) whole and in order", async () => {
    const path = join(dir, "large.bin");
    const data = pattern(SYNC_READ_MAX_BYTES + 1_000_001);
    writeFileSync(path, data);
    const got = await readAll(path, 1 << 20);
    expect(got.bytes.equals(data)).toBe(true);
    expect(got.told).toBe(data.length);
  });

  it("an empty file gives 0 at once", async () => {
    const path = join(dir, "empty.bin");
    writeFileSync(path, "");
    expect(await readAll(path, 4096)).toEqual({ bytes: Buffer.alloc(0), told: 0, fills: 1 });
  });

  it("a missing file is the first fill's rejection (ENOENT), not a throw, and close is then a no-op", async () => {
    const file = fileFiller(join(dir, "missing.jsonl"), undefined);
    let promise: Promise<number> | undefined;
    expect(() => {
      promise = file.fill(Buffer.alloc(16), 0);
    }).not.toThrow();
    await expect(promise).rejects.toMatchObject({ code: "ENOENT" });
    expect(() => file.close()).not.toThrow();
  });

  it("a folder is a rejection (EISDIR) from the read, as before", async () => {
    const file = fileFiller(dir, undefined);
    await expect(file.fill(Buffer.alloc(16), 0)).rejects.toMatchObject({ code: "EISDIR" });
    file.close();
  });

  it.skipIf(spawnSync("mkfifo", ["--version"]).status !== 0)(
    "a FIFO is opened and read off the calling thread: its writer, in that same thread, is not blocked",
    () => {
      const fifo = join(dir, "pipe");
      expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
      // In a child, which a blocked thread cannot stop from being killed: were the open or a read done
      // in its one thread, it would wait for a writer that cannot start, and be killed after 10 s.
      const script = `
        import { open } from "node:fs/promises";
        import { fileFiller } from ${JSON.stringify(join(import.meta.dirname, "../src/util/file-reads.ts"))};
        const file = fileFiller(process.argv[1], undefined);
        const buf = Buffer.alloc(4096);
        const reading = (async () => { let s = ""; for (let n; (n = await file.fill(buf, 0)) > 0; ) s += buf.toString("utf8", 0, n); return s; })();
        const writer = await open(process.argv[1], "w");
        await writer.write("line one\\nline two\\n");
        await writer.close();
        process.stdout.write(JSON.stringify(await reading));
        file.close();
      `;
      const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, fifo], {
        encoding: "utf8",
        timeout: 10_000,
      });
      expect(run.stderr).toBe("");
      expect(run.signal).toBe(null);
      expect(JSON.parse(run.stdout)).toBe("line one\nline two\n");
    },
    20_000,
  );
});
