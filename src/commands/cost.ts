import { stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { Option, type Command } from "commander";
import { InputError } from "../errors.js";
import type { Row } from "../schema.js";
import { type Warning, warningLine } from "../diagnostics.js";
import { earlierNamesBeside } from "../diff/diff.js";
import { readManifestRows } from "../manifest/read.js";
import { computeCost, costCsv, readScores, renderCost } from "../cost/cost.js";
import { costHtml } from "../cost/cost-html.js";
import { mixedScaleWarnings } from "../cost/score-scale.js";
import { writeFilesAtomically } from "../util/atomic.js";
import { type CommandIo, outPathOption } from "../options.js";

/** Registers `ptb-manifest cost`. */
export function register(program: Command, io: CommandIo): void {
  program
    .command("cost")
    .description(
      "Join eval scores to the manifest: gain over the baseline and driver tokens per point of gain (eos_ok rows only), plus cost.html.",
    )
    .requiredOption(
      "--scores <file>",
      "eval results: CSV (model_id,suite,score) or JSONL; stale and hNA Hub ids are mapped to their rows",
    )
    .option(
      "--manifest <file>",
      "the manifest to join: manifest.json, manifest.csv or a build's output folder",
      "out/manifest.json",
    )
    .option("--suite <name>", "only this suite (one the scores file has, else COST_UNKNOWN_SUITE)")
    .option("-j, --json", "print the report as one JSON object", false)
    .addOption(new Option("--csv", "print the figures as CSV").default(false).conflicts("json"))
    .option("--include-eos-broken", "keep rows with eos_ok false or null in the figures, marked in their note", false)
    .option("--html <file>", "where to write cost.html (default: beside the manifest)", outPathOption)
    .option(
      "--force",
      "replace the --html file even if ptb-manifest cost did not write it (else OUT_FOREIGN_FILE); never the manifest or scores it reads (OUT_IS_INPUT)",
      false,
    )
    .addHelpText(
      "after",
      "\nExample (after ptb-manifest build --sources sources --out out):\n  ptb-manifest cost --scores docs/example-scores.csv --manifest out/manifest.json",
    )
    .action(
      async (o: {
        scores: string;
        manifest: string;
        suite?: string;
        json: boolean;
        csv: boolean;
        includeEosBroken: boolean;
        html?: string;
        force: boolean;
      }) => {
        let rows: Row[];
        try {
          rows = await readManifestRows(o.manifest);
        } catch (err) {
          if (!(err instanceof InputError)) throw err;
          throw new InputError(
            "COST_BAD_MANIFEST",
            `cannot read a manifest from ${o.manifest} (run ptb-manifest build first): ${err.message}`,
            err.file,
            err.line,
          );
        }
        const scores = await readScores(o.scores);
        // A suite on two scales is said on stderr, whatever the output format.
        for (const w of mixedScaleWarnings(scores)) io.stderr.write(warningLine(w, io.style.stderr.warning));
        const report = computeCost(rows, scores, {
          suite: o.suite,
          includeEosBroken: o.includeEosBroken,
          earlierNames: await earlierNamesBeside(
            o.manifest,
            (w: Warning) => void io.stderr.write(warningLine(w, io.style.stderr.warning)),
          ),
        });
        const manifestDir = (await stat(o.manifest)).isDirectory() ? o.manifest : dirname(o.manifest);
        const html = resolve(o.html ?? join(manifestDir, "cost.html"));
        // cost.html never replaces what this run reads: the manifest, the provenance beside it, the scores.
        const manifestFile = manifestDir === o.manifest ? join(o.manifest, "manifest.json") : o.manifest;
        const inputs = [
          { path: manifestFile, option: "--manifest" },
          {
            path: join(manifestDir, "provenance.jsonl"),
            option: "--manifest",
            named: `the provenance.jsonl beside --manifest ${o.manifest}`,
          },
          { path: o.scores, option: "--scores" },
        ];
        await writeFilesAtomically(dirname(html), new Map([[basename(html), await costHtml(report, rows)]]), "--html", {
          writer: "cost",
          force: o.force,
          inputs,
        });
        io.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : o.csv ? costCsv(report) : renderCost(report));
        // What the figures leave out is said on stderr too, so --csv (which has no room for it) does not hide it.
        if (report.unmatched.length) {
          const u = report.unmatched[0]!;
          io.stderr.write(
            warningLine(
              {
                code: "COST_UNMATCHED_SCORE",
                file: u.at,
                line: null,
                message: `${report.unmatched.length} score(s) name a model id with no row of ${o.manifest} (the first: ${u.model_id}); they are not in the figures`,
              },
              io.style.stderr.warning,
            ),
          );
        }
        if (report.excluded.length)
          io.stderr.write(
            `ptb-manifest: ${report.excluded.length} score(s) left out for broken or unknown packaging (eos_ok false or null; --include-eos-broken keeps them)\n`,
          );
        io.stderr.write(`ptb-manifest: wrote ${html}\n`);
      },
    );
}
