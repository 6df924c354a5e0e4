/**
 * Model ids (MANIFEST.md: Model id format; index-card.md): a Hub id
 * `owner/name` whose name, for a checkpoint, is `{cell}.h{HHH|NA}.{family}.{step}`.
 * The one place the commands parse an id; the name grammar itself is
 * `parsePublishedName`, which the Hub extractor uses too.
 */
import { type PublishedName, parsePublishedName } from "../extractors/hub-files.js";
import type { Row } from "../schema.js";

/**
 * The org of a manifest: the owner of its first checkpoint row's id
 * (undefined when it has none; the baseline's owner is another org).
 */
export function orgOfRows(rows: readonly Row[]): string | undefined {
  return rows.find((r) => r.cell !== "BASELINE")?.model_id.split("/")[0];
}

/**
 * The checkpoint an id names, read against the known `cells` (longest cell
 * name first): its owner is the first `/`-part and its name the second
 * (`org/name`). Null when the name does not fit the format, when the id has
 * no name part, or when `org` is given and the owner is another.
 */
export function parseModelId(id: string, cells: string[], org?: string): PublishedName | null {
  const [owner, name] = id.split("/");
  if (!owner || !name || (org !== undefined && owner !== org)) return null;
  return parsePublishedName(name, cells);
}

/**
 * The checkpoint key `cell/family/step` of an id, for pairing ids with rows:
 * against `cells` when known; else the cell is the shortest prefix of the
 * name that the format accepts, and the step is kept as written. An id that
 * names no checkpoint (the baseline) is its own key.
 */
export function checkpointKeyOfId(id: string, cells: string[] | null): string {
  if (cells) {
    const p = parseModelId(id, cells);
    if (p) return `${p.cell}/${p.family}/${p.step}`;
  }
  const slash = id.indexOf("/");
  if (slash <= 0) return id;
  const name = id.slice(slash + 1);
  for (let at = name.indexOf(".h", 1); at > 0; at = name.indexOf(".h", at + 1)) {
    const p = parsePublishedName(name, [name.slice(0, at)]);
    if (p) return `${p.cell}/${p.family}/${name.slice(name.lastIndexOf(".") + 1)}`;
  }
  return id;
}
