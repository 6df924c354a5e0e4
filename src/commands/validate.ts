import type { Command } from "commander";
import { ExitCodeError } from "../errors.js";
import { DEFAULT_OUTLIER_FLOOR_H, DEFAULT_TOLERANCE_H } from "../resolve/cadence.js";
import { describedResultOf, ignoredOptions } from "../audit/explain.js";
import { renderValidation, validateBuild, type ValidationReport } from "../audit/validate.js";
import { KNOWN_UNREAD } from "../sources/session-file-names.js";
import { type CommandIo, parseHours } from "../options.js";
import type { Style } from "../util/colour.js";

/** Registers `ptb-manifest validate`. */
export function register(program: Command, io: CommandIo): void {
  program
    .command("validate")
    .description(
      "Check the hours of the last build into --out against independent evidence: cadence fits, anchors, source conflicts, step order. Exit 1 on any miss.",
    )
    .option(
      "--out <dir>",
      "the output folder of the build to check (its build-report.json, manifest.json, provenance.jsonl); with no build there, derive now from --sources",
      "out",
    )
    .option(
      "--sources <dir>",
      "the sources folder: compared with the build's recorded inputs (default: the build's own --sources), or derived from when --out holds no build",
      "sources",
    )
    .option("-j, --json", "print the report as one JSON object", false)
    .option(
      "--tolerance-h <hours>",
      "largest accepted anchor residual or disagreement between sources, hours (default: the build's own --tolerance-h, else 1.5)",
      parseHours,
    )
    .option(
      "--outlier-floor-h <hours>",
      "with no build in --out: floor of the cadence fit's outlier cut, hours (a point is fitted when its residual is within max(floor, 3·MAD))",
      parseHours,
      DEFAULT_OUTLIER_FLOOR_H,
    )
    .addHelpText(
      "after",
      "\nThe first line says which build is checked: the one in --out (its arguments, and whether its inputs changed since), or none (derived now)." +
        "\nExit codes: 0 pass; 1 an anchor misses by more than the tolerance, sources conflict, step order is contradicted, or the build's inputs changed since it was made (or a fatal input error).",
    )
    .addHelpText(
      "after",
      "\nExample (after ptb-manifest build --sources sources --out out):\n  ptb-manifest validate --out out\n  ptb-manifest validate --out out --tolerance-h 1 -j",
    )
    .action(
      async (
        o: { out: string; sources: string; json: boolean; toleranceH?: number; outlierFloorH: number },
        command: Command,
      ) => {
        const { result, build } = await describedResultOf(o, command);
        const built =
          typeof build.arguments.tolerance_h === "number" ? build.arguments.tolerance_h : DEFAULT_TOLERANCE_H;
        const toleranceH = o.toleranceH ?? built;
        const notes = ignoredOptions(
          build,
          command.getOptionValueSource("outlierFloorH") === "cli"
            ? [
                {
                  flag: "--outlier-floor-h",
                  key: "outlier_floor_h",
                  value: o.outlierFloorH,
                  fallback: DEFAULT_OUTLIER_FLOOR_H,
                },
              ]
            : [],
        );
        if (build.found && toleranceH !== built)
          notes.push(
            `--tolerance-h ${toleranceH} is the tolerance of the checks below; the fits are the build's, validated at ${built} h`,
          );
        const v: ValidationReport = {
          ...validateBuild(result, toleranceH),
          ...(build.found && toleranceH !== built ? { fits_tolerance_h: built } : {}),
          build: { ...build, notes },
        };
        // A release gate passes the build of the sources as they are: one of changed inputs is stale (a
        // change to a file no reader reads, RUNLOG.md or a .keep, changes no decision).
        const inputs = build.found ? build.inputs : undefined;
        const read = (path: string): boolean => !KNOWN_UNREAD.includes(path.slice(path.lastIndexOf("/") + 1));
        if (inputs?.state === "changed" && [...inputs.changed, ...inputs.added, ...inputs.removed].some(read)) {
          v.inputs_changed = true;
          v.ok = false;
        }
        io.stdout.write(
          o.json ? `${JSON.stringify(v, null, 2)}\n` : verdictStyled(renderValidation(v), io.style.stdout),
        );
        // The verdict is printed once, on stdout (the last line, or "ok" in the JSON); the exit code carries it too.
        if (!v.ok) throw new ExitCodeError(1, "");
      },
    );
}

/** `validate`'s text with its closing verdict styled for the terminal: PASS green, FAIL red (the words unchanged). */
function verdictStyled(text: string, style: Style): string {
  return text.replace(
    /^validate: (PASS|FAIL)(?=[^\n]*\n?$)/m,
    (_, verdict: string) => `validate: ${verdict === "PASS" ? style.good(verdict) : style.bad(verdict)}`,
  );
}
