/**
 * The worker thread of the live PVC walk (started by `pvc-walk-threads.ts`): it gets
 * `{id, dirs}` messages (directories as paths relative to the walked
 * directory, in walk order), reads each with `scanDir` (the same rules as
 * the first thread) and answers on the port it was given a
 * {@link PackedScans} of them with the same `id`, then bumps the shared
 * counter so a waiting first thread wakes up.
 */
import { type MessagePort, workerData } from "node:worker_threads";
import { packScans } from "./pvc-walk-pack.js";
import { scanDir } from "./pvc-dir-scan.js";

const data = workerData as { port: MessagePort; flag: Int32Array; local: string; pvc: string } | null;
if (data) {
  const { port, flag, local, pvc } = data;
  const localBase = local === "/" ? "" : local;
  const pvcBase = pvc === "/" ? "/" : `${pvc}/`;
  port.on("message", (m: { id: number; dirs: string[] }) => {
    const scans = m.dirs.map((rel) =>
      rel === "" ? scanDir(local, pvc) : scanDir(`${localBase}/${rel}`, `${pvcBase}${rel}`),
    );
    port.postMessage({ id: m.id, ...packScans(scans) });
    Atomics.add(flag, 0, 1);
    Atomics.notify(flag, 0);
  });
}
