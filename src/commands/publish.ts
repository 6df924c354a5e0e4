import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { commit, createRepo, downloadFile, listModels, repoExists } from "@huggingface/hub";
import { InputError } from "../diagnostics.js";
import { ExitCodeError } from "../cli.js";
import { RowSchema, type Row } from "../schema.js";
import { parsePublishedName } from "../extractors/hub-files.js";
import { cmpStr } from "../resolve/resolve-cell.js";
import { earlierNamesBeside } from "./diff.js";
import { createHubFetch } from "../hub/fetch.js";
import { hubOptionsFrom } from "../hub/live-hub.js";

/** The files of the index dataset that `publish` uploads, from the build's output folder. */
export const PUBLISHED_FILES = ["README.md", "manifest.json", "manifest.csv"] as const;

/** One file of the plan. */
export interface PlannedFile {
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
  failed: { step: string; error: string } | null;
  remaining: { from: string; to: string }[];
}

interface HubAccess {
  hubUrl: string;
  accessToken?: string;
  fetch: typeof fetch;
}

/**
 * Orders renames so that none targets an id still in use: a rename waits
 * until the repo holding its target has been renamed away. Deterministic
 * (each round by `from`). Renames whose target stays taken, or that form a
 * cycle, are returned as conflicts.
 */
export function orderRenames(renames: { from: string; to: string }[], existing: Set<string>): Pick<PublishPlan, "renames" | "conflicts"> {
  const names = new Set(existing);
  let pending = [...renames].sort((a, b) => cmpStr(a.from, b.from));
  const ordered: { from: string; to: string }[] = [];
  for (;;) {
    const ready = pending.filter((r) => !names.has(r.to));
    if (ready.length === 0) break;
    for (const r of ready) {
      if (names.has(r.to)) continue; // two renames to one target: the first wins this round
      names.delete(r.from);
      names.add(r.to);
      ordered.push(r);
    }
    pending = pending.filter((r) => !ordered.includes(r));
  }
  const sources = new Set(pending.map((r) => r.from));
  const conflicts = pending.map((r) => ({
    ...r,
    reason: sources.has(r.to) ? "the renames form a cycle: rename one of them by hand through a free name" : `${r.to} already exists: a second repo of the same checkpoint (compare and delete one by hand)`,
  }));
  return { renames: ordered, conflicts };
}

/**
 * Computes the publish plan (issue: publish): the three files of the index
 * dataset with their sizes and whether they differ from the repo's, and the
 * rename plan of the checkpoint repos: every repo of the org whose
 * checkpoint (cell, family, step) now has another id in the manifest. A
 * repo named with a family's earlier name is that family's when the build's
 * `provenance.jsonl` matched a repo of that name to it (`family_aliases`).
 */
export async function planPublish(outDir: string, repo: string, hub: HubAccess): Promise<PublishPlan> {
  let rows: Row[];
  try {
    rows = (JSON.parse(await readFile(join(outDir, "manifest.json"), "utf8")) as unknown[]).map((r) => RowSchema.parse(r));
  } catch (err) {
    throw new InputError("PUBLISH_NO_BUILD", `no valid manifest in ${outDir} (run ptb-manifest build first): ${(err as Error).message.split("\n")[0]}`, join(outDir, "manifest.json"));
  }
  const exists = await repoExists({ repo: { type: "dataset", name: repo }, ...hub });
  const files: PlannedFile[] = [];
  for (const path of PUBLISHED_FILES) {
    let content: Buffer;
    try {
      content = await readFile(join(outDir, path));
    } catch {
      throw new InputError("PUBLISH_NO_BUILD", `${path} is missing from ${outDir} (run ptb-manifest build first)`, join(outDir, path));
    }
    const current = exists ? await downloadFile({ repo: { type: "dataset", name: repo }, path, ...hub }) : null;
    const status = current === null ? "new" : Buffer.from(await current.arrayBuffer()).equals(content) ? "same" : "changed";
    files.push({ path, bytes: content.length, sha256: createHash("sha256").update(content).digest("hex"), status });
  }
  const org = rows.find((r) => r.cell !== "BASELINE")?.model_id.split("/")[0];
  const cells = [...new Set(rows.filter((r) => r.cell !== "BASELINE").map((r) => r.cell))];
  const idOf = new Map(rows.filter((r) => r.family !== null).map((r) => [`${r.cell}/${r.family}/${r.step}`, r.model_id]));
  const existing = new Set<string>();
  const renames: { from: string; to: string }[] = [];
  if (org) {
    // Repos named with a family's earlier name (family_aliases) belong to its rows, as the build matched them.
    const earlier = await earlierNamesBeside(outDir);
    for await (const m of listModels({ search: { owner: org }, ...hub })) {
      existing.add(m.name);
      const p = parsePublishedName(m.name.slice(org.length + 1), cells);
      const to = p ? idOf.get(`${p.cell}/${earlier.get(`${p.cell}/${p.family}`) ?? p.family}/${p.step}`) : undefined;
      if (to && to !== m.name) renames.push({ from: m.name, to });
    }
  }
  return { repo, createRepo: !exists, files, ...orderRenames(renames, existing) };
}

/**
 * Carries out a plan: creates the dataset repo if needed, uploads the
 * changed files in one commit, then renames the checkpoint repos in order
 * through `POST /api/repos/move` (which `@huggingface/hub` lacks), stopping
 * at the first failure. A re-run recomputes the plan from the Hub, so it
 * continues where this one stopped.
 *
 * @throws InputError `PUBLISH_NO_TOKEN` when no token is set (nothing is done).
 */
export async function executePlan(plan: PublishPlan, outDir: string, hub: HubAccess): Promise<PublishOutcome> {
  const outcome: PublishOutcome = { plan, committed: null, renamed: [], failed: null, remaining: [...plan.renames] };
  const accessToken = hub.accessToken;
  if (!accessToken) throw new InputError("PUBLISH_NO_TOKEN", "publishing writes to the Hub: set HF_TOKEN to a token with write access (its value is never shown)");
  const changed = plan.files.filter((f) => f.status !== "same");
  try {
    if (plan.createRepo) await createRepo({ repo: { type: "dataset", name: plan.repo }, ...hub, accessToken });
    if (changed.length > 0) {
      const operations = await Promise.all(
        changed.map(async (f) => ({ operation: "addOrUpdate" as const, path: f.path, content: new Blob([await readFile(join(outDir, f.path))]) })),
      );
      const res = await commit({
        repo: { type: "dataset", name: plan.repo }, operations, title: `ptb-manifest: update ${changed.map((f) => f.path).join(", ")}`,
        useXet: false, ...hub, accessToken,
      });
      outcome.committed = res?.commit.oid ?? null;
    }
  } catch (err) {
    outcome.failed = { step: `upload to ${plan.repo}`, error: (err as Error).message };
    return outcome;
  }
  for (const r of plan.renames) {
    try {
      const res = await hub.fetch(`${hub.hubUrl}/api/repos/move`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...(hub.accessToken ? { Authorization: `Bearer ${hub.accessToken}` } : {}) },
        body: JSON.stringify({ fromRepo: r.from, toRepo: r.to, type: "model" }),
      });
      if (!res.ok) throw new Error(`POST /api/repos/move answered ${res.status}${res.headers.get("x-error-message") ? `: ${res.headers.get("x-error-message")}` : ""}`);
    } catch (err) {
      outcome.failed = { step: `rename ${r.from} → ${r.to}`, error: (err as Error).message };
      return outcome;
    }
    outcome.renamed.push(r);
    outcome.remaining.shift();
  }
  return outcome;
}

/** Renders a plan as text. */
export function renderPlan(plan: PublishPlan): string {
  const out = [`publish to dataset ${plan.repo}${plan.createRepo ? " (to be created)" : ""}`, "files:"];
  for (const f of plan.files) out.push(`  ${f.status.padEnd(7)} ${f.path} (${f.bytes} bytes, sha256 ${f.sha256.slice(0, 12)})`);
  out.push(`renames (${plan.renames.length}, in order):`, ...plan.renames.map((r, i) => `  ${i + 1}. ${r.from} → ${r.to}`));
  if (plan.conflicts.length) out.push(`not renamed (${plan.conflicts.length}):`, ...plan.conflicts.map((c) => `  ${c.from} → ${c.to}: ${c.reason}`));
  const nothing = plan.files.every((f) => f.status === "same") && plan.renames.length === 0 && !plan.createRepo;
  out.push(nothing ? "nothing to do" : "run again with --yes to apply");
  return `${out.join("\n")}\n`;
}

/** Registers `ptb-manifest publish`. */
export function registerPublish(program: Command): void {
  program
    .command("publish")
    .description("Publish the index: upload README.md, manifest.json and manifest.csv in one commit, then rename the checkpoint repos a rebuild moved. Without --yes, only print the plan.")
    .option("--repo <owner/name>", "the index dataset repo (default: <org>/checkpoint-index)")
    .option("--out <dir>", "the build's output folder to publish", "out")
    .option("--yes", "apply the plan (otherwise nothing is changed)", false)
    .option("--json", "print the plan (and outcome) as JSON", false)
    .option("--hub-url <url>", "the Hub's URL (default: HF_ENDPOINT, else https://huggingface.co); HF_TOKEN is the token")
    .addHelpText("after", "\nA re-run after a failure continues where it stopped; with nothing changed it does nothing.\nExit codes: 0 done (or plan printed); 1 a step failed (the report says what was done and what remains).")
    .action(async (o: { repo?: string; out: string; yes: boolean; json: boolean; hubUrl?: string }) => {
      const opts = hubOptionsFrom({ hubUrl: o.hubUrl });
      const hub: HubAccess = { hubUrl: opts.hubUrl, accessToken: opts.accessToken, fetch: createHubFetch({ hubUrl: opts.hubUrl }) };
      const outDir = resolve(o.out);
      const manifest = JSON.parse(await readFile(join(outDir, "manifest.json"), "utf8").catch(() => "[]")) as { model_id: string; cell: string }[];
      const org = manifest.find((r) => r.cell !== "BASELINE")?.model_id.split("/")[0] ?? "agentic-ptb";
      const repo = o.repo ?? `${org}/checkpoint-index`;
      if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo)) throw new InputError("PUBLISH_BAD_REPO", `--repo must be OWNER/NAME, got ${JSON.stringify(repo)}`);
      const plan = await planPublish(outDir, repo, hub);
      if (!o.yes) {
        process.stdout.write(o.json ? `${JSON.stringify({ plan }, null, 2)}\n` : renderPlan(plan));
        return;
      }
      const outcome = await executePlan(plan, outDir, hub);
      if (o.json) process.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
      else {
        process.stdout.write(renderPlan(plan).replace(/\n(run again with --yes to apply|nothing to do)\n$/, "\n"));
        process.stdout.write(`committed: ${outcome.committed ?? "nothing (files unchanged)"}\nrenamed: ${outcome.renamed.length} of ${plan.renames.length}\n`);
      }
      if (outcome.failed) {
        throw new ExitCodeError(1, `publish stopped at ${outcome.failed.step}: ${outcome.failed.error}\n${outcome.remaining.length} rename(s) remain; run publish again to continue`);
      }
    });
}
