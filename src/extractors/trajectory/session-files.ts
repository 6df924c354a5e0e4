/**
 * Finding a run's session files inside a folder (TRAJECTORIES.md: each
 * driver's session logs, searched recursively): every folder below, dot
 * folders included, links followed (a link's target decides whether it is a
 * folder or a file), each real folder walked once, nothing skipped in silence.
 *
 * Plain synchronous `readdirSync` + `statSync` (of folders and links),
 * because the patterns are fixed file names, not globs: on the benchmark's cells (about
 * 30 files each; README: Performance), fast-glob's import and walk were
 * 12–23 ms of a 240–340 ms `tokens` run; this walk takes under a millisecond.
 */
import { type BigIntStats, type Dirent, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { cmpStr } from "../../util/values.js";

/** What {@link findSessionFiles} found. */
export interface FoundSessionFiles {
  /**
   * The files whose name passed the test: paths relative to the root, `/`-separated. First those of
   * the folders walked (sorted), then (sorted) the same files again by the paths through each link to
   * a folder already walked: the caller reads each real file once, by its first path.
   */
  files: string[];
  /**
   * What hid files, absolute paths, in walk order: a folder that could not be listed (`scandir`
   * error) or looked at (`stat`), and a link whose name passed the test but that could not be
   * followed (`stat` error: a dangling link).
   */
  unreadable: [string, NodeJS.ErrnoException][];
  /**
   * The other entries of the folders walked that are not folders, sorted: files whose name did not
   * pass the test, and anything that is no file (a FIFO, a socket, a device), whatever its name.
   */
  others: string[];
}

/** A folder's identity: its device and inode. */
function folderId(st: BigIntStats): string {
  return `${st.dev}:${st.ino}`;
}

/**
 * Every file below the folder `root` whose name passes `isSessionName`,
 * following links, each real folder walked once: the folders themselves
 * first, then the links to folders (in name order), a link to a folder not
 * walked yet walked as a folder, a link to one already walked (a copy of
 * the way there, a link loop) only giving its files' paths through the link
 * again. So a file is found first by a path without a link where there is
 * one, and a tree with links to its own folders is walked in linear time
 * (before, a walk that followed every link went round each loop until the
 * system refused the path, and two links to an ancestor doubled the paths at
 * every level). A link to a file is a file. A folder that cannot be listed,
 * or a link with a session name that cannot be followed, is reported in
 * `unreadable` and the walk goes on; a link with another name that cannot be
 * followed is nothing to this walk.
 *
 * @throws nothing: every file system error is reported in `unreadable`.
 */
export function findSessionFiles(root: string, isSessionName: (name: string) => boolean): FoundSessionFiles {
  const files: string[] = [];
  const others: string[] = [];
  const unreadable: [string, NodeJS.ErrnoException][] = [];
  const walked = new Map<string, string>(); // folder id -> its path relative to the root
  const links: [string, string, string][] = []; // links to folders: [absolute path, relative path, the folder's id]
  const again: [string, string][] = []; // [a link's relative path, the relative path of the folder walked]
  const stat = (path: string): BigIntStats | null => {
    try {
      return statSync(path, { bigint: true });
    } catch (err) {
      unreadable.push([path, err as NodeJS.ErrnoException]);
      return null;
    }
  };
  const walk = (dir: string, rel: string, id: string): void => {
    walked.set(id, rel);
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      unreadable.push([dir, err as NodeJS.ErrnoException]);
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      const relPath = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        const st = stat(path);
        if (st !== null) visit(path, relPath, folderId(st));
      } else if (entry.isSymbolicLink()) {
        let target: BigIntStats;
        try {
          target = statSync(path, { bigint: true });
        } catch (err) {
          if (isSessionName(entry.name)) unreadable.push([path, err as NodeJS.ErrnoException]);
          else others.push(relPath);
          continue;
        }
        if (target.isDirectory()) links.push([path, relPath, folderId(target)]);
        else if (target.isFile() && isSessionName(entry.name)) files.push(relPath);
        else others.push(relPath);
      } else if (entry.isFile() && isSessionName(entry.name)) files.push(relPath);
      else others.push(relPath);
    }
  };
  const visit = (dir: string, rel: string, id: string): void => {
    const seen = walked.get(id);
    if (seen === undefined) walk(dir, rel, id);
    else again.push([rel, seen]);
  };
  const top = stat(root);
  if (top !== null) walk(root, "", folderId(top));
  // The links to folders, after every folder reached without one (in name order); those found on the way in turn.
  for (let batch = links.splice(0); batch.length > 0; batch = links.splice(0))
    for (const [path, rel, id] of batch.sort((a, b) => cmpStr(a[1], b[1]))) visit(path, rel, id);
  files.sort(cmpStr);
  const aliases: string[] = [];
  for (const [link, folder] of again)
    for (const f of files)
      if (folder === "") aliases.push(`${link}/${f}`);
      else if (f.startsWith(`${folder}/`)) aliases.push(`${link}${f.slice(folder.length)}`);
  return { files: [...files, ...aliases.sort(cmpStr)], unreadable, others: others.sort(cmpStr) };
}
