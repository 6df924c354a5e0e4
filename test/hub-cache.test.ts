import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HubFileCache } from "../src/hub/cache.js";

const tmp = mkdtempSync(join(tmpdir(), "ptb-hub-cache-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const SHA = "0123456789abcdef0123456789abcdef01234567";

describe("the Hub cache (hub/cache.ts)", () => {
  it("stores a repo's small files at a commit and gives them back whole", async () => {
    const cache = new HubFileCache(join(tmp, "own"));
    const put = await cache.put(
      "o/r",
      SHA,
      new Map([
        ["config.json", Buffer.from('{"eos_token_id":1}')],
        ["x.json", null],
      ]),
    );
    expect(put.files).toEqual({ "config.json": "file", "x.json": "absent" });
    const got = await cache.get("o/r", SHA);
    expect(got).toEqual(put);
    expect(readFileSync(join(got!.dir, "config.json"), "utf8")).toBe('{"eos_token_id":1}');
    expect([await cache.get("o/r", "f".repeat(40)), cache.foreign]).toEqual([null, 0]);
  });

  it.skipIf(process.getuid?.() !== 0)(
    "never reads an entry another user wrote: this user's own is kept beside it; skipped when not root: chown needs it",
    async () => {
      const cache = new HubFileCache(join(tmp, "shared"));
      const theirs = await cache.put("o/r", SHA, new Map([["config.json", Buffer.from('{"eos_token_id":2}')]]));
      chownSync(theirs.dir, 65534, 65534);
      expect(await cache.get("o/r", SHA)).toBeNull();
      expect(await cache.get("o/r", SHA)).toBeNull();
      expect(cache.foreign).toBe(1); // one entry, however often it is met
      const mine = await cache.put("o/r", SHA, new Map([["config.json", Buffer.from('{"eos_token_id":3}')]]));
      expect(mine.dir).toBe(`${theirs.dir}.uid0`);
      expect(await cache.get("o/r", SHA)).toEqual(mine);
      expect(readFileSync(join(mine.dir, "config.json"), "utf8")).toBe('{"eos_token_id":3}');
      expect(readFileSync(join(theirs.dir, "config.json"), "utf8")).toBe('{"eos_token_id":2}');
      // A marker another user wrote in this user's folder, or a folder the group may write: not read either.
      const second = await cache.put("o/s", SHA, new Map([["config.json", Buffer.from("{}")]]));
      chownSync(join(second.dir, ".ptb-cache.json"), 65534, 65534);
      expect(await cache.get("o/s", SHA)).toBeNull();
      const third = await cache.put("o/t", SHA, new Map([["config.json", Buffer.from("{}")]]));
      chmodSync(third.dir, 0o775);
      expect(await cache.get("o/t", SHA)).toBeNull();
      expect(readdirSync(join(tmp, "shared", "hub", "o", "r")).sort()).toEqual([SHA, `${SHA}.uid0`]);
    },
  );
});
