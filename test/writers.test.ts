import { describe, expect, it } from "vitest";
import { parse } from "csv-parse/sync";
import { manifestCsv, manifestJson, modelIdsTxt } from "../src/writers/manifest.js";
import type { Row } from "../src/schema.js";

const base: Row = {
  model_id: "agentic-ptb/c.h001.f.1",
  cell: "c",
  driver: 'Codex, "gpt"\nx',
  effort: "high",
  hour: 1.5,
  hour_source: "mtime",
  hour_upper_bound: null,
  driver_tokens_at_hour: 12,
  role: "intermediate",
  eos_ok: false,
  eos_token_id: [248044],
  source: "/pvc/ptb/c/sft 3/weights/step_1",
  family: "f",
  step: 1,
  hour_lower_bound: null,
  hour_error_h: null,
};

describe("writers", () => {
  it("CSV quotes commas, quotes and newlines (RFC 4180), writes lists as JSON text and null as empty", () => {
    const csv = manifestCsv([base]);
    expect(csv).toBe(
      "model_id,cell,driver,effort,hour,hour_source,hour_upper_bound,driver_tokens_at_hour,role,eos_ok,eos_token_id,source,family,step,hour_lower_bound,hour_error_h\n" +
        'agentic-ptb/c.h001.f.1,c,"Codex, ""gpt""\nx",high,1.5,mtime,,12,intermediate,false,[248044],/pvc/ptb/c/sft 3/weights/step_1,f,1,,\n',
    );
    const [rec] = parse(csv, { columns: true }) as Record<string, string>[];
    expect(rec!.driver).toBe(base.driver);
  });

  it("JSON keeps the key order of MANIFEST.md whatever the object's order", () => {
    const shuffled = Object.fromEntries(Object.entries(base).reverse()) as Row;
    expect(manifestJson([shuffled])).toBe(manifestJson([base]));
    expect(Object.keys(JSON.parse(manifestJson([shuffled]))[0])[0]).toBe("model_id");
  });

  it("model-ids.txt lists ids one a line", () => {
    expect(modelIdsTxt([base, { ...base, model_id: "x/y" }])).toBe("agentic-ptb/c.h001.f.1\nx/y\n");
  });
});
