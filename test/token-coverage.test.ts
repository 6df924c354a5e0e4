/**
 * How far a cell's driver logs reach (resolve/token-coverage.ts; MANIFEST.md
 * `driver_tokens_at_hour`): a moment more than 1 budget hour after the last
 * placed call, or after the start of a longer silence between two calls, or
 * after a late first call (only before it when calls without a time may fill
 * the stretch), has unknown tokens (null), with one warning per cause; pauses
 * do not count.
 */
import { afterAll, describe, expect, it } from "vitest";
import { codexTokenCount, makeMiniSweep } from "./helpers/mini-sweep.js";
import { buildManifest } from "../src/pipeline/build-manifest.js";
import { runCli } from "./helpers/cli.js";
import { removeTree } from "./helpers/tree.js";
import type { TokenCall } from "../src/extractors/trajectory/types.js";
import { cellCoverageWarnings, cellTokensAt, cellTokensAtMoment } from "../src/resolve/cell-tokens.js";
import { BudgetClock } from "../src/resolve/clock.js";
import { coverageWarnings, CoveredTokenLedger, TOKEN_COVERAGE_TOLERANCE_H } from "../src/resolve/token-coverage.js";
import { TokenLedger } from "../src/extractors/trajectory/index.js";

const H = 3_600_000;
const START = Date.parse("2026-10-01T00:00:00Z");
const callAt = (hours: number, line: number, total = 100): TokenCall => ({
  uncachedInput: total,
  cacheRead: 0,
  cacheWrite: 0,
  output: 0,
  timeMs: START + hours * H,
  file: "c/trajectory/s.jsonl",
  line,
});
/** A call every half budget hour from hour `from` to hour `to` (lines 1, 2, …), and one with no time. */
const every = (from: number, to: number): TokenCall[] => {
  const out: TokenCall[] = [];
  for (let h = from, line = 1; h <= to; h += 0.5, line += 1) out.push(callAt(h, line));
  return [...out, { ...callAt(0, 999), timeMs: null }];
};
const calls = every(0.5, 10); // 20 placed calls, the last (line 20) at hour 10

describe("CoveredTokenLedger", () => {
  it("covers up to the tolerance after the last placed call, not beyond", () => {
    const ledger = new CoveredTokenLedger(calls, new BudgetClock(START, []));
    expect(TOKEN_COVERAGE_TOLERANCE_H).toBe(1);
    expect([ledger.lastCall.line, ledger.lastCallHour, ledger.gap, ledger.startGap]).toEqual([20, 10, null, null]);
    expect(ledger.covers(START + 11 * H)).toBe(true);
    expect(ledger.covers(START + 11 * H + 1)).toBe(false);
    expect(cellTokensAt(ledger, START + 11 * H, START)?.total).toBe(2000);
    expect(cellTokensAt(ledger, START + 11 * H + 1, START)).toBeNull();
    // A plain ledger (no coverage known) is counted as before.
    expect(cellTokensAt(new TokenLedger(calls), START + 50 * H, START)?.total).toBe(2000);
  });

  it("measures in budget hours: a pause after the last call, or inside a silence, does not count", () => {
    const clock = new BudgetClock(START, [{ startMs: START + 10.5 * H, endMs: START + 14.5 * H }]);
    const ledger = new CoveredTokenLedger(calls, clock);
    // 15 h of wall time is 11 budget hours: 1 h after the last call.
    expect(ledger.covers(START + 15 * H)).toBe(true);
    expect(ledger.covers(START + 15 * H + 60_000)).toBe(false);
    // 5 h without a call, 4.5 of them paused: no gap.
    const paused = new BudgetClock(START, [{ startMs: START + 3.2 * H, endMs: START + 7.7 * H }]);
    const quiet = [...every(0.5, 3), callAt(8, 50), callAt(8.5, 51)];
    expect(new CoveredTokenLedger(quiet, paused).gap).toBeNull();
  });

  it("ends the coverage a tolerance after the start of a longer silence between two calls", () => {
    // Calls to hour 3, none until hour 6 (a session missing), calls again to hour 10.
    const gapped = [...every(0.5, 3), ...every(6, 10).map((c) => ({ ...c, line: c.line + 100 }))];
    const ledger = new CoveredTokenLedger(gapped, new BudgetClock(START, []));
    expect(ledger.gap).toMatchObject({ fromHour: 3, toHour: 6, from: { line: 6 }, to: { line: 101 } });
    expect(ledger.covers(START + 4 * H)).toBe(true);
    expect(ledger.covers(START + 4 * H + 1)).toBe(false);
    expect(ledger.covers(START + 9 * H)).toBe(false); // after the logs resume: the missing session's calls are not in the count
    expect(cellCoverageWarnings(ledger, [START + 2 * H, START + 5 * H, null, START + 9.5 * H])).toEqual([
      {
        code: "TRAJECTORY_GAP_BEFORE_CHECKPOINT",
        message:
          "the trajectory has no placed call for 3.00 budget hours, from the call at 2026-10-01T03:00:00.000Z (budget hour 3.00) to the call at 2026-10-01T06:00:00.000Z (budget hour 6.00), " +
          "and 2 row(s) lie after it, more than 1 budget hour(s) after its start (the latest at budget hour 9.50): a running driver calls its model every few minutes, " +
          "so the logs probably miss a session there (a missing session file?), and the driver tokens from then on are unknown (null), not the count of the calls logged",
        file: "c/trajectory/s.jsonl",
        line: 101,
      },
    ]);
  });

  it("with a call logged without a time (it may fill the stretch), does not cover a moment more than the tolerance after run_start and before the first placed call; from that call on, it does", () => {
    const late = every(3, 10);
    const ledger = new CoveredTokenLedger(late, new BudgetClock(START, []));
    expect(ledger.startGap).toMatchObject({ from: null, fromHour: 0, toHour: 3, to: { line: 1 } });
    expect(ledger.gap).toBeNull();
    expect([0.5, 1, 1.01, 2.9, 3, 10.9].map((h) => ledger.covers(START + h * H))).toEqual([
      true,
      true,
      false,
      false,
      true,
      true,
    ]);
    const ws = cellCoverageWarnings(ledger, [START + 0.5 * H, START + 2 * H, START + 12 * H]);
    expect(ws.map((w) => w.code)).toEqual(["TRAJECTORY_GAP_BEFORE_CHECKPOINT", "TRAJECTORY_ENDS_BEFORE_CHECKPOINT"]);
    expect(ws[0]!.message).toContain(
      "from run_start 2026-10-01T00:00:00.000Z to the call at 2026-10-01T03:00:00.000Z (budget hour 3.00), and 1 row(s) lie in it",
    );
    expect(cellTokensAtMoment(ledger, START + 2 * H, START)).toMatchObject({
      totals: null,
      warning: { code: "TRAJECTORY_GAP_BEFORE_CHECKPOINT" },
    });
  });

  it("without a call logged without a time, a late first call ends the coverage of every later moment (the first session is missing)", () => {
    const late = every(3, 10).filter((c) => c.timeMs !== null);
    const ledger = new CoveredTokenLedger(late, new BudgetClock(START, []));
    expect([ledger.startGap?.toHour, ledger.startEndsCoverage, ledger.gap]).toEqual([3, true, null]);
    expect([0.5, 1, 1.01, 2.9, 3, 10.9].map((h) => ledger.covers(START + h * H))).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    expect(cellCoverageWarnings(ledger, [START + 0.5 * H, START + 2 * H, START + 9 * H, START + 12 * H])).toEqual([
      {
        code: "TRAJECTORY_GAP_BEFORE_CHECKPOINT",
        message:
          "the trajectory has no placed call for 3.00 budget hours, from run_start 2026-10-01T00:00:00.000Z to the call at 2026-10-01T03:00:00.000Z (budget hour 3.00), " +
          "and 3 row(s) lie in it or after it, more than 1 budget hour(s) after its start (the latest at budget hour 12.00): a running driver calls its model every few minutes, " +
          "so the logs probably miss a session there (a missing session file?), and the driver tokens from then on are unknown (null), not the count of the calls logged",
        file: "c/trajectory/s.jsonl",
        line: 1,
      },
    ]);
    // Calls from the first hour on: nothing changes.
    expect(new CoveredTokenLedger(every(0.5, 10).slice(0, -1), new BudgetClock(START, [])).covers(START + 9 * H)).toBe(
      true,
    );
  });

  it("the build's end warning: one per cell, at the last call, with the number of rows and the latest row's hour", () => {
    const ledger = new CoveredTokenLedger(calls, new BudgetClock(START, []));
    expect(cellCoverageWarnings(ledger, [START + 2 * H, null, START + 11 * H])).toEqual([]);
    expect(cellCoverageWarnings(null, [START + 99 * H])).toEqual([]);
    expect(cellCoverageWarnings(ledger, [START + 2 * H, START + 12 * H, null, START + 30.5 * H])).toEqual([
      {
        code: "TRAJECTORY_ENDS_BEFORE_CHECKPOINT",
        message:
          "the trajectory's last placed call is at 2026-10-01T10:00:00.000Z (budget hour 10.00), but 2 row(s) lie more than 1 budget hour(s) after it " +
          "(the latest at budget hour 30.50): the logs probably stop early (a missing session file?), so the driver tokens there are unknown (null), not the count of the calls logged",
        file: "c/trajectory/s.jsonl",
        line: 20,
      },
    ]);
    expect(coverageWarnings(ledger, [START + 20 * H], "moment(s) asked")[0]!.message).toContain(
      "but 1 moment(s) asked lie more than 1 budget hour(s)",
    );
  });

  it("tokens --cell: --at past the logs is null with the warning; no --at is the whole run", () => {
    const ledger = new CoveredTokenLedger(calls, new BudgetClock(START, []));
    expect(cellTokensAtMoment(ledger, null, START)).toMatchObject({
      totals: { total: 2000, calls: 20 },
      warning: null,
    });
    expect(cellTokensAtMoment(ledger, START + 6 * H, START)).toMatchObject({
      totals: { total: 1200, calls: 12 },
      warning: null,
    });
    const late = cellTokensAtMoment(ledger, START + 12 * H, START);
    expect(late.totals).toBeNull();
    expect(late.warning?.code).toBe("TRAJECTORY_ENDS_BEFORE_CHECKPOINT");
    expect(cellTokensAtMoment(null, START, START)).toEqual({ totals: null, warning: null });
  });
});

describe("a call dated far outside the run (TRAJECTORY_CALL_OUTSIDE_RUN)", () => {
  const roots: string[] = [];
  afterAll(async () => Promise.all(roots.map(removeTree)));

  it("is a call without a time, with the warning: the rows after its true time lack it visibly, none drops it in silence", async () => {
    const file = "alpha/trajectory/sessions/2026/10/01/rollout-2026-10-01T00-15-00-0001.jsonl";
    // alpha's heartbeat session, one output token every 30 minutes (outside the 10:00-12:00Z pause).
    const beats = Array.from({ length: 140 }, (_v, k) =>
      new Date(Date.parse("2026-10-01T00:30:00Z") + k * 30 * 60_000).toISOString(),
    ).filter((t) => t < "2026-10-01T10:00:00Z" || t > "2026-10-01T12:00:00Z");
    const session = (times: string[]) =>
      `${[
        JSON.stringify({
          timestamp: "2026-10-01T00:15:00Z",
          type: "session_meta",
          payload: { id: "s2", timestamp: "2026-10-01T00:15:00Z" },
        }),
        ...times.map((t, k) => codexTokenCount(t, 0, 0, k + 1)),
      ].join("\n")}\n`;
    // The 12th beat (06:00Z) written a year early.
    const base = await makeMiniSweep({ [file]: session(beats) });
    const dir = await makeMiniSweep({
      [file]: session(beats.map((t, k) => (k === 11 ? t.replace("2026-", "2025-") : t))),
    });
    roots.push(base, dir);
    const [want, got] = await Promise.all([buildManifest({ sourcesDir: base }), buildManifest({ sourcesDir: dir })]);
    const key = (w: { code: string; file: string | null; line: number | null }) => `${w.code} ${w.file}:${w.line}`;
    expect(got.warnings.map(key).filter((k) => !want.warnings.map(key).includes(k))).toEqual([
      `TRAJECTORY_CALL_OUTSIDE_RUN ${file}:13`,
    ]);
    const sinceMs = Date.parse("2026-10-01T06:00:00Z");
    const wantRows = want.rows.filter((r) => r.cell === "alpha");
    expect(wantRows.filter((r) => r.driver_tokens_at_hour !== null).length).toBeGreaterThan(5);
    expect(got.rows.filter((r) => r.cell === "alpha").map((r) => [r.model_id, r.driver_tokens_at_hour])).toEqual(
      wantRows.map((r) => {
        const p = want.provenance.find((x) => x.model_id === r.model_id) as { write_time?: string } | undefined;
        const after = p?.write_time !== undefined && Date.parse(p.write_time) >= sinceMs;
        return [
          r.model_id,
          r.driver_tokens_at_hour !== null && after ? r.driver_tokens_at_hour - 1 : r.driver_tokens_at_hour,
        ];
      }),
    );
  }, 60_000);
});

describe("tokens --sources --cell agrees with the build past the logs' end", () => {
  const roots: string[] = [];
  afterAll(async () => Promise.all(roots.map(removeTree)));

  it("alpha's logs cut at 13:00Z (budget hour 11): --hour 12 counts, --hour 17.17 is null with the warning, as the row", async () => {
    const file = "alpha/trajectory/sessions/2026/10/01/rollout-2026-10-01T00-00-00-0000.jsonl";
    const dir = await makeMiniSweep({
      // alpha's second session is left out: its logs are this one file.
      "alpha/trajectory/sessions/2026/10/01/rollout-2026-10-01T00-15-00-0001.jsonl": null,
      [file]: `${[
        JSON.stringify({
          timestamp: "2026-10-01T00:00:01Z",
          type: "session_meta",
          payload: { id: "s1", timestamp: "2026-10-01T00:00:01Z" },
        }),
        // Three small running totals from 00:45Z (the logs reach the run's start), then one every 45 minutes
        // from 02:30Z to 13:00Z (budget hour 11), ending at 3000 + 300.
        codexTokenCount("2026-10-01T00:45:00Z", 50, 10, 5),
        codexTokenCount("2026-10-01T01:30:00Z", 100, 20, 10),
        codexTokenCount("2026-10-01T02:15:00Z", 150, 30, 15),
        ...Array.from({ length: 15 }, (_v, k) =>
          codexTokenCount(
            new Date(Date.parse("2026-10-01T02:30:00Z") + k * 45 * 60_000).toISOString(),
            200 * (k + 1),
            Math.round((1000 * (k + 1)) / 15),
            20 * (k + 1),
          ),
        ),
      ].join("\n")}\n`,
    });
    roots.push(dir, `${dir}-out`);
    const inside = await runCli("tokens", "--sources", dir, "--cell", "alpha", "--hour", "12", "--json");
    expect(inside.code, inside.stderr).toBe(0);
    expect(JSON.parse(inside.stdout)).toMatchObject({ total: 3300, warnings: [] });
    const past = await runCli("tokens", "--sources", dir, "--cell", "alpha", "--hour", "17.17", "--json");
    expect(past.code, past.stderr).toBe(0);
    const report = JSON.parse(past.stdout);
    expect(report.total).toBeNull();
    expect(report.warnings.map((w: { code: string; file: string; line: number }) => [w.code, w.file, w.line])).toEqual([
      ["TRAJECTORY_ENDS_BEFORE_CHECKPOINT", file, 19],
    ]);
    const b = await runCli("build", "--sources", dir, "--out", `${dir}-out`, "-q", "--no-cache");
    expect(b.code, b.stderr).toBe(0);
    const { readFile } = await import("node:fs/promises");
    const rows = JSON.parse(await readFile(`${dir}-out/manifest.json`, "utf8")) as {
      model_id: string;
      driver_tokens_at_hour: number | null;
    }[];
    expect(rows.find((r) => r.model_id === "agentic-ptb/alpha.h012.sft2.200")!.driver_tokens_at_hour).toBe(3300);
    expect(rows.find((r) => r.model_id === "agentic-ptb/alpha.h017.sft2.300")!.driver_tokens_at_hour).toBeNull();
  }, 60_000);
});
