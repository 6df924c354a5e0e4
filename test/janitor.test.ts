import { describe, expect, it, afterAll } from "vitest";
import { Diagnostics } from "../src/diagnostics.js";
import { readJanitorLog, janitorParts } from "../src/extractors/janitor-log.js";
import { localToUtcCandidates } from "../src/util/local-time.js";
import type { Cell } from "../src/schema.js";
import { makeTree, removeTree, lines } from "./helpers/tree.js";

const roots: string[] = [];
afterAll(async () => Promise.all(roots.map(removeTree)));

const cellUtc: Cell = {
  cell: "c1",
  driver: "d",
  effort: "e",
  trajectory_format: "codex",
  pvc_root: "/pvc/ptb/c1",
  janitor_tz: "UTC",
  family_aliases: { "sft 3": "sft3", "grpo.v2!": "grpo-v2" },
};
const cellLa: Cell = { ...cellUtc, cell: "c2", pvc_root: "/pvc/ptb/c2", janitor_tz: "America/Los_Angeles" };

async function read(cell: Cell, files: Record<string, string>) {
  const root = await makeTree(
    Object.fromEntries(Object.entries(files).map(([k, v]) => [`${cell.cell}/janitor/${k}`, v])),
  );
  roots.push(root);
  const diag = new Diagnostics();
  const obs = await readJanitorLog(root, cell, diag);
  return { obs, warnings: diag.warnings };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe("janitor log", () => {
  it("reads v1 and v2 lines in one file: v2 src_mtime is the write time, v1 the action time", async () => {
    const { obs, warnings } = await read(cellUtc, {
      "ckpt-janitor.log": lines(
        "2026-10-03 14:00:01 ckpt-janitor v1 starting (interval 600s)",
        "2026-10-03 14:22:07 archived /pvc/ptb/c1/sft 3/weights/step_1200 -> msr-spare/c1.sft3.step_1200",
        "2026-10-03T14:32:07.481+00:00 level=info action=archive family=sft2 step=1300 src_mtime=1790003123.457 dest=msr-spare/c1.sft2.step_1300",
        "2026-10-03T14:42:07.000+00:00 level=info action=prune family=sft2 step=1100",
        "2026-10-03T16:52:07.000+02:00 level=info action=skip family=sft2 step=1400 reason=in-use",
      ),
    });
    expect(warnings).toEqual([]);
    expect(obs.map((o) => [o.kind, o.family, o.step, iso(o.utcMs), o.familyDir, o.detail.version])).toEqual([
      ["janitor_archive", "sft3", 1200, "2026-10-03T14:22:07.000Z", "sft 3", "v1"],
      ["janitor_archive", "sft2", 1300, "2026-09-21T15:05:23.457Z", "sft2", "v2"],
      ["janitor_other", "sft2", 1100, null, "sft2", "v2"],
      ["janitor_other", "sft2", 1400, null, "sft2", "v2"],
    ]);
    expect(obs[0]!.origin).toMatchObject({ file: "c1/janitor/ckpt-janitor.log", line: 2 });
  });

  it("gives each v1 line the zone its janitor's last startup line states (tz=...), for the zone check", async () => {
    const { obs, warnings } = await read(cellLa, {
      "ckpt-janitor.log": lines(
        "2026-10-03 14:22:07 archived /pvc/ptb/c2/a/weights/step_1 -> msr-spare/c2.a.step_1",
        "ckpt-janitor 1.4.2 starting (watch=/pvc/ptb/c2, every 600s, tz=Asia/Shanghai)",
        "2026-10-03 14:32:07 archived /pvc/ptb/c2/a/weights/step_2 -> msr-spare/c2.a.step_2",
        "Terminated",
        "ckpt-janitor 1.4.2 starting (watch=/pvc/ptb/c2, every 600s, tz=America/Los_Angeles)",
        "2026-10-03 14:42:07 archived /pvc/ptb/c2/a/weights/step_3 -> msr-spare/c2.a.step_3",
      ),
    });
    expect(warnings).toEqual([]);
    expect(obs.map((o) => [o.step, o.detail.statedTz, o.detail.statedTzAt])).toEqual([
      [1, null, null],
      [2, "Asia/Shanghai", "c2/janitor/ckpt-janitor.log:2"],
      [3, "America/Los_Angeles", "c2/janitor/ckpt-janitor.log:5"],
    ]);
  });

  it("warns JANITOR_PART_MISSING when the parts skip a rotation number, and reads the others", async () => {
    const { obs, warnings } = await read(cellUtc, {
      "ckpt-janitor.log.2.gz": lines(
        "2026-10-01 01:00:00 archived /pvc/ptb/c1/a/weights/step_2 -> msr-spare/c1.a.step_2",
      ),
      "ckpt-janitor.log": lines("2026-10-01 03:00:00 archived /pvc/ptb/c1/a/weights/step_4 -> msr-spare/c1.a.step_4"),
    });
    expect(obs.map((o) => o.step)).toEqual([2, 4]);
    expect(warnings).toEqual([
      {
        code: "JANITOR_PART_MISSING",
        message:
          'cell "c1": the janitor log\'s parts skip ckpt-janitor.log.1[.gz] (found: ckpt-janitor.log.2.gz, ckpt-janitor.log): the lines it held are lost, so the checkpoints only they time lose that hour',
        file: "c1/janitor/ckpt-janitor.log",
        line: null,
      },
    ]);
  });

  it("orders rotated parts oldest first (.3.gz, .2.gz, .1, current) and joins a line split around a rotation", async () => {
    const { obs, warnings } = await read(cellUtc, {
      "ckpt-janitor.log.3.gz": lines(
        "2026-10-01 00:00:00 archived /pvc/ptb/c1/a/weights/step_1 -> msr-spare/c1.a.step_1",
      ),
      "ckpt-janitor.log.2.gz": lines(
        "2026-10-01 01:00:00 archived /pvc/ptb/c1/a/weights/step_2 -> msr-spare/c1.a.step_2",
      ),
      "ckpt-janitor.log.1":
        lines("2026-10-01 02:00:00 archived /pvc/ptb/c1/a/weights/step_3 -> msr-spare/c1.a.step_3") +
        "2026-10-01T03:00:00+00:00 level=info action=archive family=a st",
      "ckpt-janitor.log": lines("ep=4 src_mtime=1790000000 dest=msr-spare/c1.a.step_4"),
    });
    expect(await janitorParts(`${roots[roots.length - 1]}/c1/janitor`)).toEqual([
      "ckpt-janitor.log.3.gz",
      "ckpt-janitor.log.2.gz",
      "ckpt-janitor.log.1",
      "ckpt-janitor.log",
    ]);
    expect(warnings).toEqual([]);
    expect(obs.map((o) => [o.step, o.origin.file.split("/").pop(), o.origin.line])).toEqual([
      [1, "ckpt-janitor.log.3.gz", 1],
      [2, "ckpt-janitor.log.2.gz", 1],
      [3, "ckpt-janitor.log.1", 1],
      [4, "ckpt-janitor.log.1", 2],
    ]);
    expect(iso(obs[3]!.utcMs)).toBe("2026-09-21T14:13:20.000Z");
  });

  it("keeps every archive of a retried checkpoint in log order (the resolver takes the first)", async () => {
    const { obs } = await read(cellUtc, {
      "ckpt-janitor.log": lines(
        "2026-10-03 14:22:07 archived /pvc/ptb/c1/a/weights/step_9 -> msr-spare/c1.a.step_9",
        "2026-10-03 14:22:09 error /pvc/ptb/c1/a/weights/step_9 upload verification failed",
        "Traceback (most recent call last):",
        '  File "/app/janitor.py", line 88, in archive',
        "    api.upload_folder(...)",
        "requests.exceptions.HTTPError: 502 Server Error",
        "2026-10-03 14:32:07 archived /pvc/ptb/c1/a/weights/step_9 -> msr-spare/c1.a.step_9",
      ),
    });
    expect(obs.filter((o) => o.kind === "janitor_archive").map((o) => [iso(o.utcMs), o.seq])).toEqual([
      ["2026-10-03T14:22:07.000Z", 0],
      ["2026-10-03T14:32:07.000Z", 2],
    ]);
  });

  it("skips tracebacks and free-form startup lines silently; warns on junk and on unparsed checkpoint lines with file and line", async () => {
    const { warnings } = await read(cellUtc, {
      "ckpt-janitor.log": lines(
        "2026-10-03T14:22:07.481+00:00 level=error action=error family=a step=3 msg=boom",
        "Traceback (most recent call last):",
        '  File "/app/janitor.py", line 88, in archive',
        "OSError: [Errno 28] No space left on device",
        "\u0000\u0001 binary junk",
        "2026-10-03T14:22:07.481+00:00 level=info action=archive family=a step=x src_mtime=1",
        "Terminated",
        "ckpt-janitor 2.0.1 starting: root=/pvc/ptb/c1 interval=600",
        "archived /pvc/ptb/c1/a/weights/step_4 (no time on this line)",
      ),
    });
    expect(warnings.map((w) => [w.code, w.file, w.line])).toEqual([
      ["JANITOR_JUNK_LINE", "c1/janitor/ckpt-janitor.log", 5],
      ["JANITOR_BAD_FIELD", "c1/janitor/ckpt-janitor.log", 6],
      ["JANITOR_UNPARSED_LINE", "c1/janitor/ckpt-janitor.log", 9],
    ]);
  });

  it("warns on timed lines that name a checkpoint with an action the janitor never writes, instead of skipping them (found by a new user)", async () => {
    const { obs, warnings } = await read(cellUtc, {
      "ckpt-janitor.log": lines(
        "2026-10-03 14:00:00 INFO archived /pvc/ptb/c1/a/weights/step_1 -> msr-spare/c1.a.step_1",
        "2026-10-03 14:10:00 Archived /pvc/ptb/c1/a/weights/step_2 -> msr-spare/c1.a.step_2",
        "2026-10-03 14:20:00 archived: /pvc/ptb/c1/a/weights/step_3 -> msr-spare/c1.a.step_3",
        "2026-10-03 14:30:00 skip /pvc/ptb/c1/a/weights/step_4: no STABLE yet",
        "2026-10-03 14:40:00 nothing to archive (4 checkpoints on volume)",
        "2026-10-03T14:50:00+00:00 level=info action=ARCHIVE family=a step=5 src_mtime=1790000000",
        "2026-10-03T14:51:00+00:00 level=info action=archive step=6 src_mtime=1790000000",
        "2026-10-03T14:52:00+00:00 level=info family=a step=7 src_mtime=1790000000",
        "2026-10-03T14:53:00+00:00 level=debug action=skip reason=idle checkpoints=4",
        "2026-10-03 15:00:00 archived /pvc/ptb/c1/a/weights/step_8 -> msr-spare/c1.a.step_8",
      ),
    });
    expect(obs.map((o) => [o.kind, o.step])).toEqual([["janitor_archive", 8]]);
    expect(
      warnings.map((w) => [w.code, w.line, w.message.replace(/ \(archived, .*?\)| \(archive, prune.*?\)|: .*$/g, "")]),
    ).toEqual([
      ["JANITOR_UNPARSED_LINE", 1, 'names a checkpoint, but "INFO" is not an action the v1 janitor writes'],
      ["JANITOR_UNPARSED_LINE", 2, 'names a checkpoint, but "Archived" is not an action the v1 janitor writes'],
      ["JANITOR_UNPARSED_LINE", 3, 'names a checkpoint, but "archived:" is not an action the v1 janitor writes'],
      ["JANITOR_UNPARSED_LINE", 6, "action=ARCHIVE is not an action the v2 janitor writes"],
      ["JANITOR_UNPARSED_LINE", 7, "an archive line without family="],
      ["JANITOR_UNPARSED_LINE", 8, "names a checkpoint (family=, step=) but no action="],
    ]);
  });

  it("a v2 value quoted wrong is JANITOR_BAD_FIELD for its line; the lines after it are read (it used to end the part's reading)", async () => {
    const { obs, warnings } = await read(cellUtc, {
      "ckpt-janitor.log": lines(
        '2026-10-03T14:50:00+00:00 level=info action=archive family=a step="55"00 src_mtime=1790000000',
        '2026-10-03T14:51:00+00:00 level=info action=archive family="bad\\q" step=8 src_mtime=1790000000',
        '2026-10-03T14:52:00+00:00 level=info action=archive family="sft 3" step=7 src_mtime=1790000000 msg="a b"',
      ),
    });
    expect(obs.map((o) => [o.family, o.step, o.familyDir])).toEqual([["sft3", 7, "sft 3"]]);
    expect(warnings.map((w) => [w.code, w.line, w.message])).toEqual([
      ["JANITOR_BAD_FIELD", 1, 'step="55"00 is not a well-formed value'],
      ["JANITOR_BAD_FIELD", 2, 'family="bad\\q" is not a well-formed value'],
    ]);
  });

  it("reads offset-less v1 times in janitor_tz and resolves the repeated hour at the end of DST by the log's order", async () => {
    // 2026-11-01 in Los Angeles: 01:00-02:00 happens at 08:00-09:00Z (PDT) and again at 09:00-10:00Z (PST).
    const { obs, warnings } = await read(cellLa, {
      "ckpt-janitor.log": lines(
        "2026-11-01 00:55:00 archived /pvc/ptb/c2/a/weights/step_1 -> msr-spare/c2.a.step_1",
        "2026-11-01 01:30:00 archived /pvc/ptb/c2/a/weights/step_2 -> msr-spare/c2.a.step_2",
        "2026-11-01 01:50:00 archived /pvc/ptb/c2/a/weights/step_3 -> msr-spare/c2.a.step_3",
        "2026-11-01 01:10:00 archived /pvc/ptb/c2/a/weights/step_4 -> msr-spare/c2.a.step_4",
        "2026-11-01 01:40:00 archived /pvc/ptb/c2/a/weights/step_5 -> msr-spare/c2.a.step_5",
        "2026-11-01 02:05:00 archived /pvc/ptb/c2/a/weights/step_6 -> msr-spare/c2.a.step_6",
      ),
    });
    expect(warnings).toEqual([]);
    expect(obs.map((o) => iso(o.utcMs))).toEqual([
      "2026-11-01T07:55:00.000Z",
      "2026-11-01T08:30:00.000Z", // first occurrence (PDT)
      "2026-11-01T08:50:00.000Z",
      "2026-11-01T09:10:00.000Z", // the clock went back: second occurrence (PST)
      "2026-11-01T09:40:00.000Z",
      "2026-11-01T10:05:00.000Z",
    ]);
    expect(obs[3]!.timeNote).toContain("second occurrence");
  });

  it("warns on a local time in the skipped hour when DST starts", async () => {
    const { obs, warnings } = await read(cellLa, {
      "ckpt-janitor.log": lines("2026-03-08 02:30:00 archived /pvc/ptb/c2/a/weights/step_1 -> msr-spare/c2.a.step_1"),
    });
    expect(obs).toEqual([]);
    expect(warnings.map((w) => [w.code, w.line])).toEqual([["JANITOR_NONEXISTENT_LOCAL_TIME", 1]]);
  });

  it("localToUtcCandidates gives two instants in a repeated hour, none in a skipped one", () => {
    expect(localToUtcCandidates(Date.UTC(2026, 10, 1, 1, 30), "America/Los_Angeles").utcMs.map((t) => iso(t))).toEqual([
      "2026-11-01T08:30:00.000Z",
      "2026-11-01T09:30:00.000Z",
    ]);
    expect(localToUtcCandidates(Date.UTC(2026, 2, 8, 2, 30), "America/Los_Angeles").utcMs).toEqual([]);
    expect(localToUtcCandidates(Date.UTC(2026, 5, 1, 12), "UTC").utcMs).toEqual([Date.UTC(2026, 5, 1, 12)]);
  });

  it("keeps the lines read before a corrupt .gz part, with a warning", async () => {
    const root = await makeTree({
      "c1/janitor/ckpt-janitor.log.1.gz": Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02]),
      "c1/janitor/ckpt-janitor.log": lines(
        "2026-10-01 00:00:00 archived /pvc/ptb/c1/a/weights/step_1 -> msr-spare/c1.a.step_1",
      ),
    });
    roots.push(root);
    const diag = new Diagnostics();
    const obs = await readJanitorLog(root, cellUtc, diag);
    expect(obs.map((o) => o.step)).toEqual([1]);
    expect(diag.warnings.map((w) => [w.code, w.file])).toEqual([
      ["JANITOR_UNREADABLE", "c1/janitor/ckpt-janitor.log.1.gz"],
    ]);
  });
});

describe("janitor log order (found by a new user)", () => {
  it("the repeated hour's lines that never show the clock set back: warned, their times unknown (not the first occurrence guessed) (P9)", async () => {
    const { obs, warnings } = await read(cellLa, {
      "ckpt-janitor.log": lines(
        "2026-11-01 01:23:08 archived /pvc/ptb/c2/a/weights/step_1 -> msr-spare/c2.a.step_1",
        "2026-11-01 01:23:08 archived /pvc/ptb/c2/a/weights/step_2 -> msr-spare/c2.a.step_2",
        "2026-11-01 02:10:00 archived /pvc/ptb/c2/a/weights/step_3 -> msr-spare/c2.a.step_3",
      ),
    });
    expect(obs.map((o) => (o.utcMs === null ? null : iso(o.utcMs)))).toEqual([null, null, "2026-11-01T10:10:00.000Z"]);
    expect(obs[0]!.timeNote).toMatch(/^time unknown: a local time in the hour that America\/Los_Angeles repeats/);
    expect(warnings.map((w) => [w.code, w.line])).toEqual([["JANITOR_AMBIGUOUS_LOCAL_TIME", 1]]);
    expect(warnings[0]!.message).toMatch(/^2 line\(s\) fall in the hour that America\/Los_Angeles repeats/);
  });

  it("warns on a line earlier than the one before it, in both formats; neither v1 time of such a pair is used, a v2 src_mtime is", async () => {
    const { obs, warnings } = await read(cellUtc, {
      "ckpt-janitor.log": lines(
        "2026-10-03 14:00:00 archived /pvc/ptb/c1/a/weights/step_1 -> msr-spare/c1.a.step_1",
        "2026-10-03 02:00:00 archived /pvc/ptb/c1/a/weights/step_2 -> msr-spare/c1.a.step_2",
        "2026-10-03T01:00:00.000+00:00 level=info action=archive family=a step=3 src_mtime=1790000000 dest=x",
      ),
    });
    expect(warnings.map((w) => [w.code, w.line])).toEqual([
      ["JANITOR_OUT_OF_ORDER", 2],
      ["JANITOR_OUT_OF_ORDER", 3],
    ]);
    // Line 1 may be the one too late (line 2 then in order), or line 2 the one too early: neither is known.
    // Line 3's time is its src_mtime, the weights' own: the order of the lines says nothing of it.
    expect(obs.map((o) => [o.step, o.utcMs, o.timeNote?.startsWith("time unknown: out of time order")])).toEqual([
      [1, null, true],
      [2, null, true],
      [3, 1790000000000, false],
    ]);
  });

  it("a line of the repeated hour read as the first occurrence is settled by a later line of sure time before its second occurrence (a v2 line too)", async () => {
    const { obs, warnings } = await read(cellLa, {
      "ckpt-janitor.log": lines(
        "2026-11-01 01:23:08 archived /pvc/ptb/c2/a/weights/step_1 -> msr-spare/c2.a.step_1",
        "2026-11-01T01:03:10.000-08:00 level=info action=archive family=a step=2 src_mtime=1793523790 dest=x",
      ),
    });
    expect(warnings).toEqual([]);
    expect(obs.map((o) => iso(o.utcMs))).toEqual(["2026-11-01T08:23:08.000Z", "2026-11-01T09:03:10.000Z"]);
  });

  it("an archive whose time is in doubt leaves its checkpoint without a janitor hour: a later archive (a retry) does not stand in", async () => {
    const { obs } = await read(cellUtc, {
      "ckpt-janitor.log": lines(
        "2026-10-03 14:00:00 archived /pvc/ptb/c1/a/weights/step_1 -> msr-spare/c1.a.step_1",
        "2026-10-03 03:00:00 archived /pvc/ptb/c1/a/weights/step_2 -> msr-spare/c1.a.step_2",
        "2026-10-03 15:00:00 archived /pvc/ptb/c1/a/weights/step_2 -> msr-spare/c1.a.step_2",
      ),
    });
    expect(obs.map((o) => [o.step, o.utcMs === null])).toEqual([
      [1, true],
      [2, true],
      [2, false],
    ]);
  });
});

describe("a huge unterminated rotated part (found by a new user)", () => {
  it("is junk of its own part and does not take the next part's lines with it", async () => {
    const { obs, warnings } = await read(cellUtc, {
      "ckpt-janitor.log.1": "\u0000".repeat(200_000),
      "ckpt-janitor.log": lines("2026-10-01 00:00:00 archived /pvc/ptb/c1/a/weights/step_1 -> msr-spare/c1.a.step_1"),
    });
    expect(obs.map((o) => [o.step, o.origin.file, o.origin.line])).toEqual([[1, "c1/janitor/ckpt-janitor.log", 1]]);
    expect(warnings.map((w) => [w.code, w.file, w.line])).toEqual([
      ["JANITOR_JUNK_LINE", "c1/janitor/ckpt-janitor.log.1", 1],
    ]);
  });
});

describe("a cut-off last line (found by a new user)", () => {
  it("skips the newest part's unterminated last line with JANITOR_CUT_LINE: a cut step_210 is no step 21", async () => {
    const { obs, warnings } = await read(cellUtc, {
      "ckpt-janitor.log.1":
        lines("2026-10-01 02:00:00 archived /pvc/ptb/c1/a/weights/step_3 -> msr-spare/c1.a.step_3") +
        "2026-10-01T03:00:00+00:00 level=info action=archive family=a st",
      "ckpt-janitor.log":
        lines("ep=4 src_mtime=1790000000 dest=msr-spare/c1.a.step_4") +
        "2026-10-01 04:00:00 archived /pvc/ptb/c1/a/weights/step_21",
    });
    expect(obs.map((o) => [o.step, o.origin.file, o.origin.line])).toEqual([
      [3, "c1/janitor/ckpt-janitor.log.1", 1],
      [4, "c1/janitor/ckpt-janitor.log.1", 2],
    ]);
    expect(warnings.map((w) => [w.code, w.file, w.line])).toEqual([
      ["JANITOR_CUT_LINE", "c1/janitor/ckpt-janitor.log", 2],
    ]);
  });

  it("an older part's unterminated last line with nothing after it (empty newest part) is cut too", async () => {
    const { obs, warnings } = await read(cellUtc, {
      "ckpt-janitor.log.1":
        lines("2026-10-01 02:00:00 archived /pvc/ptb/c1/a/weights/step_3 -> x") +
        "2026-10-01 03:00:00 archived /pvc/ptb/c1/a/weights/step_4",
      "ckpt-janitor.log": "",
    });
    expect(obs.map((o) => o.step)).toEqual([3]);
    expect(warnings.map((w) => [w.code, w.file, w.line])).toEqual([
      ["JANITOR_CUT_LINE", "c1/janitor/ckpt-janitor.log.1", 2],
    ]);
  });
});
