/**
 * The steps of `ptb-manifest publish` around its plan (publish.ts): which
 * dataset repo, the release gate, the Hub access, the `--parent-commit` pin,
 * and the text and errors of the outcome. README: "`--strict` is the release
 * gate"; MANIFEST.md for the rows read.
 */
import { join } from "node:path";
import { inputErrorLine } from "../diagnostics.js";
import { ExitCodeError, InputError } from "../errors.js";
import { createHubFetch } from "../hub/fetch.js";
import { hubOptionsFrom } from "../hub/live-hub.js";
import { orgOfRows } from "../manifest/model-id.js";
import { describeRelease, type ReleaseState, readManifestRows, readReleaseState } from "./build-outputs.js";
import {
  EXIT_CONFLICTS_LEFT,
  type HubAccess,
  hubChanged,
  noToken,
  type PublishOutcome,
  type PublishPlan,
  renderPlan,
} from "./publish.js";

/**
 * Reads what `publish` needs of the build in `outDir` (an absolute folder):
 * the dataset repo (`repoOption`, else `<org>/checkpoint-index` with the org
 * of the manifest's rows) and the release gate, which `--yes` enforces unless
 * `allowWarnings`, before the Hub is asked anything.
 *
 * @throws InputError `PUBLISH_NO_BUILD` (no valid manifest.json or
 *   build-report.json), `PUBLISH_BAD_REPO` (no `--repo` and no checkpoint
 *   row, or a repo not `OWNER/NAME`), `PUBLISH_NOT_RELEASE` (`yes` on a
 *   build that is not a release build, without `allowWarnings`).
 */
export async function publishTarget(
  outDir: string,
  repoOption: string | undefined,
  gate: { yes: boolean; allowWarnings: boolean },
): Promise<{ repo: string; release: ReleaseState }> {
  const org = orgOfRows(await readManifestRows(outDir));
  if (repoOption === undefined && org === undefined) {
    throw new InputError(
      "PUBLISH_BAD_REPO",
      `the manifest in ${outDir} has no checkpoint row, so its org (the default <org>/checkpoint-index) is unknown: give --repo OWNER/NAME`,
    );
  }
  const repo = repoOption ?? `${org}/checkpoint-index`;
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo))
    throw new InputError("PUBLISH_BAD_REPO", `--repo must be OWNER/NAME, got ${JSON.stringify(repo)}`);
  const release = await readReleaseState(outDir);
  if (gate.yes && !release.ok && !gate.allowWarnings) {
    throw new InputError(
      "PUBLISH_NOT_RELEASE",
      `the build in ${outDir} is ${describeRelease(release)}: nothing was done. Rebuild with build --strict and fix or accept each warning (README: Warnings and errors), or pass --allow-warnings to publish it anyway`,
      join(outDir, "build-report.json"),
    );
  }
  return { repo, release };
}

/**
 * How `publish` reaches the Hub: `--hub-url`, else `HF_ENDPOINT`, else
 * https://huggingface.co, and the token as the Hub's clients read it from `env`.
 *
 * @throws InputError `HUB_BAD_URL`; `PUBLISH_NO_TOKEN` when `yes` and no token is set.
 */
export function publishHub(hubUrl: string | undefined, env: NodeJS.ProcessEnv, yes: boolean): HubAccess {
  const opts = hubOptionsFrom({ hubUrl }, env);
  if (yes && !opts.accessToken) throw noToken();
  return {
    hubUrl: opts.hubUrl,
    accessToken: opts.accessToken,
    tokenSource: opts.tokenSource,
    fetch: createHubFetch({ hubUrl: opts.hubUrl }),
  };
}

/**
 * Checks `--parent-commit` (7 or more leading hex digits, any case) against
 * the commit the plan was read at; undefined passes.
 *
 * @throws InputError `PUBLISH_HUB_CHANGED` when the dataset repo is not at that commit.
 */
export function checkParentCommit(plan: PublishPlan, parentCommit: string | undefined): void {
  const pinned = parentCommit?.trim().toLowerCase();
  if (
    pinned !== undefined &&
    !(plan.parentCommit !== null && pinned.length >= 7 && plan.parentCommit.startsWith(pinned))
  ) {
    throw hubChanged(
      `${plan.repo} is ${plan.parentCommit ? `at commit ${plan.parentCommit}` : plan.createRepo ? "absent" : "at an unknown commit"}, not at --parent-commit ${parentCommit}: nothing was done`,
    );
  }
}

/** What `publish` without `--yes` prints: the plan as text ({@link renderPlan}), or as `{"plan": ...}` JSON. */
export function renderPlanOutput(plan: PublishPlan, json: boolean): string {
  return json ? `${JSON.stringify({ plan }, null, 2)}\n` : renderPlan(plan);
}

/**
 * What `publish --yes` prints once it ran: the outcome as JSON, or the plan
 * without its last line (what `--yes` would do) followed by the commit and
 * the number of renames done.
 */
export function renderOutcome(outcome: PublishOutcome, o: { json: boolean; allowWarnings: boolean }): string {
  if (o.json) return `${JSON.stringify(outcome, null, 2)}\n`;
  const { plan } = outcome;
  return (
    renderPlan(plan, { allowWarnings: o.allowWarnings }).replace(/\n[^\n]*\n$/, "\n") +
    `committed: ${outcome.committed ?? "nothing (files unchanged)"}\nrenamed: ${outcome.renamed.length} of ${plan.renames.length}\n`
  );
}

/**
 * The error `publish --yes` ends with, or null when all is done: the failed
 * step (`InputError` with its code, exit 1), else the renames left to settle
 * by hand (`PUBLISH_CONFLICTS_LEFT`, exit {@link EXIT_CONFLICTS_LEFT}).
 */
export function outcomeError(outcome: PublishOutcome): InputError | ExitCodeError | null {
  const { plan } = outcome;
  if (outcome.failed) {
    const f = outcome.failed;
    const again = f.code === "PUBLISH_HUB_CHANGED" ? "" : "; run publish again to continue";
    return new InputError(
      f.code,
      `publish stopped at ${f.step}: ${f.error}\n${outcome.remaining.length} rename(s) remain${again}`,
    );
  }
  if (plan.conflicts.length > 0) {
    return new ExitCodeError(
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
  return null;
}
