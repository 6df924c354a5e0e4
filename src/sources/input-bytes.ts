/**
 * Sizes of a sources folder's files, for progress bars: every file (what
 * `hashInputs` reads) and the large ones the extractors stream (trajectories,
 * PVC listings, janitor logs).
 */
import { stat } from "node:fs/promises";
import fg from "fast-glob";
import { absPath, isExtractedPath } from "./layout.js";

/**
 * Total bytes of the files under `sourcesDir` (`all`) and of those under
 * `<cell>/trajectory/`, `<cell>/pvc/` and `<cell>/janitor/` (`extracted`, `isExtractedPath`).
 * Unreadable files count 0.
 */
export async function inputBytes(sourcesDir: string): Promise<{ all: number; extracted: number }> {
  const files = await fg("**/*", {
    cwd: sourcesDir,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    suppressErrors: true,
  });
  let all = 0;
  let extracted = 0;
  for (const f of files) {
    const size = await stat(absPath(sourcesDir, f)).then(
      (s) => s.size,
      () => 0,
    );
    all += size;
    if (isExtractedPath(f)) extracted += size;
  }
  return { all, extracted };
}
