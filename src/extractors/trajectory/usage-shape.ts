/**
 * Usage objects read against their format's key shape (TRAJECTORIES.md: each
 * format's usage keys): required, optional and known-uncounted keys,
 * breakdowns, sums and bounds; counts that cannot be read are skipped with a
 * warning, never read as 0.
 */
import { cmpStr } from "../../util/values.js";
import type { Diagnostics } from "../../diagnostics.js";
import { isObject, obj } from "./common.js";

/**
 * A token count: a finite number ≥ 0 (rounded to an integer); `undefined` when
 * absent or null; `NaN` when present but not a usable count (the caller warns).
 */
function count(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  // Token counts are whole numbers a double holds exactly: a fraction or 1e20 is a bad value, not a count.
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) return Number.NaN;
  return value;
}

/**
 * The key set of one format's usage object (TRAJECTORIES.md, the format's
 * section, and what its real logs carry).
 * - `required`: count keys the format always writes; a usage object that lacks
 *   one (absent or null) has counts that cannot be read.
 * - `optional`: count keys that some versions or gateways leave out (0 when absent).
 * - `known`: other keys real logs carry (derived totals, costs, tiers, nested
 *   breakdowns): never counted, never warned about.
 * Any other key with a numeric value is a key the format does not define.
 */
export interface UsageShape<K extends string> {
  required: readonly K[];
  optional: readonly K[];
  known: readonly string[];
  /**
   * Breakdown objects (e.g. claude-code `cache_creation`): their numeric
   * members sum to the count key `total`. A record holding the object is of a
   * version that writes `requires` (which include `total`): one of them absent
   * is a missing count (unreadable), never 0. A present `total` that differs
   * from the breakdown's sum is a mismatch (warned, counted from `total`).
   */
  breakdowns?: readonly { object: string; total: K; requires: readonly K[] }[];
  /** Written totals (`total`, a known key) that, when present, equal the sum of count keys `parts`; else a mismatch (warned). */
  sums?: readonly { total: string; parts: readonly K[] }[];
  /**
   * Parts contained in a whole (count or known keys): the sum of the present
   * `parts` may not exceed `whole`. A record breaking it contradicts its
   * format (the keys do not mean what the format's do): unreadable, never clamped.
   */
  bounds?: readonly { whole: string; parts: readonly string[] }[];
}

/** What {@link readUsage} makes of one usage object. */
export type UsageRead<K extends string> =
  /** `mismatches`: the written totals that disagree with their parts (e.g. "total_tokens 12 ≠ input_tokens + output_tokens 11"). */
  | { kind: "ok"; counts: Record<K, number>; unknown: string[]; mismatches: string[] }
  /** The counts break a `bounds` rule of the format (`TRAJECTORY_UNREADABLE_USAGE`): `rule` says which. */
  | { kind: "contradiction"; rule: string; unknown: string[] }
  /** A count key holds something that is not a count ≥ 0 (`TRAJECTORY_BAD_USAGE`). */
  | { kind: "bad-value"; unknown: string[] }
  /** Required count keys are absent: the call's counts cannot be read (`TRAJECTORY_UNREADABLE_USAGE`). */
  | { kind: "missing"; missing: K[]; unknown: string[] };

/** A shape's key sets, built once per shape. */
interface ShapeSets<K extends string> {
  /** Every key the shape names (required, optional, known). */
  defined: ReadonlySet<string>;
  required: ReadonlySet<string>;
  /** The count keys, required then optional. */
  counted: readonly K[];
}

const SHAPE_SETS = new WeakMap<object, ShapeSets<string>>();

function shapeSets<K extends string>(shape: UsageShape<K>): ShapeSets<K> {
  let sets = SHAPE_SETS.get(shape) as ShapeSets<K> | undefined;
  if (sets === undefined) {
    sets = {
      defined: new Set<string>([...shape.required, ...shape.optional, ...shape.known]),
      required: new Set<string>(shape.required),
      counted: [...shape.required, ...shape.optional],
    };
    SHAPE_SETS.set(shape, sets);
  }
  return sets;
}

/** True when a breakdown object present in `usage` requires the count key `k`. */
function requiredByBreakdown<K extends string>(usage: Record<string, unknown>, shape: UsageShape<K>, k: K): boolean {
  for (const b of shape.breakdowns ?? []) if (isObject(usage[b.object]) && b.requires.includes(k)) return true;
  return false;
}

/**
 * Reads a usage object by its format's key set: the counts of `required` and
 * `optional` keys (an absent optional key is 0 unless a breakdown object
 * requires it), and the numeric keys the shape does not define (`unknown`,
 * sorted). A value that is not a count wins over missing keys (`bad-value`);
 * then missing required keys (`missing`); then a broken `bounds` rule
 * (`contradiction`). An `ok` reading lists the written totals that disagree
 * with their parts (`mismatches`; `breakdowns` and `sums`).
 */
export function readUsage<K extends string>(usage: Record<string, unknown>, shape: UsageShape<K>): UsageRead<K> {
  const sets = shapeSets(shape);
  const unknown: string[] = [];
  for (const k of Object.keys(usage)) if (!sets.defined.has(k) && typeof usage[k] === "number") unknown.push(k);
  if (unknown.length > 1) unknown.sort(cmpStr);
  const out = {} as Record<K, number>;
  const missing: K[] = [];
  for (const k of sets.counted) {
    const c = count(usage[k]);
    if (c !== undefined && Number.isNaN(c)) return { kind: "bad-value", unknown };
    if (c === undefined && (sets.required.has(k) || requiredByBreakdown(usage, shape, k))) missing.push(k);
    out[k] = c ?? 0;
  }
  if (missing.length > 0) return { kind: "missing", missing, unknown };
  for (const b of shape.bounds ?? []) {
    const whole = count(usage[b.whole]);
    if (whole === undefined || Number.isNaN(whole)) continue;
    const present = b.parts.filter((k) => {
      const c = count(usage[k]);
      return c !== undefined && !Number.isNaN(c);
    });
    const sum = present.reduce((a, k) => a + (usage[k] as number), 0);
    if (sum > whole) return { kind: "contradiction", rule: `${present.join(" + ")} > ${b.whole}`, unknown };
  }
  const mismatches: string[] = [];
  for (const b of shape.breakdowns ?? []) {
    const o = usage[b.object];
    if (!isObject(o)) continue;
    const sum = Object.values(o).reduce<number>((a, v) => a + (typeof v === "number" && Number.isFinite(v) ? v : 0), 0);
    if (sum !== out[b.total]) mismatches.push(`${b.total} ${out[b.total]} ≠ the sum of ${b.object}.* ${sum}`);
  }
  for (const t of shape.sums ?? []) {
    const total = count(usage[t.total]);
    if (total === undefined || Number.isNaN(total)) continue;
    const sum = t.parts.reduce((a, k) => a + out[k], 0);
    if (sum !== total) mismatches.push(`${t.total} ${total} ≠ ${t.parts.join(" + ")} ${sum}`);
  }
  return { kind: "ok", counts: out, unknown, mismatches };
}

/**
 * The counts of `message.usage` in a record of a format that nests usage in
 * its message object (claude-code, pi; TRAJECTORIES.md, those sections), read
 * by `shape` and noted in `tally`; null when the call does not count. A
 * message without a usage object is a missing-counts record (its keys, as
 * `message.<key>`, are noted); a usage field that is not a count warns
 * `TRAJECTORY_BAD_USAGE` at `file`:`line` and is skipped.
 */
export function messageUsage<K extends string>(
  message: Record<string, unknown> | undefined,
  shape: UsageShape<K>,
  tally: UsageShapeTally,
  sink: Diagnostics,
  file: string,
  line: number,
): Record<K, number> | null {
  const usage = obj(message, "usage");
  if (!usage) {
    tally.missing(
      shape.required,
      Object.keys(message ?? {}).map((k) => `message.${k}`),
      line,
    );
    return null;
  }
  const read = readUsage(usage, shape);
  if (read.kind === "bad-value") {
    sink.warn("TRAJECTORY_BAD_USAGE", "message.usage has a field that is not a count; skipped", file, line);
    return null;
  }
  return tally.note(read, usage, line);
}

/**
 * Per-file tally of usage objects whose shape is not the format's
 * (TRAJECTORIES.md; README "Warnings and errors"): records whose counts cannot
 * be read (skipped: they add no call and no tokens) and records with numeric
 * keys the format does not define (counted from the keys it does define).
 * {@link flush} writes at most one warning of each kind for the file, with the
 * number of records, the keys, and the first line.
 */
export class UsageShapeTally {
  private unreadable = 0;
  private unreadableLine: number | null = null;
  private readonly missingKeys = new Set<string>();
  private readonly presentKeys = new Set<string>();
  private unknownRecords = 0;
  private unknownLine: number | null = null;
  private readonly unknownKeys = new Set<string>();
  private contradicting = 0;
  private contradictionLine: number | null = null;
  private readonly contradictionRules = new Set<string>();
  private mismatched = 0;
  private mismatchLine: number | null = null;
  private mismatchExample = "";

  /**
   * Notes one usage object's reading; returns its counts when the call counts
   * (`ok`), else null. `bad-value` is the caller's to warn about (per line).
   */
  note<K extends string>(r: UsageRead<K>, usage: Record<string, unknown>, line: number): Record<K, number> | null {
    if (r.unknown.length > 0) {
      this.unknownRecords += 1;
      this.unknownLine ??= line;
      for (const k of r.unknown) this.unknownKeys.add(k);
    }
    if (r.kind === "missing") this.missing(r.missing, Object.keys(usage), line);
    if (r.kind === "contradiction") this.contradiction(r.rule, line);
    if (r.kind === "ok" && r.mismatches.length > 0) {
      this.mismatched += 1;
      if (this.mismatchLine === null) {
        this.mismatchLine = line;
        this.mismatchExample = r.mismatches.join("; ");
      }
    }
    return r.kind === "ok" ? r.counts : null;
  }

  /** Notes a usage record (or a call made of records) whose counts contradict its format (`rule`, e.g. "cached_input_tokens > input_tokens"). */
  contradiction(rule: string, line: number): void {
    this.contradicting += 1;
    this.contradictionLine ??= line;
    this.contradictionRules.add(rule);
  }

  /** Notes a usage record whose counts cannot be read (`missing`: the absent count keys, `present`: the keys it has). */
  missing(missing: readonly string[], present: readonly string[], line: number): void {
    this.unreadable += 1;
    this.unreadableLine ??= line;
    for (const k of missing) this.missingKeys.add(k);
    for (const k of present) this.presentKeys.add(k);
  }

  /**
   * Writes this file's warnings (`TRAJECTORY_UNREADABLE_USAGE` for missing
   * keys, then for contradicting counts; `TRAJECTORY_UNKNOWN_USAGE_KEY`;
   * `TRAJECTORY_USAGE_TOTAL_MISMATCH`) to `sink`, each with its count and first line.
   * `what` names the record kind; `skipped` says what skipping an unreadable one means for the counts.
   */
  flush(
    sink: Diagnostics,
    file: string,
    what: string,
    skipped = "these calls are left out of every token count (the totals are short of them)",
  ): void {
    if (this.unreadable > 0) {
      const has = this.presentKeys.size > 0 ? [...this.presentKeys].sort(cmpStr).join(", ") : "no keys";
      sink.warn(
        "TRAJECTORY_UNREADABLE_USAGE",
        `${this.unreadable} ${what} record(s) lack the count key(s) ${[...this.missingKeys].sort(cmpStr).join(", ")} ` +
          `(they have: ${has}), first at line ${this.unreadableLine}: their counts cannot be read; ${skipped}`,
        file,
        this.unreadableLine,
      );
    }
    if (this.contradicting > 0) {
      sink.warn(
        "TRAJECTORY_UNREADABLE_USAGE",
        `${this.contradicting} ${what} record(s) have counts that contradict the format ` +
          `(${[...this.contradictionRules].sort(cmpStr).join("; ")}), first at line ${this.contradictionLine}: the keys do not ` +
          `mean what this format's do (a gateway that counts differently?), so their counts cannot be read; ${skipped}`,
        file,
        this.contradictionLine,
      );
    }
    if (this.unknownRecords > 0) {
      sink.warn(
        "TRAJECTORY_UNKNOWN_USAGE_KEY",
        `${this.unknownRecords} ${what} record(s) carry numeric key(s) this format does not define ` +
          `(${[...this.unknownKeys].sort(cmpStr).join(", ")}), first at line ${this.unknownLine}: counted from the ` +
          `keys it defines only; whatever those keys count is not included`,
        file,
        this.unknownLine,
      );
    }
    if (this.mismatched > 0) {
      sink.warn(
        "TRAJECTORY_USAGE_TOTAL_MISMATCH",
        `${this.mismatched} ${what} record(s) carry a total that disagrees with its parts, first at line ${this.mismatchLine} ` +
          `(${this.mismatchExample}): counted from the parts; the log's keys may not mean what this format's do, check the count`,
        file,
        this.mismatchLine,
      );
    }
  }
}
