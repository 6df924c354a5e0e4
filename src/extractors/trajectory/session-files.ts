/**
 * Finding a run's session files inside a folder (TRAJECTORIES.md: each
 * driver's session logs, searched recursively), the way fast-glob found them
 * with `**`/name patterns, `dot`, `onlyFiles` and `followSymbolicLinks`: every
 * folder below, dot folders included, links followed (a link's target decides
 * whether it is a folder or a file), nothing skipped in silence.
 *
 * Plain synchronous `readdirSync` + `statSync` (links only), because the
 * patterns are fixed file names, not globs: on the benchmark's cells (about
 * 30 files each; README: Performance), fast-glob's import and walk were
 * 12–23 ms of a 240–340 ms `tokens` run; this walk takes under a millisecond.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** What {@link findSessionFiles} found. */
export interface FoundSessionFiles {
  /** The files whose name passed the test: paths relative to the root, `/`-separated, in walk order. */
  files: string[];
  /**
   * What hid files, absolute paths, in walk order: a folder that could not be listed (`scandir`
   * error), and a link whose name passed the test but that could not be followed (`stat` error:
   * a dangling link, a link loop).
   */
  unreadable: [string, NodeJS.ErrnoException][];
}

/**
 * Every file below the folder `root` whose name passes `isSessionName`,
 * following links: a link to a folder is walked as a folder (a link loop
 * goes round until the system refuses the path, ELOOP, as it did with
 * fast-glob: the caller reads each real file once), a link to a file is a
 * file. A folder that cannot be listed, or a link with a session name that
 * cannot be followed, is reported in `unreadable` and the walk goes on; a
 * link with another name that cannot be followed is nothing to this walk.
 *
 * @throws nothing: every file system error is reported in `unreadable`.
 */
export function findSessionFiles(root: string, isSessionName: (name: string) => boolean): FoundSessionFiles {
  const found: FoundSessionFiles = { files: [], unreadable: [] };
  const walk = (dir: string, rel: string): void => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      found.unreadable.push([dir, err as NodeJS.ErrnoException]);
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      const relPath = rel === "" ? entry.name : `${rel}/${entry.name}`;
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        try {
          const target = statSync(path);
          isDir = target.isDirectory();
          isFile = target.isFile();
        } catch (err) {
          if (isSessionName(entry.name)) found.unreadable.push([path, err as NodeJS.ErrnoException]);
          continue;
        }
      }
      if (isDir) walk(path, relPath);
      else if (isFile && isSessionName(entry.name)) found.files.push(relPath);
    }
  };
  walk(root, "");
  return found;
}
