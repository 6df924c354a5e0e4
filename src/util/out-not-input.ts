/**
 * No output of a run replaces what the same run reads (DESIGN.md: Trust):
 * paths compared after resolving the links in their folders.
 */
import { realpath } from "node:fs/promises";
import { basename, dirname, join, resolve, sep } from "node:path";
import { InputError } from "../errors.js";

/** A path with its existing folders resolved through links (the last part kept as is: it is replaced, never written through). */
async function entryPath(path: string): Promise<string> {
  const abs = resolve(path);
  const parent = dirname(abs);
  if (parent === abs) return abs;
  try {
    return join(await realpath(parent), basename(abs));
  } catch {
    return join(await entryPath(parent), basename(abs));
  }
}

/** A path resolved through every link, as reading it does; the path itself when it does not exist. */
async function readPath(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return entryPath(path);
  }
}

/**
 * Checks that no output of a run replaces what the same run reads (DESIGN.md:
 * Trust): `targets` are the paths an output replaces (a file, or with
 * `whole` a folder replaced with everything in it), `inputs` what the run
 * reads, each with the option that named it (`named`: how to name it, when
 * not `option path`; a file, or a folder read with what is in it). A target that is an input, lies inside an input folder,
 * or (with `whole`) holds an input is refused, even with `--force`. Paths
 * are compared after resolving links in their folders (a target's own link
 * is replaced, not written through, so it is not followed).
 *
 * @throws InputError `OUT_IS_INPUT` naming the target and the input.
 */
export async function checkNotInputs(
  targets: string[],
  inputs: { path: string; named?: string; option: string }[],
  opts: { option: string; whole?: boolean },
): Promise<void> {
  for (const target of targets) {
    const t = await entryPath(target);
    for (const input of inputs) {
      const i = await readPath(input.path);
      const clash =
        t === i ||
        t.startsWith(i.endsWith(sep) ? i : i + sep) ||
        (opts.whole === true && i.startsWith(t.endsWith(sep) ? t : t + sep));
      if (!clash) continue;
      const how = t === i ? "is" : t.startsWith(i) ? "is inside" : "holds";
      throw new InputError(
        "OUT_IS_INPUT",
        `${opts.option} ${target} ${how} ${input.named ?? `${input.option} ${input.path}`}, which this run reads: an output never replaces an input, not even with --force; nothing written (write it elsewhere)`,
        target,
      );
    }
  }
}
