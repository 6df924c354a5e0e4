/**
 * Names beside a run's files that are known and not read, and what a
 * session file of each format is named (SOURCES.md: Layout; TRAJECTORIES.md).
 * Imports nothing: `tokens` loads it without the registry's schemas (a
 * start-up cost; README: Performance).
 */

/**
 * File names that are known and deliberately never read, anywhere under the
 * sources folder: the agent's notes (SOURCES.md: Layout), the ownership
 * marker that `snapshot` writes beside the files it wrote (src/util/out-owner.ts),
 * and the placeholders that keep an empty folder in git.
 */
export const KNOWN_UNREAD: readonly string[] = ["RUNLOG.md", ".ptb-manifest-outputs.json", ".gitkeep", ".keep"];

/**
 * Files that a kimi-cli or kimi-code session folder holds beside its
 * `wire.jsonl` and that carry no usage (the conversation context, rotated as
 * `context_N.jsonl` on compaction): known, not read.
 */
const KIMI_CONTEXT_RE = /^context(_\d+)?\.jsonl(\.gz)?$/;

/** True for a file that may sit among a format's session files and is known, not read (see the module comment). */
export function knownBesideSessions(format: string, name: string): boolean {
  return KNOWN_UNREAD.includes(name) || (format.startsWith("kimi") && KIMI_CONTEXT_RE.test(name));
}

/** What a `TRAJECTORY_FILE_NOT_READ` message adds: which names the format's session files have, and what is lost otherwise. */
export function sessionFileHint(format: string): string {
  const names = format.startsWith("kimi")
    ? `; a ${format} session file is read only when named wire.jsonl (or wire.jsonl.gz): name it wire.jsonl`
    : `; a ${format} session file is read only when its name ends in .jsonl or .jsonl.gz`;
  return `${names}, else the run's tokens miss its calls`;
}
