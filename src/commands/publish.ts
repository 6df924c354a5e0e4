import { join, resolve } from "node:path";
import type { Command } from "commander";
import { inputErrorLine, warningLine } from "../diagnostics.js";
import { ExitCodeError, InputError } from "../errors.js";
import { createHubFetch } from "../hub/fetch.js";
import { hubOptionsFrom } from "../hub/live-hub.js";
import { orgOfRows } from "../manifest/model-id.js";
import type { CliIo } from "../options.js";
import {
  describeRelease,
  EXIT_CONFLICTS_LEFT,
  executePlan,
  type HubAccess,
  hubChanged,
  noToken,
  planPublish,
  readManifestRows,
  readReleaseState,
  renderPlan,
} from "../publish/publish.js";

/** Registers `ptb-manifest publish`. */
export function register(program: Command, io: CliIo): void {
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
    .option("--json", "print the plan (and outcome) as JSON", false)
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
        const manifest = await readManifestRows(outDir);
        const org = orgOfRows(manifest);
        if (o.repo === undefined && org === undefined) {
          throw new InputError(
            "PUBLISH_BAD_REPO",
            `the manifest in ${outDir} has no checkpoint row, so its org (the default <org>/checkpoint-index) is unknown: give --repo OWNER/NAME`,
          );
        }
        const repo = o.repo ?? `${org}/checkpoint-index`;
        if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo))
          throw new InputError("PUBLISH_BAD_REPO", `--repo must be OWNER/NAME, got ${JSON.stringify(repo)}`);
        // The release gate, before the Hub is asked anything.
        const release = await readReleaseState(outDir);
        if (o.yes && !release.ok && !o.allowWarnings) {
          throw new InputError(
            "PUBLISH_NOT_RELEASE",
            `the build in ${outDir} is ${describeRelease(release)}: nothing was done. Rebuild with build --strict and fix or accept each warning (README: Warnings and errors), or pass --allow-warnings to publish it anyway`,
            join(outDir, "build-report.json"),
          );
        }
        const opts = hubOptionsFrom({ hubUrl: o.hubUrl }, io.env);
        if (o.yes && !opts.accessToken) throw noToken();
        const hub: HubAccess = {
          hubUrl: opts.hubUrl,
          accessToken: opts.accessToken,
          tokenSource: opts.tokenSource,
          fetch: createHubFetch({ hubUrl: opts.hubUrl }),
        };
        const plan = await planPublish(outDir, repo, hub, release, (w) => void io.stderr.write(warningLine(w)));
        if (!o.yes) {
          io.stdout.write(o.json ? `${JSON.stringify({ plan }, null, 2)}\n` : renderPlan(plan));
          return;
        }
        const pinned = o.parentCommit?.trim().toLowerCase();
        if (
          pinned !== undefined &&
          !(plan.parentCommit !== null && pinned.length >= 7 && plan.parentCommit.startsWith(pinned))
        ) {
          throw hubChanged(
            `${repo} is ${plan.parentCommit ? `at commit ${plan.parentCommit}` : plan.createRepo ? "absent" : "at an unknown commit"}, not at --parent-commit ${o.parentCommit}: nothing was done`,
          );
        }
        const outcome = await executePlan(plan, outDir, hub);
        if (o.json) io.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
        else {
          io.stdout.write(renderPlan(plan, { allowWarnings: o.allowWarnings }).replace(/\n[^\n]*\n$/, "\n"));
          io.stdout.write(
            `committed: ${outcome.committed ?? "nothing (files unchanged)"}\nrenamed: ${outcome.renamed.length} of ${plan.renames.length}\n`,
          );
        }
        if (outcome.failed) {
          const f = outcome.failed;
          const again = f.code === "PUBLISH_HUB_CHANGED" ? "" : "; run publish again to continue";
          throw new InputError(
            f.code,
            `publish stopped at ${f.step}: ${f.error}\n${outcome.remaining.length} rename(s) remain${again}`,
          );
        }
        if (plan.conflicts.length > 0) {
          throw new ExitCodeError(
            EXIT_CONFLICTS_LEFT,
            inputErrorLine({
              code: "PUBLISH_CONFLICTS_LEFT",
              file: null,
              line: null,
              message: `${plan.conflicts.length} rename(s) not done, to settle by hand:\n${plan.conflicts.map((c) => `  ${c.from} → ${c.to}: ${c.reason}`).join("\n")}`,
            }),
            true,
          );
        }
      },
    );
}
