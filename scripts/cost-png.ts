/**
 * `npx tsx scripts/cost-png.ts`: regenerates docs/cost.png, the README's
 * picture of cost.html. Builds the embedded sources/ into a temp folder, runs
 * the README's `cost` example on it (docs/example-scores.csv, with
 * `--include-eos-broken` so the eos-broken marks show), opens the page in
 * headless Chromium (/usr/bin/chromium; no network) with one point's tooltip
 * shown, and writes the screenshot. Needs nothing but this repo and Chromium.
 */
import { EventEmitter } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium } from "../test/helpers/chromium.js";
import { main } from "../src/cli.js";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Runs the CLI in-process, its output discarded; throws on a non-zero exit. */
async function cli(...args: string[]): Promise<void> {
  const sink = Object.assign(new EventEmitter(), { isTTY: false, write: () => true });
  const io = { stdout: sink, stderr: sink, env: { ...process.env, NO_COLOR: "1" } };
  const code = await main(["node", "ptb-manifest", ...args], io as unknown as Parameters<typeof main>[1]);
  if (code !== 0) throw new Error(`ptb-manifest ${args.join(" ")} exited with ${code}`);
}

const out = await mkdtemp(join(tmpdir(), "ptb-cost-png-"));
try {
  await cli("build", "--sources", join(repo, "sources"), "--out", out, "--quiet");
  const page = join(out, "cost.html");
  await cli(
    "cost",
    "--scores",
    join(repo, "docs", "example-scores.csv"),
    "--manifest",
    join(out, "manifest.json"),
    "--include-eos-broken",
    "--html",
    page,
  );
  const browser = await launchChromium();
  try {
    const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await tab.goto(`file://${page}`);
    await tab.hover('figure[data-chart="score-hour"] .ok_marks > path[aria-label^="agentic-ptb/kimi."]');
    await tab.screenshot({ path: join(repo, "docs", "cost.png"), fullPage: true });
  } finally {
    await browser.close();
  }
  process.stdout.write(`wrote ${join(repo, "docs", "cost.png")}\n`);
} finally {
  await rm(out, { recursive: true, force: true });
}
