/**
 * The publish plan and its execution against the Hub (README: publish): the
 * index dataset's three files against the repo's, and the renames of the
 * checkpoint repos whose id changed.
 */
import type { ErrorCode } from "../diagnostics/registry.js";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { commit, createRepo, downloadFile, HubApiError, listModels } from "@huggingface/hub";
import { InputError } from "../errors.js";
import { orgOfRows, parseModelId } from "../manifest/model-id.js";
import { provenanceBeside, type WarningSink } from "../diff/diff.js";
import { earlierFamilyNames } from "../resolve/family-names.js";
import { eosRepos, orderRenames } from "../resolve/rename-plan.js";
import { apiErrorOf, hubError } from "../hub/errors.js";
import { readOwnership, sha256Of } from "../util/out-owner.js";
import { describeRelease, readManifestRows, readReleaseState, type ReleaseState } from "./build-outputs.js";

/** The files of the index dataset that `publish` uploads, from the build's output folder. */
const PUBLISHED_FILES = ["README.md", "manifest.json", "manifest.csv"] as const;

/** One file of the plan. */
interface PlannedFile {
  path: string;
  bytes: number;
  sha256: string;
  /** `new` (absent from the repo), `changed`, or `same`. */
  status: "new" | "changed" | "same";
}

/** The publish plan: what `--yes` would do, in order. */
export interface PublishPlan {
  repo: string;
  createRepo: boolean;
  /**
   * The dataset repo's commit (`main`) when the plan was made: the upload
   * names it as its parent, so a change on the Hub since stops the publish.
   * Null when the repo is to be created, or the Hub gave no commit.
   */
  parentCommit: string | null;
  /** The repo was not visible without a token (the Hub answers 401 `RepoNotFound`): missing, or private. */
  repoMaybePrivate: boolean;
  /** The build's release gate. */
  release: ReleaseState;
  files: PlannedFile[];
  /** Checkpoint repos to rename, in the order they must run (a target freed by an earlier rename comes later). */
  renames: { from: string; to: string }[];
  /** Renames that cannot run: the target exists and stays (a second repo of one checkpoint), or a cycle. */
  conflicts: { from: string; to: string; reason: string }[];
}

/** What `publish --yes` did. */
export interface PublishOutcome {
  plan: PublishPlan;
  committed: string | null;
  renamed: { from: string; to: string }[];
  /** The step that failed, with the error's stable code (`HUB_*`, `PUBLISH_HUB_CHANGED`). */
  failed: { step: string; code: ErrorCode; error: string } | null;
  remaining: { from: string; to: string }[];
}

/** How publish reaches the Hub. */
export interface HubAccess {
  hubUrl: string;
  accessToken?: string;
  /** Where the token came from (`HF_TOKEN`, `the token file <path>`), for messages. */
  tokenSource?: string;
  fetch: typeof fetch;
}

/** Exit code of `publish --yes` that applied its plan but left conflicts to settle by hand. */
export const EXIT_CONFLICTS_LEFT = 2;

const SHA_RE = /^[0-9a-f]{7,64}$/;

/** The auth header, when there is a token. */
function authHeaders(hub: HubAccess): Record<string, string> {
  return hub.accessToken ? { Authorization: `Bearer ${hub.accessToken}` } : {};
}

/**
 * The dataset repo's state, telling a missing repo (404) from a rejected
 * token (401/403): `GET /api/datasets/<repo>/revision/main`. The Hub answers
 * an anonymous request for a missing (or private) repo with 401
 * `X-Error-Code: RepoNotFound`; only then, and only without a token, is a
 * 401 read as "not there".
 *
 * @throws HubApiError for any other answer that is not ok (mapped by `hubError`).
 */
async function datasetHead(
  repo: string,
  hub: HubAccess,
): Promise<{ exists: boolean; sha: string | null; maybePrivate: boolean }> {
  const url = `${hub.hubUrl}/api/datasets/${repo}/revision/main`;
  const res = await hub.fetch(url, { headers: authHeaders(hub) });
  const errorCode = res.headers.get("x-error-code");
  if (res.ok) {
    const info = (await res.json()) as { sha?: unknown };
    return {
      exists: true,
      sha: typeof info.sha === "string" && SHA_RE.test(info.sha) ? info.sha : null,
      maybePrivate: false,
    };
  }
  if (res.status === 404 && (errorCode === null || errorCode === "RepoNotFound"))
    return { exists: false, sha: null, maybePrivate: false };
  if (res.status === 401 && !hub.accessToken && errorCode === "RepoNotFound")
    return { exists: false, sha: null, maybePrivate: true };
  throw await apiErrorOf(res, url);
}

export { orderRenames } from "../resolve/rename-plan.js";

/**
 * Computes the publish plan (issue: publish): the three files of the index
 * dataset with their sizes and whether they differ from the repo's (read at
 * the repo's current commit, which the plan records as `parentCommit`), and
 * the rename plan of the checkpoint repos: every repo of the org whose
 * checkpoint (cell, family, step) now has another id in the manifest. A
 * repo named with a family's earlier name is that family's when the build's
 * `provenance.jsonl` matched a repo of that name to it (`family_aliases`).
 * `warn` takes the warnings of reading that provenance (default: stderr).
 *
 * @throws InputError `PUBLISH_NO_BUILD` (no build in `outDir`), and every
 *   Hub failure as a coded error (`hubError`: `HUB_UNREACHABLE`,
 *   `HUB_UNAVAILABLE`, `HUB_ACCESS_DENIED` for a 401/403, never read as
 *   "the repo does not exist", `HUB_ERROR`).
 */
export async function planPublish(
  outDir: string,
  repo: string,
  hub: HubAccess,
  release?: ReleaseState,
  warn?: WarningSink,
): Promise<PublishPlan> {
  try {
    return await computePlan(outDir, repo, hub, release ?? (await readReleaseState(outDir)), warn);
  } catch (err) {
    throw hubError(err, hub);
  }
}

async function computePlan(
  outDir: string,
  repo: string,
  hub: HubAccess,
  release: ReleaseState,
  warn?: WarningSink,
): Promise<PublishPlan> {
  const rows = await readManifestRows(outDir);
  const head = await datasetHead(repo, hub);
  const exists = head.exists;
  const files: PlannedFile[] = [];
  // Only what the build wrote is published: a file edited since (or not written by build) is refused, as is a build report
  // whose gate state could have been edited (MANIFEST.md's files are the build's; the marker records their sha256).
  const own = await readOwnership(outDir);
  for (const path of [...PUBLISHED_FILES, "build-report.json"]) {
    let content: Buffer;
    try {
      content = await readFile(join(outDir, path));
    } catch {
      throw new InputError(
        "PUBLISH_NO_BUILD",
        `${path} is missing from ${outDir} (run ptb-manifest build first)`,
        join(outDir, path),
      );
    }
    const recorded = own.recorded.get(path);
    if (!recorded || recorded.writer !== "build" || recorded.sha256 !== sha256Of(content)) {
      throw new InputError(
        "PUBLISH_FILE_CHANGED",
        `${path} in ${outDir} is not as ptb-manifest build wrote it (${!recorded ? "no record of it in the output marker" : recorded.writer !== "build" ? `written by ${recorded.writer ?? "an earlier version"}` : "edited since"}): only a build's own files are published; run ptb-manifest build again`,
        join(outDir, path),
      );
    }
    if (path === "build-report.json") continue;
    const current = exists
      ? await downloadFile({ repo: { type: "dataset", name: repo }, path, revision: head.sha ?? "main", ...hub })
      : null;
    const status =
      current === null ? "new" : Buffer.from(await current.arrayBuffer()).equals(content) ? "same" : "changed";
    files.push({ path, bytes: content.length, sha256: createHash("sha256").update(content).digest("hex"), status });
  }
  const org = orgOfRows(rows);
  const cells = [...new Set(rows.filter((r) => r.cell !== "BASELINE").map((r) => r.cell))];
  const idOf = new Map(
    rows.filter((r) => r.family !== null).map((r) => [`${r.cell}/${r.family}/${r.step}`, r.model_id]),
  );
  const existing = new Set<string>();
  const renames: { from: string; to: string }[] = [];
  // Read once: the earlier family names the build matched, and the repos it read eos from.
  const provenance = await provenanceBeside(outDir, warn);
  if (org) {
    // Repos named with a family's earlier name (family_aliases) belong to its rows, as the build matched them.
    const earlier = earlierFamilyNames(provenance);
    for await (const m of listModels({ search: { owner: org }, ...hub })) {
      existing.add(m.name);
      const p = parseModelId(m.name, cells);
      const to = p ? idOf.get(`${p.cell}/${earlier.get(`${p.cell}/${p.family}`) ?? p.family}/${p.step}`) : undefined;
      if (to && to !== m.name) renames.push({ from: m.name, to });
    }
  }
  return {
    repo,
    createRepo: !exists,
    parentCommit: head.sha,
    repoMaybePrivate: head.maybePrivate,
    release,
    files,
    ...orderRenames(renames, existing, eosRepos(provenance)),
  };
}

/**
 * Carries out a plan: creates the dataset repo if needed, uploads the
 * changed files in one commit whose parent is the commit the plan was made
 * against (`parentCommit`; for a repo just created, its first commit), then
 * renames the checkpoint repos in order through `POST /api/repos/move`
 * (which `@huggingface/hub` lacks), stopping at the first failure. Every
 * failure is recorded in `failed` with a stable code: a change on the Hub
 * since the plan (the upload's parent is no longer the branch's head: the
 * Hub answers 412; the repo to create exists; a rename's source is gone or
 * its target taken) is `PUBLISH_HUB_CHANGED`, nothing of it overwritten;
 * any other Hub failure is mapped by `hubError`. A re-run recomputes the
 * plan from the Hub, so it continues where this one stopped.
 *
 * @throws InputError `PUBLISH_NO_TOKEN` when no token is set (nothing is done).
 */
export async function executePlan(plan: PublishPlan, outDir: string, hub: HubAccess): Promise<PublishOutcome> {
  const outcome: PublishOutcome = { plan, committed: null, renamed: [], failed: null, remaining: [...plan.renames] };
  const accessToken = hub.accessToken;
  if (!accessToken) throw noToken();
  const changed = plan.files.filter((f) => f.status !== "same");
  const fail = (step: string, err: unknown): PublishOutcome => {
    const e = hubError(err, hub);
    outcome.failed = { step, code: e.code, error: e.message };
    return outcome;
  };
  const repo = { type: "dataset" as const, name: plan.repo };
  let parentCommit = plan.parentCommit;
  if (plan.createRepo) {
    try {
      await createRepo({ repo, ...hub, accessToken });
      parentCommit = (await datasetHead(plan.repo, hub)).sha;
    } catch (err) {
      if (err instanceof HubApiError && err.statusCode === 409) {
        return fail(
          `create ${plan.repo}`,
          hubChanged(
            `the dataset repo ${plan.repo} was created by someone else since the plan (the Hub answered 409): nothing was uploaded`,
          ),
        );
      }
      return fail(`create ${plan.repo}`, err);
    }
  }
  if (changed.length > 0) {
    try {
      const operations = await Promise.all(
        changed.map(async (f) => ({
          operation: "addOrUpdate" as const,
          path: f.path,
          content: new Blob([await readFile(join(outDir, f.path))]),
        })),
      );
      const res = await commit({
        repo,
        operations,
        title: `ptb-manifest: update ${changed.map((f) => f.path).join(", ")}`,
        ...(parentCommit ? { parentCommit } : {}),
        useXet: false,
        ...hub,
        accessToken,
      });
      outcome.committed = res?.commit.oid ?? null;
    } catch (err) {
      if (parentCommit && err instanceof HubApiError && (err.statusCode === 412 || err.statusCode === 409)) {
        return fail(
          `upload to ${plan.repo}`,
          hubChanged(
            `${plan.repo} has changed on the Hub since the plan (its main is no longer at ${parentCommit}; the Hub answered ${err.statusCode}): nothing was uploaded, nothing overwritten`,
          ),
        );
      }
      return fail(`upload to ${plan.repo}`, err);
    }
  }
  for (const r of plan.renames) {
    const url = `${hub.hubUrl}/api/repos/move`;
    try {
      const res = await hub.fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...authHeaders(hub) },
        body: JSON.stringify({ fromRepo: r.from, toRepo: r.to, type: "model" }),
      });
      if (res.status === 404 || res.status === 409) {
        throw hubChanged(
          `${res.status === 404 ? `${r.from} is gone` : `${r.to} is taken`} on the Hub since the plan (the Hub answered ${res.status}): not renamed`,
        );
      }
      if (!res.ok) throw await apiErrorOf(res, url);
    } catch (err) {
      return fail(`rename ${r.from} → ${r.to}`, err);
    }
    outcome.renamed.push(r);
    outcome.remaining.shift();
  }
  return outcome;
}

/** `PUBLISH_NO_TOKEN`: `--yes` without a Hub token. */
export function noToken(): InputError {
  return new InputError(
    "PUBLISH_NO_TOKEN",
    "publishing writes to the Hub and no token is set: set HF_TOKEN to a token with write access, or log in (the token file at HF_TOKEN_PATH, else $HF_HOME/token); its value is never shown",
  );
}

/** `PUBLISH_HUB_CHANGED`: the repo moved since the plan (or is not at `--parent-commit`). */
export function hubChanged(message: string): InputError {
  return new InputError("PUBLISH_HUB_CHANGED", `${message}; run publish again to see the new plan`);
}

/** Renders a plan as text; the last line says what `--yes` would do (or refuse). */
export function renderPlan(plan: PublishPlan, opts: { allowWarnings?: boolean } = {}): string {
  const state = plan.createRepo
    ? plan.repoMaybePrivate
      ? " (not visible without a token: to be created, unless it is private)"
      : " (to be created)"
    : plan.parentCommit
      ? ` (at commit ${plan.parentCommit})`
      : " (the Hub gave no commit: a change made meanwhile cannot be detected)";
  const gate = plan.release.ok
    ? ""
    : opts.allowWarnings
      ? " (published anyway: --allow-warnings)"
      : "; publish --yes refuses it without --allow-warnings";
  const out = [`publish to dataset ${plan.repo}${state}`, `build: ${describeRelease(plan.release)}${gate}`, "files:"];
  for (const f of plan.files)
    out.push(`  ${f.status.padEnd(7)} ${f.path} (${f.bytes} bytes, sha256 ${f.sha256.slice(0, 12)})`);
  out.push(
    `renames (${plan.renames.length}, in order):`,
    ...plan.renames.map((r, i) => `  ${i + 1}. ${r.from} → ${r.to}`),
  );
  if (plan.conflicts.length)
    out.push(
      `not renamed (${plan.conflicts.length}, to settle by hand):`,
      ...plan.conflicts.map((c) => `  ${c.from} → ${c.to}: ${c.reason}`),
    );
  const nothing = plan.files.every((f) => f.status === "same") && plan.renames.length === 0 && !plan.createRepo;
  const pin = plan.parentCommit
    ? ` (add --parent-commit ${plan.parentCommit} to apply it only if the dataset is still at this commit)`
    : "";
  out.push(
    nothing
      ? "nothing to do"
      : !plan.release.ok && !opts.allowWarnings
        ? `not a release build: rebuild with build --strict, or run again with --yes --allow-warnings to apply${pin}`
        : `run again with --yes to apply${pin}`,
  );
  return `${out.join("\n")}\n`;
}
