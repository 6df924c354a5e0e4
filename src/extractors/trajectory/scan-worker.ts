/**
 * A worker thread that scans trajectory files (see `parallel.ts`): it says
 * `{ready: true}` once its scanners are loaded, then gets `{id, format, file}`
 * messages and answers `{id, scan}` (or `{id, error}`), with `{id, bytes}`
 * progress messages in between.
 */
import { parentPort } from "node:worker_threads";
import { COUNTERS } from "./counters.js";
import type { TrajectoryFile } from "./common.js";
import type { TrajectoryFormat } from "../../trajectory-formats.js";

const port = parentPort;
if (port) {
  port.on("message", (m: { id: number; format: TrajectoryFormat; file: TrajectoryFile }) => {
    let pending = 0;
    const onBytes = (n: number): void => {
      pending += n;
      if (pending >= 8 << 20) {
        port.postMessage({ id: m.id, bytes: pending });
        pending = 0;
      }
    };
    COUNTERS[m.format].scan(m.file, { onBytes }).then(
      (scan) => {
        if (pending > 0) port.postMessage({ id: m.id, bytes: pending });
        port.postMessage({ id: m.id, scan });
      },
      (err: unknown) => port.postMessage({ id: m.id, error: String((err as Error)?.stack ?? err) }),
    );
  });
  port.postMessage({ ready: true });
}
