/**
 * Stop ids of a row (MANIFEST.md: eos_ok, eos_token_id; SOURCES.md: hub/):
 * read from the checkpoint's published repo.
 */
import type { Diagnostics } from "../diagnostics.js";
import type { HubRepo, HubRepoObservation } from "../extractors/hub-files.js";
import { cmpStr } from "../util/values.js";

/** The published repo eos is read from (undefined: none), its stop ids, and whether they hold the required one. */
export interface EosDecision {
  pub: HubRepoObservation | undefined;
  ids: number[] | null;
  /** null when unknown: no published repo, or no file of it gives stop ids. */
  ok: boolean | null;
}

/**
 * The eos of a checkpoint published in `published`, whose row id is `id`: the
 * repo at the row's own id is the one users download, else the most recently
 * changed one. Warns `HUB_DUPLICATE_REPO` when several repos hold it (a copy
 * left by a rename, whatever its stop ids), and `HUB_NO_EOS` when no file of
 * the chosen repo gives stop ids (unknown, not a packaging defect).
 */
export function eosOf(
  label: string,
  id: string,
  published: readonly HubRepoObservation[],
  requiredEosId: number,
  diag: Diagnostics,
): EosDecision {
  const pub =
    published.find((p) => p.repo.id === id) ??
    [...published].sort(
      (a, b) => cmpStr(b.repo.lastModified ?? "", a.repo.lastModified ?? "") || cmpStr(a.repo.id, b.repo.id),
    )[0];
  if (published.length > 1) {
    const differ = new Set(published.map((p) => JSON.stringify(p.repo.eos.ids))).size > 1;
    diag.warn(
      "HUB_DUPLICATE_REPO",
      `${published.length} published repos hold ${label}${differ ? " with different stop ids" : " (same stop ids)"} (${[
        ...published,
      ]
        .sort((a, b) => cmpStr(a.repo.id, b.repo.id))
        .map((p) => `${p.repo.id}: ${JSON.stringify(p.repo.eos.ids)}`)
        .join("; ")}); eos is read from ${pub!.repo.id}`,
      pub!.repo.dir,
      null,
    );
  }
  return { pub, ...(pub ? repoEos(pub.repo, requiredEosId, diag) : { ids: null, ok: null }) };
}

/**
 * The stop ids `repo`'s files give (MANIFEST.md: eos_token_id) and whether
 * they hold `requiredEosId` (`eos_ok`); both null when no file gives them,
 * which is unknown, not a packaging defect: warned `HUB_NO_EOS` with why
 * (`eos.unknownWhy`). `subject` names the value in the message (the
 * baseline's row says so).
 */
export function repoEos(
  repo: HubRepo,
  requiredEosId: number,
  diag: Diagnostics,
  subject = "eos_ok",
): { ids: number[] | null; ok: boolean | null } {
  const ids = repo.eos.ids;
  if (ids !== null) return { ids, ok: ids.includes(requiredEosId) };
  diag.warn(
    "HUB_NO_EOS",
    `${repo.id}: ${repo.eos.unknownWhy ?? "no generation_config.json or config.json gives eos_token_id"}, so ${subject} is unknown (null)`,
    repo.dir,
    null,
  );
  return { ids: null, ok: null };
}
