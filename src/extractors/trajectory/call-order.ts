/**
 * The order of calls and files that the readers' rules use (TRAJECTORIES.md:
 * a call seen in several files counts once, at its earliest sighting; calls
 * come out by time, then file, then line), computed once per run so that the
 * cross-file merge compares numbers, not file names.
 */
import { cmpStr } from "../../util/values.js";
import type { TrajectoryFile } from "./common.js";
import type { TokenCall } from "./types.js";

/**
 * The rank of each file's display name among the run's display names, in
 * {@link cmpStr} order (0 = first; files with equal names have equal ranks):
 * `rank[i] < rank[j]` exactly when `cmpStr(files[i].display, files[j].display) < 0`.
 */
export function displayRanks(files: readonly TrajectoryFile[]): Int32Array {
  const order = files.map((_f, i) => i).sort((a, b) => cmpStr(files[a]!.display, files[b]!.display) || a - b);
  const rank = new Int32Array(files.length);
  let r = 0;
  for (let k = 0; k < order.length; k += 1) {
    if (k > 0 && files[order[k]!]!.display !== files[order[k - 1]!]!.display) r += 1;
    rank[order[k]!] = r;
  }
  return rank;
}

/**
 * Whether the sighting at (`ta`, file rank `ra`, `la`) is before the one at
 * (`tb`, `rb`, `lb`): the earlier time (epoch ms; null is after every time),
 * then the lower file rank ({@link displayRanks}), then the lower line. The
 * same order as `earlierCall` of `common.ts` on the calls' file names.
 */
export function sightedBefore(
  ta: number | null,
  ra: number,
  la: number,
  tb: number | null,
  rb: number,
  lb: number,
): boolean {
  const a = ta ?? Number.POSITIVE_INFINITY;
  const b = tb ?? Number.POSITIVE_INFINITY;
  if (a !== b) return a < b;
  return ra !== rb ? ra < rb : la < lb;
}

/**
 * The indices of `files` in the order of their display names ({@link cmpStr}),
 * or null when two files have the same display name (the calls of such files
 * interleave by line: the caller sorts them instead).
 */
export function displayOrder(files: readonly TrajectoryFile[]): number[] | null {
  const order = files.map((_f, i) => i).sort((a, b) => cmpStr(files[a]!.display, files[b]!.display));
  for (let k = 1; k < order.length; k += 1)
    if (files[order[k]!]!.display === files[order[k - 1]!]!.display) return null;
  return order;
}

/**
 * The calls of each file (`perFile[i]`: the calls shown under `files[i]`, in
 * line order) in the order of a stable sort by (file name ({@link cmpStr}),
 * line): the lists joined in the order of the files' display names. Null when
 * two files have the same display name (see {@link displayOrder}).
 */
export function joinByDisplay(files: readonly TrajectoryFile[], perFile: readonly TokenCall[][]): TokenCall[] | null {
  const order = displayOrder(files);
  if (order === null) return null;
  let total = 0;
  for (const i of order) total += perFile[i]!.length;
  const out: TokenCall[] = new Array(total);
  let n = 0;
  for (const i of order) for (const c of perFile[i]!) out[n++] = c;
  return out;
}
