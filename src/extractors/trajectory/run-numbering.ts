/**
 * The items of a run's files (usage lines, records) numbered in file order,
 * so that the cross-file merges (TRAJECTORIES.md: a call seen in several
 * files counts once) index them with one integer: file i's k-th item is
 * number `start[i] + k`.
 */
export class RunNumbering<T> {
  /** `start[i]`: the number of file i's first item; `start[files]` is the total. */
  readonly start: Int32Array;
  /** The number of items in all the files. */
  readonly total: number;

  /** @param lists each file's items, in file order. */
  constructor(private readonly lists: readonly (readonly T[])[]) {
    this.start = new Int32Array(lists.length + 1);
    for (let i = 0; i < lists.length; i += 1) this.start[i + 1] = this.start[i]! + lists[i]!.length;
    this.total = this.start[lists.length]!;
  }

  /** The file (index) of item `n` (0 ≤ n < total); files with no item are never the answer. */
  fileOf(n: number): number {
    let lo = 0;
    let hi = this.lists.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.start[mid]! <= n) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Item `n` (0 ≤ n < total). */
  at(n: number): T {
    const i = this.fileOf(n);
    return this.lists[i]![n - this.start[i]!]!;
  }
}
