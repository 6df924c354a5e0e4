import { renameSync, rmSync } from "node:fs";
import { open, readdir, rm, rmdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { checkOutFile, checkOutFolder, makeFolder, outWriteError } from "./out-folder.js";
import { InputError } from "../errors.js";
import { OUT_MARKER, foreignFileError, foreignFiles, markerText, readOwnership, type Writer } from "./out-owner.js";
import { checkNotInputs } from "./out-not-input.js";

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

/** `.<name>.<pid>.<8 hex>.tmp`: the temporary file of `name` written by process `pid`. */
const TEMP_RE = /^\.(.+)\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/** True when process `pid` is running (or cannot be signalled by us, which also means it exists). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes the temporary files of `names` in `dir` left by a build that was killed outright (SIGKILL, power loss). */
async function removeStaleTemps(dir: string, names: Set<string>): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return;
  }
  for (const e of entries) {
    const m = TEMP_RE.exec(e);
    if (!m || !names.has(m[1]!)) continue;
    const pid = Number(m[2]);
    if (pid !== process.pid && !alive(pid)) await rm(join(dir, e), { force: true });
  }
}

/**
 * Writes a set of files (MANIFEST.md: "Writes are atomic: a crash leaves the
 * previous files whole"):
 *
 * 1. every file is written in full to a new temporary file beside its target
 *    (`.<name>.<pid>.<random>.tmp`, created exclusively, so a planted file or
 *    link of that name is never written through) and synced to disk;
 * 2. only then are all of them renamed over their targets, one `rename(2)`
 *    each, back to back and synchronously, so that no signal handler can run
 *    between two renames; then the folder is synced.
 *
 * So an interruption (Ctrl-C, SIGTERM, an error, a crash) before step 2
 * leaves every previous file untouched; Ctrl-C and SIGTERM during step 2 wait
 * for it to finish. Each file is replaced whole (a rename replaces a link at
 * the target, never writes through it). Only a kill that cannot be caught
 * (SIGKILL, power loss) landing inside step 2's few system calls could leave
 * some files new and the rest old, each of them whole.
 *
 * Temporary files are removed on failure and on SIGINT/SIGTERM; those left by
 * a build killed outright are removed by the next write to the same folder.
 *
 * The folder is first checked by {@link checkOutFolder}, and every target
 * by {@link checkOutFile}; a file system error while writing the temporary
 * files (permission, read-only or pseudo file system, disk full) is the input
 * error `OUT_UNWRITABLE`. In all these cases nothing has been replaced.
 *
 * Only files this writer wrote are replaced (DESIGN.md: Trust): the folder's
 * marker `.ptb-manifest-outputs.json` records each file written with its
 * sha256 and its writer (`opts.writer`: build, cost, snapshot-hub), and is
 * written with the outputs (renamed last); an existing file at an output
 * name that is not recorded there as this writer's with its current bytes
 * (nor already holds the bytes to write) stops the write with
 * `OUT_FOREIGN_FILE` naming it, unless `opts.force` (see
 * src/util/out-owner.ts). An output at a path the run reads (`opts.inputs`;
 * the marker, which every write reads) is `OUT_IS_INPUT`, even with `force`.
 *
 * @param outDir the output folder (created if missing).
 * @param files file name → content.
 * @param option the option that named the folder, for messages (default `--out`).
 * @param opts `writer`: the command writing, as the marker records it;
 *   `force`: replace files this writer did not write (`--force`); `inputs`:
 *   the files and folders the run reads, with the option naming each.
 * @throws InputError `OUT_NOT_A_FOLDER`, `OUT_UNWRITABLE`, `OUT_NOT_A_FILE`, `OUT_IS_INPUT`, `OUT_FOREIGN_FILE`.
 */
export async function writeFilesAtomically(
  outDir: string,
  files: Map<string, string | Buffer>,
  option: string,
  opts: { writer: Writer; force?: boolean; inputs?: { path: string; named?: string; option: string }[] },
): Promise<void> {
  hookSignals();
  if (files.has(OUT_MARKER)) {
    throw new InputError(
      "OUT_IS_INPUT",
      `${option} ${join(outDir, OUT_MARKER)} is the folder's marker, which ptb-manifest reads to know its files: an output never replaces it; nothing written (write it elsewhere)`,
      join(outDir, OUT_MARKER),
    );
  }
  await checkNotInputs(
    [...files.keys()].map((name) => join(outDir, name)),
    opts.inputs ?? [],
    { option },
  );
  await checkOutFolder(outDir, { option });
  for (const name of files.keys()) await checkOutFile(join(outDir, name));
  await checkOutFile(join(outDir, OUT_MARKER));
  const own = await readOwnership(outDir);
  if (!opts.force) {
    const foreign = await foreignFiles(outDir, files, own, opts.writer);
    if (foreign.length > 0) throw foreignFileError(outDir, foreign, option, own.earlier);
  }
  // The marker goes last, so the renames replace it only once every output is in place.
  files = new Map(files);
  files.set(OUT_MARKER, await markerText(outDir, files, own, opts.writer));
  const created: string[] = []; // folders made here, removed again if nothing gets written
  let done = false;
  const temps: [string, string][] = [];
  try {
    created.push(...(await makeFolder(outDir, option)));
    const byDir = new Map<string, Set<string>>();
    for (const name of files.keys()) {
      const dir = dirname(join(outDir, name));
      byDir.set(dir, (byDir.get(dir) ?? new Set()).add(basename(name)));
    }
    for (const [dir, names] of byDir) await removeStaleTemps(dir, names);
    for (const [name, content] of files) {
      const target = join(outDir, name);
      created.push(...(await makeFolder(dirname(target), option)));
      const tmp = join(dirname(target), `.${basename(name)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
      liveTemps.add(tmp);
      temps.push([tmp, target]);
      try {
        const handle = await open(tmp, "wx");
        try {
          await handle.writeFile(content);
          await handle.sync();
        } finally {
          await handle.close();
        }
      } catch (err) {
        throw outWriteError(err, outDir, option);
      }
    }
    done = true; // from the first rename on, the folders hold outputs
    for (const [tmp, target] of temps) {
      renameSync(tmp, target);
      liveTemps.delete(tmp);
    }
    for (const dir of byDir.keys()) await syncDir(dir);
  } finally {
    for (const [tmp] of temps) {
      if (liveTemps.has(tmp)) {
        await rm(tmp, { force: true }).catch(() => {}); // best effort: never hide the error being thrown
        liveTemps.delete(tmp);
      }
    }
    if (!done) for (const dir of created.reverse()) await rmdir(dir).catch(() => {});
  }
}

/** Syncs a folder's entries (the renames) to disk; best effort (not every platform allows it). */
async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    /* best effort */
  }
}
