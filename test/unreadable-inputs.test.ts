import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { chmod, cp, mkdir, mkdtemp, readFile, rename, rm, symlink } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Row } from "../src/schema.js";
import { lines, removeTree } from "./helpers/tree.js";
import { makeMiniSweep } from "./helpers/mini-sweep.js";
import { buildDist } from "./helpers/build-dist.js";

/**
 * Inputs that cannot be read (README: "Warnings and errors"; DESIGN.md:
 * Trust): the real CLI (`node bin/ptb-manifest.js`, after a fresh compile of
 * dist/) on a sources folder with one file or folder made unreadable. Every
 * case exits with a stable code naming the file, never 70 ("this is a bug").
 *
 * `chmod 000` stops no read by root, and CI runs as root: those cases run the
 * CLI as the unprivileged user 65534 (`setpriv`), and are skipped, saying
 * why, when the test is not root or setpriv is absent, or when that user
 * cannot read the repository (node must load dist/). The file-type faults
 * (a folder where a file belongs, a link loop) need no privilege and always run.
 */

const REPO = join(import.meta.dirname, "..");
const bin = join(REPO, "bin", "ptb-manifest.js");
const NOBODY = "65534";
const roots: string[] = [];

beforeAll(() => {
  buildDist();
}, 120_000);
afterAll(async () => Promise.all(roots.map(removeTree)));

const setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p));
/** Why the unprivileged cases cannot run here, or null when they can. */
function whyNoUnprivileged(): string | null {
  if (process.getuid?.() !== 0) return "not root: cannot switch to an unprivileged user";
  if (!setpriv) return "setpriv (util-linux) is absent";
  const probe = spawnSync(
    setpriv,
    ["--reuid", NOBODY, "--regid", NOBODY, "--clear-groups", process.execPath, bin, "--version"],
    { encoding: "utf8" },
  );
  if (probe.status !== 0)
    return `user ${NOBODY} cannot run the CLI from ${REPO} (is the repository readable by others?): ${probe.stderr.split("\n")[0]}`;
  return null;
}
const skipReason = whyNoUnprivileged();
if (skipReason) console.warn(`unreadable-inputs: unprivileged cases skipped: ${skipReason}`);

// CI runs as root with setpriv (and .ci/run makes the clone reachable by other users): a skip there would hide the cases.
it.runIf(process.env.CI === "true")("CI can run the CLI as an unprivileged user", () => {
  expect(skipReason).toBeNull();
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI, as user 65534 when `unprivileged`. */
function run(args: string[], unprivileged: boolean, cwd: string): Run {
  const cmd = unprivileged ? setpriv! : process.execPath;
  const argv = unprivileged
    ? ["--reuid", NOBODY, "--regid", NOBODY, "--clear-groups", process.execPath, bin, ...args]
    : [bin, ...args];
  const r = spawnSync(cmd, argv, { cwd, encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: cwd } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The mini sweep with a rotated janitor part, in a temp folder every user can read and write. */
async function sweep(): Promise<{ root: string; sources: string; out: string }> {
  const sources = await makeMiniSweep({
    "alpha/janitor/ckpt-janitor.log.1": lines("2026-10-01 00:00:01 ckpt-janitor starting"),
  });
  roots.push(sources);
  const root = await mkdtemp(join(tmpdir(), "ptb-unreadable-"));
  roots.push(root);
  await cp(sources, join(root, "sources"), { recursive: true });
  await mkdir(join(root, "out"));
  execFileSync("chmod", ["-R", "a+rwX", root]);
  return { root, sources: join(root, "sources"), out: join(root, "out") };
}

interface Report {
  warnings: { code: string; file: string | null; line: number | null; message: string }[];
  inputs: Record<string, string>;
}

async function outputs(out: string): Promise<{ report: Report; rows: Row[] }> {
  return {
    report: JSON.parse(await readFile(join(out, "build-report.json"), "utf8")) as Report,
    rows: JSON.parse(await readFile(join(out, "manifest.json"), "utf8")) as Row[],
  };
}

/** Builds the sweep with `path` (relative to the sources) at mode 000, as user 65534. */
async function buildWithUnreadable(path: string): Promise<Run & { out: string; sources: string; root: string }> {
  const s = await sweep();
  await chmod(join(s.sources, path), 0o000);
  try {
    return { ...run(["build", "--sources", s.sources, "--out", s.out, "-q", "--no-cache"], true, s.root), ...s };
  } finally {
    await chmod(join(s.sources, path), 0o755); // so that the temp folder can be removed and inspected
  }
}

const codes = (r: Report): string[] => r.warnings.map((w) => w.code);
const alphaTokens = (rows: Row[]): (number | null)[] =>
  rows.filter((r) => r.cell === "alpha").map((r) => r.driver_tokens_at_hour);

describe.skipIf(skipReason !== null)("an unreadable input, as an unprivileged user", () => {
  const fatal: [string, string, string][] = [
    ["cells.json", "CELLS_UNREADABLE", "cells.json"],
    ["alpha/supervisor/history.jsonl", "SUPERVISOR_UNREADABLE", "alpha/supervisor/history.jsonl"],
    ["alpha/pvc/listing.tsv", "PVC_LISTING_UNREADABLE", "alpha/pvc/listing.tsv"],
    ["alpha/pvc", "PVC_LISTING_UNREADABLE", "alpha/pvc/listing.tsv"],
    ["hub/agentic-ptb", "HUB_FOLDER_UNREADABLE", "hub/agentic-ptb"],
  ];
  for (const [path, code, file] of fatal) {
    it(`${path}: fatal ${code}, exit 1, nothing written`, async () => {
      const r = await buildWithUnreadable(path);
      expect(r.stderr).toBe(
        `ptb-manifest: error ${code} at ${file}: cannot ${code === "HUB_FOLDER_UNREADABLE" ? "list" : "read"} ${file}: permission denied (EACCES)\n`,
      );
      expect(r.code).toBe(1);
      expect(existsSync(join(r.out, "manifest.json"))).toBe(false);
    }, 60_000);
  }

  it("a sources folder inside a folder that cannot be entered: SOURCES_UNREADABLE, exit 1", async () => {
    const s = await sweep();
    const locked = join(s.root, "locked");
    await mkdir(locked);
    await cp(s.sources, join(locked, "sources"), { recursive: true });
    await chmod(locked, 0o000);
    try {
      const r = run(["build", "--sources", join(locked, "sources"), "--out", s.out, "-q", "--no-cache"], true, s.root);
      expect(r.stderr).toBe(
        `ptb-manifest: error SOURCES_UNREADABLE at ${join(locked, "sources")}: cannot read the sources folder ${join(locked, "sources")}: permission denied (EACCES)\n`,
      );
      expect(r.code).toBe(1);
    } finally {
      await chmod(locked, 0o755);
    }
  }, 60_000);

  it("a trajectory session file: TRAJECTORY_READ_ERROR, and every token value of the cell is null (not a smaller count)", async () => {
    const path = "alpha/trajectory/sessions/2026/10/01/rollout-2026-10-01T00-00-00-0000.jsonl";
    const r = await buildWithUnreadable(path);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const { report, rows } = await outputs(r.out);
    expect(report.warnings.filter((w) => w.code === "TRAJECTORY_READ_ERROR")).toEqual([
      {
        code: "TRAJECTORY_READ_ERROR",
        file: path,
        line: null,
        message: "could not read the file: permission denied (EACCES)",
      },
    ]);
    expect(alphaTokens(rows).every((t) => t === null)).toBe(true);
    // beta's trajectory/ is empty in the mini sweep: unknown (null) either way.
    expect(rows.filter((r) => r.cell === "beta").map((r) => r.driver_tokens_at_hour)).toEqual([null, null]);
    expect(report.inputs[path]).toBe("unreadable (EACCES)");
    expect(codes(report)).not.toContain("INPUT_UNREADABLE");
  }, 60_000);

  it("a folder inside trajectory/: TRAJECTORY_READ_ERROR naming it, tokens of the cell null", async () => {
    const r = await buildWithUnreadable("alpha/trajectory/sessions/2026");
    expect(r.code).toBe(0);
    const { report, rows } = await outputs(r.out);
    const w = report.warnings.filter((x) => x.code === "TRAJECTORY_READ_ERROR");
    expect(w.map((x) => [x.file, x.line])).toEqual([["alpha/trajectory/sessions/2026", null]]);
    expect(w[0]!.message).toContain("permission denied (EACCES)");
    expect(alphaTokens(rows).every((t) => t === null)).toBe(true);
    expect(report.inputs["alpha/trajectory/sessions/2026/"]).toBe("unreadable (EACCES)");
  }, 60_000);

  const partial: [string, string, string][] = [
    ["alpha/janitor/ckpt-janitor.log.1", "JANITOR_UNREADABLE", "alpha/janitor/ckpt-janitor.log.1"],
    ["alpha/janitor", "JANITOR_UNREADABLE", "alpha/janitor"],
    ["alpha/anchors.tsv", "ANCHOR_UNREADABLE", "alpha/anchors.tsv"],
    [
      "hub/agentic-ptb/alpha.h012.sft2.200/config.json",
      "HUB_UNREADABLE",
      "hub/agentic-ptb/alpha.h012.sft2.200/config.json",
    ],
    ["hub/agentic-ptb/alpha.h012.sft2.200", "HUB_UNREADABLE", "hub/agentic-ptb/alpha.h012.sft2.200"],
    ["alpha/RUNLOG.md", "INPUT_UNREADABLE", "alpha/RUNLOG.md"],
  ];
  for (const [path, code, file] of partial) {
    it(`${path}: warning ${code} naming it, exit 0`, async () => {
      const r = await buildWithUnreadable(path);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const { report, rows } = await outputs(r.out);
      const w = report.warnings.filter((x) => x.code === code);
      expect(w.map((x) => [x.file, x.line])).toEqual([[file, null]]);
      expect(w[0]!.message).toContain("permission denied (EACCES)");
      // Only the unreadable input's own code: no INPUT_UNREADABLE on top of an extractor's warning.
      expect(codes(report).filter((c) => /UNREADABLE|READ_ERROR/.test(c))).toEqual([code]);
      if (code === "HUB_UNREADABLE") {
        // The row whose stop ids that repo gives: unknown, never read from a lower-priority file.
        const row = rows.find((x) => x.model_id === "agentic-ptb/alpha.h012.sft2.200")!;
        expect([row.eos_ok, row.eos_token_id]).toEqual([null, null]);
        expect(codes(report)).toContain("HUB_NO_EOS");
      }
      if (code === "JANITOR_UNREADABLE" && path === "alpha/janitor")
        expect(codes(report)).not.toContain("JANITOR_MISSING");
    }, 60_000);
  }

  it("an output marker that cannot be read: FILE_ERROR naming it, not 'someone else's marker' (which points to --force)", async () => {
    const s = await sweep();
    expect(run(["build", "--sources", s.sources, "--out", s.out, "-q", "--no-cache"], false, s.root).code).toBe(0);
    execFileSync("chmod", ["-R", "a+rwX", s.out]);
    await chmod(join(s.out, ".ptb-manifest-outputs.json"), 0o000);
    try {
      const r = run(["build", "--sources", s.sources, "--out", s.out, "-q", "--no-cache"], true, s.root);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /^ptb-manifest: error FILE_ERROR at .*\.ptb-manifest-outputs\.json: cannot read the output marker .*permission denied \(EACCES\)\n$/,
      );
    } finally {
      await chmod(join(s.out, ".ptb-manifest-outputs.json"), 0o644);
    }
  }, 120_000);

  it("the other commands: tokens warns and exits 0, diff, explain, validate and cost give codes, never 70", async () => {
    const s = await sweep();
    const ok = run(["build", "--sources", s.sources, "--out", s.out, "-q", "--no-cache"], false, s.root);
    expect(ok.code).toBe(0);
    execFileSync("chmod", ["-R", "a+rwX", s.out]);
    const session = join(s.sources, "alpha/trajectory/sessions/2026/10/01/rollout-2026-10-01T00-00-00-0000.jsonl");
    await chmod(session, 0o000);
    await chmod(join(s.out, "manifest.json"), 0o000);
    try {
      // The files read give only a floor of the run's count: null, as the build writes, never the smaller number.
      const tokens = run(["tokens", "--format", "codex", join(s.sources, "alpha/trajectory")], true, s.root);
      expect(tokens.code).toBe(0);
      expect(tokens.stderr).toContain("TRAJECTORY_READ_ERROR");
      expect(tokens.stdout).toMatch(/^total {11}null \(unknown\)\ncalls {11}null \(unknown\)\nlast call time {2}-$/m);
      const json = run(["tokens", "--format", "codex", join(s.sources, "alpha/trajectory"), "--json"], true, s.root);
      expect(JSON.parse(json.stdout)).toMatchObject({
        uncached_input: null,
        total: null,
        calls: null,
        last_call_time: null,
      });
      const diff = run(["diff", join(s.out, "manifest.json"), join(s.out, "manifest.csv")], true, s.root);
      expect(diff.code).toBe(2); // diff(1)'s "trouble": a side cannot be read
      expect(diff.stderr).toMatch(
        /^ptb-manifest: error DIFF_INPUT at .*manifest\.json: cannot read .*: permission denied \(EACCES\)\n$/,
      );
      // explain of the build in --out, whose manifest.json cannot be read: a coded error.
      const described = run(
        ["explain", "agentic-ptb/alpha.h005.sft2.100", "--sources", s.sources, "--out", s.out],
        true,
        s.root,
      );
      expect(described.stderr).toMatch(/error OUT_BUILD_UNREADABLE at .*manifest\.json/);
      expect(described.code).toBe(1);
      // explain with no build in --out derives now: the unreadable session file makes the tokens unknown.
      const explain = run(
        ["explain", "agentic-ptb/alpha.h005.sft2.100", "--sources", s.sources, "--out", join(s.root, "no-build")],
        true,
        s.root,
      );
      expect(explain.stderr).not.toContain("internal error");
      expect(explain.stdout).toMatch(
        /Driver tokens: null \(unknown\), after the build's warning\(s\) on the cell's trajectory:\n {2}TRAJECTORY_READ_ERROR at alpha\/trajectory\/sessions\/2026\/10\/01\/rollout-2026-10-01T00-00-00-0000\.jsonl: /,
      );
      const validate = run(["validate", "--sources", s.sources, "--out", join(s.root, "no-build")], true, s.root);
      expect(validate.stderr).not.toContain("internal error");
      expect(validate.code).toBe(0);
      const cost = run(
        ["cost", "--scores", join(s.out, "manifest.csv"), "--manifest", join(s.out, "manifest.json")],
        true,
        s.root,
      );
      expect(cost.stderr).toContain(`error COST_BAD_MANIFEST at ${join(s.out, "manifest.json")}: `);
      expect(cost.stderr).toContain("permission denied");
      expect(cost.code).toBe(1);
    } finally {
      await chmod(session, 0o644);
      await chmod(join(s.out, "manifest.json"), 0o644);
    }
  }, 120_000);
});

describe("a wrong kind of file where an input belongs (no privilege needed)", () => {
  it("cells.json that is a folder: CELLS_UNREADABLE", async () => {
    const s = await sweep();
    await removeTree(join(s.sources, "cells.json"));
    await mkdir(join(s.sources, "cells.json"));
    const r = run(["build", "--sources", s.sources, "--out", s.out, "-q", "--no-cache"], false, s.root);
    expect(r.stderr).toBe(
      "ptb-manifest: error CELLS_UNREADABLE at cells.json: cannot read cells.json: it is a folder, not a file (EISDIR)\n",
    );
    expect(r.code).toBe(1);
  }, 60_000);

  it("a dangling link is an input that cannot be read, never an absent one; a link to a file is hashed as its target", async () => {
    const s = await sweep();
    const at = (p: string) => join(s.sources, p);
    await rename(at("alpha/anchors.tsv"), at("alpha/anchors.real.tsv"));
    await symlink("anchors.gone.tsv", at("alpha/anchors.tsv"));
    await rename(at("alpha/RUNLOG.md"), at("alpha/RUNLOG.real.md"));
    await symlink("RUNLOG.real.md", at("alpha/RUNLOG.md"));
    await symlink("NOTES.gone.md", at("alpha/NOTES.md"));
    const r = run(["build", "--sources", s.sources, "--out", s.out, "-q", "--no-cache"], false, s.root);
    expect(r.code).toBe(0);
    const { report } = await outputs(s.out);
    const dangling = "a symbolic link whose target does not exist (a dangling link) (ENOENT)";
    expect(report.warnings.filter((w) => /UNREADABLE/.test(w.code)).map((w) => [w.code, w.file, w.message])).toEqual([
      [
        "ANCHOR_UNREADABLE",
        "alpha/anchors.tsv",
        `cannot read alpha/anchors.tsv: ${dangling}; none of its anchors is used (anchors only validate hours)`,
      ],
      [
        "INPUT_UNREADABLE",
        "alpha/NOTES.md",
        `cannot read alpha/NOTES.md: ${dangling}; build-report.json has no hash of it`,
      ],
    ]);
    expect(report.inputs["alpha/anchors.tsv"]).toBe("unreadable (ENOENT)");
    expect(report.inputs["alpha/RUNLOG.md"]).toBe(report.inputs["alpha/RUNLOG.real.md"]);
    expect(report.inputs["alpha/RUNLOG.md"]).toMatch(/^[0-9a-f]{64}$/);
    // A dangling supervisor history is unreadable (fatal), not "missing".
    await rm(at("alpha/supervisor/history.jsonl"));
    await symlink("history.gone.jsonl", at("alpha/supervisor/history.jsonl"));
    const fatal = run(["build", "--sources", s.sources, "--out", s.out, "-q", "--no-cache"], false, s.root);
    expect(fatal.stderr).toBe(
      `ptb-manifest: error SUPERVISOR_UNREADABLE at alpha/supervisor/history.jsonl: cannot read alpha/supervisor/history.jsonl: ${dangling}\n`,
    );
    expect(fatal.code).toBe(1);
  }, 60_000);

  it("a session file that is a link loop: TRAJECTORY_READ_ERROR (ELOOP), tokens of the cell null", async () => {
    const s = await sweep();
    await symlink("loop.jsonl", join(s.sources, "alpha/trajectory/loop.jsonl"));
    const r = run(["build", "--sources", s.sources, "--out", s.out, "-q", "--no-cache"], false, s.root);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const { report, rows } = await outputs(s.out);
    const w = report.warnings.filter((x) => x.code === "TRAJECTORY_READ_ERROR");
    expect(w.map((x) => x.file)).toEqual(["alpha/trajectory/loop.jsonl"]);
    expect(w[0]!.message).toContain("(ELOOP)");
    expect(alphaTokens(rows).every((t) => t === null)).toBe(true);
  }, 60_000);
});
