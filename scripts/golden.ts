/**
 * Captures every output the CLI gives on the embedded `sources/` (the build's
 * files, its terminal text, `explain` of every row, `validate`, `diff`, `cost`
 * on the README's example, `tokens` of every cell, each command's `--help`)
 * into one folder, so that a restructuring can show it changed no byte:
 *
 *   npm run build && npx tsx scripts/golden.ts --write /tmp/golden-before
 *   ... change the code ...
 *   npm run build && npx tsx scripts/golden.ts --check /tmp/golden-before
 *
 * `--check` captures again into a temporary folder and lists every capture
 * that differs, is missing or is new (exit 1), or says "identical" (exit 0).
 * Paths of the temporary output folder and of the clone are written as
 * `<OUT>` and `<REPO>`, so two captures from different folders compare.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const bin = join(repo, "bin", "ptb-manifest.js");

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: repo, env: { ...process.env, ...env, NO_COLOR: "1", COLUMNS: "100" }, maxBuffer: 1 << 28 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

async function pool<T>(items: T[], width: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await each(items[next++]!);
    }),
  );
}

/** Captures into `dest` (created); returns the number of captures. */
async function capture(dest: string): Promise<number> {
  const work = mkdtempSync(join(tmpdir(), "ptb-golden-"));
  const out = join(work, "out");
  const home = join(work, "home");
  mkdirSync(home);
  const env = { HOME: home, XDG_CACHE_HOME: join(home, ".cache"), HF_TOKEN: "", TZ: "UTC" };
  const norm = (s: string) => s.split(out).join("<OUT>").split(work).join("<WORK>").split(repo).join("<REPO>");
  mkdirSync(dest, { recursive: true });
  let n = 0;
  const save = (name: string, r: Run) => {
    writeFileSync(join(dest, name), `exit ${r.code}\n--- stdout\n${norm(r.stdout)}--- stderr\n${norm(r.stderr)}`);
    n++;
  };

  save("build.txt", await run(["build", "--out", out], env));
  for (const f of readdirSync(out).sort()) {
    if (!statSync(join(out, f)).isFile()) continue;
    writeFileSync(join(dest, `out.${f}`), norm(readFileSync(join(out, f), "utf8")));
    n++;
  }
  save("build-again.txt", await run(["build", "--out", out], env));

  const ids: string[] = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")).map(
    (r: { model_id: string }) => r.model_id,
  );
  const jobs: Array<[string, string[]]> = [];
  for (const id of ids) {
    const name = id.replace(/^.*\//, "");
    jobs.push([`explain.${name}.txt`, ["explain", id, "--out", out]]);
    jobs.push([`explain.${name}.json.txt`, ["explain", id, "--out", out, "--json"]]);
  }
  jobs.push(["explain.unknown.txt", ["explain", "agentic-ptb/nope.h001.sft.1", "--out", out]]);
  jobs.push(["validate.txt", ["validate", "--out", out]]);
  jobs.push(["validate.json.txt", ["validate", "--out", out, "--json"]]);
  jobs.push(["diff.sources-out.txt", ["diff", "sources", out]]);
  jobs.push(["diff.sources-out.json.txt", ["diff", "sources", out, "--json"]]);
  jobs.push(["diff.out-csv.txt", ["diff", out, join(out, "manifest.csv")]]);
  const scores = ["--scores", "docs/example-scores.csv", "--manifest", join(out, "manifest.json")];
  jobs.push(["cost.txt", ["cost", ...scores, "--html", join(work, "cost.html")]]);
  jobs.push(["cost.json.txt", ["cost", ...scores, "--json", "--html", join(work, "cost2.html")]]);
  jobs.push(["cost.csv.txt", ["cost", ...scores, "--csv", "--include-eos-broken", "--html", join(work, "cost3.html")]]);
  const cells: string[] = JSON.parse(readFileSync(join(repo, "sources", "cells.json"), "utf8")).cells.map(
    (c: { cell: string }) => c.cell,
  );
  for (const cell of cells) jobs.push([`tokens.${cell}.txt`, ["tokens", "--cell", cell, "--hour", "50", "--json"]]);
  for (const cmd of [
    "",
    "build",
    "explain",
    "validate",
    "diff",
    "cost",
    "tokens",
    "publish",
    "snapshot-pvc",
    "snapshot-hub",
  ]) {
    jobs.push([`help.${cmd || "main"}.txt`, [...(cmd ? [cmd] : []), "--help"]]);
  }
  jobs.push(["usage.bad-flag.txt", ["build", "--nope"]]);
  jobs.push(["usage.bad-command.txt", ["nope"]]);
  await pool(jobs, 4, async ([name, args]) => save(name, await run(args, env)));
  for (const f of ["cost.html", "cost2.html", "cost3.html"]) {
    writeFileSync(join(dest, `file.${f}`), norm(readFileSync(join(work, f), "utf8")));
    n++;
  }
  rmSync(work, { recursive: true, force: true });
  return n;
}

/**
 * A capture as compared: the output marker's sha256 of each file is replaced
 * by the sha256 of that file's capture (paths masked), since a raw hash covers
 * the temporary output folder's path that `build-report.json` records.
 */
function comparable(dir: string, name: string): string {
  const text = readFileSync(join(dir, name), "utf8");
  if (name !== "out..ptb-manifest-outputs.json") return text;
  const marker = JSON.parse(text) as { files: Record<string, { sha256: string }> };
  for (const [file, entry] of Object.entries(marker.files)) {
    const captured = join(dir, `out.${file}`);
    entry.sha256 = existsSync(captured) ? createHash("sha256").update(readFileSync(captured)).digest("hex") : "missing";
  }
  return JSON.stringify(marker, null, 2);
}

async function mainScript(): Promise<number> {
  const [mode, dir] = process.argv.slice(2);
  if (mode === "--write" && dir) {
    rmSync(dir, { recursive: true, force: true });
    console.log(`${await capture(resolve(dir))} captures written to ${dir}`);
    return 0;
  }
  if (mode === "--check" && dir) {
    const now = mkdtempSync(join(tmpdir(), "ptb-golden-now-"));
    await capture(now);
    const before = new Set(readdirSync(dir));
    const after = new Set(readdirSync(now));
    const diffs: string[] = [];
    for (const f of before) {
      if (!after.has(f)) diffs.push(`missing now: ${f}`);
      else if (comparable(dir, f) !== comparable(now, f))
        diffs.push(`differs: ${f}  (diff ${join(dir, f)} ${join(now, f)})`);
    }
    for (const f of after) if (!before.has(f)) diffs.push(`new: ${f}`);
    if (diffs.length === 0) {
      console.log(`identical: ${before.size} captures`);
      rmSync(now, { recursive: true, force: true });
      return 0;
    }
    console.log(diffs.join("\n"));
    return 1;
  }
  console.error("usage: tsx scripts/golden.ts --write DIR | --check DIR");
  return 64;
}

mainScript().then((code) => {
  process.exitCode = code;
});
