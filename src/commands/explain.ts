import type { Command } from "commander";
import { DEFAULT_OUTLIER_FLOOR_H, DEFAULT_TOLERANCE_H } from "../resolve/cadence.js";
import { describedResultOf, explainRow, ignoredOptions, renderExplanation } from "../audit/explain.js";
import { type CommandIo, parseHours } from "../options.js";

/** Registers `ptb-manifest explain`. */
export function register(program: Command, io: CommandIo): void {
  program
    .command("explain")
    .description(
      "Explain one row of the last build into --out: every observation considered, the rule that chose its hour, why the others lost, fit, bounds, tokens, role, eos.",
    )
    .argument("<id>", "a model id (also a stale or hNA id as published on the Hub), or cell/family/step")
    .option(
      "--out <dir>",
      "the output folder of the build to explain (its build-report.json, manifest.json, provenance.jsonl); with no build there, derive now from --sources",
      "out",
    )
    .option(
      "--sources <dir>",
      "the sources folder: compared with the build's recorded inputs (default: the build's own --sources), or derived from when --out holds no build",
      "sources",
    )
    .option(
      "--tolerance-h <hours>",
      "with no build in --out: largest leave-one-out error and anchor residual for an extrapolated hour",
      parseHours,
      DEFAULT_TOLERANCE_H,
    )
    .option(
      "--outlier-floor-h <hours>",
      "with no build in --out: floor of the cadence fit's outlier cut, hours (a point is fitted when its residual is within max(floor, 3·MAD))",
      parseHours,
      DEFAULT_OUTLIER_FLOOR_H,
    )
    .option("-j, --json", "print one JSON object {query, row, provenance, run, build}", false)
    .addHelpText(
      "after",
      "\nThe first line says which build is explained: the one in --out (its arguments, and whether its inputs changed since), or none (derived now).",
    )
    .addHelpText(
      "after",
      "\nExample (after ptb-manifest build --sources sources --out out):\n  ptb-manifest explain agentic-ptb/kimi.h003.grpo-len.40 --out out\n  ptb-manifest explain kimi/grpo-len/40 -j",
    )
    .action(
      async (
        id: string,
        o: { out: string; sources: string; toleranceH: number; outlierFloorH: number; json: boolean },
        command: Command,
      ) => {
        const { result, build } = await describedResultOf(o, command);
        const given = [
          {
            flag: "--tolerance-h",
            key: "tolerance_h",
            value: o.toleranceH,
            fallback: DEFAULT_TOLERANCE_H,
            cli: command.getOptionValueSource("toleranceH") === "cli",
          },
          {
            flag: "--outlier-floor-h",
            key: "outlier_floor_h",
            value: o.outlierFloorH,
            fallback: DEFAULT_OUTLIER_FLOOR_H,
            cli: command.getOptionValueSource("outlierFloorH") === "cli",
          },
        ].filter((g) => g.cli);
        const x = { ...explainRow(result, id), build: { ...build, notes: ignoredOptions(build, given) } };
        io.stdout.write(o.json ? `${JSON.stringify(x, null, 2)}\n` : renderExplanation(x));
      },
    );
}
