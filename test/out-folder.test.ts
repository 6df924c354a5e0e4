import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lstat, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { createHash } from "node:crypto";
import { makeMiniSweep, miniSweepFiles } from "./helpers/mini-sweep.js";
import { lines, removeTree, writeTree } from "./helpers/tree.js";
import { runCli } from "./helpers/cli.js";
import { checkOutFolder, makeFolder } from "../src/util/out-folder.js";
import { writeFilesAtomically } from "../src/util/atomic.js";
import { InputError } from "../src/errors.js";
import { ExitCodeError } from "../src/errors.js";

/**
 * The output folder check shared by every command that writes (P8, P19):
 * `build --out`, `cost --html`, `snapshot-hub --out`. The bad-input corpus
 * (test/fixtures/bad/out-*) has the build's cases through the CLI; these are
 * the other commands, the cases the corpus cannot state, and the helpers.
 */

const roots: string[] = [];
afterAll(async () => Promise.all(roots.map(removeTree)));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "ptb-out-"));
  roots.push(dir);
  return dir;
}

/** Every path under `dir`, relative. */
async function listing(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map((p) => relative(dir, join(dir, p))).sort();
}

/** The code and message of what `body` throws. */
async function thrown(body: () => Promise<unknown>): Promise<[string, string] | null> {
  try {
    await body();
    return null;
  } catch (err) {
    if (err instanceof InputError) return [err.code, err.message];
    if (err instanceof ExitCodeError) return [`exit ${err.exitCode}`, err.message];
    throw err;
  }
}

describe("build --out", () => {
  it("may contain the sources folder (--out . beside sources/)", async () => {
    const root = await tempDir();
    await writeTree(join(root, "sources"), miniSweepFiles());
    const r = await runCli("build", "--sources", join(root, "sources"), "--out", root, "--quiet", "--no-cache");
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    expect((await readdir(root)).sort()).toEqual([
      ".ptb-manifest-outputs.json",
      "README.md",
      "build-report.json",
      "datapackage.json",
      "manifest.csv",
      "manifest.json",
      "manifest.schema.json",
      "model-ids.txt",
      "provenance.jsonl",
      "report.html",
      "sources",
    ]);
  });

  it("refuses a link outside the sources that leads into them (OUT_INSIDE_SOURCES), writing nothing", async () => {
    const root = await tempDir();
    await writeTree(join(root, "sources"), miniSweepFiles());
    await symlink(join(root, "sources", "beta"), join(root, "link"));
    const before = await listing(root);
    const r = await runCli(
      "build",
      "--sources",
      join(root, "sources"),
      "--out",
      join(root, "link"),
      "--quiet",
      "--no-cache",
    );
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 1,
      stdout: "",
      stderr: `ptb-manifest: error OUT_INSIDE_SOURCES at ${root}/link: --out ${root}/link is inside the sources folder ${root}/sources: the outputs would mix with the inputs (the next build would read them); give a folder outside it; nothing written\n`,
    });
    expect(await listing(root)).toEqual(before);
  });

  it("refuses a regular file as --out (OUT_NOT_A_FOLDER) and a folder where an output file goes (OUT_NOT_A_FILE), writing nothing", async () => {
    const sources = await makeMiniSweep();
    roots.push(sources);
    const root = await tempDir();
    await writeFile(join(root, "file"), "x");
    const file = await runCli("build", "--sources", sources, "--out", join(root, "file"), "--quiet", "--no-cache");
    expect({ code: file.code, stderr: file.stderr }).toEqual({
      code: 1,
      stderr: `ptb-manifest: error OUT_NOT_A_FOLDER at ${root}/file: --out ${root}/file is a file, not a folder; nothing written\n`,
    });
    await mkdir(join(root, "out", "manifest.csv"), { recursive: true });
    const taken = await runCli("build", "--sources", sources, "--out", join(root, "out"), "--quiet", "--no-cache");
    expect({ code: taken.code, stderr: taken.stderr }).toEqual({
      code: 1,
      stderr: `ptb-manifest: error OUT_NOT_A_FILE at ${root}/out/manifest.csv: cannot write ${root}/out/manifest.csv: the name is taken by a folder, which an output file would replace; nothing written\n`,
    });
    expect(await listing(root)).toEqual(["file", "out", "out/manifest.csv"]);
  });
});

describe("cost --html", () => {
  let out: string;
  beforeAll(async () => {
    const dir = await makeMiniSweep();
    out = `${dir}-out`;
    roots.push(dir, out);
    expect((await runCli("build", "--sources", dir, "--out", out, "--quiet", "--no-cache")).code).toBe(0);
    await writeFile(
      join(out, "scores.csv"),
      lines("model_id,suite,score", "Qwen/Qwen3.5-9B-Base,mmlu,40", "agentic-ptb/alpha.h005.sft2.100,mmlu,42.5"),
    );
  });
  const cost = (...args: string[]) =>
    runCli("cost", "--scores", join(out, "scores.csv"), "--manifest", join(out, "manifest.json"), ...args);

  it("refuses a device, a folder and a pseudo file system as the file to write, and an empty path", async () => {
    expect(await cost("--html", "/dev/null")).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "ptb-manifest: error OUT_NOT_A_FILE at /dev/null: cannot write /dev/null: the name is taken by a character device, which an output file would replace; nothing written\n",
    });
    expect((await lstat("/dev/null")).isCharacterDevice()).toBe(true);
    // A link to a device (/dev/stdout) is no file to replace either, even with --force.
    const link = join(await tempDir(), "stdout");
    await symlink("/dev/null", link);
    for (const force of [[], ["--force"]])
      expect(await cost("--html", link, ...force)).toEqual({
        code: 1,
        stdout: "",
        stderr: `ptb-manifest: error OUT_NOT_A_FILE at ${link}: cannot write ${link}: the name is taken by a symbolic link to a character device, which an output file would replace; nothing written\n`,
      });
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await cost("--html", out)).toEqual({
      code: 1,
      stdout: "",
      stderr: `ptb-manifest: error OUT_NOT_A_FILE at ${out}: cannot write ${out}: the name is taken by a folder, which an output file would replace; nothing written\n`,
    });
    const proc = await cost("--html", "/proc/self/cost.html");
    expect(proc.code).toBe(1);
    // EPERM for root, EACCES for anyone else.
    expect(proc.stderr).toMatch(
      /^ptb-manifest: error OUT_UNWRITABLE at \/proc\/self: --html \/proc\/self is not writable \((EPERM|EACCES)\); nothing written\n$/,
    );
    expect(await cost("--html", "/dev/null/cost.html")).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "ptb-manifest: error OUT_NOT_A_FOLDER at /dev/null: --html /dev/null is a character device, not a folder; nothing written\n",
    });
    const empty = await cost("--html", "");
    expect(empty.code).toBe(64);
    expect(empty.stderr).toContain(
      "error: option '--html <file>' argument '' is invalid. an empty path is not an output folder or file",
    );
  });

  it("still writes cost.html into a new folder", async () => {
    const r = await cost("--html", join(out, "new", "deeper", "cost.html"), "--json");
    expect(r.code).toBe(0);
    expect((await stat(join(out, "new", "deeper", "cost.html"))).isFile()).toBe(true);
  });
});

describe("snapshot-hub --out", () => {
  it("refuses a device, a folder below one, a pseudo file system and an empty path before asking the Hub", async () => {
    const sources = await makeMiniSweep();
    roots.push(sources);
    // A Hub nobody answers: reaching it would be a Hub error after retries, so these errors come first.
    const snap = (out: string) =>
      runCli(
        "snapshot-hub",
        "--out",
        out,
        "--sources",
        sources,
        "--hub-url",
        "http://127.0.0.1:9",
        "--cache-dir",
        `${sources}-cache`, // outside the sources (CACHE_INSIDE_SOURCES)
        "-q",
      );
    expect(await snap("/dev/null")).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "ptb-manifest: error OUT_NOT_A_FOLDER at /dev/null: --out /dev/null is a character device, not a folder; nothing written\n",
    });
    expect(await snap("/dev/null/hub")).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "ptb-manifest: error OUT_NOT_A_FOLDER at /dev/null/hub: --out /dev/null/hub cannot be created: /dev/null is a character device, not a folder; nothing written\n",
    });
    expect((await snap("/proc/self/hub")).stderr).toMatch(
      /^ptb-manifest: error OUT_UNWRITABLE at \/proc\/self\/hub: --out \/proc\/self\/hub cannot be created: \/proc\/self is not writable \(E[A-Z]+\); nothing written\n$/,
    );
    const empty = await snap("");
    expect(empty.code).toBe(64);
    expect(empty.stderr).toContain("error: option '--out <dir>' argument '' is invalid.");
  });
});

describe("only files this tool wrote are replaced (OUT_FOREIGN_FILE, --force, the marker)", () => {
  const README = "# my project\n\nhand-written, not a dataset card\n";
  const foreign = (dir: string, what: string, n = 1) =>
    `ptb-manifest: error OUT_FOREIGN_FILE at ${dir}/${what.replace(/ \(.*$/, "")}: --out ${dir} holds ${n === 1 ? "a file" : `${n} files`} that an output would replace but ptb-manifest did not write there: ${what}; nothing written (use another folder, move ${n === 1 ? "it" : "them"} away, or pass --force to replace ${n === 1 ? "it" : "them"})\n`;

  it("build --out into a folder with the user's README.md: refused, README untouched, nothing written; --force replaces it; a second build needs no --force", async () => {
    const root = await tempDir();
    await writeTree(join(root, "sources"), miniSweepFiles());
    await writeFile(join(root, "README.md"), README);
    const before = await listing(root);
    const build = (...extra: string[]) =>
      runCli("build", "--sources", join(root, "sources"), "--out", root, "--quiet", "--no-cache", ...extra);
    const refused = await build();
    expect(refused).toEqual({ code: 1, stdout: "", stderr: foreign(root, "README.md (not written by ptb-manifest)") });
    expect(await readFile(join(root, "README.md"), "utf8")).toBe(README);
    expect(await listing(root)).toEqual(before);

    const forced = await build("--force");
    expect({ code: forced.code, stderr: forced.stderr }).toEqual({ code: 0, stderr: "" });
    const card = await readFile(join(root, "README.md"), "utf8");
    expect(card.startsWith("---\ntags: [agentic-ptb, index]\n")).toBe(true);
    const marker = JSON.parse(await readFile(join(root, ".ptb-manifest-outputs.json"), "utf8"));
    expect(marker.tool).toBe("ptb-manifest");
    expect(Object.keys(marker.files)).toEqual([
      "README.md",
      "build-report.json",
      "datapackage.json",
      "manifest.csv",
      "manifest.json",
      "manifest.schema.json",
      "model-ids.txt",
      "provenance.jsonl",
      "report.html",
    ]);
    expect(marker.files["README.md"]).toEqual({
      sha256: createHash("sha256").update(card).digest("hex"),
      writer: "build",
    });

    const again = await build();
    expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: "" });
  });

  it("a file edited since the build wrote it is the user's: refused, naming it; the others are still ours", async () => {
    const sources = await makeMiniSweep();
    const out = `${sources}-out`;
    roots.push(sources, out);
    const build = (...extra: string[]) =>
      runCli("build", "--sources", sources, "--out", out, "--quiet", "--no-cache", ...extra);
    expect((await build()).code).toBe(0);
    await writeFile(join(out, "manifest.csv"), "my edits\n");
    await writeFile(join(out, "report.html"), "<p>mine</p>\n");
    expect(await build()).toEqual({
      code: 1,
      stdout: "",
      stderr: foreign(
        out,
        "manifest.csv (changed since ptb-manifest wrote it), report.html (changed since ptb-manifest wrote it)",
        2,
      ),
    });
    expect(await readFile(join(out, "manifest.csv"), "utf8")).toBe("my edits\n");
    // A marker this tool did not write is itself foreign.
    await writeFile(join(out, ".ptb-manifest-outputs.json"), "{}\n");
    const bad = await build();
    // Nothing is recorded then: every output there is foreign too.
    expect(bad.stderr).toBe(
      foreign(
        out,
        ".ptb-manifest-outputs.json (not a marker ptb-manifest wrote), manifest.json (not written by ptb-manifest), manifest.csv (not written by ptb-manifest), model-ids.txt (not written by ptb-manifest), provenance.jsonl (not written by ptb-manifest) and 5 more",
        10,
      ),
    );
    expect((await build("--force")).code).toBe(0);
    expect((await build()).code).toBe(0);
  });

  it("no marker: a file is replaced only when it already holds the bytes to write; a folder like an earlier version's says to rerun once with --force", async () => {
    const sources = await makeMiniSweep();
    const out = `${sources}-out`;
    roots.push(sources, out);
    const build = (...extra: string[]) =>
      runCli("build", "--sources", sources, "--out", out, "--quiet", "--no-cache", ...extra);
    expect((await build()).code).toBe(0);
    // An earlier version's folder holding exactly the outputs: nothing changes, so nothing is refused; the marker is written.
    await rm(join(out, ".ptb-manifest-outputs.json"));
    expect((await build()).code).toBe(0);
    expect((await stat(join(out, ".ptb-manifest-outputs.json"))).isFile()).toBe(true);
    // A build-report.json of ptb-manifest makes no other file ours (the trial's case: the user's manifest.json beside a copied report).
    const hint = (dir: string, n: number) =>
      `; ${dir} looks like the output folder of an earlier ptb-manifest version, which did not record which command wrote its files: if ${n === 1 ? "it is that version's output" : "they are that version's outputs"}, rerun once with --force (then they are recorded), else use another folder or move ${n === 1 ? "it" : "them"} away\n`;
    const d = `${sources}-d`;
    roots.push(d);
    await mkdir(d);
    await writeFile(join(d, "build-report.json"), await readFile(join(out, "build-report.json")));
    await writeFile(join(d, "manifest.json"), '[{"mine":true}]\n');
    const mine = await runCli("build", "--sources", sources, "--out", d, "--quiet", "--no-cache");
    expect(mine).toEqual({
      code: 1,
      stdout: "",
      stderr: `ptb-manifest: error OUT_FOREIGN_FILE at ${d}/manifest.json: --out ${d} holds 2 files that an output would replace but ptb-manifest did not write there: manifest.json (not written by ptb-manifest), build-report.json (not written by ptb-manifest); nothing written${hint(d, 2)}`,
    });
    expect(await readFile(join(d, "manifest.json"), "utf8")).toBe('[{"mine":true}]\n');
    // The same in the earlier version's folder itself: a README.md that is not the card.
    await rm(join(out, ".ptb-manifest-outputs.json"));
    await writeFile(join(out, "README.md"), README);
    expect(await build()).toEqual({
      code: 1,
      stdout: "",
      stderr: `ptb-manifest: error OUT_FOREIGN_FILE at ${out}/README.md: --out ${out} holds a file that an output would replace but ptb-manifest did not write there: README.md (not written by ptb-manifest); nothing written${hint(out, 1)}`,
    });
    expect(await readFile(join(out, "README.md"), "utf8")).toBe(README);
    // A marker of an earlier version (bare sha256, no writer) records no writer: the same rule and message.
    await writeFile(join(out, "README.md"), "changed\n");
    await writeFile(
      join(out, ".ptb-manifest-outputs.json"),
      JSON.stringify({
        tool: "ptb-manifest",
        files: { "README.md": createHash("sha256").update("# old card\n").digest("hex") },
      }),
    );
    const old = await build();
    expect(old.stderr).toBe(
      `ptb-manifest: error OUT_FOREIGN_FILE at ${out}/README.md: --out ${out} holds a file that an output would replace but ptb-manifest did not write there: README.md (recorded by an earlier ptb-manifest, which did not say which command wrote it); nothing written${hint(out, 1)}`,
    );
    expect((await build("--force")).code).toBe(0);
    expect((await build()).code).toBe(0);
  });

  it("a writer never replaces another writer's file, nor a file the run reads (OUT_IS_INPUT, even with --force)", async () => {
    const sources = await makeMiniSweep();
    const out = `${sources}-out`;
    roots.push(sources, out);
    expect((await runCli("build", "--sources", sources, "--out", out, "--quiet", "--no-cache")).code).toBe(0);
    const scores = join(out, "scores.csv");
    await writeFile(
      scores,
      lines("model_id,suite,score", "Qwen/Qwen3.5-9B-Base,mmlu,40", "agentic-ptb/alpha.h005.sft2.100,mmlu,42.5"),
    );
    const before = await listing(out);
    const cost = (...args: string[]) => runCli("cost", "--scores", scores, "--manifest", out, ...args);
    const isInput = (target: string, what: string) =>
      `ptb-manifest: error OUT_IS_INPUT at ${target}: --html ${target} is ${what}, which this run reads: an output never replaces an input, not even with --force; nothing written (write it elsewhere)\n`;
    for (const force of [[], ["--force"]]) {
      expect(await cost("--html", join(out, "manifest.json"), ...force)).toEqual({
        code: 1,
        stdout: "",
        stderr: isInput(join(out, "manifest.json"), `--manifest ${out}/manifest.json`),
      });
      expect(await cost("--html", scores, ...force)).toEqual({
        code: 1,
        stdout: "",
        stderr: isInput(scores, `--scores ${scores}`),
      });
      expect(await cost("--html", join(out, "provenance.jsonl"), ...force)).toEqual({
        code: 1,
        stdout: "",
        stderr: isInput(join(out, "provenance.jsonl"), `the provenance.jsonl beside --manifest ${out}`),
      });
    }
    const marker = await cost("--html", join(out, ".ptb-manifest-outputs.json"), "--force");
    expect(marker).toEqual({
      code: 1,
      stdout: "",
      stderr: `ptb-manifest: error OUT_IS_INPUT at ${out}/.ptb-manifest-outputs.json: --html ${out}/.ptb-manifest-outputs.json is the folder's marker, which ptb-manifest reads to know its files: an output never replaces it; nothing written (write it elsewhere)\n`,
    });
    // The build's index card is the build's, not cost's.
    expect(await cost("--html", join(out, "README.md"))).toEqual({
      code: 1,
      stdout: "",
      stderr: foreign(out, "README.md (written by ptb-manifest build, not by cost)").replace(
        `--out ${out}`,
        `--html ${out}`,
      ),
    });
    expect(await listing(out)).toEqual(before);
    // And a page cost wrote at a build output's name is not the build's to replace.
    const other = `${sources}-other`;
    roots.push(other);
    expect((await cost("--html", join(other, "report.html"))).code).toBe(0);
    expect(await runCli("build", "--sources", sources, "--out", other, "--quiet", "--no-cache")).toEqual({
      code: 1,
      stdout: "",
      stderr: foreign(other, "report.html (written by ptb-manifest cost, not by build)"),
    });
    // A build never writes into a folder it reads (--trajectory, --pvc), even with --force.
    const traj = join(other, "traj");
    await mkdir(traj);
    const inTraj = await runCli(
      "build",
      "--sources",
      sources,
      "--out",
      join(traj, "o"),
      "--trajectory",
      `alpha=${traj}`,
      "--quiet",
      "--no-cache",
      "--force",
    );
    expect(inTraj).toEqual({
      code: 1,
      stdout: "",
      stderr: `ptb-manifest: error OUT_IS_INPUT at ${join(traj, "o")}/manifest.json: --out ${join(traj, "o")}/manifest.json is inside --trajectory alpha=${traj}, which this run reads: an output never replaces an input, not even with --force; nothing written (write it elsewhere)\n`,
    });
  });

  it("cost --html: a foreign file is refused; its own cost.html, beside a build's outputs, is replaced; the marker keeps both", async () => {
    const sources = await makeMiniSweep();
    const out = `${sources}-out`;
    roots.push(sources, out);
    expect((await runCli("build", "--sources", sources, "--out", out, "--quiet", "--no-cache")).code).toBe(0);
    await writeFile(
      join(out, "scores.csv"),
      lines("model_id,suite,score", "Qwen/Qwen3.5-9B-Base,mmlu,40", "agentic-ptb/alpha.h005.sft2.100,mmlu,42.5"),
    );
    const cost = (...args: string[]) =>
      runCli("cost", "--scores", join(out, "scores.csv"), "--manifest", join(out, "manifest.json"), ...args);
    const mine = join(out, "mine.html");
    await writeFile(mine, "<p>my page</p>\n");
    const refused = await cost("--html", mine);
    expect(refused).toEqual({
      code: 1,
      stdout: "",
      stderr: foreign(out, "mine.html (not written by ptb-manifest)").replace(`--out ${out}`, `--html ${out}`),
    });
    expect(await readFile(mine, "utf8")).toBe("<p>my page</p>\n");
    expect((await cost()).code).toBe(0);
    expect((await cost()).code).toBe(0);
    const marker = JSON.parse(await readFile(join(out, ".ptb-manifest-outputs.json"), "utf8"));
    expect(Object.keys(marker.files)).toContain("cost.html");
    expect(Object.keys(marker.files)).toContain("manifest.json");
    // Without a marker, a cost.html that already holds the bytes to write is replaced (nothing changes).
    await rm(join(out, ".ptb-manifest-outputs.json"));
    expect((await cost()).code).toBe(0);
    expect((await cost("--html", mine, "--force")).code).toBe(0);
    expect(await readFile(mine, "utf8")).toContain("<title>AgentPTB: cost per point of gain</title>");
  });
});

describe("checkOutFolder, makeFolder, writeFilesAtomically", () => {
  it("checkOutFolder: an empty path is a usage error; the absolute path is returned; nothing is created", async () => {
    const root = await tempDir();
    expect(await thrown(() => checkOutFolder(""))).toEqual([
      "exit 64",
      "error: --out is empty: give a folder (. for the current one)",
    ]);
    expect(await checkOutFolder(join(root, "a", "b"))).toBe(join(root, "a", "b"));
    expect(await readdir(root)).toEqual([]);
    expect(await thrown(() => checkOutFolder(join(root, "x"), { sources: root }))).toEqual([
      "OUT_INSIDE_SOURCES",
      `--out ${root}/x is inside the sources folder ${root}: the outputs would mix with the inputs (the next build would read them); give a folder outside it; nothing written`,
    ]);
    // A folder whose name starts with the sources folder's is not inside it.
    expect(await checkOutFolder(`${root}-sibling`, { sources: root })).toBe(`${root}-sibling`);
    // A dangling link is no folder (it was OUT_UNWRITABLE "EEXIST" once mkdir met it).
    await symlink(join(root, "gone"), join(root, "link"));
    expect(await thrown(() => checkOutFolder(join(root, "link", "sub")))).toEqual([
      "OUT_NOT_A_FOLDER",
      `--out ${root}/link/sub: ${root}/link is a symbolic link whose target does not exist (a dangling link), not a folder; nothing written`,
    ]);
  });

  it("makeFolder creates the missing folders one by one and fails at once under /proc (a recursive mkdir never returns there)", async () => {
    const root = await tempDir();
    expect(await makeFolder(join(root, "a", "b"))).toEqual([join(root, "a"), join(root, "a", "b")]);
    expect(await makeFolder(join(root, "a", "b"))).toEqual([]);
    const proc = await thrown(() => makeFolder("/proc/self/x/y"));
    expect(proc?.[0]).toBe("OUT_UNWRITABLE");
    expect(proc?.[1]).toMatch(
      /^--out \/proc\/self\/x\/y cannot be written \(E[A-Z]+: .+mkdir '\/proc\/self\/x'\); nothing written$/,
    );
  }, 10_000);

  it("writeFilesAtomically: an error writing the temporary files is OUT_UNWRITABLE, and what it made is removed again", async () => {
    const root = await tempDir();
    const tooLong = "x".repeat(300); // a name no file system takes: open(2) fails with ENAMETOOLONG after out/new/ was made
    const err = await thrown(() =>
      writeFilesAtomically(
        join(root, "out", "new"),
        new Map([
          ["a.txt", "a"],
          [tooLong, "b"],
        ]),
        "--out",
        { writer: "build" },
      ),
    );
    expect(err?.[0]).toBe("OUT_UNWRITABLE");
    expect(err?.[1]).toMatch(
      new RegExp(`^--out ${root}/out/new cannot be written \\(ENAMETOOLONG: .+\\); nothing written$`),
    );
    expect(await readdir(root)).toEqual([]);
  });
});
