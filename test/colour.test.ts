import { describe, expect, it } from "vitest";
import { colourWanted, PLAIN, styleOf } from "../src/util/colour.js";

const TTY = { isTTY: true };
const PIPE = { isTTY: false };
const TERM = { TERM: "xterm-256color" };

describe("colourWanted: whether a stream gets colour", () => {
  it("a terminal whose TERM has colours: on", () => {
    expect(colourWanted(TTY, TERM, false)).toBe(true);
  });
  it("a terminal with no TERM, or TERM=dumb: off", () => {
    expect(colourWanted(TTY, {}, false)).toBe(false);
    expect(colourWanted(TTY, { TERM: "dumb" }, false)).toBe(false);
  });
  it("NO_COLOR with a value: off; an empty NO_COLOR counts as unset (no-color.org)", () => {
    expect(colourWanted(TTY, { ...TERM, NO_COLOR: "1" }, false)).toBe(false);
    expect(colourWanted(TTY, { ...TERM, NO_COLOR: "" }, false)).toBe(true);
  });
  it("--no-color: off, even with FORCE_COLOR", () => {
    expect(colourWanted(TTY, TERM, true)).toBe(false);
    expect(colourWanted(PIPE, { FORCE_COLOR: "1" }, true)).toBe(false);
  });
  it("not a terminal: off", () => {
    expect(colourWanted(PIPE, TERM, false)).toBe(false);
  });
  it("FORCE_COLOR=1 (or empty, 2, 3, true): on when not a terminal, and over NO_COLOR", () => {
    for (const v of ["1", "", "2", "3", "true"]) expect(colourWanted(PIPE, { FORCE_COLOR: v }, false)).toBe(true);
    expect(colourWanted(PIPE, { FORCE_COLOR: "1", NO_COLOR: "1" }, false)).toBe(true);
  });
  it("FORCE_COLOR=0 (or false): off, on a terminal too", () => {
    expect(colourWanted(TTY, { ...TERM, FORCE_COLOR: "0" }, false)).toBe(false);
    expect(colourWanted(TTY, { ...TERM, FORCE_COLOR: "false" }, false)).toBe(false);
  });
});

describe("styleOf: the words unchanged, wrapped in Node's escape codes when on", () => {
  it("on: SGR codes around the text", () => {
    const s = styleOf(true);
    expect(s.on).toBe(true);
    expect(s.error("error:")).toBe("\u001b[1m\u001b[31merror:\u001b[39m\u001b[22m");
    expect(s.warning("PVC_CUT_LINE")).toBe("\u001b[33mPVC_CUT_LINE\u001b[39m");
    expect(s.count("39")).toBe("\u001b[1m39\u001b[22m");
    expect(s.good("PASS")).toBe("\u001b[32mPASS\u001b[39m");
    expect(s.bad("0/59")).toBe("\u001b[31m0/59\u001b[39m");
    expect(s.hint("next: ptb-manifest validate")).toBe("\u001b[36mnext: ptb-manifest validate\u001b[39m");
    expect(s.count("")).toBe("");
  });
  it("off (PLAIN): the text as given", () => {
    expect(PLAIN.on).toBe(false);
    for (const f of [PLAIN.error, PLAIN.warning, PLAIN.count, PLAIN.good, PLAIN.bad, PLAIN.hint])
      expect(f("PVC_CUT_LINE 12")).toBe("PVC_CUT_LINE 12");
  });
});
