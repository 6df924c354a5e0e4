import { describe, expect, it, beforeAll } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildManifest } from "../src/pipeline/build-manifest.js";
import type { BuildResult } from "../src/model.js";
import { countRows } from "../src/writers/report.js";
import { hourPart } from "../src/resolve/ids.js";
import { BudgetClock } from "../src/resolve/clock.js";
import type { Row } from "../src/schema.js";

/**
 * The embedded sources/ against the true answer scripts/make-sources.ts
 * wrote beside it (test/expected/sources-truth.json), and against the
 * published index's tables (MANIFEST.md: Counts the published index states).
 */
const repo = join(import.meta.dirname, "..");
const truthPath = join(repo, "test", "expected", "sources-truth.json");

interface TruthRow extends Omit<Row, "model_id" | "hour" | "driver_tokens_at_hour" | "hour_error_h"> {
  model_id: string | null;
  hour: number | null;
  driver_tokens_at_hour: number | null;
  hour_error_h: number | null;
  true_hour: number | null;
  true_write_time: string | null;
}
interface Truth {
  rows: TruthRow[];
  token_curves: Record<string, [number, number][]>;
  run: Record<string, { run_start: string; run_end: string | null; pauses: [string, string][] }>;
  excluded: { cell: string; reason: string }[];
  lost: { cell: string; family: string; step: number }[];
}

const keyOf = (r: { cell: string; family: string | null; step: number | null }) =>
  `${r.cell}/${r.family ?? ""}/${r.step ?? ""}`;

describe("the embedded sources/", () => {
  let result: BuildResult;
  let truth: Truth;
  beforeAll(async () => {
    result = await buildManifest({ sourcesDir: join(repo, "sources") });
    truth = JSON.parse(readFileSync(truthPath, "utf8")) as Truth;
  }, 300_000);

  it("reproduces the published index's tables", () => {
    const c = countRows(result.rows);
    expect(c.per_cell).toEqual({
      "sol-high": 57,
      grok: 59,
      "dpsk-v4-flash": 40,
      kimi: 38,
      "opus-max": 13,
      "sol-max": 13,
      "opus-high-v1": 3,
      "sol-max-opusnode": 9,
      "sol-max-v2": 36,
    });
    expect(c.checkpoints).toBe(268);
    expect(c.per_hour_source).toEqual({ mtime: 222, janitor: 24, extrapolated: 7, unrecoverable: 15 });
    expect(c.eos_ok_per_cell.grok).toBe("0/59");
    expect(c.eos_ok_per_cell["sol-high"]).toBe("39/57");
    expect(result.rows.some((r) => r.cell === "opus-high-v2")).toBe(false);
    expect(result.excluded.map((e) => e.cell)).toEqual(["opus-high-v2"]);
    const v2Submitted = result.rows.find((r) => r.cell === "sol-max-v2" && r.role === "SUBMITTED")!;
    expect(Math.floor(v2Submitted.hour!)).toBe(7);
  });

  it("matches the true answer on every row", () => {
    expect(result.rows.map(keyOf).sort()).toEqual(truth.rows.map(keyOf).sort());
    const byKey = new Map(result.rows.map((r) => [keyOf(r), r]));
    const problems: string[] = [];
    for (const t of truth.rows) {
      const r = byKey.get(keyOf(t));
      if (!r) {
        problems.push(`${keyOf(t)}: missing`);
        continue;
      }
      const fields = [
        "cell",
        "driver",
        "effort",
        "hour_source",
        "role",
        "eos_ok",
        "eos_token_id",
        "source",
        "family",
        "step",
        "hour_upper_bound",
        "hour_lower_bound",
      ] as const;
      for (const f of fields) {
        if (JSON.stringify(r[f]) !== JSON.stringify(t[f]))
          problems.push(`${keyOf(t)}: ${f} ${JSON.stringify(r[f])} != truth ${JSON.stringify(t[f])}`);
      }
      if (t.hour_source === "extrapolated") {
        if (r.hour === null || r.hour_error_h === null || Math.abs(r.hour - t.true_hour!) > r.hour_error_h + 0.005) {
          problems.push(
            `${keyOf(t)}: extrapolated hour ${r.hour} ± ${r.hour_error_h} misses the true hour ${t.true_hour}`,
          );
        }
        if (r.model_id !== `agentic-ptb/${r.cell}.h${hourPart(r.hour)}.${r.family}.${r.step}`)
          problems.push(`${keyOf(t)}: id ${r.model_id}`);
        // Tokens at the predicted moment: the tool uses the unrounded hour, so allow the rounding's half-width.
        const run = truth.run[r.cell]!;
        const clock = new BudgetClock(
          Date.parse(run.run_start),
          run.pauses.map(([a, b]) => ({ startMs: Date.parse(a), endMs: Date.parse(b) })),
        );
        const curve = truth.token_curves[r.cell] ?? [];
        const at = (ms: number) => curve.filter(([t0]) => t0 <= ms).reduce((_, [, v]) => v, 0);
        const lo = at(clock.timeAt(r.hour! - 0.005));
        const hi = at(clock.timeAt(r.hour! + 0.005));
        if (r.driver_tokens_at_hour === null || r.driver_tokens_at_hour < lo || r.driver_tokens_at_hour > hi) {
          problems.push(
            `${keyOf(t)}: tokens ${r.driver_tokens_at_hour} outside the truth's [${lo}, ${hi}] at hour ${r.hour}`,
          );
        }
      } else {
        if (r.model_id !== t.model_id) problems.push(`${keyOf(t)}: model_id ${r.model_id} != truth ${t.model_id}`);
        if (t.hour === null ? r.hour !== null : r.hour === null || Math.abs(r.hour - t.hour) > 0.01)
          problems.push(`${keyOf(t)}: hour ${r.hour} != truth ${t.hour}`);
        if (r.driver_tokens_at_hour !== t.driver_tokens_at_hour)
          problems.push(`${keyOf(t)}: tokens ${r.driver_tokens_at_hour} != truth ${t.driver_tokens_at_hour}`);
        if (r.hour_error_h !== t.hour_error_h)
          problems.push(`${keyOf(t)}: hour_error_h ${r.hour_error_h} != truth ${t.hour_error_h}`);
      }
      if (t.true_hour !== null && r.hour_lower_bound !== null && r.hour_lower_bound > t.true_hour + 0.01)
        problems.push(`${keyOf(t)}: lower bound above the true hour`);
      if (t.true_hour !== null && r.hour_upper_bound !== null && r.hour_upper_bound < t.true_hour - 0.01)
        problems.push(`${keyOf(t)}: upper bound below the true hour`);
    }
    expect(problems).toEqual([]);
    expect(result.lost.map((l) => `${l.cell}/${l.family}/${l.step}`).sort()).toEqual(
      truth.lost.map((l) => `${l.cell}/${l.family}/${l.step}`).sort(),
    );
  });
});

describe("audit commands on the embedded sources/", () => {
  it("validate passes; diff of the Hub snapshot against the build lists exactly the renames the true answer implies", async () => {
    const { validateBuild } = await import("../src/audit/validate.js");
    const { diffSides, loadSide } = await import("../src/diff/diff.js");
    const { explainRow } = await import("../src/audit/explain.js");
    const result = await buildManifest({ sourcesDir: join(repo, "sources") });
    const v = validateBuild(result);
    expect(v.ok).toBe(true);
    expect(v.anchors.length).toBeGreaterThan(0);
    for (const row of result.rows) expect(explainRow(result, row.model_id).row).toBe(row);

    const truth = JSON.parse(readFileSync(truthPath, "utf8")) as Truth;
    const newId = new Map(result.rows.map((r) => [keyOf(r), r.model_id]));
    const expectedRenames: { from: string; to: string }[] = [];
    for (const owner of ["agentic-ptb"]) {
      const { readdirSync } = await import("node:fs");
      for (const name of readdirSync(join(repo, "sources", "hub", owner))) {
        const m = /^(.+?)\.h(\d{3}|NA)\.(.+)\.(\d+)$/.exec(name);
        if (!m) continue;
        const t = truth.rows.find((r) => r.cell === m[1] && r.family === m[3] && r.step === Number(m[4]));
        if (!t) continue; // an excluded cell's repo
        const to = t.model_id ?? newId.get(keyOf(t))!;
        if (`${owner}/${name}` !== to) expectedRenames.push({ from: `${owner}/${name}`, to });
      }
    }
    expectedRenames.sort((a, b) => (a.from < b.from ? -1 : 1));
    const rows = new Map<string, Record<string, unknown>[]>();
    for (const r of result.rows) rows.set(r.family === null ? r.model_id : keyOf(r), [r]);
    const d = diffSides(await loadSide(join(repo, "sources")), rows, "hub", "build");
    // A rename onto a repo that exists (dpsk-v4-flash sft 2400 is published twice) is a conflict, never planned.
    const { readdirSync } = await import("node:fs");
    const existing = new Set(readdirSync(join(repo, "sources", "hub", "agentic-ptb")).map((n) => `agentic-ptb/${n}`));
    expect(d.renames).toEqual(expectedRenames.filter((r) => !existing.has(r.to)));
    expect(d.conflicts.map((c) => [c.from, c.to])).toEqual([
      ["agentic-ptb/dpsk-v4-flash.h013.sft.2400", "agentic-ptb/dpsk-v4-flash.h014.sft.2400"],
    ]);
    expect(d.renames.length).toBeGreaterThan(10);
  }, 300_000);
});

describe("scripts/make-sources.ts", () => {
  it("regenerates sources/ and its true answer byte for byte", async () => {
    const { mkdtemp, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { execFileSync } = await import("node:child_process");
    const { createHash } = await import("node:crypto");
    const fg = (await import("fast-glob")).default;
    const tmp = await mkdtemp(join(tmpdir(), "ptb-regen-"));
    try {
      execFileSync(
        process.execPath,
        [
          join(repo, "node_modules", "tsx", "dist", "cli.mjs"),
          join(repo, "scripts", "make-sources.ts"),
          "--out",
          join(tmp, "sources"),
          "--truth",
          join(tmp, "truth.json"),
        ],
        { stdio: "pipe" },
      );
      const digest = (root: string) => {
        const h = createHash("sha256");
        for (const f of fg.sync("**/*", { cwd: root, dot: true }).sort())
          h.update(f).update(readFileSync(join(root, f)));
        return h.digest("hex");
      };
      expect(digest(join(tmp, "sources"))).toBe(digest(join(repo, "sources")));
      expect(readFileSync(join(tmp, "truth.json"), "utf8")).toBe(readFileSync(truthPath, "utf8"));
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }, 120_000);
});
