/**
 * How a plain (not gzipped) file is read into the line readers' buffers
 * (DESIGN.md, performance): synchronously in the calling thread when that is
 * faster, else reading the next buffer-full ahead while the last is scanned.
 */
import { closeSync, open, openSync, read, readSync, statSync } from "node:fs";

/**
 * A regular file of at most this many bytes is read with synchronous reads; a
 * larger one is opened and its first buffer-full read so, then each further
 * read is asynchronous, so that it can fill one buffer while the caller scans
 * the other. Anything else (a FIFO, a device: it may wait for its writer) is
 * read asynchronously only.
 *
 * Measured on the benchmark's 2-core machine (README: Performance): an
 * asynchronous read is a round trip through libuv's thread pool and its data
 * is written from another core. On a cell's 200 MB over 30 files of 0.4 to 30 MB,
 * reading everything synchronously scanned 5 to 10 % faster than reading ahead
 * (and than reading ahead after a synchronous first read); on files of 125 MB,
 * reading ahead scanned 5 to 7 % faster than reading synchronously.
 */
export const SYNC_READ_MAX_BYTES = 32 << 20;

/** Fills `buf` from `start` on; resolves to the number of bytes put there (0 at the end of the input). */
export type Filler = (buf: Buffer, start: number) => Promise<number>;

/**
 * `path` as a {@link Filler} and its `close`. The file is opened on the first
 * fill (so an open error, ENOENT or EACCES, is that fill's rejection, as a
 * read error is); `onBytes` gets the bytes of each read. `close` closes the
 * file if it was opened; call it once, after the last fill has settled.
 */
export function fileFiller(
  path: string,
  onBytes: ((bytes: number) => void) | undefined,
): { fill: Filler; close: () => void } {
  let fd = -1;
  let ahead = false; // read asynchronously after the first fill
  const counted = (n: number): number => {
    if (onBytes && n > 0) onBytes(n);
    return n;
  };
  const readAhead = (buf: Buffer, start: number): Promise<number> =>
    new Promise((resolve, reject) => {
      read(fd, buf, start, buf.length - start, null, (err, n) => (err ? reject(err) : resolve(counted(n))));
    });
  const first = async (buf: Buffer, start: number): Promise<number> => {
    const st = statSync(path);
    if (!st.isFile()) {
      // A FIFO or a device may wait for its writer, even to open: never in this thread.
      ahead = true;
      fd = await new Promise<number>((resolve, reject) =>
        open(path, "r", (err, f) => (err ? reject(err) : resolve(f))),
      );
      return readAhead(buf, start);
    }
    fd = openSync(path, "r");
    // Nothing to overlap the first read of a large file with: it is read here too.
    ahead = st.size > SYNC_READ_MAX_BYTES;
    return counted(readSync(fd, buf, start, buf.length - start, null));
  };
  return {
    fill: (buf, start) => {
      if (fd < 0) return first(buf, start);
      if (ahead) return readAhead(buf, start);
      try {
        return Promise.resolve(counted(readSync(fd, buf, start, buf.length - start, null)));
      } catch (err) {
        return Promise.reject(err as Error);
      }
    },
    close: () => {
      if (fd >= 0) closeSync(fd);
      fd = -1;
    },
  };
}
