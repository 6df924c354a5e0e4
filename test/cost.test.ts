import { describe, expect, it, beforeAll, afterAll } from "vitest";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { makeMiniSweep } from "./helpers/mini-sweep.js";
import { removeTree, lines } from "./helpers/tree.js";
import { runCli } from "./helpers/cli.js";

describe("cost per point of gain", () => {
  let dir: string;
  let out: string;
  beforeAll(async () => {
    dir = await makeMiniSweep();
    out = `${dir}-out`;
    expect((await runCli("build", "--sources", dir, "--out", out, "--quiet")).code).toBe(0);
    await writeFile(
      join(out, "scores.csv"),
      lines(
        "model_id,suite,score",
        "Qwen/Qwen3.5-9B-Base,mmlu,40",
        "agentic-ptb/alpha.h005.sft2.100,mmlu,42.5",
        "agentic-ptb/alpha.h010.sft2.300,mmlu,51",
        "agentic-ptb/alpha.h012.sft2.200,mmlu,45",
        "agentic-ptb/alpha.hNA.sft3.20,mmlu,44",
        "agentic-ptb/alpha.h022.sft3.10,mmlu,39",
        "agentic-ptb/nobody.h001.x.1,mmlu,50",
        "Qwen/Qwen3.5-9B-Base,gsm,20",
        "agentic-ptb/alpha.h005.sft2.100,gsm,19",
      ),
    );
  });
  afterAll(async () => {
    await removeTree(dir);
    await removeTree(out);
  });

  it("computes every figure exactly, maps a stale Hub id, leaves eos-broken rows out with the reason", async () => {
    const r = await runCli(
      "cost",
      "--scores",
      join(out, "scores.csv"),
      "--manifest",
      join(out, "manifest.json"),
      "--json",
    );
    expect(r.code).toBe(0);
    const x = JSON.parse(r.stdout);
    expect(x.suites).toEqual([
      { suite: "gsm", baseline_score: 20 },
      { suite: "mmlu", baseline_score: 40 },
    ]);
    expect(
      x.rows.map((c: any) => [
        c.suite,
        c.model_id,
        c.scored_as,
        c.gain,
        c.driver_tokens_at_hour,
        c.cost_per_point,
        c.note,
      ]),
    ).toEqual([
      ["gsm", "agentic-ptb/alpha.h005.sft2.100", null, -1, 1107, null, "no gain over the baseline: no cost"],
      ["mmlu", "agentic-ptb/alpha.h005.sft2.100", null, 2.5, 1107, 442.8, null],
      ["mmlu", "agentic-ptb/alpha.h017.sft2.300", "agentic-ptb/alpha.h010.sft2.300", 11, 3322, 302, null],
      ["mmlu", "agentic-ptb/alpha.hNA.sft3.20", null, 4, null, null, "hour unrecoverable: no token count"],
    ]);
    expect(x.excluded.map((c: any) => [c.model_id, c.eos_ok, c.reason.split(":")[0]])).toEqual([
      ["agentic-ptb/alpha.h012.sft2.200", false, "eos_ok false"],
      ["agentic-ptb/alpha.h022.sft3.10", null, "eos_ok null"],
    ]);
    expect(x.unmatched).toEqual([
      { model_id: "agentic-ptb/nobody.h001.x.1", suite: "mmlu", at: `${join(out, "scores.csv")}:8` },
    ]);
    const html = await readFile(join(out, "cost.html"), "utf8");
    expect(html.match(/<section class="suite" data-suite=/g)).toHaveLength(2);
    // Per suite: score against hour, score against driver tokens, cost per point against hour.
    expect(html.match(/<svg /g)).toHaveLength(6);
  });

  it("--include-eos-broken keeps them, marked; --suite restricts; --csv prints the figures", async () => {
    const r = await runCli(
      "cost",
      "--scores",
      join(out, "scores.csv"),
      "--manifest",
      join(out, "manifest.json"),
      "--json",
      "--include-eos-broken",
      "--suite",
      "mmlu",
    );
    const x = JSON.parse(r.stdout);
    expect(x.excluded).toEqual([]);
    expect(x.rows.map((c: any) => [c.model_id, c.cost_per_point])).toEqual([
      ["agentic-ptb/alpha.h005.sft2.100", 442.8],
      ["agentic-ptb/alpha.h012.sft2.200", 663.2],
      ["agentic-ptb/alpha.h017.sft2.300", 302],
      ["agentic-ptb/alpha.h022.sft3.10", null],
      ["agentic-ptb/alpha.hNA.sft3.20", null],
    ]);
    expect(x.rows[1].note).toMatch(/^eos_ok false/);
    const csv = await runCli(
      "cost",
      "--scores",
      join(out, "scores.csv"),
      "--manifest",
      join(out, "manifest.json"),
      "--csv",
      "--suite",
      "mmlu",
    );
    expect(csv.stdout.split("\n").slice(0, 2)).toEqual([
      "model_id,scored_as,cell,role,hour,suite,score,baseline_score,gain,driver_tokens_at_hour,cost_per_point,eos_ok,note",
      "agentic-ptb/alpha.h005.sft2.100,,alpha,fallback,5,mmlu,42.5,40,2.5,1107,442.8,true,",
    ]);
  });

  it("an unknown --suite is COST_UNKNOWN_SUITE listing the suites, and cost.html is left as it was", async () => {
    const cost = (...args: string[]) =>
      runCli("cost", "--scores", join(out, "scores.csv"), "--manifest", join(out, "manifest.json"), ...args);
    expect((await cost()).code).toBe(0);
    const before = await readFile(join(out, "cost.html"));
    expect(await cost("--suite", "arc")).toEqual({
      code: 1,
      stdout: "",
      stderr: `ptb-manifest: error COST_UNKNOWN_SUITE at ${join(out, "scores.csv")}: --suite "arc": no score is on that suite; the scores file has "gsm", "mmlu"\n`,
    });
    expect((await readFile(join(out, "cost.html"))).equals(before)).toBe(true);
  });

  it("says on stderr what it wrote and what the figures leave out (also under --csv)", async () => {
    const r = await runCli(
      "cost",
      "--scores",
      join(out, "scores.csv"),
      "--manifest",
      join(out, "manifest.json"),
      "--csv",
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `ptb-manifest: warning COST_UNMATCHED_SCORE at ${join(out, "scores.csv")}:8: 1 score(s) name a model id with no row of ${join(out, "manifest.json")} (the first: agentic-ptb/nobody.h001.x.1); they are not in the figures\n` +
        "ptb-manifest: 2 score(s) left out for broken or unknown packaging (eos_ok false or null; --include-eos-broken keeps them)\n" +
        `ptb-manifest: wrote ${join(out, "cost.html")}\n`,
    );
  });

  it("--manifest takes manifest.csv or the output folder, with the same figures as manifest.json", async () => {
    const run = async (manifest: string) =>
      runCli(
        "cost",
        "--scores",
        join(out, "scores.csv"),
        "--manifest",
        manifest,
        "--json",
        "--html",
        join(out, "c.html"),
      );
    const json = await run(join(out, "manifest.json"));
    expect(json.code).toBe(0);
    for (const m of [join(out, "manifest.csv"), out]) {
      const other = await run(m);
      expect({ code: other.code, stdout: other.stdout }).toEqual({ code: 0, stdout: json.stdout });
    }
    // A CSV that is not a manifest is named with its line, as diff names it.
    await writeFile(join(out, "notmanifest.csv"), lines("a,b", "1,2"));
    const bad = await run(join(out, "notmanifest.csv"));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      new RegExp(
        `^ptb-manifest: error COST_BAD_MANIFEST at ${join(out, "notmanifest.csv")}:1: cannot read a manifest from .*: the header row is not manifest.csv's`,
      ),
    );
  });

  it("rounds the gain to the scores' decimals and the cost to 2 (9.2, not 9.200000000000003)", async () => {
    await writeFile(
      join(out, "decimals.csv"),
      lines(
        "model_id,suite,score",
        "Qwen/Qwen3.5-9B-Base,ifeval,31",
        "agentic-ptb/alpha.h005.sft2.100,ifeval,40.2",
        "agentic-ptb/alpha.h017.sft2.300,ifeval,31.3",
      ),
    );
    const r = await runCli(
      "cost",
      "--scores",
      join(out, "decimals.csv"),
      "--manifest",
      join(out, "manifest.json"),
      "--json",
    );
    const x = JSON.parse(r.stdout);
    expect(x.rows.map((c: any) => [c.gain, c.cost_per_point])).toEqual([
      [9.2, 120.33],
      [0.3, 11073.33],
    ]);
    const text = await runCli("cost", "--scores", join(out, "decimals.csv"), "--manifest", join(out, "manifest.json"));
    expect(text.stdout.split("\n").slice(0, 3)).toEqual([
      "suite ifeval (baseline 31)",
      "  agentic-ptb/alpha.h005.sft2.100  h 5  fallback  score 40.2  gain 9.2  120 tokens/point",
      "  agentic-ptb/alpha.h017.sft2.300  h 17.17  intermediate  score 31.3  gain 0.3  11,073 tokens/point",
    ]);
  });

  it("a scores file none of whose ids is a row is COST_NO_MATCH, not an empty success", async () => {
    await writeFile(
      join(out, "other.csv"),
      lines("model_id,suite,score", "someone/else,mmlu,40", "someone/other,mmlu,41"),
    );
    expect(
      await runCli(
        "cost",
        "--scores",
        join(out, "other.csv"),
        "--manifest",
        join(out, "manifest.json"),
        "--html",
        join(out, "x.html"),
      ),
    ).toEqual({
      code: 1,
      stdout: "",
      stderr: `ptb-manifest: error COST_NO_MATCH at ${join(out, "other.csv")}:2: none of the 2 score(s) names a model id of the manifest (the first, someone/else at ${join(out, "other.csv")}:2, has no row): is it the manifest these models come from?\n`,
    });
  });

  it("errors: a suite without a baseline score, a bad score, a duplicate, a missing manifest (JSONL input)", async () => {
    await writeFile(
      join(out, "nobase.jsonl"),
      lines('{"model_id":"agentic-ptb/alpha.h005.sft2.100","suite":"arc","score":3}'),
    );
    const a = await runCli("cost", "--scores", join(out, "nobase.jsonl"), "--manifest", join(out, "manifest.json"));
    expect([a.code, a.stderr]).toEqual([
      1,
      expect.stringContaining('error COST_NO_BASELINE: suite "arc" has no score for the baseline Qwen/Qwen3.5-9B-Base'),
    ]);
    await writeFile(join(out, "bad.csv"), lines("model_id,suite,score", "Qwen/Qwen3.5-9B-Base,mmlu,n/a"));
    const b = await runCli("cost", "--scores", join(out, "bad.csv"), "--manifest", join(out, "manifest.json"));
    expect([b.code, b.stderr]).toEqual([
      1,
      expect.stringContaining(`error COST_BAD_SCORES at ${join(out, "bad.csv")}:2`),
    ]);
    await writeFile(
      join(out, "dup.jsonl"),
      lines(
        '{"model_id":"Qwen/Qwen3.5-9B-Base","suite":"m","score":1}',
        '{"model_id":"Qwen/Qwen3.5-9B-Base","suite":"m","score":2}',
      ),
    );
    const c = await runCli("cost", "--scores", join(out, "dup.jsonl"), "--manifest", join(out, "manifest.json"));
    expect([c.code, c.stderr]).toEqual([1, expect.stringContaining("error COST_DUPLICATE_SCORE")]);
    const d = await runCli("cost", "--scores", join(out, "dup.jsonl"), "--manifest", join(out, "nope.json"));
    expect([d.code, d.stderr]).toEqual([1, expect.stringContaining("error COST_BAD_MANIFEST")]);
    // Found by a new user: a malformed CSV, a stale and a current id of one checkpoint, an empty file, hex scores.
    await writeFile(
      join(out, "quote.csv"),
      lines("model_id,suite,score", "Qwen/Qwen3.5-9B-Base,mmlu,40", 'agentic-ptb/alpha.h005.sft2.100,mmlu,4"0'),
    );
    const e = await runCli("cost", "--scores", join(out, "quote.csv"), "--manifest", join(out, "manifest.json"));
    expect([e.code, e.stderr]).toEqual([
      1,
      expect.stringContaining(
        `error COST_BAD_SCORES at ${join(out, "quote.csv")}:3: not a CSV of model_id,suite,score`,
      ),
    ]);
    await writeFile(
      join(out, "twice.csv"),
      lines(
        "model_id,suite,score",
        "Qwen/Qwen3.5-9B-Base,mmlu,40",
        "agentic-ptb/alpha.h017.sft2.300,mmlu,50",
        "agentic-ptb/alpha.h010.sft2.300,mmlu,51",
      ),
    );
    const f = await runCli("cost", "--scores", join(out, "twice.csv"), "--manifest", join(out, "manifest.json"));
    expect([f.code, f.stderr]).toEqual([1, expect.stringContaining("error COST_DUPLICATE_SCORE")]);
    expect(f.stderr).toContain("agentic-ptb/alpha.h017.sft2.300 is scored twice on suite mmlu");
    // A column named twice would be read from its last copy (every gain 0, silently): refused.
    await writeFile(join(out, "score2.csv"), lines("model_id,suite,score,score", "Qwen/Qwen3.5-9B-Base,mmlu,40,99"));
    const twiceCol = await runCli(
      "cost",
      "--scores",
      join(out, "score2.csv"),
      "--manifest",
      join(out, "manifest.json"),
    );
    expect([twiceCol.code, twiceCol.stderr]).toEqual([
      1,
      expect.stringContaining(
        `error COST_BAD_SCORES at ${join(out, "score2.csv")}:1: not a CSV of model_id,suite,score: the header names the column "score" twice`,
      ),
    ]);
    // A suite on two scales (a fraction and a percentage) is computed as given, and said on stderr.
    await writeFile(
      join(out, "scales.csv"),
      lines("model_id,suite,score", "Qwen/Qwen3.5-9B-Base,mmlu,0.31", "agentic-ptb/alpha.h005.sft2.100,mmlu,30.5"),
    );
    const mixed = await runCli("cost", "--scores", join(out, "scales.csv"), "--manifest", join(out, "manifest.json"));
    expect(mixed.code).toBe(0);
    expect(mixed.stderr).toContain(
      `warning COST_MIXED_SCALE at ${join(out, "scales.csv")}:2: suite mmlu mixes 1 score(s) between 0 and 1`,
    );
    await writeFile(join(out, "empty.csv"), lines("model_id,suite,score"));
    const g = await runCli("cost", "--scores", join(out, "empty.csv"), "--manifest", join(out, "manifest.json"));
    expect([g.code, g.stderr]).toEqual([1, expect.stringContaining("error COST_BAD_SCORES")]);
    await writeFile(join(out, "hex.csv"), lines("model_id,suite,score", "Qwen/Qwen3.5-9B-Base,mmlu,0x28"));
    expect(
      (await runCli("cost", "--scores", join(out, "hex.csv"), "--manifest", join(out, "manifest.json"))).code,
    ).toBe(1);
    expect(
      (
        await runCli(
          "cost",
          "--scores",
          join(out, "scores.csv"),
          "--manifest",
          join(out, "manifest.json"),
          "--json",
          "--csv",
        )
      ).code,
    ).toBe(64);
    // --csv escapes formula text as manifest.csv does.
    await writeFile(
      join(out, "formula.csv"),
      lines("model_id,suite,score", "Qwen/Qwen3.5-9B-Base,=cmd(),30", "agentic-ptb/alpha.h005.sft2.100,=cmd(),40"),
    );
    const h = await runCli(
      "cost",
      "--scores",
      join(out, "formula.csv"),
      "--manifest",
      join(out, "manifest.json"),
      "--csv",
    );
    expect(h.stdout.split("\n")[1]).toBe(
      "agentic-ptb/alpha.h005.sft2.100,,alpha,fallback,5,'=cmd(),40,30,10,1107,110.7,true,",
    );
  });
});
