import { cmpStr } from "../util/values.js";

/**
 * Orders renames so that none targets an id still in use: a rename waits
 * until the repo holding its target has been renamed away. Deterministic
 * (each round by `from`). Renames whose target stays taken, or that form a
 * cycle, are returned as conflicts: a rename never targets an existing repo
 * (a second repo of the same checkpoint is settled by hand). The rule of
 * both `publish`'s plan and `diff`'s rename plan.
 *
 * @param existing the ids that exist now (the Hub's repos, or the old side's ids).
 */
export function orderRenames(
  renames: { from: string; to: string }[],
  existing: Set<string>,
): { renames: { from: string; to: string }[]; conflicts: { from: string; to: string; reason: string }[] } {
  const names = new Set(existing);
  let pending = [...renames].sort((a, b) => cmpStr(a.from, b.from));
  const ordered: { from: string; to: string }[] = [];
  for (;;) {
    const ready = pending.filter((r) => !names.has(r.to));
    if (ready.length === 0) break;
    for (const r of ready) {
      if (names.has(r.to)) continue; // two renames to one target: the first wins this round
      names.delete(r.from);
      names.add(r.to);
      ordered.push(r);
    }
    pending = pending.filter((r) => !ordered.includes(r));
  }
  const sources = new Set(pending.map((r) => r.from));
  const conflicts = pending.map((r) => ({
    ...r,
    reason: sources.has(r.to)
      ? "the renames form a cycle: rename one of them by hand through a free name"
      : `${r.to} already exists: a second repo of the same checkpoint (compare and delete one by hand)`,
  }));
  return { renames: ordered, conflicts };
}
