// Bench task: parse a PVC listing.tsv with the build's reader and observation rules.
// Usage: node bench/tasks/listing.mjs LISTING PVC_ROOT   (prints one JSON line)
import { readListingTsv, observePvcEntry } from "../../dist/extractors/pvc-listing.js";
import { Diagnostics } from "../../dist/diagnostics.js";

const [path, pvcRoot] = process.argv.slice(2);
const cell = { cell: "bench", driver: "bench", effort: "high", trajectory_format: "codex", pvc_root: pvcRoot, janitor_tz: "UTC" };
const diag = new Diagnostics();
let entries = 0;
let observations = 0;
for await (const e of readListingTsv(path, "bench/pvc/listing.tsv", diag)) {
  if (observePvcEntry(cell, e, entries, diag, "pvc-listing.tsv")) observations += 1;
  entries += 1;
}
process.stdout.write(`${JSON.stringify({ entries, observations, warnings: diag.warnings.length })}\n`);
