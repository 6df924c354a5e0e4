import type { Command } from "commander";
import { inputErrorLine, type Warning, warningLine } from "../diagnostics.js";
import { DIFF_EXIT, ExitCodeError, InputError } from "../errors.js";
import {
  diffSides,
  differs,
  earlierNamesBeside,
  loadSide,
  type ManifestDiff,
  rekeySide,
  renderDiff,
} from "../diff/diff.js";
import type { CommandIo } from "../options.js";

/** Registers `ptb-manifest diff`. */
export function register(program: Command, io: CommandIo): void {
  program
    .command("diff")
    .description(
      "Compare two manifests: rows added, removed, changed field by field, and the rename plan (old id → new id).",
    )
    .argument(
      "<old>",
      "manifest.json, manifest.csv, model-ids.txt, an output folder, or a sources folder (its Hub snapshot's published ids)",
    )
    .argument("<new>", "the same kinds as <old>")
    .option("-j, --json", "print the diff as one JSON object", false)
    .addHelpText(
      "after",
      "\nExit codes (as diff(1)): 0 the sides are equal; 1 they differ (rows added, removed or changed, or renames); 2 a side is not a manifest (DIFF_INPUT ...); 64 usage error; 70 internal error.",
    )
    .addHelpText(
      "after",
      "\nExample (after ptb-manifest build --sources sources --out out): what publishing out/ would rename on the Hub\n  ptb-manifest diff sources out",
    )
    .action(async (oldPath: string, newPath: string, o: { json: boolean }) => {
      const warn = (w: Warning): void => void io.stderr.write(warningLine(w, io.style.stderr.warning));
      let d: ManifestDiff;
      try {
        // Ids under a family's earlier name (family_aliases) pair with its rows, as the builds matched them.
        const names = new Map([
          ...(await earlierNamesBeside(oldPath, warn)),
          ...(await earlierNamesBeside(newPath, warn)),
        ]);
        d = diffSides(
          rekeySide(await loadSide(oldPath, warn), names),
          rekeySide(await loadSide(newPath, warn), names),
          oldPath,
          newPath,
        );
      } catch (err) {
        // "Cannot compare" must not read as "differ" (1): the trouble code of diff(1).
        if (err instanceof InputError)
          throw new ExitCodeError(DIFF_EXIT.trouble, inputErrorLine(err, io.style.stderr.error), true);
        throw err;
      }
      io.stdout.write(o.json ? `${JSON.stringify(d, null, 2)}\n` : renderDiff(d));
      if (differs(d)) throw new ExitCodeError(DIFF_EXIT.differ, "", true);
    });
}
