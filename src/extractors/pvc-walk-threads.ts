/**
 * The live PVC walk's second thread (README: Performance): how many threads
 * walk ({@link walkThreads}), and the worker that reads chunks of
 * directories while this thread reads others ({@link WalkHelper}). The walk
 * (`pvc-live.ts`) decides which directories go where and puts the results
 * back in walk order, so the entries and their order do not depend on it.
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { DirScan } from "./pvc-dir-scan.js";
import { type PackedScans, unpackScans } from "./pvc-walk-pack.js";
import { freeCores } from "../util/free-cores.js";

/**
 * Threads for a live walk: `PTB_MANIFEST_THREADS` when it is a whole number
 * ≥ 1 (1 = this thread alone; more than 2 counts as 2); else 2 when a
 * second core is free — at least 1.5 cores free to this process (one for
 * this thread, most of one for the worker) — and 1 otherwise.
 *
 * @param env the value of `PTB_MANIFEST_THREADS` (undefined when unset).
 * @param free the cores free to this process now (`util/free-cores.ts`).
 */
export function walkThreads(env: string | undefined, free: number): 1 | 2 {
  const n = Number(env);
  if (env !== undefined && env !== "" && Number.isInteger(n) && n >= 1) return n >= 2 ? 2 : 1;
  return free >= 1.5 ? 2 : 1;
}

/** {@link walkThreads} of this process and machine now (the free cores sampled only when the variable does not decide). */
export async function defaultWalkThreads(): Promise<1 | 2> {
  const env = process.env["PTB_MANIFEST_THREADS"];
  const without = walkThreads(env, 0);
  if (without === walkThreads(env, 2)) return without; // the variable decides
  return walkThreads(env, await freeCores());
}

const COMPILED = import.meta.url.endsWith(".js");

/** `Atomics.waitAsync` (Node 16+; not in the ES2022 library types): its `value` settles on a notify or the timeout. */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(a: Int32Array, i: number, v: number, ms: number): { value: Promise<string> | string };
  }
).waitAsync;

/**
 * A worker thread (`pvc-walk-worker.ts`) reading chunks of directories of
 * the tree at `local` (PVC path `pvc`): {@link send} a chunk, then
 * {@link take} or {@link wait} for its scans. If the worker fails, its
 * chunks come back as null, for this thread to read.
 */
export class WalkHelper {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private readonly done = new Map<number, PackedScans>();
  private nextId = 0;
  private dead = false;

  /** Whether the worker has failed (its chunks, sent or not, are read in this thread). */
  get failed(): boolean {
    return this.dead;
  }

  constructor(local: string, pvc: string) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const workerData = { port: port2, flag: this.flag, local, pvc };
    const url = new URL(COMPILED ? "./pvc-walk-worker.js" : "./pvc-walk-worker.ts", import.meta.url);
    // From the TypeScript sources (tests), the worker loads them through tsx, as the tests do.
    this.worker = COMPILED
      ? new Worker(url, { workerData, transferList: [port2] })
      : new Worker(
          `import("tsx/esm/api").then((m) => { m.register(); return import(${JSON.stringify(url.href)}); });`,
          { eval: true, workerData, transferList: [port2] },
        );
    const fail = (): void => {
      this.dead = true;
      Atomics.add(this.flag, 0, 1);
      Atomics.notify(this.flag, 0);
    };
    this.worker.on("error", fail);
    this.worker.on("exit", fail);
    this.worker.unref(); // a walk left unfinished does not keep the process alive
  }

  /** Sends the directories (relative paths, in walk order) to the worker; returns the chunk's id. */
  send(dirs: string[]): number {
    const id = this.nextId++;
    this.port.postMessage({ id, dirs });
    return id;
  }

  /** The scans of chunk `id` if they are in, without waiting; else undefined. */
  take(id: number): DirScan[] | undefined {
    for (;;) {
      const got = this.done.get(id);
      if (got !== undefined) {
        this.done.delete(id);
        return unpackScans(got);
      }
      const m = receiveMessageOnPort(this.port);
      if (m === undefined) return undefined;
      const msg = m.message as PackedScans & { id: number };
      this.done.set(msg.id, msg);
    }
  }

  /** The scans of chunk `id`, waiting for them; null when the worker failed (read the chunk in this thread). */
  async wait(id: number): Promise<DirScan[] | null> {
    this.worker.ref(); // a pending Atomics.waitAsync alone does not keep the process alive
    try {
      for (;;) {
        const seen = Atomics.load(this.flag, 0);
        const got = this.take(id);
        if (got !== undefined) return got;
        if (this.dead) return null;
        await waitAsync(this.flag, 0, seen, 100).value;
      }
    } finally {
      if (!this.dead) this.worker.unref();
    }
  }

  /** Stops the worker. */
  async close(): Promise<void> {
    this.worker.removeAllListeners("exit");
    this.port.close();
    await this.worker.terminate();
  }
}
