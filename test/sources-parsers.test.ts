import { describe, expect, it } from "vitest";
import { Diagnostics } from "../src/diagnostics.js";
import { parseAnchors } from "../src/extractors/anchors.js";
import { readHubRepos } from "../src/extractors/hub-files.js";
import { parseJanitorLog } from "../src/extractors/janitor-log.js";
import { parseListingTsvBatches, type PvcEntry } from "../src/extractors/pvc-listing.js";
import { parseLsLRBatches } from "../src/extractors/pvc-ls-lr.js";
import { parseSupervisorHistory, type RunEnd } from "../src/extractors/supervisor.js";
import type { Observation } from "../src/observations.js";
import { checkRunEndLate } from "../src/pipeline/read-supervisor.js";
import type { Cell } from "../src/schema.js";
import { parseCells } from "../src/sources/cells.js";
import {
  anchorsPath,
  isExtractedPath,
  janitorDirPath,
  listingTsvPath,
  lsLRPath,
  missingJanitorParts,
  orderJanitorParts,
  supervisorHistoryPath,
  trajectoryDirPath,
} from "../src/sources/layout.js";
import { choosePvcListing, type HubRepoFiles, type SourceFile } from "../src/sources/sources.js";
import { linesOfBytes } from "./helpers/memory-sources.js";

const cell: Cell = {
  cell: "c1",
  driver: "d",
  effort: "e",
  trajectory_format: "codex",
  pvc_root: "/pvc/ptb/c1",
  janitor_tz: "UTC",
  family_aliases: { "sft 3": "sft3" },
};
const linesOf = (text: string) => linesOfBytes(Buffer.from(text));
const codes = (d: Diagnostics) => d.warnings.map((w) => [w.code, w.file, w.line]);
async function collect(gen: AsyncIterable<PvcEntry[]>): Promise<PvcEntry[]> {
  const out: PvcEntry[] = [];
  for await (const batch of gen) out.push(...batch);
  return out;
}
const memFile = (rel: string, text: string): SourceFile => ({
  rel,
  abs: null,
  async *lines() {
    yield* linesOf(text);
  },
  async *lineBatches() {
    yield linesOf(text);
  },
});

describe("layout (SOURCES.md: Layout)", () => {
  it("names every path of a cell", () => {
    expect([
      supervisorHistoryPath("c1"),
      listingTsvPath("c1"),
      lsLRPath("c1"),
      janitorDirPath("c1"),
      anchorsPath("c1"),
      trajectoryDirPath("c1"),
    ]).toEqual([
      "c1/supervisor/history.jsonl",
      "c1/pvc/listing.tsv",
      "c1/pvc/ls-lR.txt",
      "c1/janitor",
      "c1/anchors.tsv",
      "c1/trajectory",
    ]);
    expect(
      ["c1/pvc/listing.tsv", "c1/trajectory/a.jsonl", "c1/janitor/x", "c1/anchors.tsv", "hub/o/n/x"].map(
        isExtractedPath,
      ),
    ).toEqual([true, true, true, false, false]);
  });
  it("orders the janitor parts oldest first", () => {
    expect(
      orderJanitorParts([
        "ckpt-janitor.log",
        "ckpt-janitor.log.1",
        "ckpt-janitor.log.10.gz",
        "ckpt-janitor.log.2.gz",
        "notes",
      ]),
    ).toEqual(["ckpt-janitor.log.10.gz", "ckpt-janitor.log.2.gz", "ckpt-janitor.log.1", "ckpt-janitor.log"]);
  });
  it("names the janitor parts missing: a skipped rotation number, or no current log beside rotated parts", () => {
    expect(missingJanitorParts([])).toEqual([]);
    expect(missingJanitorParts(["ckpt-janitor.log", "notes"])).toEqual([]);
    expect(missingJanitorParts(["ckpt-janitor.log", "ckpt-janitor.log.1", "ckpt-janitor.log.2.gz"])).toEqual([]);
    expect(missingJanitorParts(["ckpt-janitor.log", "ckpt-janitor.log.4.gz", "ckpt-janitor.log.1"])).toEqual([
      "ckpt-janitor.log.3[.gz]",
      "ckpt-janitor.log.2[.gz]",
    ]);
    expect(missingJanitorParts(["ckpt-janitor.log.2.gz", "ckpt-janitor.log.1"])).toEqual(["ckpt-janitor.log"]);
    expect(missingJanitorParts(["ckpt-janitor.log", "ckpt-janitor.log.20261003"])).toEqual([]);
  });
  it("picks listing.tsv over ls-lR.txt, with PVC_TWO_LISTINGS; neither is PVC_LISTING_MISSING", () => {
    const diag = new Diagnostics();
    expect(choosePvcListing("c1", true, true, diag)).toBe("listing.tsv");
    expect(choosePvcListing("c1", false, true, diag)).toBe("ls-lR");
    expect(codes(diag)).toEqual([["PVC_TWO_LISTINGS", "c1/pvc", null]]);
    expect(() => choosePvcListing("c1", false, false, diag)).toThrow(/neither pvc\/listing.tsv nor pvc\/ls-lR.txt/);
  });
});

describe("parseCells", () => {
  it("parses cells.json text, a BOM allowed", () => {
    const registry = parseCells(
      `\ufeff${JSON.stringify({ org: "o", spare_owner: "s", baseline: "b/base", required_eos_token_id: 2, cells: [cell] })}`,
    );
    expect(registry.cells.map((c) => c.cell)).toEqual(["c1"]);
    expect(() => parseCells("{")).toThrow(/cells.json is not valid JSON/);
  });
});

describe("parseSupervisorHistory (SOURCES.md: supervisor/)", () => {
  it("reads run_start, pauses, roles and run_end from lines; checkRunEnd gets the run_end", async () => {
    const diag = new Diagnostics();
    const seen: RunEnd[] = [];
    const history = await parseSupervisorHistory(
      linesOf(
        [
          '{"ts":"2026-10-02T08:00:00Z","event":"run_start"}',
          '{"ts":"2026-10-02T10:00:00Z","event":"pause"}',
          '{"ts":"2026-10-02T11:00:00Z","event":"resume"}',
          '{"ts":"2026-10-03T08:00:00Z","event":"submit","checkpoint":"/pvc/ptb/c1/sft 3/weights/step_40/"}',
          '{"ts":"2026-10-08T08:00:00Z","event":"run_end"}',
          "",
        ].join("\n"),
      ),
      "c1/supervisor/history.jsonl",
      cell,
      diag,
      (run) => seen.push(run),
    );
    expect(history.runStartMs).toBe(Date.parse("2026-10-02T08:00:00Z"));
    expect(history.runEndMs).toBe(Date.parse("2026-10-08T08:00:00Z"));
    expect(history.pauses).toEqual([
      { startMs: Date.parse("2026-10-02T10:00:00Z"), endMs: Date.parse("2026-10-02T11:00:00Z"), line: 2 },
    ]);
    expect(history.roleEvents.map((o) => [o.family, o.step, o.familyDir, o.origin.line])).toEqual([
      ["sft3", 40, "sft 3", 4],
    ]);
    expect(history.eventCount).toBe(5);
    expect(seen).toEqual([
      {
        runStartMs: Date.parse("2026-10-02T08:00:00Z"),
        pauses: history.pauses,
        runEndMs: Date.parse("2026-10-08T08:00:00Z"),
        file: "c1/supervisor/history.jsonl",
        line: 5,
      },
    ]);
    expect(diag.warnings).toEqual([]);
    // 144 wall hours less the 1 h pause: 143 budget hours, past RUN_END_LATE_H.
    checkRunEndLate(seen[0]!, diag);
    expect(diag.warnings).toEqual([
      {
        code: "SUPERVISOR_RUN_END_LATE",
        message:
          "run_end at 2026-10-08T08:00:00.000Z is 143.00 budget hours after run_start (a run lasts 100): copy-back mtimes before it would pass as write times",
        file: "c1/supervisor/history.jsonl",
        line: 5,
      },
    ]);
  });
  it("gives no SUBMITTED role when a line after the last submit may be a later submit but cannot be read", async () => {
    const head = [
      '{"ts":"2026-10-02T08:00:00Z","event":"run_start"}',
      '{"ts":"2026-10-03T08:00:00Z","event":"submit","checkpoint":"/pvc/ptb/c1/sft3/weights/step_40"}',
      '{"ts":"2026-10-03T09:00:00Z","event":"fallback","checkpoint":"/pvc/ptb/c1/sft3/weights/step_20"}',
    ];
    const roles = async (last: string) => {
      const diag = new Diagnostics();
      const h = await parseSupervisorHistory(linesOf([...head, last].join("\n")), "h", cell, diag);
      // A submit in doubt stays evidence of its checkpoint, marked with the line that may replace it.
      return {
        roles: h.roleEvents.map((o) => [o.detail.role, o.step, o.detail.inDoubtFromLine ?? null]),
        codes: codes(diag),
      };
    };
    const unread = (code: string) => [
      [code, "h", 4],
      ["SUPERVISOR_SUBMIT_UNREADABLE", "h", 4],
    ];
    // A submit whose checkpoint path, or ts, cannot be read; a misspelt submit; a broken line that names submit.
    for (const [line, code] of [
      [
        '{"ts":"2026-10-04T08:00:00Z","event":"submit","checkpoint":"/pvc/ptb/c1/sft3/weights/step_60 "}',
        "SUPERVISOR_BAD_CHECKPOINT",
      ],
      [
        '{"ts":"2026-10-04T08:00:00","event":"submit","checkpoint":"/pvc/ptb/c1/sft3/weights/step_60"}',
        "SUPERVISOR_BAD_LINE",
      ],
      [
        '{"ts":"2026-10-04T08:00:00Z","event":"Submit","checkpoint":"/pvc/ptb/c1/sft3/weights/step_60"}',
        "SUPERVISOR_MISSPELLED_EVENT",
      ],
      [
        '{"ts":"2026-10-04T08:00:00Z","event":"submit","checkpoint":"/pvc/ptb/c1/sft3/weights/step_60",',
        "SUPERVISOR_BAD_LINE",
      ],
    ] as const)
      expect(await roles(line), line).toEqual({
        roles: [
          ["SUBMITTED", 40, 4],
          ["fallback", 20, null],
        ],
        codes: unread(code),
      });
    // A broken line that is no submit, or an unreadable submit before the last one read, leaves the submit.
    for (const notSubmit of [
      '{"ts":"2026-10-04T08:00:00Z","event":"pause",',
      '{"ts":"2026-11-03T23:30:00Z","event":"note","text":"eval of the submitted model started"',
      '{"ts":"2026-11-03T23:30:00Z","ev',
    ])
      expect(await roles(notSubmit), notSubmit).toEqual({
        roles: [
          ["SUBMITTED", 40, null],
          ["fallback", 20, null],
        ],
        codes: [["SUPERVISOR_BAD_LINE", "h", 4]],
      });
    // A last line cut off inside its event's name, after a beginning of "submit".
    expect((await roles('{"ts":"2026-10-04T08:00:00Z","event":"sub')).codes).toEqual(unread("SUPERVISOR_BAD_LINE"));
    const diag = new Diagnostics();
    const h = await parseSupervisorHistory(
      linesOf(
        [head[0], '{"ts":"x","event":"submit","checkpoint":"/pvc/ptb/c1/sft3/weights/step_60"}', head[1]].join("\n"),
      ),
      "h",
      cell,
      diag,
    );
    expect(h.roleEvents.map((o) => [o.detail.role, o.step])).toEqual([["SUBMITTED", 40]]);
    expect(codes(diag)).toEqual([["SUPERVISOR_BAD_LINE", "h", 2]]);
  });

  it("names the run_start line that cannot be read", async () => {
    const history =
      '{"ts":"2026-10-02T08:00:00Z","event":"run_start"},\n{"ts":"2026-10-03T08:00:00Z","event":"pause"}\n';
    await expect(parseSupervisorHistory(linesOf(history), "h", cell, new Diagnostics())).rejects.toMatchObject({
      code: "SUPERVISOR_NO_RUN_START",
      line: 1,
      message: expect.stringMatching(
        /its run_start line cannot be read \(not a JSON object \(.*\)\), so its hours cannot be computed/,
      ),
    });
  });

  it("passes an error of its lines through (the reader names it)", async () => {
    async function* failing() {
      yield* linesOf('{"ts":"2026-10-02T08:00:00Z","event":"run_start"}\n');
      throw Object.assign(new Error("EIO"), { code: "EIO" });
    }
    await expect(parseSupervisorHistory(failing(), "f", cell, new Diagnostics())).rejects.toThrow("EIO");
  });
});

describe("parseAnchors (SOURCES.md: anchors.tsv)", () => {
  it("reads anchors from lines, warns on bad ones", async () => {
    const diag = new Diagnostics();
    const out: Observation[] = [];
    await parseAnchors(
      linesOf("family\tstep\ttime\tkind\tnote\nsft3\t40\t2026-10-03T08:00:00+02:00\teval\tok\nsft3\tx\t2026-10-03\n"),
      "c1/anchors.tsv",
      cell,
      diag,
      out,
    );
    expect(out.map((o) => [o.family, o.step, o.utcMs, o.timeNote, o.origin.line])).toEqual([
      ["sft3", 40, Date.parse("2026-10-03T06:00:00Z"), "anchor (eval)", 2],
    ]);
    expect(codes(diag)).toEqual([["ANCHOR_BAD_LINE", "c1/anchors.tsv", 3]]);
  });
});

describe("PVC listing parsers (SOURCES.md: pvc/)", () => {
  it("listing.tsv lines to entries", async () => {
    const diag = new Diagnostics();
    const entries = await collect(
      parseListingTsvBatches(
        [linesOf("1792000000.5\tf\t0\t/pvc/ptb/c1/base/weights/step_7/STABLE\nbad line\n")],
        "c1/pvc/listing.tsv",
        diag,
      ),
    );
    expect(entries.map((e) => [e.mtimeMs, e.type, e.sizeBytes, e.path, e.origin.line])).toEqual([
      [1792000000500, "f", 0, "/pvc/ptb/c1/base/weights/step_7/STABLE", 1],
    ]);
    expect(codes(diag)).toEqual([["PVC_BAD_LINE", "c1/pvc/listing.tsv", 2]]);
  });
  it("ls-lR lines to entries", async () => {
    const diag = new Diagnostics();
    const entries = await collect(
      parseLsLRBatches(
        [
          linesOf(
            "/pvc/ptb/c1/base/weights/step_7:\ntotal 0\n-rw-r--r-- 1 u g 0 2026-10-12 04:00:00.250000000 +0200 STABLE\n",
          ),
        ],
        "c1/pvc/ls-lR.txt",
        diag,
      ),
    );
    expect(entries.map((e) => [e.mtimeMs, e.type, e.path, e.origin.line])).toEqual([
      [Date.parse("2026-10-12T02:00:00.250Z"), "f", "/pvc/ptb/c1/base/weights/step_7/STABLE", 3],
    ]);
    expect(diag.warnings).toEqual([]);
  });
  it("an empty listing is PVC_LISTING_EMPTY", async () => {
    const diag = new Diagnostics();
    expect(await collect(parseListingTsvBatches([], "c1/pvc/listing.tsv", diag))).toEqual([]);
    expect(codes(diag)).toEqual([["PVC_LISTING_EMPTY", "c1/pvc/listing.tsv", null]]);
  });
});

describe("parseJanitorLog (SOURCES.md: janitor)", () => {
  it("reads the parts oldest first, joining a line split by the rotation", async () => {
    const diag = new Diagnostics();
    const obs = await parseJanitorLog(
      {
        dir: "c1/janitor",
        listError: null,
        parts: [
          memFile(
            "c1/janitor/ckpt-janitor.log.1",
            "2026-10-03T08:00:00Z level=info action=archive family=base step=7 src_mtime=1791014340.000\n2026-10-03T09:00:00Z level=info action=archive fam",
          ),
          memFile("c1/janitor/ckpt-janitor.log", "ily=base step=8 src_mtime=1791017940.000\n"),
        ],
      },
      cell,
      diag,
    );
    expect(obs.map((o) => [o.kind, o.family, o.step, o.utcMs, o.origin.file, o.origin.line])).toEqual([
      ["janitor_archive", "base", 7, Date.parse("2026-10-03T07:59:00Z"), "c1/janitor/ckpt-janitor.log.1", 1],
      ["janitor_archive", "base", 8, Date.parse("2026-10-03T08:59:00Z"), "c1/janitor/ckpt-janitor.log.1", 2],
    ]);
    expect(diag.warnings).toEqual([]);
  });
  it("no parts: JANITOR_MISSING; a folder that cannot be listed: JANITOR_UNREADABLE", async () => {
    const diag = new Diagnostics();
    await parseJanitorLog({ dir: "c1/janitor", listError: null, parts: [] }, cell, diag);
    await parseJanitorLog(
      {
        dir: "c1/janitor",
        listError: Object.assign(new Error("EACCES"), { code: "EACCES", syscall: "scandir" }),
        parts: [],
      },
      cell,
      diag,
    );
    expect(codes(diag)).toEqual([
      ["JANITOR_MISSING", "c1/janitor/ckpt-janitor.log", null],
      ["JANITOR_UNREADABLE", "c1/janitor", null],
    ]);
  });
});

describe("readHubRepos (SOURCES.md: hub/)", () => {
  const repo = (owner: string, name: string, files: Record<string, string>): HubRepoFiles => ({
    owner,
    name,
    dir: `hub/${owner}/${name}`,
    listError: null,
    readText: async (f) => files[f] ?? null,
    isFile: async (f) => f in files,
  });
  it("reads ids, commits and stop ids from in-memory files, sorted by id", async () => {
    const diag = new Diagnostics();
    const repos = await readHubRepos(
      [
        repo("org", "b", { ".hub.json": '{"id":"org/b","sha":"abc1234"}', "config.json": '{"eos_token_id":[7,2,7]}' }),
        repo("base", "m", {
          ".hub.json": '{"id":"other/m"}',
          "generation_config.json": '{"eos_token_id":5}',
          "chat_template.jinja": "x",
        }),
      ],
      diag,
    );
    expect(repos).toEqual([
      {
        id: "base/m",
        owner: "base",
        name: "m",
        dir: "hub/base/m",
        sha: null,
        lastModified: null,
        eos: { ids: [5], from: "generation_config.json", chatTemplate: "chat_template.jinja" },
      },
      {
        id: "org/b",
        owner: "org",
        name: "b",
        dir: "hub/org/b",
        sha: "abc1234",
        lastModified: null,
        eos: { ids: [2, 7], from: "config.json", chatTemplate: null },
      },
    ]);
    expect(codes(diag)).toEqual([["HUB_ID_MISMATCH", "hub/base/m/.hub.json", null]]);
  });
});
