import { chownSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
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
    "does not use an entry another user wrote (it is fetched again); skipped when not root: chown needs it",
    async () => {
      const cache = new HubFileCache(join(tmp, "shared"));
      const put = await cache.put("o/r", SHA, new Map([["config.json", Buffer.from('{"eos_token_id":2}')]]));
      chownSync(put.dir, 65534, 65534);
      expect(await cache.get("o/r", SHA)).toBeNull();
      chownSync(put.dir, 0, 0);
      chownSync(join(put.dir, ".ptb-cache.json"), 65534, 65534);
      expect(await cache.get("o/r", SHA)).toBeNull();
      expect(cache.foreign).toBe(2);
      // Stored again by this user, it is used.
      const again = await cache.put("o/r", SHA, new Map([["config.json", Buffer.from('{"eos_token_id":3}')]]));
      expect(await cache.get("o/r", SHA)).toEqual(again);
      expect(readFileSync(join(again.dir, "config.json"), "utf8")).toBe('{"eos_token_id":3}');
    },
  );
});
