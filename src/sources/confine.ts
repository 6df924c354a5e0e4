import { lstat, readdir, readlink, realpath } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { InputError } from "../errors.js";

/**
 * Checks that reading a sources folder cannot leave it (README: Safety):
 * walks the folder without following links and refuses
 *
 * - `SOURCES_LINK_OUTSIDE`: a symbolic link whose target (resolved, or
 *   as written when it dangles) lies outside the folder, e.g.
 *   `alpha/trajectory/x -> /home/me`. Every reader follows links, so such a
 *   link would make the build read, hash and count files it was not given.
 * - `SOURCES_SPECIAL_FILE`: a FIFO, socket or device file, which would block a
 *   reader forever or feed it endless bytes.
 *
 * Links that stay inside the folder are fine. Both are fatal errors (exit 1,
 * nothing written), naming the entry relative to the folder; a folder that
 * does not exist passes (the caller reports what is missing).
 *
 * @throws InputError as above.
 */
export async function assertConfined(sourcesDir: string): Promise<void> {
  let root: string;
  try {
    root = await realpath(sourcesDir);
  } catch {
    return;
  }
  const inside = (p: string): boolean => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
  const stack: string[] = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable folder: the reader that needs it reports it
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const abs = join(dir, e.name);
      const rel = relative(root, abs).split(sep).join("/");
      if (e.isDirectory()) {
        stack.push(abs);
      } else if (e.isSymbolicLink()) {
        let target: string;
        try {
          target = await realpath(abs);
        } catch {
          target = resolve(dirname(abs), await readlink(abs).catch(() => "."));
        }
        if (!inside(target)) {
          throw new InputError(
            "SOURCES_LINK_OUTSIDE",
            `${rel} is a symbolic link to ${target}, outside the sources folder: the build reads nothing outside the folder it is given; copy the file in instead`,
            rel,
          );
        }
      } else if (!e.isFile()) {
        const st = await lstat(abs).catch(() => null);
        const what = st?.isFIFO() ? "a FIFO" : st?.isSocket() ? "a socket" : "a device file";
        throw new InputError(
          "SOURCES_SPECIAL_FILE",
          `${rel} is ${what}, not a regular file: reading it could block or never end`,
          rel,
        );
      }
    }
  }
}
