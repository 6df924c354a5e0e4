/**
 * Driver-token counters: reads a run's trajectory (the driver's own session
 * logs) and counts the tokens of every model call by the rules of
 * TRAJECTORIES.md, one reader per format.
 *
 * Warning codes (all non-fatal; the line or value is skipped or counted as noted):
 * - `TRAJECTORY_BAD_JSON`            a line is not valid JSON (file + line); skipped.
 * - `TRAJECTORY_READ_ERROR`          a file could not be read to its end (no permission, an I/O error, a corrupt
 *                                    .gz), or a folder could not be listed: the run's counts are incomplete, so
 *                                    the build writes null tokens for the cell (`tokens` still prints what it read).
 * - `TRAJECTORY_BAD_USAGE`           a usage object holds a value that is not a count ≥ 0 (file + line); skipped.
 * - `TRAJECTORY_UNREADABLE_USAGE`    usage records lacking count keys their format always writes, or whose counts
 *                                    contradict it (codex cached > input; one per file and kind: count, keys or rule,
 *                                    first line); skipped, never read as 0 or clamped.
 * - `TRAJECTORY_UNKNOWN_USAGE_KEY`   usage records with numeric keys their format does not define (one per file);
 *                                    counted from the keys it defines.
 * - `TRAJECTORY_USAGE_TOTAL_MISMATCH` usage records whose written total disagrees with its parts (codex `total_tokens`,
 *                                    pi `totalTokens`, claude-code `cache_creation.*`; one per file); counted from the parts.
 * - `TRAJECTORY_UNPLACED_CALLS`      calls with no usable time (one per file, at its first such call): in totals, not in tokens(t).
 * - `TRAJECTORY_OUTPUT_UNDERCOUNT`   claude-code: responses whose output stayed at the streaming-start value (one per
 *                                    run, at the first such response).
 * - `TRAJECTORY_TIME_NO_OFFSET`      codex, claude-code, pi: usage lines whose ISO time has no Z/offset (one per file); read as UTC.
 * - `TRAJECTORY_PARENT_ABSENT`       a fork/branch/sub-agent whose parent file is not among the files
 *                                    (codex: replayed prefix not counted; pi, kimi-code: the copies are counted).
 * - `TRAJECTORY_FOREIGN_THREAD`      codex: token_count lines of another thread in a rollout; skipped.
 * - `TRAJECTORY_NO_SESSION_META`     codex: a rollout with calls whose first line is not its session_meta (fork or not
 *                                    cannot be told): the reading is incomplete, the build writes null tokens for the cell.
 * - `TRAJECTORY_INCONSISTENT_TOTAL`  codex: a running total grew while one part shrank (counted from last_token_usage),
 *                                    or fell for one line and came back (skipped as a glitch, not a reset).
 * - `TRAJECTORY_TOTAL_DROP`          codex: a running total fell and stayed lower without a reset's all-zero
 *                                    last_token_usage: the reading is incomplete, the build writes null tokens for the cell.
 * - `TRAJECTORY_SUBAGENT_MISSING`    claude-code: a session forwards responses of a sub-agent whose own file is not
 *                                    among the files: the reading is incomplete, the build writes null tokens for the cell.
 * - `TRAJECTORY_NO_FILES`            a folder given holds no session file of the format (the tokens are unknown: null).
 * - `TRAJECTORY_NO_CALLS`            session files were found but none records a call of the format (wrong format?):
 *                                    the tokens are unknown (null), not 0.
 * - `TRAJECTORY_NO_CALLS_IN_RUN`     (build, `tokens --cell`; resolve/cell-tokens.ts) every placed call is before run_start:
 *                                    the tokens are unknown (null).
 * - `TRAJECTORY_DUPLICATE_PATH`      a session file reached by several paths (links, a link loop): read once.
 * - `TRAJECTORY_DUPLICATE_RECORDS`   kimi-code: timed records repeated in another file (a copied session), or in the
 *                                    same file (a line written twice): counted once.
 * - `TRAJECTORY_IMPLAUSIBLE_TIME`    calls timed before 2020 or from 2100 (a unit error): calls without a time
 *                                    (call-times.ts); `TRAJECTORY_CALL_OUTSIDE_RUN` is its run-window twin in cell-tokens.ts.
 *
 * Fatal: `InputError` `TRAJECTORY_PATH_MISSING` (a path that does not exist),
 * `TRAJECTORY_PATH_UNREADABLE` (a given path that cannot be looked at: no permission on a folder above it),
 * `TRAJECTORY_PATH_SPECIAL` (a pipe or a device: it could block forever),
 * `TRAJECTORY_UNKNOWN_FORMAT` (a format not in TRAJECTORY_FORMATS).
 */
import { cmpStr } from "../../util/values.js";
import { realpath, stat } from "node:fs/promises";
import { basename, isAbsolute, relative, resolve } from "node:path";
import type { Warning } from "../../diagnostics.js";
import { InputError } from "../../errors.js";
import type { FileCache } from "../../util/file-cache.js";
import { fsReason, isAbsent, unreadableError } from "../../util/fs-errors.js";
import type { FileScan, TrajectoryFile } from "./common.js";
import { unplaceImplausibleTimes } from "./call-times.js";
import { COUNTERS } from "./counters.js";
import { scanFiles } from "./parallel.js";
import { findSessionFiles } from "./session-files.js";
import { knownBesideSessions, sessionFileHint } from "../../sources/session-file-names.js";
import { compareCalls } from "./token-ledger.js";
import { TRAJECTORY_FORMATS, type TrajectoryFormat } from "../../trajectory-formats.js";
import type { TrajectoryReading } from "./types.js";

export { TRAJECTORY_FORMATS };
export type { TokenCall, TokenTotals, TrajectoryReading } from "./types.js";
export { callTotals, TokenLedger } from "./token-ledger.js";
export { unplaceImplausibleTimes } from "./call-times.js";
export type { TrajectoryFormat } from "../../trajectory-formats.js";

/** Options of {@link readTrajectory}. */
export interface ReadTrajectoryOptions {
  /** When given, warnings' `file` and calls' `file` are relative to it (forward slashes). */
  displayRoot?: string;
  /** With `displayRoot`: names are `<displayPrefix>/<path relative to displayRoot>` (the root itself: the prefix). */
  displayPrefix?: string;
  /** Per-file scans are read from and written to this cache (keyed by the file's fingerprint and display name). */
  cache?: FileCache;
  /** Raw bytes read so far (for progress bars); a file served from the cache counts its whole size at once. */
  onBytes?: (bytes: number) => void;
  /** Worker threads for scanning large inputs (1 = none; default: decided from the free cores and the sizes, see `scan-threads.ts`). */
  threads?: number;
  /** Told the display names of the session files found, before they are read (what the build records as read). */
  onListed?: (files: string[]) => void;
  /**
   * Warn `TRAJECTORY_FILE_NOT_READ` (one per folder given) for the files of a folder that are not read:
   * no session file by name, or no regular file (a FIFO). The build checks every input file itself.
   */
  warnUnread?: boolean;
  /**
   * Told how many threads scan the files not served from the cache (1: this thread alone), once decided
   * (not when every file came from the cache), and whether the free cores were sampled for that.
   */
  onThreads?: (threads: number, sampled: boolean) => void;
}

/** The session files of each format, found recursively inside a folder, as the warnings name them (glob patterns; {@link SESSION_NAME_RE} is the test). */
const SESSION_FILE_PATTERNS: Record<TrajectoryFormat, string[]> = {
  codex: ["**/*.jsonl", "**/*.jsonl.gz"],
  "claude-code": ["**/*.jsonl", "**/*.jsonl.gz"],
  pi: ["**/*.jsonl", "**/*.jsonl.gz"],
  "kimi-cli": ["**/wire.jsonl", "**/wire.jsonl.gz"],
  "kimi-code": ["**/wire.jsonl", "**/wire.jsonl.gz"],
};

/** The names of session files, by format (the last part of {@link SESSION_FILE_PATTERNS}): the test of {@link findSessionFiles}. */
const SESSION_NAME_RE: Record<TrajectoryFormat, RegExp> = {
  codex: /\.jsonl(\.gz)?$/,
  "claude-code": /\.jsonl(\.gz)?$/,
  pi: /\.jsonl(\.gz)?$/,
  "kimi-cli": /^wire\.jsonl(\.gz)?$/,
  "kimi-code": /^wire\.jsonl(\.gz)?$/,
};

/** True when `value` names one of the five formats. */
function isTrajectoryFormat(value: string): value is TrajectoryFormat {
  return (TRAJECTORY_FORMATS as readonly string[]).includes(value);
}

const toPosix = (p: string): string => p.replace(/\\/g, "/");

/**
 * Lists the session files of `paths` (each a file, or a folder searched
 * recursively for the format's session files), without duplicates, sorted by
 * absolute path (code-unit order).
 *
 * A file reached by several paths (symbolic links, a link loop) is listed
 * once, under the first path in order (warning `TRAJECTORY_DUPLICATE_PATH`).
 *
 * @throws InputError `TRAJECTORY_PATH_MISSING` when a path does not exist,
 *   `TRAJECTORY_PATH_SPECIAL` when it is a pipe or a device.
 */
async function listTrajectoryFiles(
  format: TrajectoryFormat,
  paths: string[],
  opts: { displayRoot?: string | undefined; displayPrefix?: string | undefined; warnUnread?: boolean | undefined } = {},
): Promise<{ files: TrajectoryFile[]; warnings: Warning[] }> {
  const warnings: Warning[] = [];
  const found = new Map<string, string>(); // absolute path -> display
  // One real file reached by several paths (a link to a folder, a link loop) is read once.
  const real = new Set<string>();
  let aliases = 0;
  let firstAlias: string | null = null;
  const keep = async (fileAbs: string, shown: string): Promise<void> => {
    const r = await realpath(fileAbs).catch(() => fileAbs);
    if (real.has(r)) {
      if (!found.has(fileAbs)) {
        aliases += 1;
        firstAlias ??= shown;
      }
      return;
    }
    real.add(r);
    found.set(fileAbs, shown);
  };
  const display = (abs: string, given: string): string => {
    if (opts.displayRoot !== undefined) {
      const rel = toPosix(relative(resolve(opts.displayRoot), abs)) || ".";
      if (opts.displayPrefix === undefined) return rel;
      return rel === "." ? opts.displayPrefix : `${opts.displayPrefix}/${rel}`;
    }
    return toPosix(given);
  };
  for (const given of paths) {
    const abs = resolve(given);
    let info: import("node:fs").Stats;
    try {
      info = await stat(abs);
    } catch (err) {
      if (!isAbsent(err))
        throw unreadableError("TRAJECTORY_PATH_UNREADABLE", given, err, "cannot read the trajectory path");
      throw new InputError("TRAJECTORY_PATH_MISSING", `trajectory path does not exist: ${given}`, given);
    }
    if (!info.isDirectory() && !info.isFile()) {
      // A FIFO would block forever and a device is no session log (build refuses them too).
      throw new InputError(
        "TRAJECTORY_PATH_SPECIAL",
        `trajectory path is neither a file nor a folder (a pipe or a device): ${given}`,
        given,
      );
    }
    if (info.isDirectory()) {
      // A folder that cannot be listed hides session files: the run's tokens are incomplete.
      const {
        files: entries,
        unreadable: unlisted,
        others,
      } = findSessionFiles(abs, (name) => SESSION_NAME_RE[format].test(name));
      // A path below the folder as the user sees it: under the display root, else under the path as given.
      const shownAt = (rel: string): string =>
        isAbsolute(given) || opts.displayRoot !== undefined
          ? display(resolve(abs, rel), resolve(abs, rel))
          : toPosix(`${given.replace(/[\\/]+$/, "")}${rel ? `/${rel}` : ""}`);
      for (const [dir, err] of unlisted.sort(([a], [b]) => cmpStr(a, b))) {
        const shown = shownAt(toPosix(relative(abs, dir)));
        const what = err.syscall === "stat" ? `cannot follow the link ${shown}` : `cannot list the folder ${shown}`;
        // A link whose target is not there was left dangling, not removed while the command ran.
        const reason =
          err.syscall === "stat" && err.code === "ENOENT"
            ? "its target does not exist (a dangling link)"
            : fsReason(err);
        warnings.push({
          code: "TRAJECTORY_READ_ERROR",
          message: `${what}: ${reason}; the session files there are not counted, so the run's tokens are incomplete`,
          file: shown,
          line: null,
        });
      }
      // tokens (the build checks every input file itself): a file here that is not read may hold calls.
      const unread = opts.warnUnread ? others.filter((o) => !knownBesideSessions(format, basename(o))) : [];
      if (unread.length > 0) {
        const first = shownAt(unread[0]!);
        warnings.push({
          code: "TRAJECTORY_FILE_NOT_READ",
          message: `${display(abs, given).replace(/\/+$/, "")}/: ${unread.length} file(s) not read (no ${format} session file, or not a regular file), first ${first}${sessionFileHint(format)}`,
          file: first,
          line: null,
        });
      }
      if (entries.length === 0 && unlisted.length === 0) {
        warnings.push({
          code: "TRAJECTORY_NO_FILES",
          message: `no ${format} session files (${SESSION_FILE_PATTERNS[format].join(", ")}) under this folder: the tokens are unknown (null), not 0`,
          file: display(abs, given),
          line: null,
        });
      }
      // In the walk's order: a file's path without a link first, where it has one (each file is read by its first path).
      for (const e of entries) await keep(resolve(abs, e), shownAt(e));
    } else {
      await keep(abs, display(abs, given));
    }
  }
  if (aliases > 0) {
    warnings.push({
      code: "TRAJECTORY_DUPLICATE_PATH",
      message: `${aliases} more path(s) reach session files already read, through a symbolic link or a link loop (the first: ${firstAlias}): each file is read once`,
      file: firstAlias,
      line: null,
    });
  }
  const files = [...found]
    .sort((a, b) => cmpStr(toPosix(a[0]), toPosix(b[0])))
    .map(([path, shown]) => ({ path, display: shown }));
  return { files, warnings };
}

/**
 * Reads one run's trajectory and returns every counted model call, after every
 * de-duplication rule of its format (TRAJECTORIES.md, the section of `format`),
 * including across files (forks, resumes, sub-agents).
 *
 * - `paths`: files or folders (searched recursively for the format's session
 *   files; see {@link SESSION_FILE_PATTERNS}); all of them form one run.
 * - `opts.displayRoot`: when given, warnings' `file` and calls' `file` are
 *   relative to it (forward slashes).
 * - `opts.cache`: each file's scan is read from / written to the build cache
 *   (keyed by the file's fingerprint and display name); `opts.onBytes`
 *   reports progress; `opts.threads` bounds the worker threads that scan
 *   large inputs (see `parallel.ts`). None of them changes the result.
 *
 * Each file is scanned on its own (`FormatCounter.scan`, the fast path of
 * `scanTrajectory`), then the format's cross-file rules run on the scans
 * (`FormatCounter.merge`).
 *
 * Files are streamed line by line, never read whole. Calls come out sorted by
 * (timeMs, file, line), calls with a null time last. Token counts are integers;
 * times are UTC epoch milliseconds.
 *
 * @throws InputError `TRAJECTORY_UNKNOWN_FORMAT` or `TRAJECTORY_PATH_MISSING`.
 */
export async function readTrajectory(
  format: TrajectoryFormat,
  paths: string[],
  opts: ReadTrajectoryOptions = {},
): Promise<TrajectoryReading> {
  if (!isTrajectoryFormat(format)) {
    throw new InputError(
      "TRAJECTORY_UNKNOWN_FORMAT",
      `unknown trajectory format ${JSON.stringify(format)}; accepted: ${TRAJECTORY_FORMATS.join(", ")}`,
    );
  }
  const listed = await listTrajectoryFiles(format, paths, opts);
  opts.onListed?.(listed.files.map((f) => f.display));
  const counter = COUNTERS[format];
  const kind = `trajectory-${format}`;
  const scans: (FileScan<unknown> | undefined)[] = listed.files.map(() => undefined);
  const keys: (string | null)[] = listed.files.map(() => null);
  const cache = opts.cache?.enabled ? opts.cache : undefined;
  if (cache) {
    const { fingerprint } = await import("../../util/file-cache.js"); // node:crypto, only when a cache is used
    for (let i = 0; i < listed.files.length; i += 1) {
      const file = listed.files[i]!;
      const fp = await fingerprint(file.path);
      if (fp === null) continue;
      const key = await cache.key(kind, file.path, file.display, fp);
      keys[i] = key;
      const hit = await cache.get<FileScan<unknown>>(kind, key);
      if (hit !== undefined) {
        scans[i] = counter.unpack ? counter.unpack(hit, file) : hit;
        opts.onBytes?.(fp.size); // served from the cache: counts as read
      }
    }
  }
  const todo = listed.files.map((_f, i) => i).filter((i) => scans[i] === undefined);
  const fresh = await scanFiles(
    format,
    todo.map((i) => listed.files[i]!),
    { threads: opts.threads, onBytes: opts.onBytes, onThreads: opts.onThreads },
  );
  for (let j = 0; j < todo.length; j += 1) {
    const i = todo[j]!;
    scans[i] = fresh[j]!;
    if (cache && keys[i] !== null) await cache.put(kind, keys[i]!, counter.pack ? counter.pack(fresh[j]!) : fresh[j]);
  }
  const result = counter.merge(listed.files, scans as FileScan<unknown>[]);
  // A time no call can have (a unit error) places its call nowhere: it is a call without a time.
  const plausible = unplaceImplausibleTimes(result.calls);
  const calls = [...plausible.calls].sort(compareCalls);
  const warnings = [...listed.warnings, ...result.warnings];
  if (plausible.warning !== null) warnings.push(plausible.warning);
  if (listed.files.length > 0 && calls.length === 0) {
    // Session files with no call of this format: most often the wrong trajectory_format.
    warnings.push({
      code: "TRAJECTORY_NO_CALLS",
      message: `${listed.files.length} ${format} session file(s) hold no model call that this format records (is trajectory_format right?): the tokens are unknown (null), not 0`,
      file: listed.files[0]!.display,
      line: null,
    });
  }
  return { calls, warnings };
}

/**
 * The first warning of `reading` that makes its counts incomplete (a session
 * file or folder that could not be read: `TRAJECTORY_READ_ERROR`), or null
 * when every file found was read to its end. A build writes null tokens for a
 * cell whose reading is incomplete, never the smaller count
 * (DESIGN.md: Trust).
 */
export function incompleteReading(reading: TrajectoryReading): Warning | null {
  return reading.warnings.find((w) => INCOMPLETE.has(w.code)) ?? null;
}

/** The warnings after which a reading's counts cannot be stood behind: a file not read, a codex rollout of unknown kind. */
export const INCOMPLETE_READING_CODES: readonly string[] = [
  "TRAJECTORY_READ_ERROR",
  "TRAJECTORY_NO_SESSION_META",
  "TRAJECTORY_TOTAL_DROP",
  "TRAJECTORY_SUBAGENT_MISSING",
];
const INCOMPLETE = new Set(INCOMPLETE_READING_CODES);

/** The total size in bytes of the session files {@link readTrajectory} would read (for progress bars). */
export async function trajectoryBytes(format: TrajectoryFormat, paths: string[]): Promise<number> {
  const { files } = await listTrajectoryFiles(format, paths);
  let total = 0;
  for (const f of files)
    total += await stat(f.path).then(
      (s) => s.size,
      () => 0,
    );
  return total;
}
