/**
 * The WebAssembly SIMD marker search of the trajectory line scanner (source:
 * `marker-scan.wat` beside this file, assembled into dist/ by
 * scripts/build-wasm.ts). It finds, 16 bytes a step, every place in a
 * buffer-full where the scanner must look (a needle, a NUL byte, a line end
 * whose line may not be `{…}`) and counts the line ends before each, so the
 * lines between are never visited one by one.
 *
 * The data is searched where it lies when the scanner read it into one of
 * the search's own two buffers ({@link MarkerSearch.takeRegion}: no copy,
 * and no second buffer-full of fresh memory); any other view is copied into
 * the shared search's memory first ({@link MarkerSearch.load}).
 */
import { wasmModule } from "./wasm-module.js";
import { trackJsonSkip } from "./json-skip.js";
import { KeptBySize } from "./kept-by-size.js";

const NEEDLE_REC = 64;
const MAX_NEEDLES = 2;
const MAX_NEEDLE_LEN = 28;
const EV = MAX_NEEDLES * NEEDLE_REC;
const MAX_EV = 1 << 16;
const BASE = EV + MAX_EV * 8 + 64; // 16 guard bytes before, 64 pad bytes after the data
const PAD = 64;
const GUARD = 16;
const PAGE = 1 << 16;
/** At most this many searches with their own buffers are kept per thread for the next file. */
const KEEP_REGIONS = 2;

interface Exports {
  memory: WebAssembly.Memory;
  scan: (base: number, n: number, from: number, ev: number, maxEv: number) => number;
  nl: WebAssembly.Global;
  resume: WebAssembly.Global;
  needles: WebAssembly.Global;
  allNl: WebAssembly.Global;
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
  /** Where the range of the current round starts in memory. */
  private base = BASE;
  /** With its own buffers ({@link takeRegion}): their size (each), else 0. */
  private regionBytes = 0;
  /** Searches with their own buffers, kept for the next file (this thread's). */
  private static readonly regions = new KeptBySize<MarkerSearch>(KEEP_REGIONS, (s) => s.regionBytes);

  private constructor(private readonly ex: Exports) {
    this.bytes = new Uint8Array(ex.memory.buffer);
    this.ints = new Int32Array(ex.memory.buffer);
    trackJsonSkip(ex.memory);
  }

  /**
   * The search, loaded once, or null when its .wasm is not there (a checkout
   * not built) or the engine has no WebAssembly SIMD: the scanner then
   * searches with `Buffer.indexOf`, with the same result.
   */
  static load(): MarkerSearch | null {
    if (loaded !== undefined) return loaded;
    loaded = MarkerSearch.instance();
    return loaded;
  }

  private static instance(): MarkerSearch | null {
    const mod = wasmModule("marker-scan.wasm");
    if (mod === null) return null;
    try {
      return new MarkerSearch(new WebAssembly.Instance(mod).exports as unknown as Exports);
    } catch {
      return null; // no WebAssembly SIMD
    }
  }

  /**
   * A search with two read buffers of its own, `a` and `b`, of exactly
   * `bytes` bytes each, in its memory (kept from an earlier file: the smallest
   * large enough): what the scanner reads into them is searched where it
   * lies. Its memory never grows after this, so the buffers stay valid
   * (also while a read fills one) until {@link releaseRegion}. Null where
   * {@link load} would be, or when a new instance cannot be made.
   *
   * @throws RangeError when its memory cannot grow to two buffers of `bytes`.
   */
  static takeRegion(bytes: number): { search: MarkerSearch; a: Buffer; b: Buffer } | null {
    const kept = MarkerSearch.regions.take(bytes);
    const search = kept ?? MarkerSearch.instance();
    if (search === null) return null;
    if (kept === undefined) {
      const mem = search.ex.memory;
      const need = BASE + 2 * (bytes + PAD + GUARD);
      if (mem.buffer.byteLength < need) mem.grow(Math.ceil((need - mem.buffer.byteLength) / PAGE));
      trackJsonSkip(mem); // values read into the buffers are checked where they lie
      search.bytes = new Uint8Array(mem.buffer);
      search.ints = new Int32Array(mem.buffer);
      search.regionBytes = bytes;
      // The guard bytes before each buffer (`}`: nothing there makes an event).
      search.bytes.fill(0x7d, BASE - GUARD, BASE);
      search.bytes.fill(0x7d, search.otherBase() - GUARD, search.otherBase());
    }
    const buffer = search.ex.memory.buffer;
    return { search, a: Buffer.from(buffer, BASE, bytes), b: Buffer.from(buffer, search.otherBase(), bytes) };
  }

  /** Keeps `search`, from {@link takeRegion}, for a later file; no read may be filling its buffers any more. */
  static releaseRegion(search: MarkerSearch): void {
    if (search.regionBytes > 0) MarkerSearch.regions.put(search);
  }

  /** Where the second of its own buffers starts. */
  private otherBase(): number {
    return BASE + this.regionBytes + PAD + GUARD;
  }

  /** True when `view` lies in one of this search's own buffers ({@link takeRegion}). */
  owns(view: Uint8Array): boolean {
    return this.regionBytes > 0 && view.buffer === this.ex.memory.buffer;
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
   * Sets the range `view[from, end)` to search and the needles (see
   * {@link fits}); the events are then read round by round with {@link next}.
   * A view of one of the search's own buffers is searched in place: the
   * bytes after `end` up to 64 past it are overwritten (the caller is done
   * with them). Any other view is copied into the search's memory, which
   * only the shared search ({@link load}) does. With `allLineEnds`, every
   * line end is an event, not only those of lines that may not be `{…}`,
   * and a needle right after a line end and `{` (a line's own start) is not.
   */
  begin(view: Uint8Array, from: number, end: number, needles: readonly Buffer[], allLineEnds = false): void {
    const n = end - from;
    const inPlace = this.owns(view);
    if (!inPlace) {
      if (this.regionBytes > 0) throw new Error("a search with its own buffers searches only them");
      const need = BASE + n + PAD;
      const mem = this.ex.memory;
      if (mem.buffer.byteLength < need) {
        mem.grow(Math.ceil((need - mem.buffer.byteLength) / PAGE));
        trackJsonSkip(mem);
        this.bytes = new Uint8Array(mem.buffer);
        this.ints = new Int32Array(mem.buffer);
      }
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
    this.ex.allNl.value = allLineEnds ? 1 : 0;
    if (inPlace) this.base = view.byteOffset + from;
    else {
      this.base = BASE;
      bytes.fill(0x7d, BASE - GUARD, BASE);
      bytes.set(view.subarray(from, end), BASE);
    }
    bytes.fill(0x7b, this.base + n, this.base + n + PAD);
    this.n = n;
    this.from = 0;
    this.offset = from;
    this.lines = 0;
  }

  /** Finds the next round of events; false when the range is done. */
  next(): boolean {
    if (this.from >= this.n) return false;
    this.roundLines = this.lines;
    this.count = this.ex.scan(this.base, this.n, this.from, EV, MAX_EV);
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
