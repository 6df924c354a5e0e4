// Bench task: read a cell's rotated janitor log with the build's reader.
// Usage: node bench/tasks/janitor.mjs SOURCES_DIR PVC_ROOT   (the log is SOURCES_DIR/bench/janitor/)
import { readJanitorLog } from "../../dist/extractors/janitor-log.js";
import { Diagnostics } from "../../dist/diagnostics.js";

const [sources, pvcRoot] = process.argv.slice(2);
const cell = {
  cell: "bench",
  driver: "bench",
  effort: "high",
  trajectory_format: "codex",
  pvc_root: pvcRoot,
  janitor_tz: "UTC",
};
const diag = new Diagnostics();
const obs = await readJanitorLog(sources, cell, diag);
const archives = obs.filter((o) => o.kind === "janitor_archive").length;
process.stdout.write(`${JSON.stringify({ observations: obs.length, archives, warnings: diag.warnings.length })}\n`);
