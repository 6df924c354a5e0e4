/**
 * `npm run readme:codes`: rewrites the README's "Warnings and errors" tables
 * from the diagnostics registry (scripts/codes-table.ts says how).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { replaceCodesSection } from "./codes-table.js";

const readmePath = join(dirname(fileURLToPath(import.meta.url)), "..", "README.md");
const before = readFileSync(readmePath, "utf8");
const after = replaceCodesSection(before);
if (after !== before) writeFileSync(readmePath, after);
process.stdout.write(after === before ? "README.md: codes up to date\n" : "README.md: codes rewritten\n");
