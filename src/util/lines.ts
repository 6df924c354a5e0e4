import { createReadStream, statSync } from "node:fs";
import { createGunzip } from "node:zlib";
import { fileFiller, type Filler } from "./file-reads.js";

/** One line of a text file, as read by {@link readLines}. */
export interface Line {
  /** The line's text, without its line end (`\n` or `\r\n`) and without a leading UTF-8 BOM. */
  text: string;
  /** 1-based line number. */
  lineNo: number;
  /** Byte offset of the line's first byte in the (decompressed) file. */
  offset: number;
  /** True for a last line that has no line end (a file cut off mid-line). */
  unterminated: boolean;
}

/** Options of {@link readLines}. */
export interface ReadLinesOptions {
  /** Called with the number of raw bytes read from disk (compressed bytes for `.gz`) as reading goes. */
  onBytes?: (bytes: number) => void;
  /** Size of the read buffer in bytes (default 4 MiB); it grows for a longer line. */
  chunkBytes?: number;
}

const DEFAULT_CHUNK = 4 << 20;
const BATCH_CHUNK = 256 << 10;

/**
 * Streams the lines of a file, decompressing it first when its name ends in
 * `.gz`. Memory stays flat whatever the file's size: one read buffer (4 MiB,
 * reused; grown only for a longer line) is held.
 *
 * Handles `\r\n` line ends and a UTF-8 byte-order mark. A last line without a
 * line end is yielded with `unterminated: true` so that callers can join lines
 * split across rotated files (SOURCES.md: janitor) or report a cut-off line
 * (TRAJECTORIES.md).

 * (The trajectory readers use `scanLines` of `line-scan.ts` instead, which
 * hands over only the lines that can matter.)
 *
 * @throws the read error (ENOENT, or a zlib error for a corrupt `.gz`),
 *   after yielding every line read before it.
 */
export async function* readLines(path: string, opts: ReadLinesOptions = {}): AsyncGenerator<Line> {
  const source = openSource(path, opts.onBytes);
  try {
    const chunkBytes = await chunkFor(path, opts.chunkBytes ?? DEFAULT_CHUNK);
    yield* scan(source.fill, { ...opts, chunkBytes });
  } finally {
    await source.close();
  }
}

/**
 * Like {@link readLines} without a filter, but yields the lines of each
 * buffer-full at once (an array, in order): for readers that handle millions of
 * short lines (PVC listings, janitor logs), where one `await` per line would
 * cost more than the line. Same errors, after the lines read before them.
 */
export async function* readLineBatches(
  path: string,
  opts: { onBytes?: (bytes: number) => void; chunkBytes?: number } = {},
): AsyncGenerator<Line[]> {
  const source = openSource(path, opts.onBytes);
  try {
    // Small batches: their lines die young, which keeps the garbage collector cheap.
    let buf = Buffer.allocUnsafe(await chunkFor(path, opts.chunkBytes ?? BATCH_CHUNK));
    let carry = 0;
    let bufOffset = 0;
    let lineNo = 0;
    const decode = (view: Buffer, s: number, e: number): string => decodeLine(view, s, e, lineNo === 1);
    for (;;) {
      if (carry === buf.length) buf = doubled(buf, carry);
      const got = await source.fill(buf, carry);
      if (got === 0) break;
      const end = carry + got;
      const view = buf.subarray(0, end);
      const batch: Line[] = [];
      let p = 0;
      for (;;) {
        const nl = view.indexOf(0x0a, p);
        if (nl === -1) break;
        lineNo += 1;
        batch.push({ text: decode(view, p, nl), lineNo, offset: bufOffset + p, unterminated: false });
        p = nl + 1;
      }
      if (p > 0) {
        buf.copy(buf, 0, p, end);
        bufOffset += p;
      }
      carry = end - p;
      if (batch.length > 0) yield batch;
    }
    if (carry > 0) {
      lineNo += 1;
      yield [{ text: decode(buf, 0, carry), lineNo, offset: bufOffset, unterminated: true }];
    }
  } finally {
    await source.close();
  }
}

/**
 * The read buffer's size for `path`: `max` for a large or compressed file, the
 * file's size (at least 64 KiB) for a small one, so that reading many small
 * files does not allocate a large buffer each.
 */
export async function chunkFor(path: string, max: number): Promise<number> {
  if (path.endsWith(".gz")) return max;
  let size = max;
  try {
    size = statSync(path).size; // in this thread: a thread-pool round trip costs more than the stat
  } catch {
    // unreadable: the read says why
  }
  return Math.min(max, Math.max(64 << 10, size + 1));
}

/** Opens a file (gunzipped when its name ends in `.gz`) as a {@link Filler} (see {@link fileFiller}). */
export function openSource(
  path: string,
  onBytes: ((bytes: number) => void) | undefined,
): { fill: Filler; close: () => Promise<void> } {
  if (!path.endsWith(".gz")) {
    const file = fileFiller(path, onBytes);
    return { fill: file.fill, close: async () => file.close() };
  }
  const raw = createReadStream(path, { highWaterMark: 1 << 20 });
  const gunzip = createGunzip({ chunkSize: 1 << 20 });
  raw.on("error", (err) => gunzip.destroy(err));
  if (onBytes) raw.on("data", (c) => onBytes((c as Buffer).length));
  raw.pipe(gunzip);
  const it = (gunzip as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  let left: Buffer | null = null;
  return {
    fill: async (buf, start) => {
      let put = 0;
      while (start + put < buf.length) {
        if (left === null || left.length === 0) {
          if (put > 0) break;
          const r = await it.next();
          if (r.done) break;
          left = r.value;
          continue;
        }
        const n = left.copy(buf, start + put);
        left = left.subarray(n);
        put += n;
      }
      return put;
    },
    close: async () => {
      raw.destroy();
      gunzip.destroy();
    },
  };
}

async function* scan(fill: Filler, opts: ReadLinesOptions): AsyncGenerator<Line> {
  let buf = Buffer.allocUnsafe(opts.chunkBytes ?? DEFAULT_CHUNK);
  let carry = 0; // bytes of a partial line kept at buf[0, carry)
  let bufOffset = 0; // file offset of buf[0]
  let lineNo = 0;
  const decode = (view: Buffer, s: number, e: number): string => decodeLine(view, s, e, lineNo === 1);
  for (;;) {
    if (carry === buf.length) buf = doubled(buf, carry);
    const got = await fill(buf, carry);
    if (got === 0) break;
    const end = carry + got;
    const view = buf.subarray(0, end);
    let p = 0;
    for (;;) {
      const nl = view.indexOf(0x0a, p);
      if (nl === -1) break;
      lineNo += 1;
      yield { text: decode(view, p, nl), lineNo, offset: bufOffset + p, unterminated: false };
      p = nl + 1;
    }
    // Keep the partial last line at the front of the buffer.
    if (p > 0) {
      buf.copy(buf, 0, p, end);
      bufOffset += p;
    }
    carry = end - p;
  }
  if (carry > 0) {
    lineNo += 1;
    yield { text: decode(buf, 0, carry), lineNo, offset: bufOffset, unterminated: true };
  }
}

/** One line's text from `view[s, e)`: UTF-8, without a trailing `\r`, and without a BOM on the first line. */
function decodeLine(view: Buffer, s: number, e: number, firstLine: boolean): string {
  let text = view.toString("utf8", s, e);
  if (firstLine && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.endsWith("\r")) text = text.slice(0, -1);
  return text;
}

/** A buffer twice as large holding the first `used` bytes of `buf` (a line longer than the buffer). */
function doubled<B extends Buffer>(buf: B, used: number): B {
  const bigger = Buffer.allocUnsafe(buf.length * 2);
  buf.copy(bigger, 0, 0, used);
  return bigger as B;
}
