/** Fixture helpers for the trajectory tests: small session logs written to temp dirs. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach } from "vitest";
import { readTrajectory, TokenLedger, type TrajectoryFormat } from "../src/extractors/trajectory/index.js";
import type { TokenTotals } from "../src/extractors/trajectory/types.js";

const dirs: string[] = [];

/** Registers cleanup of every temp dir made by {@link tempDir} in the calling test file. */
export function useTempDirs(): void {
  afterEach(() => {
    while (dirs.length > 0) rmSync(dirs.pop()!, { recursive: true, force: true });
  });
}

/** A fresh temp dir (removed after each test). */
export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "ptb-traj-"));
  dirs.push(d);
  return d;
}

/** Writes `lines` (objects are JSON-encoded, strings written as they are) as a JSONL file under `root`. */
export function writeJsonl(
  root: string,
  rel: string,
  lines: (object | string)[],
  opts: { finalNewline?: boolean } = {},
): string {
  const path = join(root, rel);
  mkdirSync(dirname(path), { recursive: true });
  const body = lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n");
  writeFileSync(path, body + (opts.finalNewline === false ? "" : "\n"));
  return path;
}

/** Reads `paths` as one run and returns its totals, reading and ledger. */
export async function count(format: TrajectoryFormat, paths: string[], displayRoot?: string) {
  const reading = await readTrajectory(format, paths, displayRoot === undefined ? {} : { displayRoot });
  const ledger = new TokenLedger(reading.calls);
  return { reading, ledger, totals: ledger.totals() };
}

/** Totals without the time, for compact assertions: [uncached, cacheRead, cacheWrite, output, total, calls]. */
export function parts(t: TokenTotals): [number, number, number, number, number, number] {
  return [t.uncachedInput, t.cacheRead, t.cacheWrite, t.output, t.total, t.calls];
}

/** ISO time `s` seconds after 2026-03-01T10:00:00Z. */
export function at(s: number): string {
  return new Date(Date.parse("2026-03-01T10:00:00.000Z") + Math.round(s * 1000)).toISOString();
}

/** Epoch ms of {@link at}. */
export function ms(s: number): number {
  return Date.parse(at(s));
}
