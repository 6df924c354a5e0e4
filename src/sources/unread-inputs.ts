/**
 * Inputs that no reader read: after a build, every file under the sources
 * folder is read by some extractor, or is known and deliberately not read
 * ({@link KNOWN_UNREAD}), or is a warning the user sees (DESIGN.md: Trust,
 * "every surprise is a warning"). A typo in `cells.json`'s `spare_owner`, a
 * cell folder missing from `cells.json`, a session file or a janitor part
 * under a name the reader does not look for would otherwise change numbers
 * silently.
 *
 * Warning codes (one per folder and code, with the count and the first path):
 * - `HUB_UNKNOWN_OWNER`          a `hub/<owner>/` folder of an owner that `cells.json` names neither as
 *                                `org`, `spare_owner` nor the baseline's owner (with the closest of them).
 * - `CELL_NOT_REGISTERED`        a top-level folder that is no cell of `cells.json`.
 * - `TRAJECTORY_FILE_NOT_READ`   files in `<cell>/trajectory/` that are not session files of the cell's format.
 * - `JANITOR_PART_NOT_READ`      files in `<cell>/janitor/` that are not `ckpt-janitor.log` nor `ckpt-janitor.log.N[.gz]`.
 * - `INPUT_NOT_READ`             any other file that no reader reads.
 */
import { cmpStr } from "../util/values.js";
import type { Warning } from "../diagnostics.js";
import type { WarningCode } from "../diagnostics/registry.js";
import { closestKey } from "./cells.js";
import { KNOWN_UNREAD, knownBesideSessions, sessionFileHint } from "./session-file-names.js";

/** What the readers of one build consumed, as paths relative to the sources folder (forward slashes). */
export interface InputsRead {
  /** Files read. A path listed that does not exist is harmless. */
  files: string[];
  /**
   * Folders (no trailing `/`) whose every file counts as read or known: a Hub
   * repo folder that is used (its other files are deliberately not read), an
   * excluded cell, a folder that a live source (`--hub`, `--pvc`,
   * `--trajectory`) replaces.
   */
  folders: string[];
}

/** What {@link unreadInputWarnings} needs of `cells.json`. */
export interface UnreadContext {
  /** Every cell of `cells.json` (excluded ones too), with its trajectory format. */
  cells: { cell: string; trajectory_format: string }[];
  org: string;
  spare_owner: string;
  /** The baseline's repo id, `<owner>/<name>`. */
  baseline: string;
}

/**
 * The warnings for the files of `all` that are neither in `read` nor known
 * (see the module comment for the codes), one per (code, folder) in the
 * order of the folders' names: the message gives the folder, how many files
 * and the first of them (`file`), and what to do where it is clear.
 *
 * - `all`: every file under the sources folder, relative, forward slashes
 *   (the keys of `hashInputs`; a key ending in `/` is a folder that could not
 *   be listed, already warned about, and is skipped, as is a file whose
 *   `hash` value `unreadable(path)` says was not read: `INPUT_UNREADABLE`).
 * - `namedByWarnings`: files that a warning of the build already names
 *   (e.g. the second path of `TRAJECTORY_DUPLICATE_PATH`): not warned again.
 *
 * Pure: reads nothing from disk.
 */
export function unreadInputWarnings(
  all: readonly string[],
  read: InputsRead,
  ctx: UnreadContext,
  opts: { namedByWarnings?: ReadonlySet<string>; unreadable?: (path: string) => boolean } = {},
): Warning[] {
  const files = new Set(read.files);
  const folders = read.folders.map((f) => `${f.replace(/\/+$/, "")}/`);
  const cells = new Map(ctx.cells.map((c) => [c.cell, c.trajectory_format]));
  const baselineOwner = ctx.baseline.split("/")[0] ?? "";
  const owners = [ctx.org, ctx.spare_owner, baselineOwner];
  const groups = new Map<string, { code: WarningCode; folder: string; paths: string[]; hint: string }>();
  for (const path of [...all].sort(cmpStr)) {
    if (path.endsWith("/") || files.has(path) || folders.some((f) => path.startsWith(f))) continue;
    if (opts.unreadable?.(path) || opts.namedByWarnings?.has(path)) continue;
    const parts = path.split("/");
    const name = parts[parts.length - 1]!;
    if (KNOWN_UNREAD.includes(name)) continue;
    const parent = parts.length > 1 ? parts.slice(0, -1).join("/") : ".";
    let code: WarningCode = "INPUT_NOT_READ";
    let folder = parent;
    let hint = "";
    if (parts[0] === "hub" && parts.length >= 3 && !owners.includes(parts[1]!)) {
      code = "HUB_UNKNOWN_OWNER";
      folder = `hub/${parts[1]}`;
      const near = closestKey(parts[1]!, owners);
      const key = near === ctx.org ? "org" : near === ctx.spare_owner ? "spare_owner" : "baseline";
      hint =
        near !== null
          ? `; is cells.json's ${key} "${near}" a typo of "${parts[1]}"?`
          : `; cells.json reads only org "${ctx.org}", spare_owner "${ctx.spare_owner}" and the baseline "${ctx.baseline}"`;
    } else if (parts.length >= 2 && parts[0] !== "hub" && !cells.has(parts[0]!)) {
      code = "CELL_NOT_REGISTERED";
      folder = parts[0]!;
      const near = closestKey(parts[0]!, [...cells.keys()]);
      hint = `; add the cell to cells.json${near !== null ? ` (or is it cell "${near}" misnamed?)` : ""}`;
    } else if (parts.length >= 3 && parts[1] === "trajectory") {
      const format = cells.get(parts[0]!) ?? "";
      if (knownBesideSessions(format, name)) continue;
      code = "TRAJECTORY_FILE_NOT_READ";
      folder = `${parts[0]}/trajectory`;
      hint = sessionFileHint(format);
    } else if (parts.length >= 3 && parts[1] === "janitor") {
      code = "JANITOR_PART_NOT_READ";
      folder = `${parts[0]}/janitor`;
      hint =
        "; a janitor log part is read only as ckpt-janitor.log or ckpt-janitor.log.N[.gz] (N = 1 the newest rotated part): rename the part ckpt-janitor.log.N[.gz], else the checkpoints it names lose that evidence";
    }
    const key = `${code}\u0000${folder}`;
    const g = groups.get(key) ?? { code, folder, paths: [], hint };
    g.paths.push(path);
    groups.set(key, g);
  }
  return [...groups.values()]
    .sort((a, b) => cmpStr(a.folder, b.folder) || cmpStr(a.code, b.code))
    .map((g) => ({
      code: g.code,
      message: `${describe(g.code, g.folder)}: ${g.paths.length} file(s) no reader reads, first ${g.paths[0]}${g.hint}`,
      file: g.paths[0]!,
      line: null,
    }));
}

function describe(code: string, folder: string): string {
  switch (code) {
    case "HUB_UNKNOWN_OWNER":
      return `${folder}/ is the folder of an owner that cells.json does not name`;
    case "CELL_NOT_REGISTERED":
      return `${folder}/ is no cell of cells.json`;
    default:
      return `${folder === "." ? "the sources folder" : `${folder}/`}`;
  }
}
