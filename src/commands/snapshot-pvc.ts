import type { Command } from "commander";
import { type Diagnostics, warningLine } from "../diagnostics.js";
import { EXIT, ExitCodeError } from "../errors.js";
import type { CommandIo } from "../options.js";
import { runSnapshotPvc } from "../pipeline/snapshot-pvc.js";

/** Raised to stop the walk when the reader of stdout has gone (`| head`): not an error, as with `find`. */
class StdoutClosed extends Error {}

/**
 * Runs `body` with a writer to stdout that waits for `drain` when the
 * buffer is full and stops the walk quietly (`StdoutClosed`) once the pipe
 * is closed (EPIPE).
 */
async function withStdout(
  stdout: NodeJS.WriteStream,
  body: (write: (chunk: string) => void | Promise<void>) => Promise<void>,
): Promise<void> {
  let closed = false;
  const onError = (err: NodeJS.ErrnoException): void => {
    if (err.code !== "EPIPE") throw err;
    closed = true;
    stdout.emit("drain"); // release a writer waiting for it
  };
  stdout.on("error", onError);
  const write = (chunk: string): void | Promise<void> => {
    if (closed) throw new StdoutClosed();
    if (stdout.write(chunk)) return;
    return new Promise((done) => stdout.once("drain", () => done()));
  };
  try {
    await body(write);
  } catch (err) {
    if (!(err instanceof StdoutClosed)) throw err;
  } finally {
    if (!closed) stdout.off("error", onError); // once closed, later EPIPEs stay handled
  }
}

/** Registers `ptb-manifest snapshot-pvc`. */
export function register(program: Command, io: CommandIo): void {
  program
    .command("snapshot-pvc")
    .description(
      "Print the find-format listing (pvc/listing.tsv) of a mounted PVC tree, to keep before the volume is released.",
    )
    .argument("<dir>", "the mounted checkpoint tree")
    .option("--as <pvc_root>", "print paths under this PVC path (the cell's pvc_root) instead of DIR")
    .addHelpText(
      "after",
      "\nExample:\n  ptb-manifest snapshot-pvc /mnt/kimi --as /pvc/ptb/kimi > sources/kimi/pvc/listing.tsv\n" +
        "\nExit codes: 0 every entry listed; 1 DIR is not a readable directory (PVC_DIR_MISSING); 2 listing written but incomplete (PVC_BAD_NAME: a name with a line break, a tab or bytes that are not UTF-8; PVC_UNREADABLE_DIR), each warned on stderr with a summary line.\n",
    )
    .action(async (dir: string, o: { as?: string }) => {
      // The listing's paths are absolute (SOURCES.md: pvc/): build takes a relative one for a bad line.
      if (o.as !== undefined && !o.as.startsWith("/"))
        throw new ExitCodeError(
          EXIT.usage,
          `error: --as ${o.as} is not an absolute path: give the cell's pvc_root (e.g. /pvc/ptb/kimi), as cells.json has it`,
        );
      let diag: Diagnostics | null = null;
      await withStdout(io.stdout, async (write) => {
        diag = (await runSnapshotPvc({ dir, as: o.as, write })).diag;
      });
      const warnings = (diag as Diagnostics | null)?.warnings ?? [];
      if (warnings.length === 0) return;
      for (const w of diag!.warnings) io.stderr.write(warningLine(w, io.style.stderr.warning));
      const counts = new Map<string, number>();
      for (const w of warnings) counts.set(w.code, (counts.get(w.code) ?? 0) + 1);
      const summary = [...counts].map(([code, n]) => `${n} ${code}`).join(", ");
      throw new ExitCodeError(
        EXIT.strictWarnings,
        `snapshot-pvc: the listing is incomplete (${summary}): the entries named above are not in it\n`.replace(
          /\n$/,
          "",
        ),
      );
    });
}
