/**
 * The JSON value check of the trajectory readers (json-bytes.ts `skipValue`;
 * TRAJECTORIES.md, "The quantity": a line that is not valid JSON is reported
 * and skipped, so a line read from its bytes must be proven valid) done in
 * WebAssembly (`json-skip.wat` beside this file) for a value that lies
 * in a marker search's memory (marker-scan.ts), where the line scanner read
 * it: a usage line's large values (a message's content) are checked there
 * without a copy, with the same grammar and the same answer.
 */
import { wasmModule } from "./wasm-module.js";

interface Exports {
  skip: (p: number, end: number, depth: number) => number;
}

/** The check for each memory tracked, by the memory's current buffer (a grown memory has a new one). */
const byBuffer = new WeakMap<ArrayBufferLike, Exports>();
const byMemory = new WeakMap<WebAssembly.Memory, Exports | null>();

/**
 * Makes the values in `memory` checkable by {@link skipInMemory}; call it
 * again after the memory grows (its buffer is then another). Does nothing
 * when json-skip.wasm is not built.
 */
export function trackJsonSkip(memory: WebAssembly.Memory): void {
  let ex = byMemory.get(memory);
  if (ex === undefined) {
    const mod = wasmModule("json-skip.wasm");
    try {
      ex = mod ? (new WebAssembly.Instance(mod, { search: { memory } }).exports as unknown as Exports) : null;
    } catch {
      ex = null;
    }
    byMemory.set(memory, ex);
  }
  if (ex !== null) byBuffer.set(memory.buffer, ex);
}

/**
 * The check of the JSON value at `b[i]` within `b[i, end)`, nested `depth`
 * deep (json-bytes.ts `skipValue`: the index just after the value, or -1 when
 * it is not valid JSON there or nests 64 deep or more), when `b` lies in a
 * tracked memory; undefined otherwise (the caller checks it in JavaScript).
 */
export function skipInMemory(b: Uint8Array, i: number, end: number, depth: number): number | undefined {
  const ex = byBuffer.get(b.buffer);
  if (ex === undefined) return undefined;
  const base = b.byteOffset;
  const r = ex.skip(base + i, base + Math.min(end, b.length), depth);
  return r < 0 ? -1 : r - base;
}
