/**
 * `target.push(...items)` without the spread: a spread passes every item as
 * an argument, which overflows the call stack past about 120,000 items (a
 * large listing's observations, a corrupt log's warnings). Returns `target`.
 */
export function appendAll<T>(target: T[], items: readonly T[]): T[] {
  for (let i = 0; i < items.length; i += 1) target.push(items[i]!);
  return target;
}
