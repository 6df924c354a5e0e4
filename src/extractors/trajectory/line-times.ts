/**
 * The times of usage lines (TRAJECTORIES.md, each format's time field): ISO
 * 8601 strings read without `Date.parse` (codex, claude-code, pi), epoch
 * seconds (kimi-cli) and epoch milliseconds (kimi-code), as epoch ms; null
 * for a time that cannot be placed.
 */
import type { Diagnostics } from "../../diagnostics.js";
import { IsoTimeReader } from "../../util/iso-time.js";
import { isTimeMs } from "../../util/values.js";

/** The one reader of ISO times of this thread (it is reused: see `IsoTimeReader`). */
const ISO_TIME = new IsoTimeReader();

/**
 * Epoch ms of an ISO 8601 time (`IsoTimeReader`: `Date.parse`'s millisecond,
 * every field in range). A time with no offset is read as UTC (every format
 * here writes UTC; `Date.parse` would otherwise take local time). Null when
 * absent or unparseable.
 */
export function isoMs(value: unknown): number | null {
  return typeof value === "string" && ISO_TIME.read(value) ? ISO_TIME.ms : null;
}

/**
 * Counts, in one file, the usage lines whose ISO time has no offset: codex,
 * claude-code and pi write UTC with `Z` (TRAJECTORIES.md), so such a time was
 * not written by the driver as it is documented (a re-serialised file, another
 * version). It is still read as UTC, and {@link flush} says so once per file
 * with the count and the first line (`TRAJECTORY_TIME_NO_OFFSET`).
 */
export class NoOffsetTimes {
  private count = 0;
  private firstLine: number | null = null;

  /** Epoch ms of `value` as {@link isoMs} reads it, counting it when it has no offset. */
  ms(value: unknown, lineNo: number): number | null {
    if (typeof value !== "string" || !ISO_TIME.read(value)) return null;
    if (ISO_TIME.zoneless) {
      this.count += 1;
      this.firstLine ??= lineNo;
    }
    return ISO_TIME.ms;
  }

  /** Warns once for the file when any time had no offset. */
  flush(sink: Diagnostics, file: string): void {
    if (this.count === 0) return;
    sink.warn(
      "TRAJECTORY_TIME_NO_OFFSET",
      `${this.count} usage line(s) have a timestamp without Z or an offset (this format writes UTC with Z), first at line ${this.firstLine}: read as UTC; if the file was rewritten in local time, their times (and tokens at an hour) are off`,
      file,
      this.firstLine,
    );
  }
}

/**
 * pi's usage entries without a valid `timestamp` of their own (the save time
 * TRAJECTORIES.md, "pi", says to use), placed at `message.timestamp`, the
 * request's start: counted in one file, and {@link flush} says so once with
 * the count and the first line (`TRAJECTORY_REQUEST_TIME`).
 */
export class RequestTimes {
  private count = 0;
  private firstLine = 0;

  /** Epoch ms of the request's start `value` (epoch ms, as {@link epochMs}), counting it when it is one. */
  ms(value: unknown, lineNo: number): number | null {
    const ms = epochMs(value);
    if (ms !== null && this.count++ === 0) this.firstLine = lineNo;
    return ms;
  }

  /** Warns once for the file when any entry was placed at its request's start. */
  flush(sink: Diagnostics, file: string): void {
    if (this.count === 0) return;
    const one = this.count === 1;
    sink.warn(
      "TRAJECTORY_REQUEST_TIME",
      `${this.count} usage entr${one ? "y has" : "ies have"} no valid timestamp of ${one ? "its" : "their"} own (the time the response was saved), first at line ${this.firstLine}: placed at message.timestamp, when the request started (a little early; tokens at an hour may count it before it completed)`,
      file,
      this.firstLine,
    );
  }
}

/** Epoch ms of an epoch-seconds float (microseconds rounded, then truncated to ms). */
export function epochSecondsMs(value: unknown): number | null {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) return null;
  const ms = Math.floor(Math.round(value * 1e6) / 1000);
  return isTimeMs(ms) ? ms : null; // a time no Date can hold cannot be placed
}

/** Epoch ms from an epoch-milliseconds number. */
export function epochMs(value: unknown): number | null {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) return null;
  const ms = Math.round(value);
  return isTimeMs(ms) ? ms : null; // a time no Date can hold cannot be placed
}
