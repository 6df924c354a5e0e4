import type { Warning } from "../diagnostics.js";
import { where } from "../diagnostics.js";

/**
 * A warning's identity across builds: code, file and message, but not the
 * line, so a warning stays "known" when lines are added above it in its file
 * (a growing log). Two warnings with one identity count as two (a multiset).
 */
function warningIdentity(w: Warning): string {
  return `${w.code}\u0000${w.file ?? ""}\u0000${w.message}`;
}

/**
 * Which warnings of `current` are new since `previous` (the warnings of the
 * previous build into the same output folder): each previous warning cancels
 * one current warning of the same {@link warningIdentity}. Returns one flag
 * per current warning, and how many previous warnings are gone; null when
 * there is no previous build to compare with.
 */
export function compareWarnings(
  current: Warning[],
  previous: Warning[] | null,
): { isNew: boolean[]; gone: number } | null {
  if (previous === null) return null;
  const left = new Map<string, number>();
  for (const w of previous) left.set(warningIdentity(w), (left.get(warningIdentity(w)) ?? 0) + 1);
  const isNew = current.map((w) => {
    const k = warningIdentity(w);
    const n = left.get(k) ?? 0;
    if (n === 0) return true;
    left.set(k, n - 1);
    return false;
  });
  let gone = 0;
  for (const n of left.values()) gone += n;
  return { isNew, gone };
}

/** A message on one line: control characters (a raw input line's tabs, line breaks) as escapes; cut to `max` characters. */
function oneLine(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f]/g, (c) =>
    c === "\t"
      ? "\\t"
      : c === "\n"
        ? "\\n"
        : c === "\r"
          ? "\\r"
          : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Options of {@link renderWarnings}. */
export interface RenderWarningsOptions {
  /** Every warning, grouped by code; otherwise one example per code. */
  verbose?: boolean;
  /** The comparison with the previous build into the same folder ({@link compareWarnings}); null when there is none. */
  compared?: { isNew: boolean[]; gone: number } | null;
  /** The output folder, for "since the previous build into OUT/". */
  out?: string;
  /** `--strict`'s failure: nothing is written, so no build-report.json to point to. */
  strict?: boolean;
  /**
   * When the previous build into the folder read another sources folder: its
   * `--sources` and this build's, as given; the head line says so, since its
   * new and gone warnings then compare two different sweeps.
   */
  otherSources?: { previous: string; current: string } | null;
}

/**
 * The warnings as the build prints them (README: What the build prints): a
 * head line with the total and, against the previous build into the same
 * `--out`, how many are new and how many are gone; then one line per code
 * (codes with new warnings first, then by count) with its count, how many of
 * them are new, and one example (`file:line message`, a new one when there
 * is one), or with `verbose` every warning of the code; then how many are not
 * shown. `--strict` lists its failure the same way.
 */
export function renderWarnings(warnings: Warning[], opts: RenderWarningsOptions = {}): string[] {
  const out = (opts.out ?? "out").replace(/(.)\/+$/, "$1");
  const compared = opts.compared ?? null;
  const newCount = compared ? compared.isNew.filter(Boolean).length : 0;
  const since = compared
    ? `${newCount} new, ${compared.gone} gone since the previous build into ${out}/${
        opts.otherSources
          ? `, which read other sources (--sources ${opts.otherSources.previous}, not ${opts.otherSources.current})`
          : ""
      }`
    : `no previous build in ${out}/ to compare with`;
  if (warnings.length === 0) return [`warnings: 0${compared && compared.gone > 0 ? ` (${since})` : ""}`];
  const lines = [`warnings: ${warnings.length} (${since}); by code:`];
  const groups = new Map<string, number[]>();
  for (const [i, w] of warnings.entries()) groups.set(w.code, [...(groups.get(w.code) ?? []), i]);
  const isNew = (i: number): boolean => compared?.isNew[i] ?? false;
  const newIn = (idx: number[]): number => idx.filter(isNew).length;
  const order = [...groups.entries()].sort(
    ([a, ia], [b, ib]) =>
      Number(newIn(ib) > 0) - Number(newIn(ia) > 0) || ib.length - ia.length || (a < b ? -1 : a > b ? 1 : 0),
  );
  const width = Math.max(...order.map(([c]) => c.length));
  const describe = (i: number, max: number): string => {
    const w = warnings[i]!;
    const at = where(w.file, w.line);
    return `${at ? `${at}: ` : ""}${oneLine(w.message, max)}${isNew(i) ? "  [new]" : ""}`;
  };
  let shown = 0;
  for (const [code, idx] of order) {
    const head = `  ${code.padEnd(width)} ${String(idx.length).padStart(4)}${newIn(idx) > 0 ? ` (${newIn(idx)} new)` : ""}`;
    if (opts.verbose) {
      lines.push(head);
      for (const i of idx) lines.push(`      ${describe(i, Number.POSITIVE_INFINITY)}`);
      shown += idx.length;
    } else {
      lines.push(`${head}  e.g. ${describe(idx.find(isNew) ?? idx[0]!, 160)}`);
      shown += 1;
    }
  }
  const hidden = warnings.length - shown;
  const listed = opts.strict ? "" : "; build-report.json lists them";
  lines.push(
    hidden > 0
      ? `  ${hidden} more not shown (one example per code): --verbose prints all ${warnings.length}${listed}`
      : `  all ${warnings.length} shown${listed}`,
  );
  return lines;
}
