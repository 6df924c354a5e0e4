import { describe, expect, it } from "vitest";
import { type TokensOptions, tokensWindow } from "../src/pipeline/tokens.js";

/** Runs tokensWindow; a usage error comes back as `code: message`. */
function check(paths: string[], opts: TokensOptions): string | ReturnType<typeof tokensWindow> {
  try {
    return tokensWindow(paths, opts, (message, code = "ptb.tokensUsage") => {
      throw new Error(`${code}: ${message}`);
    });
  } catch (err) {
    return (err as Error).message;
  }
}

describe("tokens options (tokensWindow)", () => {
  it("reads --at and --since as epoch ms", () => {
    expect(check(["t/"], { format: "codex", at: "2026-02-23T12:43:08+01:00", since: "2026-02-23T10:00:00Z" })).toEqual({
      atMs: Date.parse("2026-02-23T11:43:08Z"),
      sinceMs: Date.parse("2026-02-23T10:00:00Z"),
      hour: null,
    });
    expect(check([], { cell: "c", hour: "20.75" })).toEqual({ atMs: null, sinceMs: null, hour: 20.75 });
  });
  it("refuses a time without a zone", () => {
    expect(check(["t/"], { format: "codex", at: "2026-02-23T11:43:08" })).toBe(
      "ptb.invalidAt: option '--at <iso-time>' argument '2026-02-23T11:43:08' is not a time. Accepted: ISO 8601 with Z or an offset, e.g. 2026-02-23T11:43:08.301Z or 2026-02-23T12:43:08+01:00",
    );
  });
  it("refuses an empty window", () => {
    expect(check(["t/"], { format: "codex", at: "2026-01-01T00:00:00Z", since: "2026-01-02T00:00:00Z" })).toBe(
      "ptb.tokensUsage: --since 2026-01-02T00:00:00Z is after --at 2026-01-01T00:00:00Z: no call can be completed in that window",
    );
  });
  it("checks --hour", () => {
    expect(check([], { cell: "c", hour: "-1" })).toBe(
      "ptb.tokensUsage: option '--hour <h>' argument '-1' is before the run's start: budget hours start at 0",
    );
    expect(check([], { cell: "c", hour: "1e2" })).toBe(
      "ptb.tokensUsage: option '--hour <h>' argument '1e2' is not a number of hours (e.g. 20.75)",
    );
    expect(check(["t/"], { format: "codex", hour: "2" })).toBe(
      "ptb.tokensUsage: --hour needs --cell (the budget clock is the cell's)",
    );
    expect(check([], { cell: "c", hour: "2", at: "2026-01-01T00:00:00Z" })).toBe(
      "ptb.tokensUsage: give --at or --hour, not both",
    );
  });
  it("without --cell: --format and PATHs, no --sources or --trajectory", () => {
    expect(check(["t/"], { format: "codex", sources: "s" })).toBe("ptb.tokensUsage: --sources needs --cell");
    expect(check(["t/"], { format: "codex", trajectory: "d" })).toBe("ptb.tokensUsage: --trajectory needs --cell");
    expect(check(["t/"], {})).toBe(
      "ptb.tokensUsage: required option '--format <format>' not specified (or give --sources DIR --cell CELL)",
    );
    expect(check([], { format: "codex" })).toBe(
      "ptb.tokensUsage: missing required argument 'path' (or give --sources DIR --cell CELL)",
    );
  });
  it("with --cell: no --format, no PATHs", () => {
    expect(check([], { cell: "c", format: "codex" })).toBe(
      "ptb.tokensUsage: --cell takes the format from cells.json: do not give --format",
    );
    expect(check(["t/"], { cell: "c" })).toBe(
      "ptb.tokensUsage: --cell reads the cell's trajectory/ folder: do not give PATHs",
    );
  });
});
