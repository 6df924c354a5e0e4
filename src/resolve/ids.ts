/**
 * Model ids (MANIFEST.md: Rules; index-card.md: Model id format).
 */

/** `HHH`: floor of the rounded hour, zero-padded to three digits; `NA` for a null hour. */
export function hourPart(hour: number | null): string {
  if (hour === null) return "NA";
  return String(Math.floor(hour)).padStart(3, "0");
}

/** `agentic-ptb/{cell}.h{HHH}.{family}.{step}` for an org, a cell, an hour, a family id and a step. */
export function modelId(org: string, cell: string, hour: number | null, family: string, step: number): string {
  return `${org}/${cell}.h${hourPart(hour)}.${family}.${step}`;
}
