import { Writable } from "node:stream";

/** A stream that records what is written to it, with `text()` to read it back. */
export type FakeStream = NodeJS.WriteStream & { text: () => string };

/**
 * A writable stream that stands in for `process.stdout`/`process.stderr`:
 * a terminal of 120 × 40 (`isTTY`, `columns`, `rows` and no-op cursor
 * methods) when `tty` is true, a pipe otherwise; `text()` returns all that
 * was written, joined.
 */
export function fakeStream(tty: boolean): FakeStream {
  const chunks: string[] = [];
  const w = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  }) as unknown as FakeStream;
  Object.assign(w, {
    isTTY: tty,
    columns: 120,
    rows: 40,
    cursorTo: () => true,
    clearLine: () => true,
    moveCursor: () => true,
    clearScreenDown: () => true,
  });
  w.text = () => chunks.join("");
  return w;
}

/** A {@link fakeStream} that is a terminal. */
export const fakeTty = (): FakeStream => fakeStream(true);
