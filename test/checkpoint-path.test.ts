import { describe, expect, it } from "vitest";
import { checkpointFolderOf, parseCheckpointPath } from "../src/extractors/checkpoint-path.js";

describe("parseCheckpointPath (SOURCES.md: pvc/)", () => {
  it("splits family dir, step text and child", () => {
    expect(parseCheckpointPath("base/weights/step_120/STABLE")).toEqual({
      familyDir: "base",
      stepText: "120",
      child: "STABLE",
    });
    expect(parseCheckpointPath("runs/base/weights/step_7")).toEqual({
      familyDir: "runs/base",
      stepText: "7",
      child: null,
    });
    expect(parseCheckpointPath("base/weights/step_7/")).toEqual({ familyDir: "base", stepText: "7", child: "" });
    expect(parseCheckpointPath("base/weights/step_x1/a.safetensors")).toEqual({
      familyDir: "base",
      stepText: "x1",
      child: "a.safetensors",
    });
  });
  it("takes the last weights/step_ as the step folder", () => {
    expect(parseCheckpointPath("a/weights/step_1/weights/step_2")).toEqual({
      familyDir: "a/weights/step_1",
      stepText: "2",
      child: null,
    });
  });
  it("is null for anything else", () => {
    expect(parseCheckpointPath("base/weights/step_7/sub/file")).toBeNull();
    expect(parseCheckpointPath("weights/step_7")).toBeNull();
    expect(parseCheckpointPath("base/checkpoints/step_7")).toBeNull();
    expect(parseCheckpointPath("")).toBeNull();
  });
});

describe("checkpointFolderOf (SOURCES.md: janitor, supervisor/)", () => {
  it("takes the step folder, with or without a trailing slash", () => {
    expect(checkpointFolderOf("base/weights/step_120")).toEqual({ familyDir: "base", stepText: "120" });
    expect(checkpointFolderOf("runs/base/weights/step_120/")).toEqual({ familyDir: "runs/base", stepText: "120" });
    expect(checkpointFolderOf("base/weights/step_99999999999999999999")).toEqual({
      familyDir: "base",
      stepText: "99999999999999999999",
    });
  });
  it("refuses a file below it, a step that is not digits, and empty, . or .. parts", () => {
    expect(checkpointFolderOf("base/weights/step_120/STABLE")).toBeNull();
    expect(checkpointFolderOf("base/weights/step_12a")).toBeNull();
    expect(checkpointFolderOf("base/weights/step_")).toBeNull();
    expect(checkpointFolderOf("../base/weights/step_1")).toBeNull();
    expect(checkpointFolderOf("a/./base/weights/step_1")).toBeNull();
    expect(checkpointFolderOf("a//base/weights/step_1")).toBeNull();
  });
});
