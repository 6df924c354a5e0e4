import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Diagnostics } from "../src/diagnostics.js";
import { buildManifest } from "../src/pipeline/build-manifest.js";
import { exactTime } from "../src/resolve/exact-time.js";
import { janitorZoneDoubt } from "../src/resolve/janitor-zone.js";
import type { Observation } from "../src/observations.js";
import { at, candidate, obs, window } from "./helpers/resolve-data.js";
import { removeTree } from "./helpers/tree.js";

const v1 = (family: string, step: number, h: number, seq: number): Observation =>
  obs("janitor_archive", family, step, at(h), { seq, detail: { version: "v1" }, timeNote: "action time" });
const stable = (family: string, step: number, h: number, seq: number): Observation =>
  obs("pvc_stable", family, step, at(h), { seq });

/** Checkpoints of family `sft` at steps 1, 2, ... written at `hours`, each archived (v1) `lagH` later. */
function archived(hours: number[], lagH: (k: number) => number) {
  return hours.map((h, k) =>
    candidate("sft", k + 1, [stable("sft", k + 1, h, 100 + k), v1("sft", k + 1, h + lagH(k), k)]),
  );
}

describe("janitor zone check (SOURCES.md: janitor_tz)", () => {
  it("lets v1 times stand when they come minutes after the writes, or too few checkpoints have both", () => {
    const diag = new Diagnostics();
    const minutes = [4, 9, 2, 150].map((m) => m / 60); // one janitor far behind does not move the median
    expect(
      janitorZoneDoubt(
        "c",
        "UTC",
        archived([1, 2, 3, 4], (k) => minutes[k]!),
        window(10),
        diag,
      ),
    ).toBeNull();
    expect(
      janitorZoneDoubt(
        "c",
        "UTC",
        archived([1, 2], () => 8),
        window(20),
        diag,
      ),
    ).toBeNull();
    expect(diag.warnings).toEqual([]);
  });

  it("doubts a cell's v1 times that come hours after the writes (a zone east of janitor_tz), and counts the checkpoints only they date", () => {
    const diag = new Diagnostics();
    const onlyV1 = candidate("sft", 9, [v1("sft", 9, 13, 8)]);
    const cands = [...archived([1, 2, 3], (k) => 8 + k / 60), onlyV1];
    const doubt = janitorZoneDoubt("c", "UTC", cands, window(30), diag);
    expect(doubt).toMatchObject({ pairs: 3 });
    expect(doubt!.medianLagH).toBeCloseTo(8 + 1 / 60, 9);
    expect(diag.warnings).toEqual([
      {
        code: "JANITOR_ZONE_MISMATCH",
        message:
          "cell \"c\": v1 archive times read in janitor_tz UTC come a median 8.02 h after the STABLE mtimes of the same checkpoints (3 checkpoints with both; the janitor acts minutes after a write), as if its zone lay about 8.00 h east of it: janitor_tz is probably wrong (or the janitor's clock was off); none of the cell's v1 times is used (1 checkpoint(s) only a v1 time dates lose that hour)",
        file: "c/janitor_archive",
        line: 1,
      },
    ]);
    // Such a checkpoint is then untimed; a checkpoint with an mtime keeps it, its v1 time set aside.
    const d = exactTime(onlyV1, window(30), diag, doubt);
    expect([d.source, d.hour, d.rejected.map((r) => r.reason)]).toEqual(["unrecoverable", null, ["zone_in_doubt"]]);
    expect(d.rejected[0]!.why).toMatch(
      /^the cell's janitor_tz is in doubt \(JANITOR_ZONE_MISMATCH\): v1 archive times read in janitor_tz UTC come a median 8\.02 h after/,
    );
    const timed = exactTime(cands[0]!, window(30), diag, doubt);
    expect([timed.source, timed.hour, timed.rejected.map((r) => r.reason)]).toEqual(["mtime", 1, ["zone_in_doubt"]]);
  });

  it("doubts v1 times whose janitor's startup line states a zone at another offset, even with no STABLE mtime to compare", () => {
    const stated = (tz: string, seq: number) =>
      obs("janitor_archive", "sft", seq, at(seq), {
        seq,
        detail: { version: "v1", statedTz: tz, statedTzAt: "c/janitor/ckpt-janitor.log.1:1" },
      });
    const diag = new Diagnostics();
    // The same offsets under another name, or a name the zone database does not know: nothing to say.
    for (const tz of ["Etc/UTC", "Europe/London", "Mars/Olympus"])
      expect(janitorZoneDoubt("c", "UTC", [candidate("sft", 1, [stated(tz, 1)])], window(30), diag)).toBeNull();
    expect(diag.warnings).toEqual([]);
    const doubt = janitorZoneDoubt(
      "c",
      "UTC",
      [candidate("sft", 2, [stated("UTC", 2)]), candidate("sft", 3, [stated("Asia/Shanghai", 3)])],
      window(30),
      diag,
    );
    expect(doubt).toMatchObject({ medianLagH: null, pairs: 0 });
    expect(diag.warnings.map((w) => [w.code, w.file, w.line, w.message])).toEqual([
      [
        "JANITOR_ZONE_MISMATCH",
        "c/janitor/ckpt-janitor.log.1",
        1,
        "cell \"c\": the janitor's startup line (c/janitor/ckpt-janitor.log.1:1) says it writes in tz=Asia/Shanghai, 8.00 h east of janitor_tz UTC: janitor_tz is probably wrong (or the janitor's clock was off); none of the cell's v1 times is used (2 checkpoint(s) only a v1 time dates lose that hour)",
      ],
    ]);
  });

  it("doubts v1 times before the writes (a zone west of janitor_tz); v2 times, which carry their offset, still count", () => {
    const diag = new Diagnostics();
    const doubt = janitorZoneDoubt(
      "c",
      "Asia/Tokyo",
      archived([5, 6, 7], () => -1 + 5 / 60),
      window(30),
      diag,
    );
    expect(doubt!.medianLagH).toBeCloseTo(-55 / 60, 9);
    expect(diag.warnings.map((w) => w.message.match(/median [^(]*|about [^:]* of it/g))).toEqual([
      ["median 0.92 h before the STABLE mtimes of the same checkpoints ", "about 1.00 h west of it"],
    ]);
    const v2 = obs("janitor_archive", "sft", 9, at(12), { seq: 9 });
    const d = exactTime(candidate("sft", 9, [v1("sft", 9, 11, 8), v2]), window(30), diag, doubt);
    expect([d.source, d.hour, d.chosen?.observation]).toEqual(["janitor", 12, v2]);
  });
});

describe("a wrong janitor_tz on the embedded sources/", () => {
  const roots: string[] = [];
  afterAll(async () => Promise.all(roots.map(removeTree)));

  it("opus-max read in UTC instead of Asia/Shanghai (its janitor's startup line says Asia/Shanghai): one JANITOR_ZONE_MISMATCH, and its two janitor-timed rows lose their hour instead of moving 8 h later", async () => {
    const repo = join(import.meta.dirname, "..");
    const root = mkdtempSync(join(tmpdir(), "ptb-zone-"));
    roots.push(root);
    const sources = join(root, "sources");
    cpSync(join(repo, "sources"), sources, { recursive: true });
    const cellsPath = join(sources, "cells.json");
    writeFileSync(cellsPath, readFileSync(cellsPath, "utf8").replace('"Asia/Shanghai"', '"UTC"'));
    const [base, wrong] = await Promise.all([
      buildManifest({ sourcesDir: join(repo, "sources") }),
      buildManifest({ sourcesDir: sources }),
    ]);
    const key = (w: { code: string; file: string | null; line: number | null }) => `${w.code} ${w.file}:${w.line}`;
    const before = new Set(base.warnings.map(key));
    expect(wrong.warnings.map(key).filter((k) => !before.has(k))).toEqual([
      "JANITOR_ZONE_MISMATCH opus-max/janitor/ckpt-janitor.log.1:1",
    ]);
    const changed = wrong.rows.filter((r) => !base.rows.some((b) => JSON.stringify(b) === JSON.stringify(r)));
    expect(changed.map((r) => [r.model_id, r.hour, r.hour_source, r.hour_lower_bound, r.hour_upper_bound])).toEqual([
      ["agentic-ptb/opus-max.hNA.grpo.150", null, "unrecoverable", 54.97, 76.82],
      ["agentic-ptb/opus-max.hNA.sft.2000", null, "unrecoverable", 5.11, 21.03],
    ]);
    expect(
      base.rows
        .filter((r) =>
          ["agentic-ptb/opus-max.h012.sft.2000", "agentic-ptb/opus-max.h066.grpo.150"].includes(r.model_id),
        )
        .map((r) => r.hour_source),
    ).toEqual(["janitor", "janitor"]);
    expect(wrong.rows).toHaveLength(base.rows.length);
  }, 300_000);
});
