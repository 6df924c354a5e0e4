import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync } from "node:fs";
import { chmod, mkdir, mkdtemp, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fg from "fast-glob";
import { Diagnostics } from "../src/diagnostics.js";
import { nsToEpoch, readPvcTreeBatches, type PvcTreeOptions } from "../src/extractors/pvc-live.js";
import { scanDir } from "../src/extractors/pvc-dir-scan.js";
import { packScans, unpackScans } from "../src/extractors/pvc-walk-pack.js";
import { walkThreads } from "../src/extractors/pvc-walk-threads.js";
import type { PvcEntry } from "../src/extractors/pvc-listing.js";
import { removeTree } from "./helpers/tree.js";

const REPO = join(import.meta.dirname, "..");
let tmp: string;
let tree: string;

/** 20 families × 8 steps × 3 files (real mtimes with a fraction), and links (a loop among them). */
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "ptb-pvc-walk-"));
  tree = join(tmp, "tree");
  let t = 1790003123.456789;
  for (let f = 0; f < 20; f += 1)
    for (let s = 1; s <= 8; s += 1) {
      const dir = join(tree, `fam ${f}`, "weights", `step_${s * 100}`);
      await mkdir(dir, { recursive: true });
      for (const name of ["STABLE", "config.json", "model-00001.safetensors"]) {
        await writeFile(join(dir, name), name === "config.json" ? "{}" : "");
        t += 60.000123;
        await utimes(join(dir, name), t, t);
      }
    }
  await symlink(".", join(tree, "self"));
  await symlink("../..", join(tree, "fam 3", "weights", "up"));
  await symlink("nowhere", join(tree, "fam 7", "dangling"));
});
afterAll(async () => removeTree(tmp));

/** The fixture walked with the worker thread from the start (worker threads start slowly from the TypeScript sources: once). */
let twoThreads: Promise<{ entries: PvcEntry[]; diag: Diagnostics; workerDirs: number }> | null = null;
function walkTwo(): Promise<{ entries: PvcEntry[]; diag: Diagnostics; workerDirs: number }> {
  twoThreads ??= (async () => {
    const tally = { workerDirs: 0 };
    return { ...(await walk(tree, { concurrency: 2, workerAfter: 0, tally })), workerDirs: tally.workerDirs };
  })();
  return twoThreads;
}

async function walk(
  dir: string,
  opts: Partial<PvcTreeOptions> = {},
): Promise<{ entries: PvcEntry[]; diag: Diagnostics }> {
  const diag = new Diagnostics();
  const entries: PvcEntry[] = [];
  for await (const batch of readPvcTreeBatches(dir, { pvcRoot: "/pvc/w", diag, ...opts })) entries.push(...batch);
  return { entries, diag };
}

describe("the live walk's threads (same entries, same order)", () => {
  it("gives the same entries in the same order with one thread and with the worker thread", async () => {
    const one = await walk(tree, { concurrency: 1 });
    const two = await walkTwo();
    expect(two.workerDirs).toBeGreaterThan(0); // the worker did read part of the tree
    expect(one.entries.length).toBe(1 + 20 * (2 + 8 * 4) + 3);
    expect(two.entries).toEqual(one.entries);
    expect(two.diag.warnings).toEqual([]);
    expect(one.diag.warnings).toEqual([]);
  });

  it("walks in the fast-glob walk's order (breadth first, readdir order), links listed and not entered", async () => {
    const { entries } = await walkTwo();
    const ref: string[] = [];
    for await (const e of fg.stream("**", {
      cwd: tree,
      dot: true,
      onlyFiles: false,
      followSymbolicLinks: false,
      stats: true,
      unique: false,
      concurrency: 1,
    }) as AsyncIterable<fg.Entry>)
      ref.push(`/pvc/w/${e.path}`);
    expect(entries.map((e) => e.path)).toEqual(["/pvc/w", ...ref]);
    const byPath = new Map(entries.map((e) => [e.path, e]));
    expect(byPath.get("/pvc/w/self")!.type).toBe("l");
    expect(byPath.get("/pvc/w/fam 3/weights/up")!.type).toBe("l");
    expect(byPath.get("/pvc/w/fam 7/dangling")).toMatchObject({ type: "l", sizeBytes: 7 });
  });

  it("keeps nanosecond mtimes: each line's time is lstat's mtimeNs, mtimeMs its epochToMs", async () => {
    const { entries } = await walkTwo();
    const file = entries.find((e) => e.path === "/pvc/w/fam 19/weights/step_800/config.json")!;
    const st = lstatSync(join(tree, "fam 19/weights/step_800/config.json"), { bigint: true });
    const epoch = nsToEpoch(st.mtimeNs);
    expect(file.origin.raw).toBe(`${epoch}\tf\t2\t/pvc/w/fam 19/weights/step_800/config.json`);
    expect(file.mtimeMs).toBe(Number(epoch.split(".")[0]) * 1000 + Number(`0.${epoch.split(".")[1]}`) * 1000);
  });
});

describe("walkThreads (PTB_MANIFEST_THREADS, else free cores)", () => {
  it("honours the variable, 1 = this thread alone, more than 2 = 2", () => {
    expect(walkThreads("1", 8)).toBe(1);
    expect(walkThreads("2", 0.1)).toBe(2);
    expect(walkThreads("16", 2)).toBe(2);
  });
  it("without it (or with a value that is not a whole number ≥ 1), 2 only when a second core is free", () => {
    expect(walkThreads(undefined, 1.8)).toBe(2);
    expect(walkThreads(undefined, 1.5)).toBe(2);
    expect(walkThreads(undefined, 1.4)).toBe(1);
    expect(walkThreads(undefined, 1)).toBe(1);
    expect(walkThreads("", 6)).toBe(2);
    expect(walkThreads("0", 0.5)).toBe(1);
    expect(walkThreads("two", 2)).toBe(2);
  });
});

describe("scanDir and the threads' message", () => {
  it("packs and unpacks a chunk's scans to the same values", () => {
    const scans = [
      scanDir(join(tree, "fam 0"), "/pvc/w/fam 0"),
      scanDir(join(tree, "nope"), "/pvc/w/nope"),
      scanDir(join(tree, "fam 0/weights/step_100"), "/pvc/w/fam 0/weights/step_100"),
    ];
    expect(scans[1]).toEqual({
      entries: [],
      warnings: [
        {
          code: "PVC_UNREADABLE_DIR",
          message: "cannot read directory /pvc/w/nope (ENOENT): its entries are not listed",
          file: "/pvc/w/nope",
        },
      ],
    });
    expect(scans[2]!.entries.map((e) => e.path)).toEqual([
      "/pvc/w/fam 0/weights/step_100/STABLE",
      "/pvc/w/fam 0/weights/step_100/config.json",
      "/pvc/w/fam 0/weights/step_100/model-00001.safetensors",
    ]);
    expect(unpackScans(structuredClone(packScans(scans)))).toEqual(scans);
  });
});

const setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p));
const NOBODY = "65534";
const asNobody = process.getuid?.() === 0 && setpriv !== undefined;

// chmod 000 stops no read by root (CI runs as root): the walk runs as the unprivileged user 65534.
describe.runIf(asNobody)("an unreadable folder, as an unprivileged user", () => {
  it("is warned PVC_UNREADABLE_DIR alike, the rest read in the same order, with one thread and with two", async () => {
    const dir = join(tmp, "locked");
    for (let f = 0; f < 12; f += 1)
      for (let s = 1; s <= 8; s += 1) {
        await mkdir(join(dir, `f${f}`, `step_${s}`), { recursive: true });
        await writeFile(join(dir, `f${f}`, `step_${s}`, "STABLE"), "");
      }
    const script = join(tmp, "walk.mts");
    await writeFile(
      script,
      `import { Diagnostics } from ${JSON.stringify(join(REPO, "src/diagnostics.ts"))};
import { readPvcTreeBatches } from ${JSON.stringify(join(REPO, "src/extractors/pvc-live.ts"))};
const out = {};
for (const threads of [1, 2]) {
  const diag = new Diagnostics();
  const tally = { workerDirs: 0 };
  const lines = [];
  for await (const b of readPvcTreeBatches(process.argv[2], { pvcRoot: "/pvc/l", diag, concurrency: threads, workerAfter: 0, tally }))
    for (const e of b) lines.push(e.origin.raw);
  out[threads] = { lines, warnings: diag.warnings, workerDirs: tally.workerDirs };
}
process.stdout.write(JSON.stringify(out));
`,
    );
    spawnSync("chmod", ["-R", "a+rX", tmp]);
    await chmod(join(dir, "f5"), 0o000);
    await chmod(join(dir, "f9", "step_3"), 0o000);
    const r = spawnSync(
      setpriv!,
      ["--reuid", NOBODY, "--regid", NOBODY, "--clear-groups", process.execPath, "--import", "tsx", script, dir],
      { cwd: REPO, encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: tmp } },
    );
    await chmod(join(dir, "f5"), 0o755);
    await chmod(join(dir, "f9", "step_3"), 0o755);
    expect(r.stderr).toBe("");
    const out = JSON.parse(r.stdout) as Record<
      string,
      { lines: string[]; warnings: Diagnostics["warnings"]; workerDirs: number }
    >;
    expect(out[2]!.workerDirs).toBeGreaterThan(0);
    expect(out[2]!.lines).toEqual(out[1]!.lines);
    expect(out[2]!.warnings).toEqual(out[1]!.warnings);
    expect(out[1]!.warnings).toEqual([
      {
        code: "PVC_UNREADABLE_DIR",
        message: "cannot read directory /pvc/l/f5 (EACCES): its entries are not listed",
        file: "/pvc/l/f5",
        line: null,
      },
      {
        code: "PVC_UNREADABLE_DIR",
        message: "cannot read directory /pvc/l/f9/step_3 (EACCES): its entries are not listed",
        file: "/pvc/l/f9/step_3",
        line: null,
      },
    ]);
    const paths = out[1]!.lines.map((l) => l.split("\t")[3]!);
    expect(paths).toContain("/pvc/l/f5"); // the folder itself is listed
    expect(paths.filter((p) => p.startsWith("/pvc/l/f5/"))).toEqual([]);
    expect(paths).toContain("/pvc/l/f9/step_3");
    expect(paths).not.toContain("/pvc/l/f9/step_3/STABLE");
    expect(paths).toHaveLength(1 + 12 * (1 + 8 * 2) - 8 * 2 - 1);
  }, 240_000); // two processes of the TypeScript sources, loaded through tsx, as another user
});
