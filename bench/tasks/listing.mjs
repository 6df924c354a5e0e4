// Bench task: parse a PVC listing.tsv with the build's reader and observation rules.
// Usage: node bench/tasks/listing.mjs LISTING PVC_ROOT   (prints one JSON line)
import { readListingTsvBatches, observePvcEntry } from "../../dist/extractors/pvc-listing.js";
import { Diagnostics } from "../../dist/diagnostics.js";

const [path, pvcRoot] = process.argv.slice(2);
const cell = {
  cell: "bench",
  driver: "bench",
  effort: "high",
  trajectory_format: "codex",
  pvc_root: pvcRoot,
  janitor_tz: "UTC",
};
const diag = new Diagnostics();
let entries = 0;
let observations = 0;
// As the build reads it (src/build.ts): a buffer-full of entries at a time.
for await (const batch of readListingTsvBatches(path, "bench/pvc/listing.tsv", diag)) {
  for (const e of batch) {
    if (observePvcEntry(cell, e, entries, diag, "pvc-listing.tsv")) observations += 1;
    entries += 1;
  }
}
process.stdout.write(`${JSON.stringify({ entries, observations, warnings: diag.warnings.length })}\n`);
