import { readFile } from "node:fs/promises";
import { InputError } from "../errors.js";
import { absPath, CELLS_JSON } from "./layout.js";
import { isAbsent, isFsError, statIfPresent, unreadableError } from "../util/fs-errors.js";

/**
 * Checks that `sourcesDir` is a sources folder (SOURCES.md: Layout) before
 * anything else is looked at (the output folder included, so that a wrong
 * `--sources` is named as such): an existing, listable folder holding a
 * readable `cells.json` file.
 *
 * @throws InputError `SOURCES_NOT_FOUND` (no such folder, or a file),
 *   `SOURCES_UNREADABLE` (the folder cannot be read), `CELLS_MISSING` (a
 *   folder without `cells.json`: not a sources folder), `CELLS_UNREADABLE`
 *   (`cells.json` is a folder, or cannot be read).
 */
export async function assertSourcesFolder(sourcesDir: string): Promise<void> {
  let st: import("node:fs").Stats | null;
  try {
    st = await statIfPresent(sourcesDir);
  } catch (err) {
    throw unreadableError("SOURCES_UNREADABLE", sourcesDir, err, "cannot read the sources folder");
  }
  if (st === null)
    throw new InputError(
      "SOURCES_NOT_FOUND",
      `no such folder: ${sourcesDir} (give the sources folder with --sources)`,
      null,
    );
  if (!st.isDirectory())
    throw new InputError(
      "SOURCES_NOT_FOUND",
      `${sourcesDir} is not a folder (give the sources folder with --sources)`,
      null,
    );
  await readCellsText(sourcesDir);
}

/**
 * The text of `<sourcesDir>/cells.json`.
 *
 * @throws InputError `CELLS_MISSING` (absent: the folder is not a sources
 *   folder), `CELLS_UNREADABLE` (a folder, no permission, an I/O error).
 */
export async function readCellsText(sourcesDir: string): Promise<string> {
  try {
    return await readFile(absPath(sourcesDir, CELLS_JSON), "utf8");
  } catch (err) {
    if (isAbsent(err)) {
      throw new InputError(
        "CELLS_MISSING",
        `${sourcesDir} is not a sources folder: it has no cells.json (SOURCES.md: Layout)`,
        "cells.json",
      );
    }
    if (isFsError(err)) throw unreadableError("CELLS_UNREADABLE", "cells.json", err);
    throw err;
  }
}
