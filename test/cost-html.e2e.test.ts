import { describe, expect, it, beforeAll, afterAll } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { runCli } from "./helpers/cli.js";
import { CHROMIUM, haveChromium as chromiumInstalled, launchChromium } from "./helpers/chromium.js";

/**
 * cost.html opened in headless Chromium (Debian's `chromium`, installed by
 * .ci/run), on the README's example (`docs/example-scores.csv` against a
 * build of sources/): marks counted per chart against `cost --json`, a known
 * point's tooltip read on hover and on keyboard focus, every mark inside its
 * plot area, the hour axis from 0 to 100, the axis titles and the baseline
 * label; with --include-eos-broken, the eos-broken marks counted apart.
 */
const repo = join(import.meta.dirname, "..");
const haveChromium = chromiumInstalled();

interface Figure {
  model_id: string;
  cell: string;
  hour: number | null;
  suite: string;
  driver_tokens_at_hour: number | null;
  cost_per_point: number | null;
  eos_ok: boolean | null;
}

const CHARTS = ["score-hour", "score-tokens", "cost-hour"] as const;

/** The model ids a chart must draw, from `cost --json`'s rows: those with a value on both its axes. */
function expectedIds(rows: Figure[], chart: (typeof CHARTS)[number], broken: boolean): string[] {
  return rows
    .filter((r) => (r.eos_ok !== true) === broken)
    .filter((r) =>
      chart === "score-hour"
        ? r.hour !== null
        : chart === "score-tokens"
          ? r.driver_tokens_at_hour !== null
          : r.hour !== null && r.cost_per_point !== null,
    )
    .map((r) => r.model_id)
    .sort();
}

/** The lines the tooltip shows (one element each). */
const tooltipLines = (page: Page): Promise<string[]> =>
  page.$$eval("#tooltip > div", (lines) => lines.map((l) => l.textContent ?? ""));

/** What one chart of the page draws: the model id (first tooltip line) of each mark, by layer; titles; x labels. */
async function drawn(page: Page) {
  return page.$$eval("figure.chart", (figs) =>
    figs.map((f) => {
      const ids = (sel: string) =>
        [...f.querySelectorAll(sel)].map((p) => p.getAttribute("aria-label")!.split("\n")[0]!).sort();
      return {
        suite: f.closest("section")!.getAttribute("data-suite"),
        chart: f.getAttribute("data-chart"),
        ok: ids(".ok_marks > path"),
        broken: ids(".broken_marks > path"),
        // Hollow: a white inside, a stroke in the cell's colour.
        brokenPaint: [...f.querySelectorAll(".broken_marks > path")].map((p) => [
          p.getAttribute("fill"),
          p.getAttribute("stroke") !== null,
        ]),
        okFilled: [...f.querySelectorAll(".ok_marks > path")].every((p) => p.getAttribute("fill") !== null),
        axisTitles: [...f.querySelectorAll(".role-axis-title text")].map((t) => t.textContent),
        xLabels: [...f.querySelectorAll('[aria-label^="X-axis"] .role-axis-label text')].map((t) => t.textContent),
        baselineLabel: [...f.querySelectorAll(".baseline_label_marks text")].map((t) => t.textContent),
      };
    }),
  );
}

describe.skipIf(!haveChromium)(
  haveChromium
    ? "cost.html in headless Chromium"
    : `cost.html in headless Chromium: skipped, ${CHROMIUM} not installed (apt-get install chromium)`,
  () => {
    let out: string;
    let browser: Browser;
    const json: Record<string, { rows: Figure[]; excluded: Figure[] }> = {};
    const cost = async (name: string, ...extra: string[]) => {
      const r = await runCli(
        "cost",
        "--scores",
        join(repo, "docs", "example-scores.csv"),
        "--manifest",
        join(out, "manifest.json"),
        "--json",
        "--html",
        join(out, `${name}.html`),
        ...extra,
      );
      expect(r.code).toBe(0);
      json[name] = JSON.parse(r.stdout);
    };
    const open = async (name: string): Promise<{ page: Page; requests: string[] }> => {
      const page = await browser.newPage({ viewport: { width: 1500, height: 1100 } });
      const requests: string[] = [];
      page.on("request", (r) => {
        if (!r.url().startsWith("file://")) requests.push(r.url());
      });
      await page.goto(`file://${join(out, `${name}.html`)}`);
      return { page, requests };
    };
    beforeAll(async () => {
      out = await mkdtemp(join(tmpdir(), "ptb-cost-html-"));
      expect((await runCli("build", "--sources", join(repo, "sources"), "--out", out, "--quiet")).code).toBe(0);
      await cost("cost");
      await cost("broken", "--include-eos-broken");
      browser = await launchChromium();
    }, 300_000);
    afterAll(async () => {
      await browser?.close();
      await rm(out, { recursive: true, force: true });
    });

    it("draws per suite the three charts with one mark per figure of cost --json, titled, 0–100 hours, baseline labelled", async () => {
      const { page, requests } = await open("cost");
      const charts = await drawn(page);
      const rows = json.cost!.rows;
      expect(charts.map((c) => [c.suite, c.chart])).toEqual(CHARTS.map((c) => ["ifeval", c]));
      for (const c of charts) {
        const chart = c.chart as (typeof CHARTS)[number];
        expect({ chart, ok: c.ok, broken: c.broken }).toEqual({
          chart,
          ok: expectedIds(rows, chart, false),
          broken: [],
        });
      }
      // The README's example: kimi (stale id mapped) and sol-max-v2 scored; only kimi gains, so only it has a cost.
      expect(charts.map((c) => c.ok.length)).toEqual([2, 2, 1]);
      expect(charts[2]!.ok).toEqual(["agentic-ptb/kimi.h037.sft-mix.2400"]);
      expect(charts.map((c) => c.axisTitles)).toEqual([
        ["budget hour", "score (suite ifeval)"],
        ["driver tokens at the checkpoint's hour", "score (suite ifeval)"],
        ["budget hour", "cost per point (tokens, ifeval)"],
      ]);
      const hours = ["0", "10", "20", "30", "40", "50", "60", "70", "80", "90", "100"];
      expect(charts[0]!.xLabels).toEqual(hours);
      expect(charts[2]!.xLabels).toEqual(hours);
      expect(charts.map((c) => c.baselineLabel)).toEqual([
        ["baseline Qwen/Qwen3.5-9B-Base: 31"],
        ["baseline Qwen/Qwen3.5-9B-Base: 31"],
        [],
      ]);
      // The eos-broken scores are not drawn, and the page lists them.
      expect(json.cost!.excluded.map((r) => r.model_id)).toEqual([
        "agentic-ptb/grok.h006.sft-a.2000",
        "agentic-ptb/sol-high.h005.sft2.200",
      ]);
      expect(await page.locator("text=Left out for broken or unknown packaging (2)").count()).toBe(1);
      expect(requests).toEqual([]);
      await page.close();
    });

    it("shows a point's tooltip (checkpoint lines, score, cost) on hover and on keyboard focus", async () => {
      const { page } = await open("cost");
      const kimi = 'figure[data-chart="score-hour"] .ok_marks > path[aria-label^="agentic-ptb/kimi."]';
      const expected = [
        "agentic-ptb/kimi.h037.sft-mix.2400",
        "hour 37.39 (janitor, exact)",
        "driver tokens at hour: 13,986,655",
        "role: intermediate",
        "eos: ok (ids 248044, 248046)",
        "source: /pvc/ptb/kimi/sft mix/weights/step_2400",
        "score on ifeval: 40.2 (baseline 31, gain 9.2), scored as agentic-ptb/kimi.h029.sft-mix.2400",
        "cost per point: 1,520,288.59 driver tokens per point of gain",
      ];
      expect(await page.isVisible("#tooltip")).toBe(false);
      await page.hover(kimi);
      expect(await page.isVisible("#tooltip")).toBe(true);
      expect(await tooltipLines(page)).toEqual(expected);
      await page.mouse.move(0, 0);
      expect(await page.isVisible("#tooltip")).toBe(false);
      // Keyboard: Tab reaches the points in page order (cells sorted): kimi, then sol-max-v2.
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label")?.split("\n")[0])).toBe(
        "agentic-ptb/kimi.h037.sft-mix.2400",
      );
      expect(await tooltipLines(page)).toEqual(expected);
      await page.keyboard.press("Tab");
      const solMax = await tooltipLines(page);
      expect([solMax.slice(0, 2), solMax.slice(-2)]).toEqual([
        ["agentic-ptb/sol-max-v2.h003.sft.400", "hour 3.72 (janitor, exact)"],
        ["cost per point: none", "note: no gain over the baseline: no cost"],
      ]);
      await page.close();
    });

    it("keeps every mark inside its plot area (no clipping at any edge)", async () => {
      for (const name of ["cost", "broken"]) {
        const { page } = await open(name);
        const outside = await page.$$eval("figure.chart svg", (svgs) =>
          svgs.flatMap((svg) => {
            const plot = svg.querySelector(".role-frame.root > g > path.background")!.getBoundingClientRect();
            const marks = svg.querySelectorAll(
              ".ok_marks > path, .broken_marks > path, .lines_marks > path, .baseline_marks > line, .baseline_label_marks > text",
            );
            const chart = svg.closest("figure")!.getAttribute("data-chart");
            return [...marks].flatMap((m) => {
              const b = m.getBoundingClientRect();
              const inside =
                b.left >= plot.left - 0.5 &&
                b.right <= plot.right + 0.5 &&
                b.top >= plot.top - 0.5 &&
                b.bottom <= plot.bottom + 0.5;
              return inside ? [] : [`${chart} ${m.getAttribute("aria-label")?.split("\n")[0] ?? m.textContent}`];
            });
          }),
        );
        expect({ name, outside }).toEqual({ name, outside: [] });
        await page.close();
      }
    });

    it("with --include-eos-broken, draws the eos-broken scores apart: their own hollow marks and legend", async () => {
      const { page, requests } = await open("broken");
      const rows = json.broken!.rows;
      const charts = await drawn(page);
      for (const c of charts) {
        const chart = c.chart as (typeof CHARTS)[number];
        expect({ chart, ok: c.ok, broken: c.broken }).toEqual({
          chart,
          ok: expectedIds(rows, chart, false),
          broken: expectedIds(rows, chart, true),
        });
        expect(c.brokenPaint).toEqual(c.broken.map(() => ["white", true]));
        expect(c.okFilled).toBe(true);
      }
      expect(charts.map((c) => c.broken.length)).toEqual([2, 2, 1]);
      expect(charts[2]!.broken).toEqual(["agentic-ptb/sol-high.h005.sft2.200"]);
      const legend = await page.$$eval("figure.chart", (figs) =>
        figs.map((f) => [...f.querySelectorAll(".role-legend-label text")].map((t) => t.textContent)),
      );
      for (const labels of legend)
        expect(labels).toEqual([
          "grok",
          "kimi",
          "sol-high",
          "sol-max-v2",
          "eos_ok true",
          "eos_ok false: score is a floor",
          "eos_ok null: packaging unknown",
        ]);
      await page.hover('figure[data-chart="score-hour"] .broken_marks > path[aria-label^="agentic-ptb/grok."]');
      expect(await tooltipLines(page)).toEqual([
        "agentic-ptb/grok.h006.sft-a.2000",
        "hour 6.73 (janitor, exact)",
        "driver tokens at hour: 1,943,625",
        "role: intermediate",
        expect.stringMatching(/^eos: BROKEN \(ids /),
        expect.stringMatching(/^source: /),
        "score on ifeval: 29 (baseline 31, gain -2)",
        "cost per point: none",
        "note: eos_ok false: stops without <|im_end|>, so its score is a floor (packaging, not capability); no gain over the baseline: no cost",
      ]);
      expect(requests).toEqual([]);
      await page.close();
    });
  },
);
