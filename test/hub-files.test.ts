import { describe, expect, it, afterAll } from "vitest";
import { Diagnostics } from "../src/diagnostics.js";
import { parsePublishedName, parseSpareName, readHubSnapshot } from "../src/extractors/hub-files.js";
import { hubNameProblem } from "../src/schema.js";
import { modelId, hourPart } from "../src/resolve/ids.js";
import { makeTree, removeTree } from "./helpers/tree.js";

const roots: string[] = [];
afterAll(async () => Promise.all(roots.map(removeTree)));

describe("hub snapshot", () => {
  it("reads eos from generation_config, then config top level, then text_config; int or list; chat template placement", async () => {
    const root = await makeTree({
      "hub/o/gen/.hub.json": '{"id":"o/gen","sha":"abc","lastModified":"2026-11-01T00:00:00.000Z"}',
      "hub/o/gen/generation_config.json": '{"eos_token_id":[248046,248044,248046]}',
      "hub/o/gen/config.json": '{"eos_token_id":1}',
      "hub/o/gen/chat_template.jinja": "x",
      "hub/o/top/config.json": '{"eos_token_id":248044,"text_config":{"eos_token_id":248046}}',
      "hub/o/top/tokenizer_config.json": '{"chat_template":"x"}',
      "hub/o/text/config.json": '{"text_config":{"eos_token_id":248046}}',
      "hub/o/none/tokenizer_config.json": "{}",
      "hub/o/bad/generation_config.json": '{"eos_token_id":"248046"}',
      "hub/o/bad/config.json": "{not json",
    });
    roots.push(root);
    const diag = new Diagnostics();
    const repos = await readHubSnapshot(root, diag);
    expect(repos.map((r) => [r.id, r.eos.ids, r.eos.from, r.eos.chatTemplate])).toEqual([
      ["o/bad", null, null, null],
      ["o/gen", [248044, 248046], "generation_config.json", "chat_template.jinja"],
      ["o/none", null, null, null],
      ["o/text", [248046], "config.json text_config", null],
      ["o/top", [248044], "config.json", "tokenizer_config.json"],
    ]);
    expect(repos[1]!.sha).toBe("abc");
    // Every folder but o/gen lacks the .hub.json a download writes: HUB_NO_INFO each.
    expect(diag.warnings.map((w) => [w.code, w.file])).toEqual([
      ["HUB_NO_INFO", "hub/o/bad"],
      ["HUB_BAD_JSON", "hub/o/bad/config.json"],
      ["HUB_BAD_EOS", "hub/o/bad/generation_config.json"],
      ["HUB_NO_INFO", "hub/o/none"],
      ["HUB_NO_INFO", "hub/o/text"],
      ["HUB_NO_INFO", "hub/o/top"],
    ]);
  });

  it("leaves the stop ids unknown when a place that may hold them is broken: never a lower-priority place's (SOURCES.md: EOS facts)", async () => {
    const root = await makeTree({
      "hub/o/badgen/generation_config.json": "",
      "hub/o/badgen/config.json": '{"eos_token_id":248046}',
      "hub/o/badval/generation_config.json": '{"eos_token_id":"248044"}',
      "hub/o/badval/config.json": '{"eos_token_id":248046}',
      "hub/o/badtop/config.json": '{"eos_token_id":-1,"text_config":{"eos_token_id":248046}}',
      "hub/o/nogen/generation_config.json": '{"do_sample":true}',
      "hub/o/nogen/config.json": '{"eos_token_id":248046}',
      "hub/o/tok/tokenizer_config.json": "[1]",
      "hub/o/tok/config.json": '{"eos_token_id":248046}',
    });
    roots.push(root);
    const diag = new Diagnostics();
    const repos = await readHubSnapshot(root, diag);
    expect(repos.map((r) => [r.id, r.eos.ids, r.eos.from, r.eos.chatTemplate])).toEqual([
      ["o/badgen", null, null, null],
      ["o/badtop", null, null, null],
      ["o/badval", null, null, null],
      // A generation_config.json without eos_token_id gives none: config.json is next (MANIFEST.md: eos_token_id).
      ["o/nogen", [248046], "config.json", null],
      ["o/tok", [248046], "config.json", null],
    ]);
    const warnings = diag.warnings.filter((w) => w.code !== "HUB_NO_INFO"); // no folder has a .hub.json
    expect(warnings.map((w) => [w.code, w.file])).toEqual([
      ["HUB_BAD_JSON", "hub/o/badgen/generation_config.json"],
      ["HUB_BAD_EOS", "hub/o/badtop/config.json"],
      ["HUB_BAD_EOS", "hub/o/badval/generation_config.json"],
      ["HUB_BAD_JSON", "hub/o/tok/tokenizer_config.json"],
    ]);
    // HUB_NO_EOS says why (resolve/eos.ts).
    expect(repos.map((r) => r.eos.unknownWhy ?? null)).toEqual([
      "generation_config.json is not a JSON object",
      "the eos_token_id of config.json is not token ids",
      "the eos_token_id of generation_config.json is not token ids",
      null,
      null,
    ]);
    expect(warnings[0]!.message).toMatch(
      /is not a JSON object \(Unexpected end of JSON input\): what it may give \(stop ids, chat template\) is unknown/,
    );
  });

  it("parses published and spare names against the known cells, longest cell first", () => {
    const cells = ["sol-max", "sol-max-v2", "sol-max-opusnode"];
    expect(parsePublishedName("sol-max-v2.h007.sft2.1200", cells)).toEqual({
      cell: "sol-max-v2",
      hourPart: "007",
      family: "sft2",
      step: 1200,
    });
    expect(parsePublishedName("sol-max.hNA.grpo.a.40", cells)).toEqual({
      cell: "sol-max",
      hourPart: "NA",
      family: "grpo.a",
      step: 40,
    });
    expect(parsePublishedName("sol-max-record", cells)).toBeNull();
    expect(parseSpareName("sol-max-opusnode.sft2.step_300", cells)).toEqual({
      cell: "sol-max-opusnode",
      family: "sft2",
      step: 300,
    });
  });
});

describe("model ids (MANIFEST.md: Rules)", () => {
  it("HHH is floor of the rounded hour, zero-padded; hNA for null", () => {
    expect(hourPart(7.999)).toBe("007");
    expect(hourPart(42)).toBe("042");
    expect(hourPart(100)).toBe("100");
    expect(hourPart(null)).toBe("NA");
    expect(modelId("agentic-ptb", "sol-high", 42.5, "sft2", 1200)).toBe("agentic-ptb/sol-high.h042.sft2.1200");
  });
  it("checks Hub repo name validity", () => {
    expect(hubNameProblem("sol-high.h042.sft2.1200")).toBeNull();
    expect(hubNameProblem("c.h001.sft 3.1")).toBe('contains " "');
    expect(hubNameProblem("c.h001.a--b.1")).toBe('contains "--"');
    expect(hubNameProblem("c.h001.a..b.1")).toBe('contains ".."');
    expect(hubNameProblem("-c.h001.a.1")).toBe("starts or ends with - or .");
    expect(hubNameProblem("c".repeat(97))).toMatch(/at most 96/);
  });
});
