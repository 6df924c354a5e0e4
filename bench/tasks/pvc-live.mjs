// Bench task: walk a mounted PVC tree with the build's walker, readPvcTree of
// src/extractors/pvc-live.ts (an async iterable of entries, or an array / a promise of one).
// Worker threads follow PTB_MANIFEST_THREADS, as in the tool.
// Usage: node bench/tasks/pvc-live.mjs DIR PVC_ROOT   (prints one JSON line)
import { Diagnostics } from "../../dist/diagnostics.js";
import { readPvcTree } from "../../dist/extractors/pvc-live.js";

const [dir, pvcRoot] = process.argv.slice(2);
const diag = new Diagnostics();
let entries = 0;
const walk = readPvcTree(dir, { pvcRoot, diag });
if (walk && typeof walk[Symbol.asyncIterator] === "function") for await (const _e of walk) entries += 1;
else {
  const all = await walk;
  entries = all.length;
}
process.stdout.write(
  `${JSON.stringify({ entries, warnings: diag.warnings.length, impl: "readPvcTree (src/extractors/pvc-live.ts)" })}\n`,
);
