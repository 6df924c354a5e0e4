/**
 * Markdown helpers shared by the writers that print Markdown tables: the
 * index card (`src/writers/card.ts`) and the summary `build` prints
 * (`src/commands/build.ts`).
 */

/** Line breaks of any kind: CRLF, LF, CR, vertical tab, form feed, NEL, and the Unicode line and paragraph separators. */
const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/g;

/**
 * Makes text from the inputs (a cell's `driver`, `effort` or name, which come
 * from `cells.json`) safe to put in one cell of a GitHub-flavoured Markdown
 * table: every line break becomes a space (a break would end the row), every
 * `|` becomes `\|` (a bare one would start a new column), and every `\`
 * becomes `\\`, so that a backslash the text already holds cannot swallow
 * the escape of a following `|`. The cell renders as the original text
 * (with its line breaks as spaces).
 */
export function mdCell(text: string): string {
  return text.replace(LINE_BREAK, " ").replace(/\\/g, "\\\\").replace(/\|/g, "\\|");
}
