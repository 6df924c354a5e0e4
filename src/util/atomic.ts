import { rmSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";

const liveTemps = new Set<string>();
let hooked = false;

function hookSignals(): void {
  if (hooked) return;
  hooked = true;
  const cleanup = (signal: NodeJS.Signals) => {
    for (const t of liveTemps) {
      try {
        rmSync(t, { force: true });
      } catch {
        /* best effort */
      }
    }
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", cleanup);
  process.once("SIGTERM", cleanup);
}

/**
 * Writes a set of files atomically as a set, as far as a file system allows
 * (MANIFEST.md: "Writes are atomic"): every file is first written to a
 * temporary name beside its target, and only when all are written are they
 * renamed into place. A crash before the renames leaves the previous files
 * whole; temporary files are removed on failure and on SIGINT/SIGTERM.
 *
 * @param outDir the output folder (created if missing).
 * @param files file name → content.
 */
export async function writeFilesAtomically(outDir: string, files: Map<string, string | Buffer>): Promise<void> {
  hookSignals();
  await mkdir(outDir, { recursive: true });
  const temps: [string, string][] = [];
  try {
    for (const [name, content] of files) {
      const target = join(outDir, name);
      await mkdir(dirname(target), { recursive: true });
      const tmp = join(dirname(target), `.${basename(name)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
      liveTemps.add(tmp);
      temps.push([tmp, target]);
      await writeFile(tmp, content);
    }
    for (const [tmp, target] of temps) {
      await rename(tmp, target);
      liveTemps.delete(tmp);
    }
  } finally {
    for (const [tmp] of temps) {
      if (liveTemps.has(tmp)) {
        await rm(tmp, { force: true });
        liveTemps.delete(tmp);
      }
    }
  }
}
