/**
 * Model ids (MANIFEST.md: Rules; index-card.md: Model id format).
 */
import { hubNameProblem } from "../schema.js";
import { InputError } from "../errors.js";

/** `HHH`: floor of the rounded hour, zero-padded to three digits; `NA` for a null hour. */
export function hourPart(hour: number | null): string {
  if (hour === null) return "NA";
  return String(Math.floor(hour)).padStart(3, "0");
}

/** `agentic-ptb/{cell}.h{HHH}.{family}.{step}` for an org, a cell, an hour, a family id and a step. */
export function modelId(org: string, cell: string, hour: number | null, family: string, step: number): string {
  return `${org}/${cell}.h${hourPart(hour)}.${family}.${step}`;
}

/**
 * The model id of a row, checked to be a valid Hub repo name.
 *
 * @throws InputError `FAMILY_INVALID_NAME` when it is not: map the family in
 *   cells.json family_aliases.
 */
export function rowModelId(org: string, cell: string, hour: number | null, family: string, step: number): string {
  const id = modelId(org, cell, hour, family, step);
  const problem = hubNameProblem(id.slice(org.length + 1));
  if (problem) {
    throw new InputError(
      "FAMILY_INVALID_NAME",
      `model id ${id} ${problem}; map the family in cells.json family_aliases`,
      "cells.json",
    );
  }
  return id;
}

/**
 * Ids are unique (MANIFEST.md: "Two checkpoints may never get the same id").
 * The Hub compares repo names without case, so `dpo` and `DPO` would be one
 * repo there.
 *
 * @throws InputError `DUPLICATE_MODEL_ID` at the first repeated id.
 */
export function checkUniqueIds(rows: readonly { model_id: string; family?: string | null }[]): void {
  const seenIds = new Map<string, { model_id: string; family?: string | null }>();
  for (const r of rows) {
    const other = seenIds.get(r.model_id.toLowerCase());
    if (other) {
      throw new InputError(
        "DUPLICATE_MODEL_ID",
        other.model_id === r.model_id
          ? `two checkpoints get the id ${r.model_id}`
          : `ids ${other.model_id} and ${r.model_id} differ only in case, and the Hub treats repo names case-insensitively (family directories ${JSON.stringify(other.family)} and ${JSON.stringify(r.family)}): map one in family_aliases`,
        "cells.json",
      );
    }
    seenIds.set(r.model_id.toLowerCase(), r);
  }
}
