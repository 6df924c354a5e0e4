/**
 * The line scanner's read buffers, kept for the next file (DESIGN.md,
 * performance). A fresh multi-megabyte buffer is fresh memory from the
 * kernel: its first fill page-faults every 4 KiB page, which on this kind of
 * virtual machine costs more than the read itself. A cell's trajectory is
 * tens of files read one after another, so each thread keeps a few buffers'
 * memory and hands it out again.
 */
import { KeptBySize } from "./kept-by-size.js";

/** At most this many buffers are kept per thread. */
const KEEP = 4;
/** A buffer larger than this (grown for a very long line) is not kept. */
const KEEP_MAX_BYTES = 16 << 20;

/** Memory handed out by {@link takeReadBuffer} (never Node's shared small-buffer pool). */
const owned = new WeakSet<ArrayBufferLike>();
const spare = new KeptBySize<ArrayBufferLike>(KEEP, (m) => m.byteLength);

/**
 * A buffer of exactly `bytes` bytes (its content is garbage), on kept memory
 * when some is large enough (the smallest such), else on new memory. Give it
 * back with {@link releaseReadBuffer} when the reading is done.
 */
export function takeReadBuffer(bytes: number): Buffer {
  const kept = spare.take(bytes);
  if (kept !== undefined) return Buffer.from(kept, 0, bytes);
  const buf = Buffer.allocUnsafeSlow(bytes); // its own memory, never a slice of a shared pool
  owned.add(buf.buffer);
  return buf;
}

/**
 * Keeps the memory of `buf`, a buffer from {@link takeReadBuffer} (any
 * other is ignored), for a later take: at most a few per thread, the largest
 * kept, none over 16 MiB. The caller must hold no view of it any more.
 */
export function releaseReadBuffer(buf: Buffer): void {
  const memory = buf.buffer;
  if (!owned.has(memory) || memory.byteLength > KEEP_MAX_BYTES) return;
  spare.put(memory);
}
