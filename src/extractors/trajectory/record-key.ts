/**
 * The time part of a record's de-duplication key (TRAJECTORIES.md,
 * "kimi-code": records are matched by time + model + scope + usage), as a
 * value compared with `===`: two records' times match exactly when their
 * texts (`String(time ?? "-")`) are equal.
 */

/**
 * The key of a record's raw `time` (any JSON value, undefined when absent):
 * a finite number when `String(time ?? "-")` is a number's text (a number
 * itself, or a string such as "1700000000000"; -0 as 0), else that text.
 * `timeKey(a) === timeKey(b)` exactly when `String(a ?? "-") === String(b ?? "-")`;
 * the key survives JSON (the build cache) unchanged.
 */
export function timeKey(time: unknown): number | string {
  if (typeof time === "number" && Number.isFinite(time)) return time === 0 ? 0 : time;
  const text = String(time ?? "-");
  const n = Number(text);
  return Number.isFinite(n) && String(n) === text ? n : text;
}
