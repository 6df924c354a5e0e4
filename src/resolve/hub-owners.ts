/**
 * The Hub's repos against the owners `cells.json` names (SOURCES.md: hub/,
 * cells.json `org`, `spare_owner`): an owner none of whose repos is there,
 * or, live, repos of an owner it does not name.
 */
import type { Diagnostics } from "../diagnostics.js";
import type { HubRepo } from "../extractors/hub-files.js";
import type { CellsFile } from "../schema.js";
import { HUB_DIR } from "../sources/layout.js";
import { cmpStr } from "../util/values.js";

/**
 * Warns `HUB_OWNER_EMPTY` for cells.json's `org` or `spare_owner` when the
 * Hub (its snapshot or live listing) holds no repo of it: every published or
 * spare repo then goes unread in silence (a misspelt owner, private repos
 * listed without a token, a snapshot missing the owner's folder); and, for a
 * live listing, `HUB_UNKNOWN_OWNER` once per other owner it gave (the Hub
 * matches owners without case: `Agentic-PTB` for `agentic-ptb`).
 */
export function warnHubOwners(hub: readonly HubRepo[], registry: CellsFile, live: boolean, diag: Diagnostics): void {
  const owners = new Set(hub.map((r) => r.owner));
  // A snapshot's folders of other owners are warned with the unread inputs; the live listing's are here.
  const known = new Set([registry.org, registry.spare_owner, registry.baseline.split("/")[0]]);
  for (const owner of live ? [...owners].filter((o) => !known.has(o)).sort(cmpStr) : []) {
    const repos = hub.filter((r) => r.owner === owner);
    diag.warn(
      "HUB_UNKNOWN_OWNER",
      `the Hub listed ${repos.length} repo(s) of ${owner}, first ${repos[0]!.id}, an owner that is neither cells.json's org (${registry.org}) nor its spare_owner (${registry.spare_owner}) (a difference of case?): not read`,
      null,
      null,
    );
  }
  for (const [key, owner, what] of [
    ["org", registry.org, "no checkpoint has a published repo (ids, eos_ok unknown)"],
    ["spare_owner", registry.spare_owner, "no checkpoint has a spare copy"],
  ] as const) {
    if (owners.has(owner)) continue;
    diag.warn(
      "HUB_OWNER_EMPTY",
      `the Hub ${live ? "lists" : `snapshot (${HUB_DIR}/) holds`} no repo of ${owner} (cells.json's ${key}): ${what}; a misspelt owner${live ? ", or private repos listed without a token (HF_TOKEN)" : ", or the owner's folder missing from the snapshot"}?`,
      live ? null : `${HUB_DIR}/${owner}`,
      null,
    );
  }
}
