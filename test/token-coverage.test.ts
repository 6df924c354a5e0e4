/**
 * Where a cell's driver logs end (resolve/token-coverage.ts; MANIFEST.md
 * `driver_tokens_at_hour`): a moment more than 1 budget hour after the last
 * placed call has unknown tokens (null), with one warning; pauses do not count.
 */
import { afterAll, describe, expect, it } from "vitest";
import { codexTokenCount, makeMiniSweep } from "./helpers/mini-sweep.js";
import { runCli } from "./helpers/cli.js";
import { removeTree } from "./helpers/tree.js";
import type { TokenCall } from "../src/extractors/trajectory/types.js";
import { cellCoverageWarning, cellTokensAt, cellTokensAtMoment } from "../src/resolve/cell-tokens.js";
import { BudgetClock } from "../src/resolve/clock.js";
import { coverageWarning, CoveredTokenLedger, TOKEN_COVERAGE_TOLERANCE_H } from "../src/resolve/token-coverage.js";
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
const calls = [callAt(1, 2), callAt(5, 7), callAt(10, 9), { ...callAt(0, 11), timeMs: null }];

describe("CoveredTokenLedger", () => {
  it("covers up to the tolerance after the last placed call, not beyond", () => {
    const ledger = new CoveredTokenLedger(calls, new BudgetClock(START, []));
    expect(TOKEN_COVERAGE_TOLERANCE_H).toBe(1);
    expect([ledger.lastCall.line, ledger.lastCallHour]).toEqual([9, 10]);
    expect(ledger.covers(START + 11 * H)).toBe(true);
    expect(ledger.covers(START + 11 * H + 1)).toBe(false);
    expect(cellTokensAt(ledger, START + 11 * H, START)?.total).toBe(300);
    expect(cellTokensAt(ledger, START + 11 * H + 1, START)).toBeNull();
    // A plain ledger (no coverage known) is counted as before.
    expect(cellTokensAt(new TokenLedger(calls), START + 50 * H, START)?.total).toBe(300);
  });

  it("measures in budget hours: a pause after the last call does not count", () => {
    const clock = new BudgetClock(START, [{ startMs: START + 10.5 * H, endMs: START + 14.5 * H }]);
    const ledger = new CoveredTokenLedger(calls, clock);
    // 15 h of wall time is 11 budget hours: 1 h after the last call.
    expect(ledger.covers(START + 15 * H)).toBe(true);
    expect(ledger.covers(START + 15 * H + 60_000)).toBe(false);
  });

  it("the build's warning: one per cell, at the last call, with the number of rows and the latest row's hour", () => {
    const ledger = new CoveredTokenLedger(calls, new BudgetClock(START, []));
    expect(cellCoverageWarning(ledger, [START + 2 * H, null, START + 11 * H])).toBeNull();
    expect(cellCoverageWarning(null, [START + 99 * H])).toBeNull();
    const w = cellCoverageWarning(ledger, [START + 2 * H, START + 12 * H, null, START + 30.5 * H]);
    expect(w).toEqual({
      code: "TRAJECTORY_ENDS_BEFORE_CHECKPOINT",
      message:
        "the trajectory's last placed call is at 2026-10-01T10:00:00.000Z (budget hour 10.00), but 2 row(s) lie more than 1 budget hour(s) after it " +
        "(the latest at budget hour 30.50): the logs probably stop early (a missing session file?), so the driver tokens there are unknown (null), not the count of the calls logged",
      file: "c/trajectory/s.jsonl",
      line: 9,
    });
    expect(coverageWarning(ledger, [START + 20 * H], "moment(s) asked")!.message).toContain(
      "but 1 moment(s) asked lie more than 1 budget hour(s)",
    );
  });

  it("tokens --cell: --at past the logs is null with the warning; no --at is the whole run", () => {
    const ledger = new CoveredTokenLedger(calls, new BudgetClock(START, []));
    expect(cellTokensAtMoment(ledger, null, START)).toMatchObject({ totals: { total: 300, calls: 3 }, warning: null });
    expect(cellTokensAtMoment(ledger, START + 6 * H, START)).toMatchObject({
      totals: { total: 200, calls: 2 },
      warning: null,
    });
    const late = cellTokensAtMoment(ledger, START + 12 * H, START);
    expect(late.totals).toBeNull();
    expect(late.warning?.code).toBe("TRAJECTORY_ENDS_BEFORE_CHECKPOINT");
    expect(cellTokensAtMoment(null, START, START)).toEqual({ totals: null, warning: null });
  });
});

describe("tokens --sources --cell agrees with the build past the logs' end", () => {
  const roots: string[] = [];
  afterAll(async () => Promise.all(roots.map(removeTree)));

  it("alpha's logs cut at 13:00Z (budget hour 11): --hour 12 counts, --hour 17.17 is null with the warning, as the row", async () => {
    const file = "alpha/trajectory/sessions/2026/10/01/rollout-2026-10-01T00-00-00-0000.jsonl";
    const dir = await makeMiniSweep({
      [file]: `${[
        JSON.stringify({
          timestamp: "2026-10-01T00:00:01Z",
          type: "session_meta",
          payload: { id: "s1", timestamp: "2026-10-01T00:00:01Z" },
        }),
        codexTokenCount("2026-10-01T04:00:00.000Z", 1000, 200, 100),
        codexTokenCount("2026-10-01T13:00:00.000Z", 3000, 1000, 300),
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
      ["TRAJECTORY_ENDS_BEFORE_CHECKPOINT", file, 3],
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
