/**
 * A `Sources` held in memory (src/sources/sources.ts): every input is a
 * buffer in a map keyed by its layout path, so the build reads no file system
 * for cells.json, the Hub repos, the PVC listings, the janitor logs, the
 * supervisor histories and the anchors. Trajectories are still read from
 * `root` (the trajectory scanner walks a file system).
 */
import { gunzipSync } from "node:zlib";
import { parseCells } from "../../src/sources/cells.js";
import {
  anchorsPath,
  HUB_DIR,
  hubRepoPath,
  janitorDirPath,
  listingTsvPath,
  lsLRPath,
  orderJanitorParts,
  supervisorHistoryPath,
} from "../../src/sources/layout.js";
import { choosePvcListing, type HubRepoFiles, type SourceFile, type Sources } from "../../src/sources/sources.js";
import type { Line } from "../../src/util/lines.js";

/** The lines of a file's bytes as `readLines` gives them (`\n` or `\r\n` ends, a first-line BOM dropped). */
export function linesOfBytes(bytes: Buffer): Line[] {
  const out: Line[] = [];
  let p = 0;
  const text = (s: number, e: number): string => {
    let t = bytes.toString("utf8", s, e);
    if (out.length === 0 && t.charCodeAt(0) === 0xfeff) t = t.slice(1);
    return t.endsWith("\r") ? t.slice(0, -1) : t;
  };
  for (;;) {
    const nl = bytes.indexOf(0x0a, p);
    if (nl === -1) break;
    out.push({ text: text(p, nl), lineNo: out.length + 1, offset: p, unterminated: false });
    p = nl + 1;
  }
  if (p < bytes.length)
    out.push({ text: text(p, bytes.length), lineNo: out.length + 1, offset: p, unterminated: true });
  return out;
}

const enoent = (rel: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`ENOENT: no such file, open '${rel}'`), { code: "ENOENT", syscall: "open" });

/** A file of `files` at `rel` (gunzipped when its name ends in `.gz`); reading an absent one throws `ENOENT`. */
function memFile(files: ReadonlyMap<string, Buffer>, rel: string): SourceFile {
  const lines = (): Line[] => {
    const bytes = files.get(rel);
    if (bytes === undefined) throw enoent(rel);
    return linesOfBytes(rel.endsWith(".gz") ? gunzipSync(bytes) : bytes);
  };
  return {
    rel,
    abs: null,
    async *lines() {
      yield* lines();
    },
    // As `readLineBatches` gives a small file: its terminated lines, then an unterminated last line on its own.
    async *lineBatches() {
      const all = lines();
      const last = all[all.length - 1];
      const whole = last?.unterminated ? all.slice(0, -1) : all;
      if (whole.length > 0) yield whole;
      if (last?.unterminated) yield [last];
    },
  };
}

/** Sources whose files are `files` (layout path → bytes); trajectories from `root`. */
export function memorySources(files: ReadonlyMap<string, Buffer>, root: string): Sources {
  const names = [...files.keys()];
  return {
    root,
    loadCells: async () => parseCells(files.get("cells.json")?.toString("utf8") ?? ""),
    checkCells: () => {},
    trajectoryDirs: {},
    hub: {
      live: false,
      describe: "reading the Hub from memory",
      repos: async () => {
        const repos = new Map<string, HubRepoFiles>();
        for (const rel of names) {
          const [top, owner, name, ...rest] = rel.split("/");
          if (top !== HUB_DIR || owner === undefined || name === undefined || rest.length === 0) continue;
          const dir = hubRepoPath(owner, name);
          repos.set(dir, {
            owner,
            name,
            dir,
            listError: null,
            readText: async (file) => files.get(`${dir}/${file}`)?.toString("utf8") ?? null,
            isFile: async (file) => files.has(`${dir}/${file}`),
          });
        }
        return [...repos.values()].sort(
          (a, b) =>
            (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
        );
      },
    },
    supervisorHistory: (cell) => memFile(files, supervisorHistoryPath(cell)),
    anchors: (cell) => memFile(files, anchorsPath(cell)),
    pvc: async (cell, diag) => {
      const format = choosePvcListing(cell, files.has(listingTsvPath(cell)), files.has(lsLRPath(cell)), diag);
      return {
        kind: "listing",
        format,
        file: memFile(files, format === "listing.tsv" ? listingTsvPath(cell) : lsLRPath(cell)),
      };
    },
    janitor: async (cell) => {
      const dir = janitorDirPath(cell);
      const inDir = names.filter((n) => n.startsWith(`${dir}/`)).map((n) => n.slice(dir.length + 1));
      return { dir, parts: orderJanitorParts(inDir).map((n) => memFile(files, `${dir}/${n}`)), listError: null };
    },
  };
}
