/** sha256 of input files (MANIFEST.md: build-report.json `inputs`). */
import { createHash } from "node:crypto";
import { createReadStream, statSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { relative, sep } from "node:path";
import fg from "fast-glob";
import { orOnFsError, reportingGlobFs } from "./fs-errors.js";

/** The `inputs` value of a file or folder that could not be read (instead of its sha256): `unreadable (EACCES)`. */
const UNREADABLE_PREFIX = "unreadable";

/**
 * sha256 of every file under the sources folder (and every link to a file:
 * its target's), by path (relative, `/`), sorted.
 * `hashFile` (absolute path → hex sha256) replaces the plain streaming hash,
 * e.g. with the build cache's (`src/cache/build-cache.ts`).
 *
 * A file, or a folder, that cannot be read (EACCES, EIO, removed meanwhile:
 * any file system error) gets the value `unreadable (CODE)` instead of a hash
 * (a folder under its path with a trailing `/`) and is passed to
 * `onUnreadable(relPath, err)`; the build turns those into warnings. Other
 * errors are thrown.
 */
export async function hashInputs(
  sourcesDir: string,
  hashFile: (absPath: string) => Promise<string> = sha256File,
  onUnreadable: (relPath: string, err: NodeJS.ErrnoException) => void = () => {},
): Promise<Record<string, string>> {
  const unreadable = new Map<string, NodeJS.ErrnoException>();
  const rel = (abs: string): string => relative(sourcesDir, abs).split(sep).join("/");
  const fs = reportingGlobFs((abs, err) => unreadable.set(`${rel(abs)}/`, err));
  // Files, and links to files (the readers follow them): a link's value is its target's hash, a dangling
  // link's `unreadable (ENOENT)`. A link to a folder is not walked (a link may lead to an ancestor).
  const files = (
    await fg("**/*", {
      cwd: sourcesDir,
      dot: true,
      onlyFiles: false,
      objectMode: true,
      followSymbolicLinks: false,
      suppressErrors: true,
      fs,
    })
  )
    .filter((e) => e.dirent.isFile() || (e.dirent.isSymbolicLink() && !isFolder(`${sourcesDir}/${e.path}`)))
    .map((e) => e.path)
    .sort();
  // Up to 16 files at a time (many small files: the waits overlap); keys stay in sorted order.
  const hashes: string[] = new Array<string>(files.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < files.length; i = next++) {
      hashes[i] = await orOnFsError(
        () => hashFile(`${sourcesDir}/${files[i]}`),
        (err) => {
          unreadable.set(files[i]!, err);
          return `${UNREADABLE_PREFIX} (${err.code})`;
        },
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(16, files.length) }, worker));
  const entries: [string, string][] = files.map((f, i) => [f, hashes[i]!]);
  for (const [path, err] of unreadable)
    if (path.endsWith("/")) entries.push([path, `${UNREADABLE_PREFIX} (${err.code})`]);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [path, err] of [...unreadable].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) onUnreadable(path, err);
  const out: Record<string, string> = Object.create(null); // keys come from file names
  for (const [f, h] of entries) out[f] = h;
  return out;
}

/** True when `path` is, or links to, a folder (false when it cannot be looked at: reading it says why). */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The hex sha256 of a file, streamed (a small file is read whole). */
export async function sha256File(absPath: string): Promise<string> {
  const hash = createHash("sha256");
  const size = (await stat(absPath)).size;
  if (size <= 1 << 20) return hash.update(await readFile(absPath)).digest("hex");
  for await (const chunk of createReadStream(absPath, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
