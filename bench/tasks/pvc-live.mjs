// Bench task: walk a mounted PVC tree. Uses src/extractors/pvc-live.ts (readPvcTree) when it
// is built, else a fast-glob stream scan with lstat (the reader it is built on).
// Usage: node bench/tasks/pvc-live.mjs DIR PVC_ROOT   (prints one JSON line)
import { Diagnostics } from "../../dist/diagnostics.js";

const [dir, pvcRoot] = process.argv.slice(2);
let impl = "readPvcTree (src/extractors/pvc-live.ts)";
let entries = 0;
let live = null;
try {
  live = await import("../../dist/extractors/pvc-live.js");
} catch {
  live = null;
}
if (live && typeof live.readPvcTree === "function") {
  const diag = new Diagnostics();
  for await (const _e of live.readPvcTree(dir, { pvcRoot, diag })) entries += 1;
} else {
  impl = "fast-glob stream with stats (pvc-live.ts not built)";
  const fg = (await import("fast-glob")).default;
  for await (const _e of fg.stream("**", {
    cwd: dir,
    onlyFiles: false,
    dot: true,
    stats: true,
    followSymbolicLinks: false,
  }))
    entries += 1;
  entries += 1; // the directory itself, as find lists it
}
process.stdout.write(`${JSON.stringify({ entries, impl })}\n`);
