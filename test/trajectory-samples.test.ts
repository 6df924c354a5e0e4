/**
 * The real session logs of shared/samples/trajectories/ against their
 * expected.json (TRAJECTORIES.md, "Real samples"): every sample's four parts,
 * total, calls, last call time, and its mid-run checkpoint tokens(t).
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { readTrajectory, TokenLedger, type TrajectoryFormat } from "../src/extractors/trajectory/index.js";

const SAMPLES = resolve(import.meta.dirname, "../../shared/samples/trajectories");
const EXPECTED = join(SAMPLES, "expected.json");
const present = existsSync(EXPECTED);

interface Parts {
  uncached_input: number;
  cache_read: number;
  cache_write: number;
  output: number;
  total: number;
}
interface Sample {
  id: string;
  format: TrajectoryFormat;
  files: string[];
  expected: Parts & { calls: number; last_call_time: string | null };
  checkpoint: (Parts & { t: string; calls_completed: number }) | null;
}

const samples: Sample[] = present ? (JSON.parse(readFileSync(EXPECTED, "utf8")) as { samples: Sample[] }).samples : [];

describe.skipIf(!present)(
  present
    ? "trajectory samples (shared/samples/trajectories/expected.json)"
    : `trajectory samples: skipped, ${EXPECTED} not found (the shared folder is not beside the project)`,
  () => {
    it("has samples of all five formats", () => {
      expect(new Set(samples.map((s) => s.format))).toEqual(
        new Set(["codex", "claude-code", "pi", "kimi-cli", "kimi-code"]),
      );
    });

    for (const sample of samples) {
      it(`${sample.id}: totals, calls, last call time and checkpoint`, async () => {
        const reading = await readTrajectory(
          sample.format,
          sample.files.map((f) => join(SAMPLES, f)),
          { displayRoot: SAMPLES },
        );
        expect(reading.warnings.filter((w) => w.code === "TRAJECTORY_BAD_JSON")).toEqual([]);
        // Real logs carry only keys their format defines: no usage-shape warning.
        expect(reading.warnings.filter((w) => /USAGE/.test(w.code))).toEqual([]);
        const ledger = new TokenLedger(reading.calls);
        const t = ledger.totals();
        expect({
          uncached_input: t.uncachedInput,
          cache_read: t.cacheRead,
          cache_write: t.cacheWrite,
          output: t.output,
          total: t.total,
          calls: t.calls,
          last_call_time: t.lastCallTimeMs === null ? null : new Date(t.lastCallTimeMs).toISOString(),
        }).toEqual({
          uncached_input: sample.expected.uncached_input,
          cache_read: sample.expected.cache_read,
          cache_write: sample.expected.cache_write,
          output: sample.expected.output,
          total: sample.expected.total,
          calls: sample.expected.calls,
          last_call_time: sample.expected.last_call_time,
        });
        if (sample.checkpoint) {
          const c = ledger.at(Date.parse(sample.checkpoint.t));
          expect({
            uncached_input: c.uncachedInput,
            cache_read: c.cacheRead,
            cache_write: c.cacheWrite,
            output: c.output,
            total: c.total,
            calls_completed: c.calls,
          }).toEqual({
            uncached_input: sample.checkpoint.uncached_input,
            cache_read: sample.checkpoint.cache_read,
            cache_write: sample.checkpoint.cache_write,
            output: sample.checkpoint.output,
            total: sample.checkpoint.total,
            calls_completed: sample.checkpoint.calls_completed,
          });
        }
      });
    }

    it("a folder counts as one run: the claude-code sample folder with its subagents/ file", async () => {
      const s = samples.find((x) => x.id === "claude-code/-home-user-projects-spotter-worktrees-spotter-4te");
      expect(s).toBeDefined();
      const reading = await readTrajectory("claude-code", [join(SAMPLES, s!.id)], { displayRoot: SAMPLES });
      const t = new TokenLedger(reading.calls).totals();
      expect([t.total, t.calls]).toEqual([s!.expected.total, s!.expected.calls]);
      expect(reading.warnings.map((w) => w.code)).toEqual(["TRAJECTORY_OUTPUT_UNDERCOUNT"]);
    });
  },
);
