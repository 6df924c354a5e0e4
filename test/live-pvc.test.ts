import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chmod, mkdir, mkdtemp, symlink, writeFile, utimes, readdir as readdirP } from "node:fs/promises";
import { lstat as lstatCb, readdir as readdirCb } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Diagnostics } from "../src/diagnostics.js";
import { observePvcEntry, readListingTsv, type PvcEntry } from "../src/extractors/pvc-listing.js";
import { nsToEpoch, readPvcTree } from "../src/extractors/pvc-live.js";
import { loadCells } from "../src/sources/cells.js";
import type { Cell } from "../src/schema.js";
import type { Observation } from "../src/observations.js";
import { runSnapshotPvc } from "../src/pipeline/snapshot-pvc.js";
import { runCli } from "./helpers/cli.js";
import { materialisePvc } from "./helpers/materialise.js";
import { removeTree } from "./helpers/tree.js";

const SOURCES = resolve("sources");
let tmp: string;
let kimi: Cell;
let kimiDir: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "ptb-live-pvc-"));
  kimi = (await loadCells(SOURCES)).cells.find((c) => c.cell === "kimi")!;
  kimiDir = join(tmp, "kimi");
  await materialisePvc(SOURCES, "kimi", kimi.pvc_root, kimiDir);
});
afterAll(async () => removeTree(tmp));

async function collect(gen: AsyncGenerator<PvcEntry>): Promise<PvcEntry[]> {
  const out: PvcEntry[] = [];
  for await (const e of gen) out.push(e);
  return out;
}

/** Observations without where they were read (the listing and the tree differ only there). */
function observe(cell: Cell, entries: PvcEntry[]): Omit<Observation, "origin" | "seq" | "extractor">[] {
  const diag = new Diagnostics();
  const obs = entries.map((e, i) => observePvcEntry(cell, e, i, diag, "x")).filter((o): o is Observation => o !== null);
  return obs
    .map(({ origin: _o, seq: _s, extractor: _e, ...rest }) => rest)
    .sort((a, b) => (String(a.detail.path) < String(b.detail.path) ? -1 : 1));
}

describe("live PVC tree (fast-glob walk, lstat mtimes)", () => {
  it("gives the listing's observations: same checkpoints, kinds, families (aliased, nested, with spaces) and mtimes to the microsecond", async () => {
    const diag = new Diagnostics();
    const live = await collect(readPvcTree(kimiDir, { pvcRoot: kimi.pvc_root, diag }));
    expect(diag.warnings).toEqual([]);
    const listed = await collect(
      readListingTsv(join(SOURCES, "kimi/pvc/listing.tsv"), "kimi/pvc/listing.tsv", new Diagnostics()),
    );
    const a = observe(kimi, listed);
    const b = observe(kimi, live);
    expect(b.length).toBeGreaterThan(100);
    // Directory sizes are the file system's own: compare everything else.
    const strip = (o: (typeof a)[number]) => ({
      ...o,
      utcMs: null,
      detail: { ...o.detail, size: o.kind === "pvc_dir" ? null : o.detail.size },
    });
    expect(b.map(strip)).toEqual(a.map(strip));
    for (let i = 0; i < a.length; i++) expect(Math.abs(b[i]!.utcMs! - a[i]!.utcMs!)).toBeLessThan(0.001);
    expect(b.map((o) => o.family)).toEqual(expect.arrayContaining(["sft-mix", "grpo-len"]));
  });

  it("lists the tree itself first, then every entry with its PVC path; origin is the PVC path and the find line", async () => {
    const live = await collect(readPvcTree(kimiDir, { pvcRoot: "/pvc/ptb/kimi/", diag: new Diagnostics() }));
    expect(live[0]!.path).toBe("/pvc/ptb/kimi");
    expect(live[0]!.type).toBe("d");
    const stable = live.find((e) => e.path === "/pvc/ptb/kimi/sft mix/weights/step_1800/STABLE")!;
    expect(stable.type).toBe("f");
    expect(stable.origin).toEqual({
      file: stable.path,
      line: null,
      offset: null,
      raw: expect.stringMatching(/^\d+\.\d{10}\tf\t0\t\/pvc\/ptb\/kimi\/sft mix\/weights\/step_1800\/STABLE$/),
    });
    const shard = live.find((e) => e.path.endsWith(".safetensors"))!;
    expect(shard.sizeBytes).toBeGreaterThan(1e9); // sparse, full listed size
  });

  it("snapshot-pvc round trip: tree → listing → the same entries, mtimes to the bit", async () => {
    let text = "";
    const { lines, diag } = await runSnapshotPvc({ dir: kimiDir, as: kimi.pvc_root, write: (c) => void (text += c) });
    expect(diag.warnings).toEqual([]);
    const file = join(tmp, "kimi-listing.tsv");
    await writeFile(file, text);
    const back = await collect(readListingTsv(file, "listing.tsv", new Diagnostics()));
    const live = await collect(readPvcTree(kimiDir, { pvcRoot: kimi.pvc_root, diag: new Diagnostics() }));
    expect(back.length).toBe(lines);
    const key = (e: PvcEntry) => [e.path, e.type, e.sizeBytes, e.mtimeMs, e.origin.raw];
    const byPath = (x: PvcEntry[]) => x.map(key).sort((p, q) => (String(p[0]) < String(q[0]) ? -1 : 1));
    expect(byPath(back)).toEqual(byPath(live));
    expect(observe(kimi, back)).toEqual(observe(kimi, live));
    for (const line of text.split("\n").filter(Boolean))
      expect(line).toMatch(/^\d+\.\d{10}\t[fdl]\t\d+\t\/pvc\/ptb\/kimi(\/.*)?$/);
  });

  it("the CLI prints the find format on stdout; without --as the paths are DIR's own", async () => {
    const withAs = await runCli("snapshot-pvc", kimiDir, "--as", kimi.pvc_root);
    expect(withAs.code).toBe(0);
    expect(withAs.stdout.split("\n")[0]).toMatch(/^\d+\.\d{10}\td\t\d+\t\/pvc\/ptb\/kimi$/);
    expect(withAs.stdout).toContain("\t/pvc/ptb/kimi/grpo@len/weights/step_200/STABLE\n");
    const plain = await runCli("snapshot-pvc", kimiDir);
    expect(plain.stdout).toContain(`\t${kimiDir}/grpo@len/weights/step_200/STABLE\n`);
    // A relative --as would write paths build cannot read (every line PVC_BAD_LINE): a usage error, nothing printed.
    const relative = await runCli("snapshot-pvc", kimiDir, "--as", "pvc/ptb/kimi");
    expect([relative.code, relative.stdout, relative.stderr]).toEqual([
      64,
      "",
      "ptb-manifest: error: --as pvc/ptb/kimi is not an absolute path: give the cell's pvc_root (e.g. /pvc/ptb/kimi), as cells.json has it\n",
    ]);
  });

  it("a name with a line break is never dropped silently: PVC_BAD_NAME for each (a folder's subtree included), a summary, exit 2", async () => {
    const dir = join(tmp, "newline");
    await mkdir(join(dir, "ok", "weights", "step_10"), { recursive: true });
    await writeFile(join(dir, "ok", "weights", "step_10", "STABLE"), "");
    await mkdir(join(dir, "fa\nm", "weights", "step_20"), { recursive: true });
    await writeFile(join(dir, "fa\nm", "weights", "step_20", "STABLE"), "");
    await writeFile(join(dir, "ok", "a\nb"), "");
    await writeFile(join(dir, "ok", "x\u2028y"), "");
    const r = await runCli("snapshot-pvc", dir, "--as", "/pvc/p");
    expect(r.code).toBe(2);
    expect(
      r.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split("\t").slice(1).join(" "))
        .sort(),
    ).toEqual(
      ["/pvc/p", "/pvc/p/ok", "/pvc/p/ok/weights", "/pvc/p/ok/weights/step_10"]
        .map((p) => expect.stringMatching(new RegExp(`^d \\d+ ${p}$`)))
        .concat(["f 0 /pvc/p/ok/weights/step_10/STABLE"]),
    );
    expect(r.stderr.split("\n").sort()).toEqual([
      "",
      "ptb-manifest: snapshot-pvc: the listing is incomplete (3 PVC_BAD_NAME): the entries named above are not in it",
      'ptb-manifest: warning PVC_BAD_NAME at /pvc/p/ok: the entry "a\\nb" in /pvc/p/ok has a line break in its name, which a listing line cannot hold: it is not listed',
      'ptb-manifest: warning PVC_BAD_NAME at /pvc/p/ok: the entry "x\\u2028y" in /pvc/p/ok has a line break in its name, which a listing line cannot hold: it is not listed',
      'ptb-manifest: warning PVC_BAD_NAME at /pvc/p: the directory "fa\\nm" in /pvc/p has a line break in its name, which a listing line cannot hold: it is not listed, nor anything below it',
    ]);
    // The live build sees the same warning (nothing below such a folder is read either).
    const diag = new Diagnostics();
    await collect(readPvcTree(dir, { pvcRoot: "/pvc/p", diag }));
    expect(diag.warnings.map((w) => [w.code, w.file])).toEqual(
      expect.arrayContaining([
        ["PVC_BAD_NAME", "/pvc/p"],
        ["PVC_BAD_NAME", "/pvc/p/ok"],
        ["PVC_BAD_NAME", "/pvc/p/ok"],
      ]),
    );
    expect(diag.warnings).toHaveLength(3);
  });

  it("a name with a tab, or bytes that are not UTF-8, is PVC_BAD_NAME too (one rule with the listing reader): exit 2, and the listing reads back as the walk", async () => {
    const dir = join(tmp, "tab");
    await mkdir(join(dir, "ok", "weights", "step_10"), { recursive: true });
    await writeFile(join(dir, "ok", "weights", "step_10", "STABLE"), "");
    await mkdir(join(dir, "fa\tm", "weights", "step_20"), { recursive: true });
    await writeFile(join(dir, "fa\tm", "weights", "step_20", "STABLE"), "");
    await writeFile(join(dir, "ok", "a\tb"), "");
    await writeFile(Buffer.from(`${join(dir, "ok")}/bad\xff`, "latin1"), "");
    const r = await runCli("snapshot-pvc", dir, "--as", "/pvc/p");
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n").sort()).toEqual([
      "",
      "ptb-manifest: snapshot-pvc: the listing is incomplete (3 PVC_BAD_NAME): the entries named above are not in it",
      'ptb-manifest: warning PVC_BAD_NAME at /pvc/p/ok: the entry "a\\tb" in /pvc/p/ok has a tab in its name, which a listing line cannot hold (it separates the fields): it is not listed',
      'ptb-manifest: warning PVC_BAD_NAME at /pvc/p/ok: the entry "bad\\ufffd" in /pvc/p/ok has a name that is not valid UTF-8 (or holds U+FFFD), which a listing cannot name: it is not listed',
      'ptb-manifest: warning PVC_BAD_NAME at /pvc/p: the directory "fa\\tm" in /pvc/p has a tab in its name, which a listing line cannot hold (it separates the fields): it is not listed, nor anything below it',
    ]);
    for (const line of r.stdout.split("\n").filter(Boolean)) expect(line.split("\t")).toHaveLength(4);
    // The listing reads back with no warning, to the entries the live walk gives (which warns the same three names).
    await writeFile(join(tmp, "tab.tsv"), r.stdout);
    const readBack = new Diagnostics();
    const listed = await collect(readListingTsv(join(tmp, "tab.tsv"), "tab.tsv", readBack));
    expect(readBack.warnings).toEqual([]);
    const live = new Diagnostics();
    const walked = await collect(readPvcTree(dir, { pvcRoot: "/pvc/p", diag: live }));
    expect(listed.map((e) => e.path).sort()).toEqual(walked.map((e) => e.path).sort());
    expect(walked.map((e) => e.path).sort()).toEqual([
      "/pvc/p",
      "/pvc/p/ok",
      "/pvc/p/ok/weights",
      "/pvc/p/ok/weights/step_10",
      "/pvc/p/ok/weights/step_10/STABLE",
    ]);
    expect(live.warnings.map((w) => [w.code, w.file]).sort()).toEqual([
      ["PVC_BAD_NAME", "/pvc/p"],
      ["PVC_BAD_NAME", "/pvc/p/ok"],
      ["PVC_BAD_NAME", "/pvc/p/ok"],
    ]);
    // A root path the format cannot hold: nothing listed, exit 2.
    const root = await runCli("snapshot-pvc", dir, "--as", "/pvc/a\tb");
    expect({ code: root.code, stdout: root.stdout }).toEqual({ code: 2, stdout: "" });
    expect(root.stderr).toContain(
      'ptb-manifest: warning PVC_BAD_NAME at /pvc/a\tb: the root path "/pvc/a\\tb" has a tab, which a listing line cannot hold (it separates the fields): nothing is listed\n',
    );
  });

  it("formats nanoseconds as find %T@ does", () => {
    expect(nsToEpoch(1790003123456789123n)).toBe("1790003123.4567891230");
    expect(nsToEpoch(5n)).toBe("0.0000000050");
  });

  it("never follows a link, so a link loop ends the walk normally", async () => {
    const dir = join(tmp, "loops");
    await mkdir(join(dir, "a/weights/step_1"), { recursive: true });
    await writeFile(join(dir, "a/weights/step_1/STABLE"), "");
    await symlink(".", join(dir, "self"));
    await symlink("../..", join(dir, "a/weights/up"));
    await symlink(join(dir, "a"), join(dir, "a/weights/step_1/back"));
    const entries = await collect(readPvcTree(dir, { pvcRoot: "/pvc/x", diag: new Diagnostics() }));
    expect(entries.map((e) => `${e.type} ${e.path}`).sort()).toEqual([
      "d /pvc/x",
      "d /pvc/x/a",
      "d /pvc/x/a/weights",
      "d /pvc/x/a/weights/step_1",
      "f /pvc/x/a/weights/step_1/STABLE",
      `l /pvc/x/a/weights/step_1/back`,
      "l /pvc/x/a/weights/up",
      "l /pvc/x/self",
    ]);
    expect(entries.find((e) => e.path === "/pvc/x/self")!.sizeBytes).toBe(1); // find %s of a link: its target's length
  });

  it("warns PVC_UNREADABLE_DIR for a directory it cannot read (EACCES) and reads the rest", async () => {
    const dir = join(tmp, "locked");
    await mkdir(join(dir, "open/weights/step_1"), { recursive: true });
    await mkdir(join(dir, "shut/weights/step_2"), { recursive: true });
    await writeFile(join(dir, "open/weights/step_1/STABLE"), "");
    await writeFile(join(dir, "shut/weights/step_2/STABLE"), "");
    // chmod cannot lock root out, so the test makes readdir fail as a locked directory would.
    const eacces = ((path: string, ...rest: unknown[]) => {
      const cb = rest.pop() as (err: NodeJS.ErrnoException | null, names?: string[]) => void;
      if (path.endsWith("/shut")) {
        const err = Object.assign(new Error(`EACCES: permission denied, scandir '${path}'`), { code: "EACCES" });
        return cb(err);
      }
      readdirCb(path, cb as (err: NodeJS.ErrnoException | null, names: string[]) => void);
    }) as never;
    const diag = new Diagnostics();
    const entries = await collect(readPvcTree(dir, { pvcRoot: "/pvc/y", diag, fs: { readdir: eacces } }));
    expect(entries.map((e) => e.path)).toContain("/pvc/y/open/weights/step_1/STABLE");
    expect(entries.map((e) => e.path)).toContain("/pvc/y/shut"); // the directory itself is listed
    expect(entries.some((e) => e.path.startsWith("/pvc/y/shut/"))).toBe(false);
    expect(diag.warnings).toEqual([
      {
        code: "PVC_UNREADABLE_DIR",
        message: "cannot read directory /pvc/y/shut (EACCES): its entries are not listed",
        file: "/pvc/y/shut",
        line: null,
      },
    ]);
  });

  it("an entry that cannot be lstat'ed (gone mid-walk) warns once for its directory, whose entries fast-glob then skips", async () => {
    const dir = join(tmp, "vanish");
    await mkdir(join(dir, "a/weights/step_1"), { recursive: true });
    await mkdir(join(dir, "b"), { recursive: true });
    for (const f of ["STABLE", "model.safetensors"]) await writeFile(join(dir, "a/weights/step_1", f), "");
    await writeFile(join(dir, "b/keep"), "");
    const gone = ((path: string, opts: unknown, cb: (err: NodeJS.ErrnoException | null, st?: unknown) => void) => {
      if (path.includes("/step_1/"))
        return cb(Object.assign(new Error(`ENOENT: no such file, lstat '${path}'`), { code: "ENOENT" }));
      lstatCb(path, opts as { bigint: true }, cb);
    }) as never;
    const diag = new Diagnostics();
    const entries = await collect(readPvcTree(dir, { pvcRoot: "/pvc/v", diag, fs: { lstat: gone } }));
    expect(entries.map((e) => e.path)).toContain("/pvc/v/b/keep");
    expect(entries.some((e) => e.path.startsWith("/pvc/v/a/weights/step_1/"))).toBe(false);
    expect(diag.warnings.map((w) => [w.code, w.file])).toEqual([["PVC_UNREADABLE_DIR", "/pvc/v/a/weights/step_1"]]);
    expect(diag.warnings[0]!.message).toMatch(
      /^cannot lstat \/pvc\/v\/a\/weights\/step_1\/(STABLE|model\.safetensors) \(ENOENT\): the entries of \/pvc\/v\/a\/weights\/step_1 are not read$/,
    );
  });

  it.skipIf(process.getuid?.() === 0)("a real chmod 000 directory gives the same warning (not as root)", async () => {
    const dir = join(tmp, "chmod");
    await mkdir(join(dir, "shut/inner"), { recursive: true });
    await chmod(join(dir, "shut"), 0o000);
    try {
      const diag = new Diagnostics();
      await collect(readPvcTree(dir, { pvcRoot: "/pvc/z", diag }));
      expect(diag.warnings.map((w) => [w.code, w.file])).toEqual([["PVC_UNREADABLE_DIR", "/pvc/z/shut"]]);
    } finally {
      await chmod(join(dir, "shut"), 0o755);
    }
  });

  it("streams: entries come out while the walk goes on, and nothing keeps every path", async () => {
    // A wide tree: the generator must yield its first entries before the walk has read every directory.
    const dir = join(tmp, "wide");
    for (let i = 0; i < 40; i++) {
      await mkdir(join(dir, `d${i}`), { recursive: true });
      await writeFile(join(dir, `d${i}`, "f"), "");
    }
    let reads = 0;
    const counting = ((path: string, ...rest: unknown[]) => {
      reads += 1;
      (readdirCb as (...a: unknown[]) => void)(path, ...rest);
    }) as never;
    const gen = readPvcTree(dir, { pvcRoot: "/w", diag: new Diagnostics(), fs: { readdir: counting }, concurrency: 1 });
    await gen.next(); // the root
    await gen.next(); // the first walked entry
    const readsAtFirst = reads;
    let n = 2;
    for await (const _ of gen) n += 1;
    expect(n).toBe(1 + 40 * 2);
    expect(readsAtFirst).toBeLessThan(reads);
    expect((await readdirP(dir)).length).toBe(40);
  });

  it("a missing directory is a fatal PVC_DIR_MISSING", async () => {
    await expect(
      collect(readPvcTree(join(tmp, "nope"), { pvcRoot: "/p", diag: new Diagnostics() })),
    ).rejects.toMatchObject({ code: "PVC_DIR_MISSING" });
  });

  it("keeps listed mtimes through utimes (the helper the build test relies on)", async () => {
    const dir = join(tmp, "one");
    await mkdir(dir);
    await writeFile(join(dir, "f"), "");
    await utimes(join(dir, "f"), 1790003123.456789, 1790003123.456789);
    const [, f] = await collect(readPvcTree(dir, { pvcRoot: "/o", diag: new Diagnostics() }));
    expect(f!.mtimeMs).toBeCloseTo(1790003123456.789, 2);
  });
});

describe("build --pvc (usage and errors)", () => {
  it("rejects a cell that is not in cells.json, and a malformed value", async () => {
    const unknown = await runCli(
      "build",
      "--sources",
      SOURCES,
      "--out",
      join(tmp, "o1"),
      "-q",
      "--pvc",
      `nosuch=${kimiDir}`,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("PVC_UNKNOWN_CELL");
    const bad = await runCli("build", "--sources", SOURCES, "--out", join(tmp, "o2"), "-q", "--pvc", "kimi");
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain("expected CELL=DIR");
  });

  it("a --pvc directory that does not exist is a fatal input error: nothing written", async () => {
    const out = join(tmp, "o3");
    const r = await runCli("build", "--sources", SOURCES, "--out", out, "-q", "--pvc", `kimi=${join(tmp, "missing")}`);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("PVC_DIR_MISSING");
    await expect(readdirP(out)).rejects.toMatchObject({ code: "ENOENT" });
  });
});
