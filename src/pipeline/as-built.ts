/**
 * Whether the files of a build in `--out` are as `build` wrote them
 * (README: Safety, the output marker): what `explain` and `validate` read
 * back must be that build's decision, not an edit.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { InputError } from "../errors.js";
import { OUT_MARKER, readOwnership, sha256Of } from "../util/out-owner.js";
import { fsReason, isAbsent } from "../util/fs-errors.js";

/**
 * The build's files with rows in them that are checked besides those read
 * (`manifest.csv` is the one the Hub's viewer shows), when present.
 */
const ROW_FILES = ["manifest.json", "manifest.csv", "model-ids.txt", "provenance.jsonl", "build-report.json"];

/**
 * Checks the build's files in `out` against the output marker's record of
 * them (README: Safety, `.ptb-manifest-outputs.json`): a file `build` wrote
 * whose bytes changed since (a row edited by hand) would be explained and
 * validated as that build's decision. `files` are those the caller read (their
 * text); the other files with rows ({@link ROW_FILES}) are read here when
 * present. A folder without a marker (a copy made without its dotfiles, or an
 * earlier version's) has no record to check them against, and a marker this
 * tool did not write would hide an edit: both are errors.
 *
 * @throws InputError `OUT_BUILD_UNREADABLE` naming the changed file or the marker.
 */
export async function assertAsBuilt(out: string, files: [name: string, text: string][]): Promise<void> {
  const own = await readOwnership(out);
  // A marker this tool did not write (garbage, another shape) records nothing: no file can be checked.
  if (own.markerForeign)
    throw new InputError(
      "OUT_BUILD_UNREADABLE",
      `${join(out, OUT_MARKER)} is not a marker ptb-manifest wrote, so whether the build's files are as it wrote them is unknown: rebuild`,
      join(out, OUT_MARKER),
    );
  if (!own.marker)
    throw new InputError(
      "OUT_BUILD_UNREADABLE",
      `${out} has no output marker (${OUT_MARKER}: a copy made without dotfiles, or an earlier version's folder), so whether its files are as the build wrote them is unknown: rebuild, or copy the whole folder (cp -a)`,
      join(out, OUT_MARKER),
    );
  const read = new Set(files.map(([name]) => name));
  const others: [string, string][] = [];
  for (const name of ROW_FILES) {
    if (read.has(name)) continue;
    const text = await readFile(join(out, name), "utf8").catch((err: unknown) => {
      if (isAbsent(err)) return null;
      throw new InputError(
        "OUT_BUILD_UNREADABLE",
        `${join(out, name)} cannot be read (${fsReason(err)}): rebuild`,
        join(out, name),
      );
    });
    if (text !== null) others.push([name, text]);
  }
  for (const [name, text] of [...files, ...others]) {
    const recorded = own.recorded.get(name);
    const why =
      recorded === undefined
        ? "the output marker has no record of it"
        : recorded.writer !== "build"
          ? `written by ${recorded.writer === null ? "an earlier version" : `ptb-manifest ${recorded.writer}`}, not by build`
          : recorded.sha256 !== sha256Of(text)
            ? "changed since ptb-manifest build wrote it (its sha256 is not the output marker's record)"
            : null;
    if (why !== null)
      throw new InputError(
        "OUT_BUILD_UNREADABLE",
        `${join(out, name)} is not as the build wrote it: ${why}; what it says is no build's decision: rebuild`,
        join(out, name),
      );
  }
}
