import { describe, expect, it } from "vitest";
import { untimedPlacement, vegaNameList } from "../src/writers/report-cell-chart.js";
import { eosState, markCheckpoints, markCurves } from "../src/writers/report-marks.js";
import { lostExcludedTable, warningsTable } from "../src/writers/report-tables.js";
import type { Row } from "../src/schema.js";

/** The parts of report.html on in-memory data: placement of untimed rows, marks, tables. */
const row = (over: Partial<Row>): Row => ({
  model_id: "agentic-ptb/grok.hNA.kd.100",
  cell: "grok",
  driver: "pi / grok-4.6",
  effort: "xhigh",
  hour: null,
  hour_source: "unrecoverable",
  hour_upper_bound: 52,
  driver_tokens_at_hour: null,
  role: "intermediate",
  eos_ok: false,
  eos_token_id: [248044],
  source: "msr-spare/grok.kd.step_100",
  family: "kd",
  step: 100,
  hour_lower_bound: null,
  hour_error_h: null,
  ...over,
});

describe("untimed rows", () => {
  it("are placed over what their bounds support, an open side flagged open", () => {
    expect(untimedPlacement(row({}), 100)).toEqual({ lo: 0, hi: 52, loOpen: true, hiOpen: false, at: 52 });
    expect(untimedPlacement(row({ hour_lower_bound: 5.17, hour_upper_bound: 8.39 }), 100)).toEqual({
      lo: 5.17,
      hi: 8.39,
      loOpen: false,
      hiOpen: false,
      at: 6.78,
    });
    expect(untimedPlacement(row({ hour_lower_bound: 40, hour_upper_bound: null }), 120)).toEqual({
      lo: 40,
      hi: 120,
      loOpen: false,
      hiOpen: true,
      at: 40,
    });
    expect(untimedPlacement(row({ hour_upper_bound: null }), 100)).toEqual({
      lo: 0,
      hi: 100,
      loOpen: true,
      hiOpen: true,
      at: 50,
    });
  });
});

describe("checkpoint marks", () => {
  it("carry the row's id, hour_source, eos state and tooltip lines", () => {
    expect([eosState(row({ eos_ok: true })), eosState(row({})), eosState(row({ eos_ok: null }))]).toEqual([
      "ok",
      "broken",
      "unknown",
    ]);
    const svg = '<path aria-label="ckpt:1" d="M0,0"/><path aria-label="bounds"/>';
    expect(markCheckpoints(svg, [row({ model_id: "x" }), row({})], true)).toBe(
      '<path aria-label="agentic-ptb/grok.hNA.kd.100" class="ckpt" tabindex="0" data-model-id="agentic-ptb/grok.hNA.kd.100" data-hour-source="unrecoverable" data-eos="broken" data-tip="agentic-ptb/grok.hNA.kd.100&#10;hour null (unrecoverable, between open and 52.00)&#10;driver tokens at hour: unknown&#10;role: intermediate&#10;eos: BROKEN (ids 248044)&#10;source: msr-spare/grok.kd.step_100" d="M0,0"/><path aria-label="bounds"/>',
    );
    expect(markCheckpoints('<path aria-label="ckpt:0"/>', [row({ model_id: 'a"<b' })], false)).toContain(
      'aria-label="a&quot;&lt;b" class="ckpt" tabindex="-1" data-model-id="a&quot;&lt;b"',
    );
    expect(markCurves('<path aria-label="curve:1"/>', ["kimi", "a&b"])).toBe(
      '<path aria-label="driver tokens of a&amp;b" class="curve" data-cell="a&amp;b"/>',
    );
  });

  it("lane labels are a Vega list spelt one character per literal", () => {
    expect(vegaNameList(["kd", ""])).toBe('["k"+"d",""]');
  });
});

describe("report tables", () => {
  it("group the warnings by code: count, first file:line and message, most frequent first", () => {
    const html = warningsTable([
      { code: "PVC_BAD_LINE", message: "m1", file: "a/pvc/listing.tsv", line: 191 },
      { code: "HUB_DUPLICATE_REPO", message: "dup <x>", file: "hub/r", line: null },
      { code: "PVC_BAD_LINE", message: "m2", file: "a/pvc/listing.tsv", line: 7 },
    ]);
    expect(html).toBe(
      `<table><thead><tr><th>code</th><th>count</th><th>first at</th><th>first message</th></tr></thead><tbody>
<tr class="warning" data-code="PVC_BAD_LINE" data-count="2"><td>PVC_BAD_LINE</td><td>2</td><td>a/pvc/listing.tsv:191</td><td>m1</td></tr>
<tr class="warning" data-code="HUB_DUPLICATE_REPO" data-count="1"><td>HUB_DUPLICATE_REPO</td><td>1</td><td>hub/r</td><td>dup &lt;x&gt;</td></tr>
</tbody></table>`,
    );
    expect(warningsTable([])).toBe("<p>No warnings.</p>");
  });

  it("list the lost checkpoints and the excluded cells", () => {
    expect(
      lostExcludedTable({
        lost: [{ cell: "grok", family: "sft-b", step: 4200, seen_in: ["janitor_other"] }],
        excluded: [{ cell: "opus-high-v2", reason: "aborted rerun" }],
      }),
    ).toBe(
      `<table><thead><tr><th></th><th>cell</th><th>family</th><th>step</th><th>why</th></tr></thead><tbody>
<tr data-kind="lost"><td>lost</td><td>grok</td><td>sft-b</td><td>4200</td><td>seen in janitor_other; its weights survive nowhere (no row)</td></tr>
<tr data-kind="excluded"><td>excluded</td><td>opus-high-v2</td><td>-</td><td>-</td><td>whole cell excluded: aborted rerun</td></tr>
</tbody></table>`,
    );
    expect(lostExcludedTable({ lost: [], excluded: [] })).toBe("<p>None lost, none excluded.</p>");
  });
});
