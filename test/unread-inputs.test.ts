import { describe, expect, it } from "vitest";
import { unreadInputWarnings, type UnreadContext } from "../src/sources/unread-inputs.js";

/** Pure rules of src/sources/unread-inputs.ts on in-memory file lists. */
const ctx: UnreadContext = {
  cells: [
    { cell: "grok", trajectory_format: "pi" },
    { cell: "kimi", trajectory_format: "kimi-code" },
  ],
  org: "agentic-ptb",
  spare_owner: "msr-spares",
  baseline: "Qwen/Qwen3.5-9B-Base",
};
const codes = (ws: { code: string; file: string | null }[]): [string, string | null][] =>
  ws.map((w) => [w.code, w.file]);

describe("unreadInputWarnings", () => {
  it("says nothing when every file is read, in a folder read whole, or known", () => {
    const all = [
      "cells.json",
      "grok/RUNLOG.md",
      "grok/janitor/ckpt-janitor.log",
      "hub/Qwen/Qwen3.5-9B-Base/README.md",
      "hub/.ptb-manifest-outputs.json",
      "kimi/trajectory/s/agents/main/context.jsonl",
      "kimi/trajectory/s/agents/main/context_1.jsonl",
      "kimi/trajectory/.gitkeep",
      "old/pvc/",
    ];
    const read = { files: ["cells.json", "grok/janitor/ckpt-janitor.log"], folders: ["hub/Qwen/Qwen3.5-9B-Base"] };
    expect(unreadInputWarnings(all, read, ctx)).toEqual([]);
  });

  it("groups the unread files by folder and code, with the count, the first path and a hint", () => {
    const all = [
      "cells.json",
      "hub/msr-spare/grok.a.step_1/.hub.json",
      "hub/msr-spare/grok.a.step_2/.hub.json",
      "grok-v2/pvc/listing.tsv",
      "grok-v2/supervisor/history.jsonl",
      "kimi/trajectory/s/agents/main/wire (1).jsonl",
      "kimi/trajectory/t/agents/main/wire.json",
      "grok/trajectory/sessions/a.jsonl.bak",
      "grok/janitor/ckpt-janitor.log-20261003.gz",
      "grok/supervisor/history.jsonl.orig",
      "grok/supervisor/x",
      "README.txt",
    ];
    const ws = unreadInputWarnings(all, { files: ["cells.json"], folders: [] }, ctx);
    expect(codes(ws)).toEqual([
      ["INPUT_NOT_READ", "README.txt"],
      ["CELL_NOT_REGISTERED", "grok-v2/pvc/listing.tsv"],
      ["JANITOR_PART_NOT_READ", "grok/janitor/ckpt-janitor.log-20261003.gz"],
      ["INPUT_NOT_READ", "grok/supervisor/history.jsonl.orig"],
      ["TRAJECTORY_FILE_NOT_READ", "grok/trajectory/sessions/a.jsonl.bak"],
      ["HUB_UNKNOWN_OWNER", "hub/msr-spare/grok.a.step_1/.hub.json"],
      ["TRAJECTORY_FILE_NOT_READ", "kimi/trajectory/s/agents/main/wire (1).jsonl"],
    ]);
    expect(ws[3]!.message).toBe(
      "grok/supervisor/: 2 file(s) no reader reads, first grok/supervisor/history.jsonl.orig",
    );
    expect(ws[1]!.message).toContain(
      '2 file(s) no reader reads, first grok-v2/pvc/listing.tsv; add the cell to cells.json (or is it cell "grok" misnamed?)',
    );
    expect(ws[5]!.message).toContain(
      `2 file(s) no reader reads, first hub/msr-spare/grok.a.step_1/.hub.json; is cells.json's spare_owner "msr-spares" a typo of "msr-spare"?`,
    );
    expect(ws[6]!.message).toContain("2 file(s) no reader reads");
    expect(ws[6]!.message).toContain("name it wire.jsonl");
    expect(ws[4]!.message).toContain("a pi session file is read only when its name ends in .jsonl or .jsonl.gz");
    expect(ws[2]!.message).toContain("rename the part ckpt-janitor.log.N[.gz]");
  });

  it("does not warn again about a file a warning already names, or one that could not be read", () => {
    const all = ["grok/trajectory/link.jsonl", "grok/x.tsv"];
    const ws = unreadInputWarnings(all, { files: [], folders: [] }, ctx, {
      namedByWarnings: new Set(["grok/trajectory/link.jsonl"]),
      unreadable: (p) => p === "grok/x.tsv",
    });
    expect(ws).toEqual([]);
  });

  it("names no owner when none is near", () => {
    const [w] = unreadInputWarnings(["hub/other/model/config.json"], { files: [], folders: [] }, ctx);
    expect(w).toEqual({
      code: "HUB_UNKNOWN_OWNER",
      file: "hub/other/model/config.json",
      line: null,
      message:
        'hub/other/ is the folder of an owner that cells.json does not name: 1 file(s) no reader reads, first hub/other/model/config.json; cells.json reads only org "agentic-ptb", spare_owner "msr-spares" and the baseline "Qwen/Qwen3.5-9B-Base"',
    });
  });
});
