import { describe, expect, it, beforeAll, afterAll } from "vitest";
import { mkdir, mkdtemp, rm, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { runBuild } from "../src/pipeline/run-build.js";
import { renderExplanation } from "../src/audit/explain.js";
import { checkpointTooltip } from "../src/writers/checkpoint-tooltip.js";
import { HOUR_SOURCE_COLOURS } from "../src/writers/report-cell-chart.js";
import type { BuildResult } from "../src/model.js";
import { CHROMIUM, haveChromium as chromiumInstalled, launchChromium } from "./helpers/chromium.js";

/**
 * report.html of a build of the embedded sources/, opened in headless
 * Chromium (Debian's `chromium`, installed by .ci/run) and used as a reader
 * would: hover, keyboard focus and click on checkpoint marks; the marks, the
 * overview's curves and the tables counted against the build's files.
 * Nothing is fetched. A screenshot is kept in .vitest-artifacts/report.png.
 */
const repo = join(import.meta.dirname, "..");
const haveChromium = chromiumInstalled();

interface ManifestRow {
  model_id: string;
  cell: string;
  hour: number | null;
  hour_source: string;
  hour_lower_bound: number | null;
  hour_upper_bound: number | null;
  hour_error_h: number | null;
  role: string;
  eos_ok: boolean | null;
}

const eosOf = (r: ManifestRow) => (r.eos_ok === null ? "unknown" : r.eos_ok ? "ok" : "broken");
const tally = (keys: string[]) => {
  const t: Record<string, number> = {};
  for (const k of keys) t[k] = (t[k] ?? 0) + 1;
  return Object.fromEntries(Object.entries(t).sort(([a], [b]) => (a < b ? -1 : 1)));
};

describe.skipIf(!haveChromium)(
  haveChromium
    ? "report.html in headless Chromium"
    : `report.html in headless Chromium: skipped, ${CHROMIUM} not installed (apt-get install chromium)`,
  () => {
    let out: string;
    let result: BuildResult;
    let manifest: ManifestRow[];
    let browser: Browser;
    let page: Page;
    const requests: string[] = [];
    beforeAll(async () => {
      out = await mkdtemp(join(tmpdir(), "ptb-report-"));
      ({ result } = await runBuild({ sources: join(repo, "sources"), out, quiet: true }));
      manifest = JSON.parse(await readFile(join(out, "manifest.json"), "utf8"));
      browser = await launchChromium();
      page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
      page.on("request", (r) => {
        if (!r.url().startsWith("file://")) requests.push(r.url());
      });
      await page.goto(`file://${join(out, "report.html")}`);
    }, 300_000);
    afterAll(async () => {
      await browser?.close();
      await rm(out, { recursive: true, force: true });
    });

    it("opens offline, one file; states its size and time to first paint", async () => {
      const size = (await stat(join(out, "report.html"))).size;
      // Paint entries are recorded after the first frame, which may come after the load event.
      await page.waitForFunction(() => performance.getEntriesByType("paint").length > 0, null, { polling: "raf" });
      const paint = await page.evaluate(() =>
        performance.getEntriesByType("paint").map((e) => `${e.name} ${Math.round(e.startTime)} ms`),
      );
      console.log(`report.html: ${(size / 1e6).toFixed(2)} MB; ${paint.join(", ")} (headless Chromium, this machine)`);
      expect(size).toBeLessThan(4_000_000);
      expect(paint.length).toBeGreaterThan(0);
      expect(await page.$$eval("script[src], link[href], img[src], iframe", (e) => e.length)).toBe(0);
      expect(requests).toEqual([]); // self-contained: nothing fetched
      await mkdir(join(repo, ".vitest-artifacts"), { recursive: true });
      await page.screenshot({ path: join(repo, ".vitest-artifacts", "report.png"), fullPage: false });
    });

    it("hovering a checkpoint shows its tooltip lines", async () => {
      await page.hover('section.cell .ckpt[data-model-id="agentic-ptb/grok.hNA.kd.100"]');
      const tip = await page.$eval("#tip", (t) => ({
        hidden: (t as HTMLElement).hidden,
        lines: [...t.children].map((d) => d.textContent),
      }));
      expect(tip).toEqual({
        hidden: false,
        lines: [
          "agentic-ptb/grok.hNA.kd.100",
          "hour null (unrecoverable, between open and 52.00)",
          "driver tokens at hour: unknown",
          "role: intermediate",
          "eos: BROKEN (ids 248044)",
          "source: msr-spare/grok.kd.step_100",
        ],
      });
      await page.mouse.move(1, 1);
      expect(await page.$eval("#tip", (t) => (t as HTMLElement).hidden)).toBe(true);
    });

    it("every mark's tooltip is checkpointTooltip of its row", async () => {
      const tips = await page.$$eval(".ckpt", (m) =>
        m.map((e) => [e.getAttribute("data-model-id")!, e.getAttribute("data-tip")!] as const),
      );
      const byId = new Map(result.rows.map((r) => [r.model_id, r]));
      for (const [id, tip] of tips) expect(tip.split("\n"), id).toEqual(checkpointTooltip(byId.get(id)!));
    });

    it("keyboard focus (Tab) reaches the checkpoints, styled, with the tooltip", async () => {
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.keyboard.press("Tab");
      await page.keyboard.press("Tab");
      const focused = await page.evaluate(() => {
        const a = document.activeElement!;
        return {
          id: a.getAttribute("data-model-id"),
          stroke: getComputedStyle(a).stroke,
          tip: document.getElementById("tip")!.hidden
            ? null
            : document.getElementById("tip")!.firstElementChild!.textContent,
        };
      });
      const second = manifest.filter((r) => r.cell === "sol-high")[1]!.model_id;
      expect(focused).toEqual({ id: second, stroke: "rgb(0, 0, 0)", tip: second });
    });

    it("clicking a checkpoint (or Enter) opens its explain text, embedded in the page", async () => {
      const id = "agentic-ptb/sol-high.hNA.sft1.1000";
      await page.click(`section.cell .ckpt[data-model-id="${id}"]`);
      const opened = await page.evaluate(() => {
        const d = document.querySelector("details.explain[open]")!;
        return { hash: decodeURIComponent(location.hash), id: d.id, text: d.querySelector("pre")!.textContent };
      });
      const i = result.rows.findIndex((r) => r.model_id === id);
      const row = result.rows[i]!;
      expect(opened).toEqual({
        hash: `#explain-${id}`,
        id: `explain-${id}`,
        text: renderExplanation({ query: id, row, provenance: result.provenance[i]!, run: result.runs[row.cell]! }),
      });
      expect(opened.text.split("\n").slice(0, 4)).toEqual([
        id,
        "  cell sol-high (Codex / gpt-5.6-sol, high)   family sft1   step 1000",
        "  hour null   hour_source unrecoverable   role intermediate",
        "  bounds [5.17, 8.39]",
      ]);
      expect(await page.$$eval("details.explain", (d) => d.length)).toBe(manifest.length);
      const other = "agentic-ptb/kimi.hNA.sft-mix.300";
      await page.focus(`section.cell .ckpt[data-model-id="${other}"]`);
      await page.keyboard.press("Enter");
      expect(await page.evaluate(() => decodeURIComponent(location.hash))).toBe(`#explain-${other}`);
      expect(await page.$eval(`[id="explain-${other}"]`, (d) => (d as HTMLDetailsElement).open)).toBe(true);
    });

    it("draws one mark per row, coloured by hour_source and shaped by eos_ok, as the manifest says", async () => {
      const marks = await page.$$eval("section.cell .ckpt", (m) =>
        m.map((e) => ({
          cell: e.closest("section")!.getAttribute("data-cell")!,
          id: e.getAttribute("data-model-id")!,
          source: e.getAttribute("data-hour-source")!,
          eos: e.getAttribute("data-eos")!,
          fill: e.getAttribute("fill")!,
          d: e.getAttribute("d")!,
          tabindex: e.getAttribute("tabindex"),
        })),
      );
      const rows = manifest.filter((r) => r.cell !== "BASELINE");
      expect(marks.map((m) => m.id).sort()).toEqual(rows.map((r) => r.model_id).sort());
      expect(tally(marks.map((m) => m.source))).toEqual(tally(rows.map((r) => r.hour_source)));
      expect(tally(marks.map((m) => m.eos))).toEqual(tally(rows.map(eosOf)));
      expect(tally(marks.map((m) => m.eos))).toEqual({ broken: 87, ok: 180, unknown: 1 });
      // What is drawn, not only the attributes: the fill is the hour_source's colour, one shape per eos state.
      expect(tally(marks.map((m) => m.fill))).toEqual(tally(rows.map((r) => HOUR_SOURCE_COLOURS[r.hour_source]!)));
      const shapes = new Map<string, Set<string>>();
      for (const m of marks) shapes.set(m.eos, (shapes.get(m.eos) ?? new Set()).add(m.d));
      expect([...shapes.values()].map((s) => s.size)).toEqual([1, 1, 1]);
      expect(new Set([...shapes.values()].map((s) => [...s][0])).size).toBe(3);
      expect(new Set(marks.map((m) => m.tabindex))).toEqual(new Set(["0"]));
      // The legend shows the three eos shapes.
      expect(await page.$$eval("[data-eos-key]", (k) => k.map((e) => e.getAttribute("data-eos-key")))).toEqual([
        "ok",
        "broken",
        "unknown",
      ]);
    });

    it("draws untimed rows only over their bounds, an open side as open; error bars and roles per row", async () => {
      const cells = await page.$$eval("section.cell", (sections) =>
        sections.map((s) => {
          const n = (label: string) => s.querySelectorAll(`[aria-label="${label}"]`).length;
          return {
            cell: s.getAttribute("data-cell")!,
            drawn: [n("interval"), n("open interval"), n("open end"), n("error bar"), n("submitted or fallback")],
            checkpoints: s.querySelectorAll(".ckpt").length,
          };
        }),
      );
      expect(cells.map((c) => c.cell)).toEqual(result.registry.cells.filter((c) => !c.excluded).map((c) => c.cell));
      for (const c of cells) {
        const rows = manifest.filter((r) => r.cell === c.cell);
        const untimed = rows.filter((r) => r.hour === null);
        const closed = untimed.filter((r) => r.hour_lower_bound !== null && r.hour_upper_bound !== null);
        expect(c.drawn, c.cell).toEqual([
          closed.length,
          untimed.length - closed.length,
          untimed.filter((r) => r.hour_lower_bound === null).length +
            untimed.filter((r) => r.hour_upper_bound === null).length,
          rows.filter((r) => r.hour_source === "extrapolated" && r.hour_error_h !== null).length,
          rows.filter((r) => r.role === "SUBMITTED" || r.role === "fallback").length,
        ]);
        expect(c.checkpoints, c.cell).toBe(rows.length);
      }
      // grok's kd rows: no lower bound, upper 52: dashed from the axis edge (an arrowhead there), no solid bar.
      const grok = cells.find((c) => c.cell === "grok")!;
      expect(grok.drawn.slice(0, 3)).toEqual([1, 3, 3]);
    });

    it("the overview draws one token curve per plotted cell on one axis, and their timed checkpoints", async () => {
      const overview = await page.$eval("#overview", (o) => ({
        curves: [...o.querySelectorAll(".curve")].map((c) => c.getAttribute("data-cell")),
        groups: new Set([...o.querySelectorAll(".curve")].map((c) => c.parentElement!.getAttribute("class"))).size,
        ticks: o.querySelectorAll(".ckpt").length,
        eos: [...o.querySelectorAll(".ckpt")].map((m) => `${m.getAttribute("data-eos")} ${m.getAttribute("d")}`),
        focusable: o.querySelectorAll('.ckpt[tabindex="0"]').length,
      }));
      const plotted = result.registry.cells.filter((c) => !c.excluded && c.plotted !== false).map((c) => c.cell);
      expect(plotted).toHaveLength(8);
      // eos_ok shown there too: one shape per state, as many of each as the plotted cells' timed rows.
      const timed = manifest.filter((r) => plotted.includes(r.cell) && r.hour !== null);
      expect(tally(overview.eos.map((e) => e.split(" ")[0]!))).toEqual(tally(timed.map(eosOf)));
      expect(new Set(overview.eos).size).toBe(new Set(timed.map(eosOf)).size);
      expect({ ...overview, eos: undefined }).toEqual({
        eos: undefined,
        curves: plotted,
        groups: 1,
        ticks: manifest.filter((r) => plotted.includes(r.cell) && r.hour !== null).length,
        focusable: 0,
      });
    });

    it("lists the warnings by code (count, first file:line) and the lost and excluded checkpoints", async () => {
      const report = JSON.parse(await readFile(join(out, "build-report.json"), "utf8")) as {
        warning_counts: Record<string, number>;
        warnings: { code: string; file: string | null; line: number | null }[];
        lost: unknown[];
        excluded: unknown[];
      };
      const table = await page.$$eval("tr.warning", (rows) =>
        rows.map((r) => ({
          code: r.getAttribute("data-code")!,
          count: Number(r.getAttribute("data-count")),
          cells: [...r.children].map((c) => c.textContent),
        })),
      );
      expect(Object.fromEntries(table.map((t) => [t.code, t.count]))).toEqual(report.warning_counts);
      for (const t of table) {
        const first = report.warnings.find((w) => w.code === t.code)!;
        expect(t.cells.slice(0, 3), t.code).toEqual([
          t.code,
          String(t.count),
          first.line === null ? first.file : `${first.file}:${first.line}`,
        ]);
      }
      expect(table.map((t) => t.count)).toEqual([...table.map((t) => t.count)].sort((a, b) => b - a));
      const lost = await page.$$eval("tr[data-kind]", (rows) =>
        rows.map((r) => [...r.children].map((c) => c.textContent)),
      );
      expect(lost).toHaveLength(report.lost.length + report.excluded.length);
      expect(lost[0]).toEqual([
        "lost",
        "sol-high",
        "grpo-a",
        "600",
        "seen in janitor_other, supervisor_role; its weights survive nowhere (no row)",
      ]);
      expect(lost.at(-1)!.slice(0, 2)).toEqual(["excluded", "opus-high-v2"]);
    });
  },
);

describe("report charts", () => {
  it("render for a cell and a family named like built-in object keys (a Vega title bug the report avoids)", async () => {
    const { cellChartSpec } = await import("../src/writers/report-cell-chart.js");
    const { renderSvg } = await import("../src/writers/report-html.js");
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
      [{ row, index: 0 }],
      [
        [0, 0],
        [1, 5],
      ],
      100,
    );
    expect(counts).toEqual({ checkpoints: 1, intervals: 0, openEnds: 0, errorBars: 0, roles: 1 });
    const svg = await renderSvg(spec);
    expect(svg.match(/aria-label="ckpt:0"/g)).toHaveLength(1);
    expect(svg).toContain(">constructor</text>");
    const { overviewSpec } = await import("../src/writers/report-overview.js");
    const overview = overviewSpec([
      {
        cell: "constructor",
        curve: [
          [0, 0],
          [1, 5],
        ],
        entries: [{ row, index: 0 }],
      },
    ]);
    expect([overview.curves, overview.ticks]).toEqual([1, 1]);
    const overviewSvg = await renderSvg(overview.spec);
    expect(overviewSvg.match(/aria-label="curve:0"/g)).toHaveLength(1);
    expect(overviewSvg.match(/aria-label="ckpt:0"/g)).toHaveLength(1);
  });
});
