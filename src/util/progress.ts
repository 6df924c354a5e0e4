/**
 * Progress bars on a terminal (README: Performance, "Progress"): bytes done of bytes total, rate and
 * time left, drawn with `cli-progress` on stderr. Nothing at all is drawn when
 * stdout or stderr is not a terminal, or when the user asked for quiet.
 */
import { createRequire } from "node:module";
import type cliProgressModule from "cli-progress";

/** `cli-progress`, loaded when a bar is first drawn (most runs draw none: a start-up cost they do not pay). */
const loadCliProgress = (): typeof cliProgressModule =>
  createRequire(import.meta.url)("cli-progress") as typeof cliProgressModule;

/** A byte-counting progress display. The no-op one ({@link NO_PROGRESS}) does nothing. */
export interface ByteProgress {
  /** True when a bar is drawn. */
  readonly active: boolean;
  /** Starts (or restarts) the bar for a stage, e.g. `reading` or `hashing`, of `totalBytes`. */
  stage(label: string, totalBytes: number): void;
  /** Counts `bytes` more as done. */
  add(bytes: number): void;
  /** Prints a message line above the bar (or to stderr when no bar is drawn and `log` is allowed). */
  log(message: string): void;
  /**
   * Removes the bar and restores the terminal ({@link RESTORE_TERMINAL}).
   * A drawn bar also does this by itself on SIGINT/SIGTERM (then exits 130
   * or 143 unless another handler exits) and on process exit.
   */
  stop(): void;
}

/**
 * Shows the cursor (`ESC[?25h`) and turns line wrap back on (`ESC[?7h`):
 * written when a drawn bar ends, whichever way the process ends (the bar
 * turned both off).
 */
export const RESTORE_TERMINAL = "\x1b[?25h\x1b[?7h";

/** A progress display that draws nothing. */
const NO_PROGRESS: ByteProgress = {
  active: false,
  stage() {},
  add() {},
  log() {},
  stop() {},
};

/** Options of {@link byteProgress}. */
export interface ByteProgressOptions {
  /** `--quiet`: no bar and no messages. */
  quiet?: boolean;
  /** The streams looked at (defaults: `process.stdout`, `process.stderr`); the bar is drawn on `stderr`. */
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
}

/** `12.3 MB`, `4.56 GB`: decimal units, as disks and `wc` count. */
export function formatBytes(bytes: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let v = bytes;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u += 1;
  }
  return `${v >= 100 || u === 0 ? v.toFixed(0) : v.toFixed(1)} ${units[u]}`;
}

/** `1:05` or `1:02:03` for a number of seconds; `--:--` when unknown. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "--:--";
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

/**
 * A progress bar of bytes on stderr, or {@link NO_PROGRESS}'s behaviour when
 * `quiet` or when stdout or stderr is not a terminal (then `log` still prints
 * to stderr unless `quiet`). Shows: stage, bar, percent, bytes done of total,
 * rate (over the stage so far) and time left.
 */
export function byteProgress(opts: ByteProgressOptions = {}): ByteProgress {
  const stdout = opts.stdout ?? process.stdout;
  const stderr = opts.stderr ?? process.stderr;
  if (opts.quiet) return NO_PROGRESS;
  if (!stdout.isTTY || !stderr.isTTY) {
    return { ...NO_PROGRESS, log: (m) => void stderr.write(`${m}\n`) };
  }
  let label = "";
  let total = 0;
  let done = 0;
  let startedMs = 0;
  const payload = (): Record<string, string> => {
    const elapsed = (Date.now() - startedMs) / 1000;
    const rate = elapsed > 0.2 ? done / elapsed : 0;
    const left = rate > 0 ? (total - done) / rate : Number.NaN;
    return {
      stage: label.padEnd(8),
      doneBytes: formatBytes(done),
      totalBytes: formatBytes(total),
      rate: rate > 0 ? `${formatBytes(rate)}/s` : "-",
      left: formatDuration(left),
    };
  };
  const cliProgress = loadCliProgress();
  const multi = new cliProgress.MultiBar(
    {
      stream: stderr,
      format: "{stage} [{bar}] {percentage}% | {doneBytes} / {totalBytes} | {rate} | {left} left",
      hideCursor: true,
      clearOnComplete: true,
      fps: 8,
      barsize: 30,
    },
    cliProgress.Presets.shades_classic,
  );
  let bar: cliProgressModule.SingleBar | null = null;
  // The bar hides the cursor and turns line wrap off: every way out (stop, an error, Ctrl-C,
  // SIGTERM, process.exit from another handler) must turn them back on.
  let stopped = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    end();
    // Another handler (the atomic writer's cleanup) exits with the right code; else exit as the signal would.
    if (process.listenerCount(signal) === 0) process.exit(signal === "SIGINT" ? 130 : 143);
  };
  const end = (): void => {
    if (stopped) return;
    stopped = true;
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
    process.removeListener("exit", end);
    multi.stop();
    stderr.write(RESTORE_TERMINAL);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  process.once("exit", end);
  return {
    active: true,
    stage(name, totalBytes) {
      label = name;
      total = Math.max(1, totalBytes);
      done = 0;
      startedMs = Date.now();
      if (bar === null) bar = multi.create(total, 0, payload());
      else bar.start(total, 0, payload());
    },
    add(bytes) {
      done += bytes;
      bar?.update(Math.min(done, total), payload());
    },
    log(message) {
      multi.log(`${message}\n`);
    },
    stop() {
      end();
    },
  };
}
