import { open, stat } from "node:fs/promises";
import { createReadStream } from "node:fs";
import { createGunzip } from "node:zlib";

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

/** Options of {@link readLines}. All optional: without them every line is yielded. */
export interface ReadLinesOptions {
  /**
   * The fast path of the trajectory readers: when given, a line is yielded
   * only when it contains one of these byte strings, or when it is not
   * well-shaped (its first and last non-blank bytes are not `{` and `}`), or
   * when it is the file's unterminated last line. A well-shaped line without
   * any needle is skipped without being decoded. The needles must be a
   * necessary condition for a line to matter to the caller (e.g. the key or
   * type name a usage line always holds, as written without `\u` escapes).
   */
  needles?: readonly Buffer[];
  /**
   * With `needles`: a skipped line is yielded after all when it looks glued
   * (a line cut off and continued by the next record of an appending writer)
   * or when it holds a NUL byte (zero-filled blocks after a crash). The
   * record start `{"<first key>":` is learnt from the file's first line that
   * begins with `{"`; a line is glued when that record start appears inside
   * it right after a byte that cannot precede an object in JSON (not `:`,
   * `[`, `,` or a blank). Default true.
   */
  detectGlued?: boolean;
  /**
   * With `needles`: a cheap first look at each line (e.g. from its leading
   * members, see `leadingScalars`): `LINE_SKIP` (cannot matter), `LINE_TAKE`
   * (yield it) or `LINE_UNKNOWN` (decide by the needles). A skipped line is
   * still yielded when it is not well-shaped or looks glued (see below).
   */
  classify?: (buf: Buffer, start: number, end: number) => LineClass;
  /** Asked before each line while `needles` is set: true means "yield this line whatever it holds". */
  wantAll?: () => boolean;
  /** Called with the number of raw bytes read from disk (compressed bytes for `.gz`) as reading goes. */
  onBytes?: (bytes: number) => void;
  /** Filled in as reading goes: complete lines seen so far (yielded or skipped). */
  stats?: { lines: number };
  /** Size of the read buffer in bytes (default 4 MiB); it grows for a longer line. */
  chunkBytes?: number;
}

/** What {@link ReadLinesOptions.classify} says of a line. */
export type LineClass = 0 | 1 | 2;
/** The line cannot matter to the caller. */
export const LINE_SKIP: LineClass = 0;
/** The line must be yielded. */
export const LINE_TAKE: LineClass = 1;
/** Let the needles decide. */
export const LINE_UNKNOWN: LineClass = 2;

const DEFAULT_CHUNK = 4 << 20;
const BATCH_CHUNK = 256 << 10;

/** Fills `buf` from `start` on; resolves to the number of bytes put there (0 at the end of the input). */
type Filler = (buf: Buffer, start: number) => Promise<number>;

/**
 * Streams the lines of a file, decompressing it first when its name ends in
 * `.gz`. Memory stays flat whatever the file's size: one read buffer (4 MiB,
 * reused; grown only for a longer line) is held.
 *
 * Handles `\r\n` line ends and a UTF-8 byte-order mark. A last line without a
 * line end is yielded with `unterminated: true` so that callers can join lines
 * split across rotated files (SOURCES.md: janitor) or report a cut-off line
 * (TRAJECTORIES.md).
 *
 * With `opts.needles`, lines that cannot matter to the caller are skipped
 * without being decoded (see {@link ReadLinesOptions.needles}); line numbers
 * and offsets still count every line.
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
async function chunkFor(path: string, max: number): Promise<number> {
  if (path.endsWith(".gz")) return max;
  const size = await stat(path).then(
    (s) => s.size,
    () => max,
  );
  return Math.min(max, Math.max(64 << 10, size + 1));
}

/** Opens a file (gunzipped when its name ends in `.gz`) as a {@link Filler}. */
function openSource(
  path: string,
  onBytes: ((bytes: number) => void) | undefined,
): { fill: Filler; close: () => Promise<void> } {
  if (!path.endsWith(".gz")) {
    let fh: Awaited<ReturnType<typeof open>> | null = null;
    return {
      fill: async (buf, start) => {
        fh ??= await open(path, "r");
        const { bytesRead } = await fh.read(buf, start, buf.length - start, null);
        if (onBytes && bytesRead > 0) onBytes(bytesRead);
        return bytesRead;
      },
      close: async () => {
        await fh?.close();
      },
    };
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

function isBlank(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0b || b === 0x0c;
}

/** True when the first and last non-blank bytes of `buf[s, e)` are `{` and `}`. */
function wellShaped(buf: Buffer, s: number, e: number): boolean {
  while (s < e && isBlank(buf[s]!)) s += 1;
  while (e > s && isBlank(buf[e - 1]!)) e -= 1;
  return e - s >= 2 && buf[s] === 0x7b && buf[e - 1] === 0x7d;
}

async function* scan(fill: Filler, opts: ReadLinesOptions): AsyncGenerator<Line> {
  const needles = opts.needles;
  const wantAll = opts.wantAll;
  const stats = opts.stats;
  let buf = Buffer.allocUnsafe(opts.chunkBytes ?? DEFAULT_CHUNK);
  let carry = 0; // bytes of a partial line kept at buf[0, carry)
  let bufOffset = 0; // file offset of buf[0]
  let lineNo = 0;
  const classify = opts.classify;
  const allNeedles = needles ? [...needles] : [];
  const hits: number[] = allNeedles.map(() => -1);
  let nulHit = -1;
  const glue = needles !== undefined && opts.detectGlued !== false;
  let signature: Buffer | null = null;
  let learnt = !glue;
  let sigHit = -1;
  const decode = (view: Buffer, s: number, e: number): string => decodeLine(view, s, e, lineNo === 1);
  for (;;) {
    if (carry === buf.length) buf = doubled(buf, carry);
    const got = await fill(buf, carry);
    if (got === 0) break;
    const end = carry + got;
    const view = buf.subarray(0, end);
    for (let i = 0; i < hits.length; i += 1) hits[i] = -1;
    sigHit = -1;
    nulHit = -1;
    let p = 0;
    for (;;) {
      const nl = view.indexOf(0x0a, p);
      if (nl === -1) break;
      lineNo += 1;
      if (stats) stats.lines = lineNo;
      let take = true;
      if (!learnt && view[p] === 0x7b && view[p + 1] === 0x22) {
        // The record start: `{"` + the first key + `":`.
        const colon = view.indexOf('":', p + 2);
        if (colon !== -1 && colon < nl && colon - p <= 40) signature = Buffer.from(view.subarray(p, colon + 2));
        learnt = true;
      }
      if (needles && !(wantAll && wantAll())) {
        const cls = classify ? classify(view, p, nl) : LINE_UNKNOWN;
        take = cls === LINE_TAKE;
        if (cls === LINE_UNKNOWN) {
          for (let i = 0; i < allNeedles.length; i += 1) {
            let h = hits[i]!;
            if (h !== Infinity && h < p) {
              h = view.indexOf(allNeedles[i]!, p);
              if (h === -1) h = Infinity;
              hits[i] = h;
            }
            if (h < nl) {
              take = true;
              break;
            }
          }
        }
        if (!take && !wellShaped(view, p, nl)) take = true;
        if (!take) {
          if (nulHit !== Infinity && nulHit < p) {
            nulHit = view.indexOf(0, p);
            if (nulHit === -1) nulHit = Infinity;
          }
          if (nulHit < nl) take = true;
        }
        if (!take && signature !== null) {
          // Every record start inside the line must follow `:`, `[`, `,` or a blank.
          for (;;) {
            if (sigHit !== Infinity && sigHit <= p) {
              sigHit = view.indexOf(signature, p + 1);
              if (sigHit === -1) sigHit = Infinity;
            }
            if (sigHit >= nl) break;
            const before = view[sigHit - 1]!;
            if (before !== 0x3a && before !== 0x5b && before !== 0x2c && !isBlank(before)) {
              take = true;
              break;
            }
            sigHit = view.indexOf(signature, sigHit + 1);
            if (sigHit === -1) sigHit = Infinity;
          }
        }
      }
      if (take) yield { text: decode(view, p, nl), lineNo, offset: bufOffset + p, unterminated: false };
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
