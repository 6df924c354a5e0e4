/**
 * Things kept for reuse by size (read buffers' memory, a search's buffers),
 * so that the next file does not touch fresh memory (DESIGN.md,
 * performance): the smallest kept one that is large enough is taken; at most
 * a few are kept, the largest.
 */
export class KeptBySize<T> {
  private readonly items: T[] = [];

  /**
   * @param keep at most this many are kept.
   * @param size the size of a thing (bytes).
   */
  constructor(
    private readonly keep: number,
    private readonly size: (item: T) => number,
  ) {}

  /** The smallest kept thing of at least `bytes`, taken out of the kept ones; undefined when none is. */
  take(bytes: number): T | undefined {
    let pick = -1;
    for (let i = 0; i < this.items.length; i += 1) {
      const size = this.size(this.items[i]!);
      if (size >= bytes && (pick === -1 || size < this.size(this.items[pick]!))) pick = i;
    }
    return pick === -1 ? undefined : this.items.splice(pick, 1)[0];
  }

  /** Keeps `item` for a later {@link take} (once, however often it is given); past `keep`, the smallest go. */
  put(item: T): void {
    if (this.items.includes(item)) return;
    this.items.push(item);
    if (this.items.length > this.keep) {
      this.items.sort((a, b) => this.size(b) - this.size(a));
      this.items.length = this.keep;
    }
  }
}
