/**
 * What the line scanner is asked, and how it hands a line over.
 *
 * Which lines line-scan.ts hands over (LineScanOptions), how a classifier
 * judges a line (LineClass), and the visitor a line is handed to (LineVisitor).
 */

/** What {@link LineScanOptions.classify} says of a line. */
export type LineClass = 0 | 1 | 2;
/** The line cannot matter to the caller. */
export const LINE_SKIP: LineClass = 0;
/** The line must be handed over. */
export const LINE_TAKE: LineClass = 1;
/** Let the needles decide. */
export const LINE_UNKNOWN: LineClass = 2;

/**
 * Which lines {@link scanLines} hands over. With neither `markers` nor
 * `classify`, every line is (the slow path). With one of them (the fast
 * path), a line is handed over when:
 * - `wantAll()` returns true before it (e.g. until a header line was read);
 * - marker mode: it holds one of `markers` (found by a search over the whole
 *   buffer-full, not line by line);
 * - classify mode: `classify` says `LINE_TAKE`, or `LINE_UNKNOWN` and it holds
 *   one of `needles`;
 * - in both modes: it is not well-shaped (its first and last non-blank bytes
 *   are not `{` and `}`), it holds a NUL byte (zero-filled blocks after a
 *   crash), or it is the file's cut-off last line (no line end);
 * - with `detectGlued` (classify mode only): it looks glued (see below).
 * Every other line is skipped unread, but counted in line numbers.
 */
export interface LineScanOptions {
  /**
   * Marker mode: byte strings one of which every line that can matter holds
   * (a key or type name as written without `\u` escapes, e.g. `"usage"`).
   */
  markers?: readonly Buffer[];
  /** Classify mode: a first look at each line from its leading bytes (e.g. `LeadingScalarReader`). */
  classify?: (buf: Buffer, start: number, end: number) => LineClass;
  /** Classify mode: what decides a `LINE_UNKNOWN` line (as `markers`). */
  needles?: readonly Buffer[];
  /**
   * Classify mode: a skipped line is handed over after all when the file's
   * record start `{"<first key>":` (learnt from the file's first line that
   * begins with `{"`) appears inside it after a byte that cannot precede an
   * object in JSON (not `:`, `[` or `,`, blanks between allowed): a line cut
   * off (also right after a blank) and continued by the next record of an
   * appending writer. Default false.
   */
  detectGlued?: boolean;
  /**
   * Classify mode with `detectGlued`: find the line ends and the record
   * starts inside lines with the WebAssembly search instead of
   * `Buffer.indexOf` (same lines handed over). It pays where lines hold many
   * nested objects that start like a record (kimi-code's `{"type":…`
   * content parts: 1 GB in 0.87 of the time); where they hold few, the
   * native searches are faster per byte (codex: 1.05 of the time). Default false.
   */
  searchLines?: boolean;
  /**
   * Asked before each line in the fast path: true means "hand this line over
   * whatever it holds". In marker mode it is asked only until it first
   * returns false (e.g. "until the header was read").
   */
  wantAll?: () => boolean;
  /** Called with the number of raw bytes read from disk (compressed bytes for `.gz`) as reading goes. */
  onBytes?: (bytes: number) => void;
  /** Size of the read buffer in bytes (default 2 MiB); it grows for a longer line. */
  chunkBytes?: number;
}

/**
 * Called for each line handed over, synchronously, while `buf` holds it:
 * `buf[start, end)` is the line without its line end (`\n`, `\r\n`) and, on
 * the first line, without a UTF-8 BOM. `lineNo` is 1-based; `unterminated`
 * marks a last line without a line end. The bytes are only valid during the
 * call (the buffer is reused).
 */
export type LineVisitor = (buf: Buffer, start: number, end: number, lineNo: number, unterminated: boolean) => void;
