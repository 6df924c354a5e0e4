/** Progress bars (issue 7): drawn on a terminal only, never with --quiet; bytes, rate, time left. */
import { describe, expect, it } from "vitest";
import { byteProgress, formatBytes, formatDuration } from "../src/util/progress.js";
import { fakeStream } from "./helpers/fake-tty.js";

describe("byteProgress", () => {
  it("draws nothing when stdout or stderr is not a terminal, or with quiet", () => {
    for (const [outTty, errTty, quiet] of [
      [false, true, false],
      [true, false, false],
      [true, true, true],
    ] as const) {
      const stdout = fakeStream(outTty);
      const stderr = fakeStream(errTty);
      const p = byteProgress({ stdout, stderr, quiet });
      expect(p.active).toBe(false);
      p.stage("reading", 1000);
      p.add(500);
      p.stop();
      expect(stderr.text()).toBe("");
    }
  });

  it("still prints log messages on stderr without a terminal, unless quiet", () => {
    const stderr = fakeStream(false);
    byteProgress({ stdout: fakeStream(false), stderr }).log("cell: reading sources");
    expect(stderr.text()).toBe("cell: reading sources\n");
  });

  it("draws stage, bytes done of total, rate and time left on a terminal", async () => {
    const stderr = fakeStream(true);
    const p = byteProgress({ stdout: fakeStream(true), stderr });
    expect(p.active).toBe(true);
    p.stage("reading", 200_000_000);
    p.add(50_000_000);
    p.log("a message above the bar");
    // Wait (up to 10 s) until a redraw shows a rate: the bar redraws on a timer.
    for (let i = 0; i < 100 && !/MB\/s/.test(stderr.text()); i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      p.add(1_000_000);
    }
    p.stop();
    const text = stderr.text();
    expect(text).toContain("reading");
    expect(text).toContain("/ 200 MB");
    expect(text).toMatch(/MB\/s/);
    expect(text).toContain("left");
    expect(text).toContain("a message above the bar");
  });

  it("formats bytes and durations", () => {
    expect(formatBytes(999)).toBe("999 B");
    expect(formatBytes(1_234_567)).toBe("1.2 MB");
    expect(formatBytes(5_038_000_000)).toBe("5.0 GB");
    expect(formatDuration(65)).toBe("1:05");
    expect(formatDuration(3723)).toBe("1:02:03");
    expect(formatDuration(Number.NaN)).toBe("--:--");
  });
});
