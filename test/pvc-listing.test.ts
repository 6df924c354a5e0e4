import { describe, expect, it, afterAll } from "vitest";
import { Diagnostics } from "../src/diagnostics.js";
import { observePvcEntry, readListingTsv, epochToMs, type PvcEntry } from "../src/extractors/pvc-listing.js";
import { readLsLR } from "../src/extractors/pvc-ls-lr.js";
import type { Cell } from "../src/schema.js";
import { makeTree, removeTree, lines } from "./helpers/tree.js";

const cell: Cell = {
  cell: "c1",
  driver: "d",
  effort: "high",
  trajectory_format: "codex",
  pvc_root: "/pvc/ptb/c1",
  janitor_tz: "UTC",
  family_aliases: { "sft 3": "sft3" },
};
const roots: string[] = [];
afterAll(async () => Promise.all(roots.map(removeTree)));

async function collect(gen: AsyncGenerator<PvcEntry>): Promise<PvcEntry[]> {
  const out: PvcEntry[] = [];
  for await (const e of gen) out.push(e);
  return out;
}

describe("listing.tsv (find -printf format)", () => {
  it("reads epoch fractions, types, sizes and paths with spaces; warns on a cut-short last line", async () => {
    const root = await makeTree({
      "l.tsv": `${lines(
        "1790003123.4567891230\td\t4096\t/pvc/ptb/c1",
        "1790003123.4567891230\tf\t0\t/pvc/ptb/c1/sft 3/weights/step_100/STABLE",
        "1790000000.0000000000\tf\t12\t/pvc/ptb/c1/sft2/weights/step_5/model-00001-of-00002.safetensors",
        "garbage line",
      )}1790000000.00\tf\t0\t/pvc/ptb/c1/sft2/weights/st`,
    });
    roots.push(root);
    const diag = new Diagnostics();
    const entries = await collect(readListingTsv(`${root}/l.tsv`, "c1/pvc/listing.tsv", diag));
    expect(entries.map((e) => [e.type, e.sizeBytes, e.path])).toEqual([
      ["d", 4096, "/pvc/ptb/c1"],
      ["f", 0, "/pvc/ptb/c1/sft 3/weights/step_100/STABLE"],
      ["f", 12, "/pvc/ptb/c1/sft2/weights/step_5/model-00001-of-00002.safetensors"],
    ]);
    expect(entries[1]!.mtimeMs).toBeCloseTo(1790003123456.789, 3);
    expect(entries[1]!.origin).toMatchObject({ file: "c1/pvc/listing.tsv", line: 2 });
    expect(diag.warnings.map((w) => [w.code, w.line])).toEqual([
      ["PVC_BAD_LINE", 4],
      ["PVC_CUT_LINE", 5],
    ]);
  });

  it("epochToMs keeps sub-millisecond digits", () => {
    expect(epochToMs("1790003123.4567891230")).toBeCloseTo(1790003123456.789123, 3);
    expect(epochToMs("1790003123")).toBe(1790003123000);
  });
});

describe("ls-lR.txt (ls -lR --full-time format)", () => {
  it("reads blocks, offsets, nanoseconds, names with spaces and links", async () => {
    const root = await makeTree({
      "ls.txt": lines(
        "/pvc/ptb/c1/runs/grpo-a/weights/step_40:",
        "total 8",
        "-rw-r--r-- 1 root root 0 2026-10-03 13:58:41.123456789 +0000 STABLE",
        "-rw-r--r-- 1 root root 1024 2026-10-03 13:58:40.000000000 +0200 model 1.safetensors",
        "lrwxrwxrwx 1 root root 4 2026-10-03 13:58:40.000000000 +0000 latest -> ../x",
        "drwxr-xr-x 2 root root 4096 2026-10-03 15:00:00.5 +0000 sub dir",
        "-rw-r--r-- 1 root root 0 bad date STABLE",
      ),
    });
    roots.push(root);
    const diag = new Diagnostics();
    const entries = await collect(readLsLR(`${root}/ls.txt`, "c1/pvc/ls-lR.txt", diag));
    expect(entries.map((e) => [e.type, e.path, new Date(e.mtimeMs).toISOString()])).toEqual([
      ["f", "/pvc/ptb/c1/runs/grpo-a/weights/step_40/STABLE", "2026-10-03T13:58:41.123Z"],
      ["f", "/pvc/ptb/c1/runs/grpo-a/weights/step_40/model 1.safetensors", "2026-10-03T11:58:40.000Z"],
      ["l", "/pvc/ptb/c1/runs/grpo-a/weights/step_40/latest", "2026-10-03T13:58:40.000Z"],
      ["d", "/pvc/ptb/c1/runs/grpo-a/weights/step_40/sub dir", "2026-10-03T15:00:00.500Z"],
    ]);
    expect(diag.warnings.map((w) => [w.code, w.line])).toEqual([["PVC_BAD_LINE", 7]]);
  });
});

describe("PVC entries to observations", () => {
  const entry = (path: string, type = "f"): PvcEntry => ({
    mtimeMs: 1,
    type,
    sizeBytes: 0,
    path,
    origin: { file: "f", line: 1, offset: 0, raw: path },
  });
  const observe = (path: string, type = "f") => observePvcEntry(cell, entry(path, type), 0, new Diagnostics(), "t");

  it("keeps weights/step_N STABLE, safetensors and the directory; ignores checkpoints/, rollouts/, logs/", () => {
    expect(observe("/pvc/ptb/c1/sft2/weights/step_100/STABLE")).toMatchObject({
      kind: "pvc_stable",
      family: "sft2",
      step: 100,
      familyDir: "sft2",
    });
    expect(observe("/pvc/ptb/c1/sft2/weights/step_100/m.safetensors")).toMatchObject({ kind: "pvc_weights" });
    expect(observe("/pvc/ptb/c1/sft2/weights/step_100", "d")).toMatchObject({ kind: "pvc_dir" });
    expect(observe("/pvc/ptb/c1/sft2/checkpoints/step_100/STABLE")).toBeNull();
    expect(observe("/pvc/ptb/c1/sft2/rollouts/step_100/STABLE")).toBeNull();
    expect(observe("/pvc/ptb/c1/sft2/logs/attempt_1/weights/step_1/STABLE")).toBeNull();
    expect(observe("/pvc/ptb/c1/sft2/weights/step_100/config.json")).toBeNull();
  });

  it("takes the family from the directory holding weights/ (nested runs/) and applies family_aliases", () => {
    expect(observe("/pvc/ptb/c1/runs/grpo-a/weights/step_7/STABLE")).toMatchObject({
      family: "grpo-a",
      familyDir: "runs/grpo-a",
    });
    expect(observe("/pvc/ptb/c1/sft 3/weights/step_7/STABLE")).toMatchObject({ family: "sft3", familyDir: "sft 3" });
  });

  it("warns on a path outside pvc_root or with ..", () => {
    const diag = new Diagnostics();
    expect(observePvcEntry(cell, entry("/pvc/ptb/other/sft2/weights/step_1/STABLE"), 0, diag, "t")).toBeNull();
    expect(observePvcEntry(cell, entry("/pvc/ptb/c1/../c2/sft2/weights/step_1/STABLE"), 0, diag, "t")).toBeNull();
    expect(diag.warnings.map((w) => w.code)).toEqual(["PVC_OUTSIDE_ROOT", "PVC_OUTSIDE_ROOT"]);
  });
});

describe("listing lines a new user broke", () => {
  const entry = (path: string): PvcEntry => ({
    mtimeMs: 1,
    type: "f",
    sizeBytes: 0,
    path,
    origin: { file: "f", line: 7, offset: 0, raw: path },
  });
  it("a doubled slash is the same directory; a tab, a trailing slash or bad UTF-8 is a bad line naming it (P10, P11, P18)", () => {
    const diag = new Diagnostics();
    expect(observePvcEntry(cell, entry("/pvc/ptb/c1//sft2/weights/step_1/STABLE"), 0, diag, "t")).toMatchObject({
      family: "sft2",
      familyDir: "sft2",
      step: 1,
    });
    expect(
      observePvcEntry(
        cell,
        entry("/pvc/ptb/c1/data/x1790000000.0\tf\t0\t/pvc/ptb/c1/sft2/weights/step_1/STABLE"),
        0,
        diag,
        "t",
      ),
    ).toBeNull();
    expect(observePvcEntry(cell, entry("/pvc/ptb/c1/sft2/weights/step_1/STABLE/"), 0, diag, "t")).toBeNull();
    expect(observePvcEntry(cell, entry("/pvc/ptb/c1/d\ufffdpo/weights/step_1/STABLE"), 0, diag, "t")).toBeNull();
    expect(
      diag.warnings.map((w) => [w.code, w.line, w.message.split("; ")[0]!.split(" ").slice(-3).join(" ")]),
    ).toEqual([
      ["PVC_BAD_LINE", 7, "lines run together?)"],
      ["PVC_BAD_LINE", 7, "ends with /"],
      ["PVC_BAD_LINE", 7, "not valid UTF-8"],
    ]);
  });
});

describe("find's starting point", () => {
  it("printed with the trailing slash it was given is no bad line", () => {
    const diag = new Diagnostics();
    const e: PvcEntry = {
      mtimeMs: 1,
      type: "d",
      sizeBytes: 4096,
      path: "/pvc/ptb/c1/",
      origin: { file: "f", line: 1, offset: 0, raw: "" },
    };
    expect(observePvcEntry(cell, e, 0, diag, "t")).toBeNull();
    expect(diag.warnings).toEqual([]);
  });
});
