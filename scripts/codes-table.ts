/**
 * The README's "Warnings and errors" tables, generated from the diagnostics
 * registry (src/diagnostics/registry.ts): one table of warnings and one of
 * errors, each sorted by code, with the code's meaning and what to do. The
 * README holds them between {@link START} and {@link END};
 * `npm run readme:codes` rewrites that part, and test/diagnostics.test.ts
 * checks that it is up to date.
 */
import { REGISTRY, type CodeInfo, type Level } from "../src/diagnostics/registry.js";

/** The marker line before the generated tables. */
export const START = "<!-- codes:start: generated from src/diagnostics/registry.ts by `npm run readme:codes` -->";
/** The marker line after them. */
export const END = "<!-- codes:end -->";

const HEADINGS: Record<Level, string> = { warning: "Warning codes", error: "Error codes" };

/** The generated part, markers excluded: a `###` heading and a table per level (warnings first), rows sorted by code. */
export function codesSection(registry: Record<string, CodeInfo> = REGISTRY): string {
  const parts: string[] = [];
  for (const level of ["warning", "error"] as const) {
    const codes = Object.keys(registry)
      .filter((c) => registry[c]!.level === level)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const rows = codes.map((c) => `| \`${c}\` | ${registry[c]!.meaning} | ${registry[c]!.remedy} |`);
    parts.push(`### ${HEADINGS[level]}\n\n| code | meaning | what to do |\n|---|---|---|\n${rows.join("\n")}\n`);
  }
  return parts.join("\n");
}

/** `readme` with the text between its markers replaced by `section`; throws when a marker is missing. */
export function replaceCodesSection(readme: string, section: string = codesSection()): string {
  const start = readme.indexOf(`${START}\n`);
  const end = readme.indexOf(`${END}\n`, start);
  if (start < 0 || end < 0) throw new Error(`README.md: no "${START}" … "${END}" section`);
  return `${readme.slice(0, start + START.length + 1)}${section}${readme.slice(end)}`;
}

/** The text between the markers of `readme` (null when a marker is missing). */
export function currentCodesSection(readme: string): string | null {
  const start = readme.indexOf(`${START}\n`);
  const end = readme.indexOf(`${END}\n`, start);
  return start < 0 || end < 0 ? null : readme.slice(start + START.length + 1, end);
}
