import { cmpStr } from "../util/values.js";

/**
 * Orders renames so that none targets an id still in use: a rename waits
 * until the repo holding its target has been renamed away. Deterministic
 * (each round by `from`). Renames whose target stays taken, or that form a
 * cycle, are returned as conflicts: a rename never targets an existing repo
 * (a second repo of the same checkpoint is settled by hand). The rule of
 * both `publish`'s plan and `diff`'s rename plan.
 *
 * Where two repos of one checkpoint would take one id, the one in `preferred`
 * (the repo whose files the build read the row's eos from: what the
 * manifest says of that id) goes first; the other is a conflict.
 *
 * @param existing the ids that exist now (the Hub's repos, or the old side's ids).
 * @param preferred repos to rename first when several target one id.
 */
export function orderRenames(
  renames: { from: string; to: string }[],
  existing: Set<string>,
  preferred: ReadonlySet<string> = new Set(),
): { renames: { from: string; to: string }[]; conflicts: { from: string; to: string; reason: string }[] } {
  const names = new Set(existing);
  const first = (id: string): number => (preferred.has(id) ? 0 : 1);
  let pending = [...renames].sort((a, b) => first(a.from) - first(b.from) || cmpStr(a.from, b.from));
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
  const takenBy = new Map(ordered.map((r) => [r.to, r.from]));
  const conflicts = pending.map((r) => ({
    ...r,
    reason: sources.has(r.to)
      ? "the renames form a cycle: rename one of them by hand through a free name"
      : existing.has(r.to)
        ? `${r.to} already exists: a second repo of the same checkpoint (compare and delete one by hand)`
        : `${takenBy.get(r.to)} is renamed to ${r.to}${preferred.has(takenBy.get(r.to)!) ? " (the repo the build read the row's eos from)" : ""}: this is a second repo of the same checkpoint (compare and delete one by hand)`,
  }));
  return { renames: ordered, conflicts };
}

/**
 * The repos a build read its rows' eos from (its provenance records'
 * `eos.repo`, MANIFEST.md: provenance): for each row, the copy the manifest
 * describes when a checkpoint has several; {@link orderRenames}' `preferred`.
 */
export function eosRepos(provenance: readonly unknown[]): Set<string> {
  const repos = new Set<string>();
  for (const r of provenance) {
    const repo = (r as { eos?: { repo?: unknown } } | null)?.eos?.repo;
    if (typeof repo === "string") repos.add(repo);
  }
  return repos;
}
