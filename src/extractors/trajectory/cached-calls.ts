/**
 * The build cache's form of scans whose records carry the call they count
 * (kimi-cli, kimi-code, pi): each call without its file name, which the cache
 * key already holds (the name repeated on every record would make an entry
 * half again as large), put back when the entry is read.
 */
import type { TokenCall } from "./types.js";

/** Copies of `records` whose calls have an empty `file` (same keys, same order). */
export function withoutFiles<R extends { call: TokenCall }>(records: readonly R[]): R[] {
  return records.map((r) => ({ ...r, call: { ...r.call, file: "" } }));
}

/** Puts `display` back as the `file` of every record's call (records just read from the cache); returns them. */
export function withFile<R extends { call: TokenCall }>(records: R[], display: string): R[] {
  for (const r of records) r.call.file = display;
  return records;
}
