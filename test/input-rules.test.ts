import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { closestKey, isValidTimeZone } from "../src/sources/cells.js";
import { rotationOverlap } from "../src/extractors/janitor-log.js";
import { fsErrorCode, fsReason, isFsError } from "../src/util/fs-errors.js";

/** Pure rules behind a few input checks (README: "Warnings and errors"). */

describe("janitor_tz: IANA region names only (CELLS_BAD_TIME_ZONE)", () => {
  it("refuses abbreviations, POSIX-style rules, Etc/ offsets and offsets", () => {
    for (const z of [
      "EST",
      "PST",
      "CET",
      "GMT",
      "EST5EDT",
      "PST8PDT",
      "Etc/GMT+5",
      "Etc/GMT-8",
      "+08:00",
      "-08:00",
      "utc",
      "Mars/Olympus",
      "America/",
      "",
    ]) {
      expect([z, isValidTimeZone(z)]).toEqual([z, false]);
    }
  });

  it("accepts Area/Location names, UTC and Etc/UTC, and every janitor_tz of the embedded sources", () => {
    const embedded = (
      JSON.parse(readFileSync(join(import.meta.dirname, "..", "sources", "cells.json"), "utf8")) as {
        cells: { janitor_tz: string }[];
      }
    ).cells.map((c) => c.janitor_tz);
    for (const z of [
      "UTC",
      "Etc/UTC",
      "America/Los_Angeles",
      "America/Argentina/Buenos_Aires",
      "Asia/Shanghai",
      "Europe/Kyiv",
      ...embedded,
    ]) {
      expect([z, isValidTimeZone(z)]).toEqual([z, true]);
    }
  });
});

describe("closestKey (CELLS_UNKNOWN_KEY's suggestion)", () => {
  const cellKeys = [
    "cell",
    "driver",
    "effort",
    "trajectory_format",
    "pvc_root",
    "janitor_tz",
    "plotted",
    "excluded",
    "family_aliases",
  ];
  it("names the nearest known key", () => {
    expect(closestKey("janitor_zone", cellKeys)).toBe("janitor_tz");
    expect(closestKey("janitorTz", cellKeys)).toBe("janitor_tz");
    expect(closestKey("pvcroot", cellKeys)).toBe("pvc_root");
    expect(closestKey("familyAliases", cellKeys)).toBe("family_aliases");
  });
  it("names none when nothing is near", () => {
    expect(closestKey("colour", cellKeys)).toBeNull();
    expect(closestKey("x", ["janitor_tz"])).toBeNull();
  });
});

describe("rotationOverlap (copytruncate's repeated lines)", () => {
  it("is the longest end of the older part that opens the newer one", () => {
    expect(rotationOverlap(["a", "b", "c"], ["b", "c", "d"])).toBe(2);
    expect(rotationOverlap(["a", "b", "c"], ["c", "d"])).toBe(1);
    expect(rotationOverlap(["a", "b", "c"], ["a", "b", "c", "d"])).toBe(3);
  });
  it("is 0 for a line repeated from inside the older part (true disorder), or for blank lines only", () => {
    expect(rotationOverlap(["a", "b", "c"], ["b", "d"])).toBe(0);
    expect(rotationOverlap(["a", ""], ["", "b"])).toBe(0);
    expect(rotationOverlap([], ["a"])).toBe(0);
  });
});

describe("fs-errors", () => {
  const err = (code: string): NodeJS.ErrnoException =>
    Object.assign(new Error(`${code}: boom, open '/abs/x'`), { code, syscall: "open", path: "/abs/x" });
  it("names the reason without the absolute path", () => {
    expect(fsReason(err("EACCES"))).toBe("permission denied (EACCES)");
    expect(fsReason(err("EISDIR"))).toBe("it is a folder, not a file (EISDIR)");
    expect(fsReason(err("ELOOP"))).toBe("too many levels of symbolic links (a link loop) (ELOOP)");
    expect(fsReason(err("EIO"))).toBe("input/output error (a disk or network file system fault) (EIO)");
    expect(fsReason(err("EWHATEVER"))).toBe("cannot be read (EWHATEVER)");
  });
  it("tells file system errors from others (a corrupt .gz is not one)", () => {
    expect(isFsError(err("EACCES"))).toBe(true);
    expect(fsErrorCode(err("ENOENT"))).toBe("ENOENT");
    const zlib = Object.assign(new Error("incorrect header check"), { code: "Z_DATA_ERROR" });
    expect(isFsError(zlib)).toBe(false);
    expect(fsReason(zlib)).toBe("incorrect header check");
    expect(isFsError(new TypeError("x"))).toBe(false);
  });
});
