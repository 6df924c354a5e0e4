import { describe, expect, it, beforeAll, afterAll } from "vitest";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBuild } from "../src/pipeline/run-build.js";

/**
 * report.html opened in headless Chromium (Debian's `chromium`, installed by
 * .ci/run): every cell's chart is rendered, with one mark per row of each kind.
 * A screenshot is kept in .vitest-artifacts/report.png.
 */
const CHROMIUM = "/usr/bin/chromium";
const repo = join(import.meta.dirname, "..");
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI)
  throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium for this test`);

describe.skipIf(!haveChromium)(
  haveChromium
    ? "report.html in headless Chromium"
    : `report.html in headless Chromium: skipped, ${CHROMIUM} not installed (apt-get install chromium)`,
  () => {
    let out: string;
    beforeAll(async () => {
      out = await mkdtemp(join(tmpdir(), "ptb-report-"));
      await runBuild({ sources: join(repo, "sources"), out, quiet: true });
    }, 300_000);
    afterAll(async () => rm(out, { recursive: true, force: true }));

    it("renders every cell's timeline and token curve with the right number of marks", async () => {
      const { chromium } = await import("playwright-core");
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
        ],
      });
      try {
        const page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
        const requests: string[] = [];
        page.on("request", (r) => {
          if (!r.url().startsWith("file://")) requests.push(r.url());
        });
        await page.goto(`file://${join(out, "report.html")}`);
        const cells = await page.$$eval("section.cell", (sections) =>
          sections.map((s) => {
            const count = (sel: string) => s.querySelectorAll(sel).length;
            const box = s.querySelector("svg")!.getBoundingClientRect();
            return {
              cell: s.getAttribute("data-cell"),
              expected: [
                s.getAttribute("data-intervals"),
                s.getAttribute("data-error-bars"),
                s.getAttribute("data-points"),
                s.getAttribute("data-roles"),
              ].map(Number),
              drawn: [
                count(".concat_0_layer_0_marks > line"),
                count(".concat_0_layer_1_marks > line"),
                count(".concat_0_layer_2_marks > path"),
                count(".concat_0_layer_3_marks > path"),
              ],
              tokenCurve: count(".concat_1_marks > path"),
              width: box.width,
              height: box.height,
            };
          }),
        );
        expect(cells.map((c) => c.cell)).toEqual([
          "sol-high",
          "grok",
          "dpsk-v4-flash",
          "kimi",
          "opus-max",
          "sol-max",
          "opus-high-v1",
          "sol-max-opusnode",
          "sol-max-v2",
        ]);
        const manifest = JSON.parse(await readFile(join(out, "manifest.json"), "utf8")) as {
          cell: string;
          hour: number | null;
          hour_source: string;
          role: string;
        }[];
        for (const c of cells) {
          const rows = manifest.filter((r) => r.cell === c.cell);
          expect(c.drawn, c.cell!).toEqual(c.expected);
          expect(c.expected, c.cell!).toEqual([
            rows.filter((r) => r.hour === null).length,
            rows.filter((r) => r.hour_source === "extrapolated").length,
            rows.filter((r) => r.hour !== null).length,
            rows.filter((r) => r.role === "SUBMITTED" || r.role === "fallback").length,
          ]);
          expect(c.tokenCurve, c.cell!).toBe(1);
          expect(c.width).toBeGreaterThan(600);
          expect(c.height).toBeGreaterThan(150);
        }
        expect(await page.$$eval("table", (t) => t.length)).toBe(2);
        expect(requests).toEqual([]); // self-contained: nothing fetched
        await mkdir(join(repo, ".vitest-artifacts"), { recursive: true });
        await page.screenshot({ path: join(repo, ".vitest-artifacts", "report.png"), fullPage: false });
      } finally {
        await browser.close();
      }
    }, 120_000);
  },
);

describe("report charts", () => {
  it("render for a cell and a family named like built-in object keys (a Vega title bug the report avoids)", async () => {
    const { cellChartSpec, renderSvg } = await import("../src/writers/report-html.js");
    const row = {
      model_id: "agentic-ptb/constructor.h001.constructor.1",
      cell: "constructor",
      driver: "d",
      effort: "e",
      hour: 1,
      hour_source: "mtime" as const,
      hour_upper_bound: null,
      driver_tokens_at_hour: 5,
      role: "SUBMITTED" as const,
      eos_ok: true,
      eos_token_id: [248046],
      source: "x",
      family: "constructor",
      step: 1,
      hour_lower_bound: null,
      hour_error_h: null,
    };
    const { spec, counts } = cellChartSpec(
      "constructor",
      [row],
      [
        [0, 0],
        [1, 5],
      ],
      100,
    );
    expect(counts).toEqual({ points: 1, intervals: 0, errorBars: 0, roles: 1 });
    const svg = await renderSvg(spec);
    expect(svg.match(/aria-label="checkpoint"/g)).toHaveLength(1);
  });
});
