import { createReadStream } from "node:fs";
import { createGunzip } from "node:zlib";
import { StringDecoder } from "node:string_decoder";

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

/**
 * Streams the lines of a file, decompressing it first when its name ends in
 * `.gz`. Memory stays flat whatever the file's size: only one chunk and the
 * current partial line are held.
 *
 * Handles `\r\n` line ends and a UTF-8 byte-order mark. A last line without a
 * line end is yielded with `unterminated: true` so that callers can join lines
 * split across rotated files (SOURCES.md: janitor) or report a cut-off line
 * (TRAJECTORIES.md).
 *
 * @throws the stream's error (ENOENT, or a zlib error for a corrupt `.gz`),
 *   after yielding every line read before it.
 */
export async function* readLines(path: string): AsyncGenerator<Line> {
  const raw = createReadStream(path);
  const stream = path.endsWith(".gz") ? raw.pipe(createGunzip()) : raw;
  raw.on("error", (err) => stream.destroy(err));
  let pending: Buffer[] = [];
  let pendingLen = 0;
  let lineNo = 0;
  let offset = 0;
  const decode = (buf: Buffer): string => {
    const decoder = new StringDecoder("utf8");
    let text = decoder.write(buf) + decoder.end();
    if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.endsWith("\r")) text = text.slice(0, -1);
    return text;
  };
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      const piece = chunk.subarray(start, nl);
      const whole = pendingLen === 0 ? piece : Buffer.concat([...pending, piece], pendingLen + piece.length);
      pending = [];
      pendingLen = 0;
      lineNo += 1;
      yield { text: decode(whole), lineNo, offset, unterminated: false };
      offset += whole.length + 1;
      start = nl + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      pending.push(rest);
      pendingLen += rest.length;
    }
  }
  if (pendingLen > 0) {
    lineNo += 1;
    yield { text: decode(Buffer.concat(pending, pendingLen)), lineNo, offset, unterminated: true };
  }
}
