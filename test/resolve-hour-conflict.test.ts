import { describe, expect, it } from "vitest";
import { contradictsWrite, timeIsOf } from "../src/resolve/hour-conflict.js";
import { obs } from "./helpers/resolve-data.js";

describe("hour conflict rule (a janitor v1 time is after the write)", () => {
  it("a write time contradicts beyond the tolerance either way", () => {
    expect(contradictsWrite(1.5, "write", 1.5)).toBe(false);
    expect(contradictsWrite(1.51, "write", 1.5)).toBe(true);
    expect(contradictsWrite(-1.51, "write", 1.5)).toBe(true);
    expect(contradictsWrite(-1.5, "write", 1.5)).toBe(false);
  });

  it("a time after the write contradicts only when it is earlier than the write by more than the tolerance", () => {
    expect(contradictsWrite(40, "after_write", 1.5)).toBe(false);
    expect(contradictsWrite(-1.5, "after_write", 1.5)).toBe(false);
    expect(contradictsWrite(-1.51, "after_write", 1.5)).toBe(true);
  });

  it("what a time means, per observation kind", () => {
    expect(timeIsOf(obs("pvc_stable", "sft", 1, 5))).toBe("write");
    expect(timeIsOf(obs("janitor_archive", "sft", 1, 5))).toBe("write");
    expect(timeIsOf(obs("janitor_archive", "sft", 1, 5, { detail: { version: "v1" } }))).toBe("after_write");
    expect(timeIsOf(obs("anchor", "sft", 1, 5))).toBe("write");
    expect(timeIsOf(obs("pvc_dir", "sft", 1, 5))).toBeNull();
    expect(timeIsOf(obs("pvc_weights", "sft", 1, 5))).toBeNull();
    expect(timeIsOf(obs("supervisor_role", "sft", 1, 5))).toBeNull();
    expect(timeIsOf(obs("pvc_stable", "sft", 1, null))).toBeNull();
  });
});
