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

/**
 * Why a repo name part is not valid on the Hub, or null when it is
 * (MANIFEST.md: letters, digits, `-`, `_`, `.`; no `--` or `..`; not starting
 * or ending with `-` or `.`; at most 96 characters).
 */
export function hubNameProblem(name: string): string | null {
  if (name.length === 0) return "is empty";
  if (name.length > 96) return `is ${name.length} characters long (at most 96)`;
  const bad = name.match(/[^A-Za-z0-9._-]/);
  if (bad) return `contains ${JSON.stringify(bad[0])}`;
  if (name.includes("--")) return 'contains "--"';
  if (name.includes("..")) return 'contains ".."';
  if (/^[-.]/.test(name) || /[-.]$/.test(name)) return "starts or ends with - or .";
  return null;
}

/** Why a family id cannot stand inside a model id, or null (checked on its own, before any hour is known). */
export function familyNameProblem(family: string): string | null {
  if (family.length === 0) return "is empty";
  const bad = family.match(/[^A-Za-z0-9._-]/);
  if (bad) return `contains ${JSON.stringify(bad[0])}`;
  if (family.includes("--")) return 'contains "--"';
  if (family.includes("..")) return 'contains ".."';
  if (/^[-.]/.test(family) || /[-.]$/.test(family)) return "starts or ends with - or .";
  return null;
}
