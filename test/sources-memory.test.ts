import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import fg from "fast-glob";
import { beforeAll, describe, expect, it } from "vitest";
import { buildManifest } from "../src/pipeline/build-manifest.js";
import type { BuildResult } from "../src/model.js";
import { memorySources } from "./helpers/memory-sources.js";

const SOURCES = resolve(import.meta.dirname, "../sources");

/** Every file of the embedded sources but the trajectories, in memory (layout path → bytes). */
async function inMemory(): Promise<Map<string, Buffer>> {
  const names = await fg("**/*", { cwd: SOURCES, dot: true, onlyFiles: true, ignore: ["*/trajectory/**"] });
  const files = new Map<string, Buffer>();
  for (const name of names.sort()) files.set(name, await readFile(resolve(SOURCES, name)));
  return files;
}

describe("an in-memory Sources feeding buildManifest (src/sources/sources.ts)", () => {
  let snapshot: BuildResult;
  let memory: BuildResult;
  beforeAll(async () => {
    snapshot = await buildManifest({ sourcesDir: SOURCES });
    memory = await buildManifest({ sources: memorySources(await inMemory(), SOURCES) });
  }, 120_000);

  it("gives the snapshot folder's build: rows, provenance, warnings, fits, runs and inputs read", () => {
    expect(memory.rows).toEqual(snapshot.rows);
    expect(memory.provenance).toEqual(snapshot.provenance);
    expect(memory.warnings).toEqual(snapshot.warnings);
    expect(memory.fits).toEqual(snapshot.fits);
    expect(memory.runs).toEqual(snapshot.runs);
    expect(memory.lost).toEqual(snapshot.lost);
    expect(memory.tokenCurves).toEqual(snapshot.tokenCurves);
    expect(memory.inputsRead).toEqual(snapshot.inputsRead);
    expect(memory.rows.length).toBeGreaterThan(50);
  });
});
