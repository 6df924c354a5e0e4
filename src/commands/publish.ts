import { resolve } from "node:path";
import type { Command } from "commander";
import { warningLine } from "../diagnostics.js";
import type { CommandIo } from "../options.js";
import {
  checkParentCommit,
  outcomeError,
  publishHub,
  publishTarget,
  renderOutcome,
  renderPlanOutput,
} from "../publish/checks.js";
import { executePlan, planPublish } from "../publish/publish.js";

/** Registers `ptb-manifest publish`. */
export function register(program: Command, io: CommandIo): void {
  program
    .command("publish")
    .description(
      "Publish the index: upload README.md, manifest.json and manifest.csv in one commit, then rename the checkpoint repos a rebuild moved. Without --yes, only print the plan.",
    )
    .option("--repo <owner/name>", "the index dataset repo (default: <org>/checkpoint-index)")
    .option("--out <dir>", "the build's output folder to publish", "out")
    .option("--yes", "apply the plan (otherwise nothing is changed)", false)
    .option(
      "--allow-warnings",
      "with --yes: publish a build made without --strict, or with warnings (the release gate refuses it otherwise)",
      false,
    )
    .option(
      "--parent-commit <sha>",
      "with --yes: apply only if the dataset repo is still at this commit (the one the printed plan names; 7 or more leading hex digits)",
    )
    .option("-j, --json", "print the plan (and outcome) as JSON", false)
    .option("--hub-url <url>", "the Hub's URL (default: HF_ENDPOINT, else https://huggingface.co)")
    .addHelpText(
      "after",
      [
        "",
        "--yes publishes only a release build (build --strict, no warnings), else it",
        "refuses with PUBLISH_NOT_RELEASE, giving the warnings per code; --allow-warnings",
        "publishes it anyway. The token is HF_TOKEN, else the file at HF_TOKEN_PATH,",
        "else $HF_HOME/token (default ~/.cache/huggingface/token), as the Hub's own",
        "clients read it; it is never printed. The upload names the dataset's commit",
        "the plan was read at as its parent: a change on the Hub meanwhile stops it",
        "(PUBLISH_HUB_CHANGED), nothing overwritten. A re-run after a failure continues",
        "where it stopped; with nothing changed it does nothing.",
        "",
        "Exit codes:",
        "  0   done, or the plan printed",
        "  1   refused or stopped, with a coded error (PUBLISH_NOT_RELEASE,",
        "      PUBLISH_NO_TOKEN, PUBLISH_HUB_CHANGED, HUB_*): nothing done, or the",
        "      report says what was done and what remains",
        "  2   applied, but renames are left to settle by hand (PUBLISH_CONFLICTS_LEFT)",
        "  64  usage error",
        "",
        "Example (after ptb-manifest build --sources sources --out out): print the plan (it asks the Hub), change nothing",
        "  ptb-manifest publish --out out",
      ].join("\n"),
    )
    .action(
      async (
        o: {
          repo?: string;
          out: string;
          yes: boolean;
          allowWarnings: boolean;
          parentCommit?: string;
          json: boolean;
          hubUrl?: string;
        },
        command: Command,
      ) => {
        if (!o.yes && o.parentCommit !== undefined) {
          command.error("error: --parent-commit needs --yes", { exitCode: 64, code: "ptb.parentCommitWithoutYes" });
        }
        const outDir = resolve(o.out);
        const { repo, release } = await publishTarget(outDir, o.repo, o);
        const hub = publishHub(o.hubUrl, io.env, o.yes);
        const plan = await planPublish(
          outDir,
          repo,
          hub,
          release,
          (w) => void io.stderr.write(warningLine(w, io.style.stderr.warning)),
        );
        if (!o.yes) {
          io.stdout.write(renderPlanOutput(plan, o.json));
          return;
        }
        checkParentCommit(plan, o.parentCommit);
        const outcome = await executePlan(plan, outDir, hub);
        io.stdout.write(renderOutcome(outcome, o));
        const err = outcomeError(outcome);
        if (err) throw err;
      },
    );
}
