/**
 * Lines for the byte-level usage readers' tests: every line of the real
 * samples (none where the shared folder is not beside the project: the
 * tests then check generated lines only, and say so), and random edits of a
 * line for fuzzing.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import fc from "fast-check";
import { expect } from "vitest";
import { setTrajectoryFastPath } from "../../src/extractors/trajectory/common.js";
import { readTrajectory, type TrajectoryFormat } from "../../src/extractors/trajectory/index.js";

const SAMPLES = resolve(import.meta.dirname, "../../../shared/samples/trajectories");

/** Every file under `dir`, at any depth. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Every line of `files`, in order (a file's last newline gives an empty line). */
export function linesOf(files: string[]): string[] {
  return files.flatMap((f) => readFileSync(f, "utf8").split("\n"));
}

/** Every line of the real samples of `format`; none (with a note on stderr) where the samples are absent. */
export function sampleLines(format: string): string[] {
  if (!existsSync(SAMPLES)) {
    console.warn(
      `usage readers: the ${format} samples are not checked, ${SAMPLES} not found (the shared folder is not beside the project)`,
    );
    return [];
  }
  return linesOf(filesUnder(join(SAMPLES, format)));
}

/**
 * The least number of lines a reader's test must have taken: `withSamples`
 * where the real samples are beside the project (CI always), else
 * `generatedOnly` (what the generated lines alone give: a user's clone).
 */
export function takenAtLeast(withSamples: number, generatedOnly: number): number {
  return existsSync(SAMPLES) ? withSamples : generatedOnly;
}

/** Random edits of a line: a byte range removed, replaced or repeated, JSON-meaningful text inserted. */
export const fuzzEdits = fc.array(
  fc.record({
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    del: fc.nat({ max: 6 }),
    ins: fc.oneof(
      fc.constantFrom(
        "",
        "{",
        "}",
        "[",
        "]",
        '"',
        ":",
        ",",
        "\\",
        "\\u00",
        " ",
        "\t",
        "\u0000",
        "\u0001",
        "0",
        "-",
        ".5",
        "e9",
        "1",
        "null",
        "true",
        "é",
        '"x":1,',
        '"input_tokens":5,',
        '"total_tokens":0,',
        '"type":"x",',
        '"info":null,',
        '"time":1,',
        '"usage":{},',
        '"id":"x",',
        '"role":"user",',
        '"type":"assistant",',
        '"isApiErrorMessage":true,',
        '"model":"<synthetic>",',
        '"timestamp":1,',
        '"message_id":null,',
        '"cost":{},',
        '"totalTokens":1,',
        '"cache_creation":{},',
        '"output":7,',
      ),
      fc.string({ maxLength: 4 }),
    ),
    dup: fc.boolean(),
  }),
  { minLength: 1, maxLength: 3 },
);

/**
 * Fuzzes `bases` with {@link fuzzEdits}, `runs` times (seed 14): `check` checks one edited line
 * against `JSON.parse` and says whether the reader took it. Fails unless the fuzz reached more than
 * 200 lines the reader takes, not only lines it gives up on.
 */
export function fuzzReader(bases: readonly string[], check: (line: string) => boolean, runs: number): void {
  let taken = 0;
  fc.assert(
    fc.property(fc.constantFrom(...bases), fuzzEdits, (base, edits) => {
      if (check(applyEdits(base, edits))) taken += 1;
    }),
    { numRuns: runs, seed: 14 },
  );
  expect(taken).toBeGreaterThan(200);
}

export function applyEdits(line: string, edits: { at: number; del: number; ins: string; dup: boolean }[]): string {
  let s = line;
  for (const e of edits) {
    const p = Math.floor(e.at * s.length);
    const ins = e.dup ? s.slice(p, p + e.del) + s.slice(p, p + e.del) : e.ins;
    s = s.slice(0, p) + ins + s.slice(p + e.del);
  }
  return s;
}

/** Values that break a line's JSON where no usage reader reads: each must get `TRAJECTORY_BAD_JSON`. */
const DAMAGED = ['{"a":1,}', '{"a":"\u0001"}', '{"a":"\\x"}', "[1 2]", '{"a":01}', '{"a":tru}', '{"a":1.}'];

/**
 * Writes `file` under `dir`: `head`, then usage lines made by `line(k, tail)`
 * with `tail` a value the readers skip — line 2 plain, lines 3–9 each broken
 * by one of {@link DAMAGED}, line 10 plain with every kind of JSON value —
 * and checks that the fast path reads it as the slow path does: lines 3–9
 * warned `TRAJECTORY_BAD_JSON` and dropped, lines 2 and 10 counted.
 */
export async function expectDamagedAsSlow(
  format: TrajectoryFormat,
  dir: string,
  file: string,
  head: string,
  line: (k: number, tail: string) => string,
): Promise<void> {
  const lines = [head, line(1, "{}")];
  DAMAGED.forEach((d, k) => lines.push(line(k + 2, d)));
  lines.push(line(9, '{"ok":[true,false,null,-1.5e3,"\\u00e9\\n"]}'));
  mkdirSync(join(dir, file, ".."), { recursive: true });
  writeFileSync(join(dir, file), `${lines.join("\n")}\n`);
  setTrajectoryFastPath(false);
  const slow = await readTrajectory(format, [dir]);
  setTrajectoryFastPath(true);
  const fast = await readTrajectory(format, [dir]);
  expect(fast).toEqual(slow);
  expect(fast.warnings.filter((w) => w.code === "TRAJECTORY_BAD_JSON").map((w) => w.line)).toEqual([
    3, 4, 5, 6, 7, 8, 9,
  ]);
  expect(fast.calls.map((c) => c.line)).toEqual([2, 10]);
}
