/**
 * The fixed parts of report.html: its style sheet, the legend of the marks,
 * and the small inline script that shows a checkpoint's tooltip on hover and
 * keyboard focus, and on click (or Enter) copies its model id and opens its
 * `explain` text further down the page. Nothing is fetched.
 */
import { HOUR_SOURCE_COLOURS } from "./report-cell-chart.js";
import { EOS_SHAPES } from "./report-marks.js";

/** The page's CSS. */
export const REPORT_CSS = `body { font-family: sans-serif; margin: 24px auto; max-width: 980px; color: #222; }
table { border-collapse: collapse; margin: 8px 0 20px; }
th, td { border: 1px solid #ccc; padding: 3px 10px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.bad { color: #b00; font-weight: bold; }
section.cell { margin: 28px 0; border-top: 1px solid #ddd; padding-top: 8px; }
small { color: #666; font-weight: normal; }
.legend { line-height: 1.9; }
.key { margin-right: 14px; white-space: nowrap; } .key svg { vertical-align: middle; margin-right: 4px; }
.ckpt { cursor: pointer; }
.ckpt:hover, .ckpt:focus { stroke: #000; stroke-width: 2px; outline: none; }
.ckpt:focus-visible { stroke: #000; stroke-width: 2.5px; }
#tip { position: fixed; z-index: 10; background: #fffff4; border: 1px solid #888; box-shadow: 1px 2px 6px rgba(0,0,0,.25); padding: 5px 8px; font-size: 12px; white-space: pre; pointer-events: none; }
#tip div:first-child { font-weight: bold; }
#status { position: fixed; bottom: 8px; right: 12px; background: #333; color: #fff; padding: 3px 8px; font-size: 12px; }
#status:empty { display: none; }
details.explain pre { background: #f7f7f7; padding: 8px; overflow-x: auto; font-size: 12px; }
details.explain:target summary, details.explain[open] summary { font-weight: bold; }
`;

const symbol = (d: string, fill: string): string =>
  `<svg width="14" height="14" viewBox="-1.2 -1.2 2.4 2.4" aria-hidden="true"><path d="${d}" fill="${fill}"/></svg>`;

/** The legend: hour_source colours, eos_ok shapes, how intervals, error bars and roles are drawn. */
export function legendHtml(): string {
  const colours = Object.entries(HOUR_SOURCE_COLOURS)
    .map(([k, col]) => `<span class="key">${symbol(EOS_SHAPES.ok, col)}${k}</span>`)
    .join(" ");
  const grey = "#555";
  const eos = [
    `<span class="key" data-eos-key="ok">${symbol(EOS_SHAPES.ok, grey)}eos_ok true</span>`,
    `<span class="key" data-eos-key="broken">${symbol(EOS_SHAPES.broken, grey)}eos_ok false (broken)</span>`,
    `<span class="key" data-eos-key="unknown">${symbol(EOS_SHAPES.unknown, grey)}eos_ok null (unknown: not published yet, or no stop ids)</span>`,
  ].join(" ");
  const line = (dash: string, w: number): string =>
    `<svg width="34" height="10" aria-hidden="true"><line x1="2" y1="5" x2="32" y2="5" stroke="#999" stroke-width="${w}" stroke-dasharray="${dash}"/></svg>`;
  const shapes = [
    `<span class="key">${line("none", 5)}untimed: between its bounds</span>`,
    `<span class="key">${line("4 3", 1.5)}<svg width="10" height="10" aria-hidden="true"><path d="M10,0L10,10L1,5Z" fill="#999"/></svg> an open side (no bound): dashed to the axis edge</span>`,
    `<span class="key">${line("none", 2).replace("#999", HOUR_SOURCE_COLOURS.extrapolated!)}extrapolated: error bar</span>`,
    `<span class="key"><span style="color:#e7298a">◇</span> submitted <span style="color:#e6ab02">◇</span> fallback</span>`,
  ].join(" ");
  return `<div class="legend"><div>hour_source: ${colours}</div><div>${eos}</div><div>${shapes}</div></div>`;
}

/**
 * The page's script (no library, no request): tooltips from a mark's
 * `data-tip` on hover and focus; click, Enter or Space on a mark copies its
 * `data-model-id` (where the browser allows) and opens its
 * `details#explain-<model id>`; a link to `#explain-…` opens it too.
 */
export const REPORT_SCRIPT = `(() => {
  const tip = document.getElementById("tip");
  const status = document.getElementById("status");
  const markOf = (e) => (e.target instanceof Element ? e.target.closest(".ckpt") : null);
  const show = (el) => {
    tip.replaceChildren(...el.getAttribute("data-tip").split("\\n").map((t) => {
      const d = document.createElement("div");
      d.textContent = t;
      return d;
    }));
    tip.hidden = false;
    const r = el.getBoundingClientRect();
    let x = r.right + 10, y = r.top - 6;
    if (x + tip.offsetWidth > innerWidth - 4) x = Math.max(4, r.left - tip.offsetWidth - 10);
    if (y + tip.offsetHeight > innerHeight - 4) y = Math.max(4, innerHeight - tip.offsetHeight - 4);
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  };
  const hide = () => { tip.hidden = true; };
  const openExplain = (id) => {
    const d = document.getElementById("explain-" + id);
    if (!d) return;
    d.open = true;
    d.scrollIntoView({ block: "start" });
    d.querySelector("summary").focus({ preventScroll: true });
  };
  const activate = (el) => {
    const id = el.getAttribute("data-model-id");
    hide();
    if (navigator.clipboard) navigator.clipboard.writeText(id).then(() => { status.textContent = "copied " + id; setTimeout(() => { status.textContent = ""; }, 2500); }, () => {});
    history.pushState(null, "", "#explain-" + id);
    openExplain(id);
  };
  document.addEventListener("mouseover", (e) => { const m = markOf(e); if (m) show(m); });
  document.addEventListener("mouseout", (e) => { if (markOf(e) && document.activeElement !== markOf(e)) hide(); });
  document.addEventListener("focusin", (e) => { const m = markOf(e); if (m) show(m); else hide(); });
  document.addEventListener("focusout", (e) => { if (markOf(e)) hide(); });
  document.addEventListener("click", (e) => { const m = markOf(e); if (m) activate(m); });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") hide();
    const m = markOf(e);
    if (m && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); activate(m); }
  });
  const fromHash = () => { if (location.hash.startsWith("#explain-")) openExplain(decodeURIComponent(location.hash.slice(9))); };
  addEventListener("hashchange", fromHash);
  fromHash();
})();`;
