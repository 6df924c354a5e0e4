/**
 * Regenerates docs/report.png, the README's picture of report.html:
 *
 *   npx tsx scripts/report-png.ts [--out docs/report.png]
 *
 * Builds the embedded sources/ into a temporary folder, opens its
 * report.html in headless Chromium (/usr/bin/chromium through
 * playwright-core, offline), and stacks two crops of the page into one
 * picture: its top (legend, sweep overview, cells table down to its end), and grok's chart
 * (eos_ok broken on every mark, untimed kd rows open to the left) with the
 * tooltip of one of those rows shown by hovering it. Deterministic input;
 * the pixels depend on the installed Chromium and fonts.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runBuild } from "../src/pipeline/run-build.js";
import { launchChromium } from "../test/helpers/chromium.js";

const repo = resolve(import.meta.dirname, "..");
const outArg = process.argv.indexOf("--out");
const target = resolve(outArg > 0 ? process.argv[outArg + 1]! : join(repo, "docs", "report.png"));
const dir = await mkdtemp(join(tmpdir(), "ptb-report-png-"));
const browser = await launchChromium();
try {
  await runBuild({ sources: join(repo, "sources"), out: dir, quiet: true });
  const page = await browser.newPage({ viewport: { width: 1100, height: 1000 } });
  page.on("request", (r) => {
    if (!r.url().startsWith("file://")) throw new Error(`report.html fetched ${r.url()}`);
  });
  await page.goto(`file://${join(dir, "report.html")}`);
  const cellsTable = (await (await page.$("h2 + table"))!.boundingBox())!;
  const top = await page.screenshot({
    clip: { x: 0, y: 0, width: 1100, height: Math.ceil(cellsTable.y + cellsTable.height + 12) },
    fullPage: true,
  });
  await page.hover('#cell-grok .ckpt[data-model-id="agentic-ptb/grok.hNA.kd.200"]');
  const grok = await page.$("#cell-grok");
  const box = (await grok!.boundingBox())!;
  const cell = await page.screenshot({ clip: { x: 0, y: box.y, width: 1100, height: box.height + 10 } });
  // Stack the two crops: an image of both, drawn by the same browser.
  const data = (png: Buffer) => `data:image/png;base64,${png.toString("base64")}`;
  const sheet = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  await sheet.setContent(
    `<body style="margin:0;background:#fff"><img src="${data(top)}" style="display:block"><div style="border-top:3px dashed #bbb;margin:6px 0"></div><img src="${data(cell)}" style="display:block"></body>`,
  );
  await sheet.screenshot({ path: target, fullPage: true });
  console.log(`wrote ${target} (${(await readFile(target)).length} bytes)`);
} finally {
  await browser.close();
  await rm(dir, { recursive: true, force: true });
}
