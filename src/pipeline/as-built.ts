/**
 * Whether the files of a build in `--out` are as `build` wrote them
 * (README: Safety, the output marker): what `explain` and `validate` read
 * back must be that build's decision, not an edit.
 */
import { join } from "node:path";
import { InputError } from "../errors.js";
import { OUT_MARKER, readOwnership, sha256Of } from "../util/out-owner.js";

/**
 * Checks the build's files in `out` against the output marker's record of
 * them (README: Safety, `.ptb-manifest-outputs.json`): a file `build` wrote
 * whose bytes changed since (a row edited by hand) would be explained and
 * validated as that build's decision. A folder without a marker (an earlier
 * version's) has no record to check; a marker this tool did not write is an
 * error (it would hide an edit).
 *
 * @throws InputError `OUT_BUILD_UNREADABLE` naming the changed file.
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
  if (!own.marker) return;
  for (const [name, text] of files) {
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
