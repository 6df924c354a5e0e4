/**
 * The WebAssembly SIMD marker search of the trajectory line scanner (source:
 * `marker-scan.wat` beside this file, assembled into dist/ by
 * scripts/build-wasm.ts). It finds, 16 bytes a step, every place in a
 * buffer-full where the scanner must look (a needle, a NUL byte, a line end
 * whose line may not be `{…}`) and counts the line ends before each, so the
 * lines between are never visited one by one.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const NEEDLE_REC = 64;
const MAX_NEEDLES = 2;
const MAX_NEEDLE_LEN = 28;
const EV = MAX_NEEDLES * NEEDLE_REC;
const MAX_EV = 1 << 16;
const BASE = EV + MAX_EV * 8 + 64; // 16 guard bytes before, 64 pad bytes after the data
const PAD = 64;
const PAGE = 1 << 16;

interface Exports {
  memory: WebAssembly.Memory;
  scan: (base: number, n: number, from: number, ev: number, maxEv: number) => number;
  nl: WebAssembly.Global;
  resume: WebAssembly.Global;
  needles: WebAssembly.Global;
}

/**
 * One round of events of {@link MarkerSearch}: `count` events, the k-th at
 * `pos(k)` (offset into the view given to `begin`) with `nl(k)` line ends
 * between the scanned range's start and it.
 */
export class MarkerSearch {
  private bytes: Uint8Array;
  private ints: Int32Array;
  private n = 0;
  private from = 0;
  private offset = 0;
  private lines = 0;
  /** Line ends counted before the current round. */
  private roundLines = 0;
  /** Number of events of the last {@link next}. */
  count = 0;

  private constructor(private readonly ex: Exports) {
    this.bytes = new Uint8Array(ex.memory.buffer);
    this.ints = new Int32Array(ex.memory.buffer);
  }

  /**
   * The search, loaded once, or null when its .wasm is not there (a checkout
   * not built) or the engine has no WebAssembly SIMD: the scanner then
   * searches with `Buffer.indexOf`, with the same result.
   */
  static load(): MarkerSearch | null {
    if (loaded !== undefined) return loaded;
    loaded = null;
    for (const rel of ["./marker-scan.wasm", "../../dist/util/marker-scan.wasm"]) {
      const path = fileURLToPath(new URL(rel, import.meta.url));
      if (!existsSync(path)) continue;
      try {
        const mod = new WebAssembly.Module(readFileSync(path));
        loaded = new MarkerSearch(new WebAssembly.Instance(mod).exports as unknown as Exports);
      } catch {
        loaded = null;
      }
      break;
    }
    return loaded;
  }

  /**
   * True when the needles fit the search: one or two, each 2–28 bytes, none
   * holding a `{` (the pad after the data is `{`, so a step may read past the
   * data's end without finding anything there).
   */
  static fits(needles: readonly Buffer[]): boolean {
    return (
      needles.length >= 1 &&
      needles.length <= MAX_NEEDLES &&
      needles.every((n) => n.length >= 2 && n.length <= MAX_NEEDLE_LEN && !n.includes(0x7b))
    );
  }

  /**
   * Copies `view[from, end)` into the search's memory and sets the needles
   * (see {@link fits}); the events are then read round by round with {@link next}.
   */
  begin(view: Uint8Array, from: number, end: number, needles: readonly Buffer[]): void {
    const n = end - from;
    const need = BASE + n + PAD;
    const mem = this.ex.memory;
    if (mem.buffer.byteLength < need) {
      mem.grow(Math.ceil((need - mem.buffer.byteLength) / PAGE));
      this.bytes = new Uint8Array(mem.buffer);
      this.ints = new Int32Array(mem.buffer);
    }
    const bytes = this.bytes;
    const ints = this.ints;
    needles.forEach((needle, j) => {
      const rec = j * NEEDLE_REC;
      // The four bytes that pick candidates: the first two and the last two.
      const r = rec >> 2;
      ints[r] = needle.length;
      [0, 1, needle.length - 2, needle.length - 1].forEach((o, q) => {
        ints[r + 1 + 2 * q] = o;
        ints[r + 2 + 2 * q] = needle[o]!;
      });
      bytes.set(needle, rec + 36);
    });
    this.ex.needles.value = needles.length;
    bytes.fill(0x7d, BASE - 16, BASE);
    bytes.set(view.subarray(from, end), BASE);
    bytes.fill(0x7b, BASE + n, BASE + n + PAD);
    this.n = n;
    this.from = 0;
    this.offset = from;
    this.lines = 0;
  }

  /** Finds the next round of events; false when the range is done. */
  next(): boolean {
    if (this.from >= this.n) return false;
    this.roundLines = this.lines;
    this.count = this.ex.scan(BASE, this.n, this.from, EV, MAX_EV);
    this.from = this.ex.resume.value as number;
    this.lines += this.ex.nl.value as number;
    return true;
  }

  /** Offset (into the view given to {@link begin}) of the k-th event of the round. */
  pos(k: number): number {
    return this.ints[(EV >> 2) + 2 * k]! + this.offset;
  }

  /** Line ends between the range's start and the k-th event of the round. */
  nl(k: number): number {
    return this.ints[(EV >> 2) + 2 * k + 1]! + this.roundLines;
  }

  /** Line ends in the whole range scanned so far. */
  get newlines(): number {
    return this.lines;
  }
}

let loaded: MarkerSearch | null | undefined;
