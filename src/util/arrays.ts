/**
 * `target.push(...items)` without the spread: a spread passes every item as
 * an argument, which overflows the call stack past about 120,000 items (a
 * large listing's observations, a corrupt log's warnings). Returns `target`.
 */
export function appendAll<T>(target: T[], items: readonly T[]): T[] {
  for (let i = 0; i < items.length; i += 1) target.push(items[i]!);
  return target;
}

/** The median of a non-empty list of numbers (the mean of the middle two for an even count); the list is not changed. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
}
