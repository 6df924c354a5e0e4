import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir, writeFile } from "node:fs/promises";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { makeTree, removeTree } from "./helpers/tree.js";
import { hubTokenPath, readHubToken } from "../src/hub/token.js";
import { hubOptionsFrom } from "../src/hub/live-hub.js";
import { makeMiniSweep } from "./helpers/mini-sweep.js";
import { runCli } from "./helpers/cli.js";
import { startHubServer } from "./helpers/hub-server.js";

describe("the Hub token, read as the Hub's clients read it", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await makeTree({
      token: "hf_fromFile\n",
      crlf: "  hf_crlf\r\n",
      blank: " \n",
      spaced: "hf_two words\n",
      "hfhome/token": "hf_fromHfHome",
      "xdg/huggingface/token": "hf_fromXdg",
      "home/.cache/huggingface/token": "hf_fromHome",
    });
    await mkdir(join(dir, "a-folder"));
  });
  afterAll(async () => removeTree(dir));

  it("finds the file at HF_TOKEN_PATH, else $HF_HOME/token, else $XDG_CACHE_HOME/huggingface/token, else ~/.cache/huggingface/token", () => {
    expect(hubTokenPath({ HF_TOKEN_PATH: "/t/tok", HF_HOME: "/h", HOME: "/home/u" })).toBe("/t/tok");
    expect(hubTokenPath({ HF_HOME: "/h", XDG_CACHE_HOME: "/x", HOME: "/home/u" })).toBe("/h/token");
    expect(hubTokenPath({ XDG_CACHE_HOME: "/x", HOME: "/home/u" })).toBe("/x/huggingface/token");
    expect(hubTokenPath({ XDG_CACHE_HOME: "relative", HOME: "/home/u" })).toBe("/home/u/.cache/huggingface/token");
    expect(hubTokenPath({ HOME: "/home/u" })).toBe("/home/u/.cache/huggingface/token");
    expect(hubTokenPath({ HF_TOKEN_PATH: "~/tok", HOME: "/home/u" })).toBe("/home/u/tok");
    expect(hubTokenPath({ HF_HOME: "~/hf", HOME: "/home/u" })).toBe("/home/u/hf/token");
  });

  it("takes HF_TOKEN first, else the file; trims; blank is none; a missing file or folder is none", () => {
    const home = join(dir, "home");
    expect(readHubToken({ HF_TOKEN: " hf_env\n", HF_TOKEN_PATH: join(dir, "token"), HOME: home })).toEqual({
      value: "hf_env",
      source: "HF_TOKEN",
    });
    expect(readHubToken({ HF_TOKEN: "  ", HF_TOKEN_PATH: join(dir, "token"), HOME: home })).toEqual({
      value: "hf_fromFile",
      source: `the token file ${join(dir, "token")}`,
    });
    expect(readHubToken({ HF_TOKEN_PATH: join(dir, "crlf"), HOME: home })?.value).toBe("hf_crlf");
    expect(readHubToken({ HF_HOME: join(dir, "hfhome"), HOME: home })?.value).toBe("hf_fromHfHome");
    expect(readHubToken({ XDG_CACHE_HOME: join(dir, "xdg"), HOME: home })?.value).toBe("hf_fromXdg");
    expect(readHubToken({ HOME: home })?.value).toBe("hf_fromHome");
    expect(readHubToken({ HF_TOKEN_PATH: join(dir, "blank"), HOME: home })).toBeUndefined();
    expect(readHubToken({ HF_TOKEN_PATH: join(dir, "absent"), HOME: home })).toBeUndefined();
    expect(readHubToken({ HF_TOKEN_PATH: join(dir, "token", "below-a-file"), HOME: home })).toBeUndefined();
    expect(hubOptionsFrom({}, { HF_TOKEN_PATH: join(dir, "token"), HOME: home })).toMatchObject({
      accessToken: "hf_fromFile",
      tokenSource: `the token file ${join(dir, "token")}`,
    });
  });

  it("a token file that cannot be read is HUB_TOKEN_UNREADABLE naming it; a malformed token is HUB_BAD_TOKEN naming its source, never its value", async () => {
    const folder = join(dir, "a-folder");
    expect(() => readHubToken({ HF_TOKEN_PATH: folder })).toThrow(
      expect.objectContaining({
        code: "HUB_TOKEN_UNREADABLE",
        file: folder,
        message: expect.stringContaining(
          `the Hub token file ${folder} cannot be read (it is a folder, not a file (EISDIR))`,
        ),
      }),
    );
    // A dangling link (a secret not mounted) is a token that cannot be read, never "no token".
    const dangling = join(dir, "dangling-token");
    symlinkSync(join(dir, "not-mounted", "token"), dangling);
    expect(() => readHubToken({ HF_TOKEN_PATH: dangling })).toThrow(
      expect.objectContaining({
        code: "HUB_TOKEN_UNREADABLE",
        message: expect.stringContaining("a symbolic link whose target does not exist (a dangling link)"),
      }),
    );
    expect(readHubToken({ HF_TOKEN_PATH: join(dir, "no-such-token") })).toBeUndefined();
    const spaced = join(dir, "spaced");
    let err: unknown = null;
    try {
      readHubToken({ HF_TOKEN_PATH: spaced });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({
      code: "HUB_BAD_TOKEN",
      message: `the Hub token from the token file ${spaced} holds spaces or characters a token cannot have (its value is not shown)`,
    });
    expect(() => readHubToken({ HF_TOKEN: "sk_leaky" })).toThrow(
      expect.objectContaining({
        code: "HUB_BAD_TOKEN",
        message: "the Hub token from HF_TOKEN does not start with hf_ (its value is not shown)",
      }),
    );
    await writeFile(join(dir, "leak"), "ghp_secretValue");
    try {
      readHubToken({ HF_TOKEN_PATH: join(dir, "leak") });
    } catch (e) {
      expect((e as Error).message).not.toContain("ghp_secretValue");
    }
  });
});

describe("build --hub and snapshot-hub read the same token", () => {
  const VARS = ["HF_TOKEN", "HF_TOKEN_PATH", "HF_HOME"] as const;
  const saved: Record<string, string | undefined> = {};
  let dir: string;
  beforeAll(async () => {
    for (const k of VARS) saved[k] = process.env[k];
    dir = await makeMiniSweep();
  });
  afterAll(async () => {
    for (const k of VARS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    await removeTree(dir);
    await removeTree(`${dir}-out`);
    await removeTree(`${dir}-snap`);
    await removeTree(`${dir}-cache`);
    await removeTree(`${dir}-cache2`);
  });

  it("from $HF_HOME/token; a rejected one is HUB_ACCESS_DENIED naming the file, exit 1", async () => {
    const hub = await startHubServer({ hubDir: join(dir, "hub"), token: "hf_right" });
    try {
      for (const k of VARS) delete process.env[k];
      process.env.HF_HOME = join(dir, "hf-home");
      await mkdir(process.env.HF_HOME);
      await writeFile(join(process.env.HF_HOME, "token"), "hf_right\n");
      const cache = `${dir}-cache`; // outside the sources (CACHE_INSIDE_SOURCES)
      const b = await runCli(
        "build",
        "--sources",
        dir,
        "--out",
        `${dir}-out`,
        "--hub",
        "--hub-url",
        hub.url,
        "--cache-dir",
        cache,
        "--quiet",
      );
      expect(b.code).toBe(0);
      const s = await runCli(
        "snapshot-hub",
        "--out",
        `${dir}-snap`,
        "--sources",
        dir,
        "--hub-url",
        hub.url,
        "--cache-dir",
        cache,
        "-q",
      );
      expect(s.code).toBe(0);
      expect(hub.log.length).toBeGreaterThan(0);
      expect(hub.log.every((r) => r.authorized)).toBe(true);

      await writeFile(join(process.env.HF_HOME, "token"), "hf_wrong\n");
      for (const args of [
        ["build", "--sources", dir, "--out", `${dir}-out`, "--hub", "--no-cache"],
        ["snapshot-hub", "--out", `${dir}-snap`, "--sources", dir],
      ]) {
        const r = await runCli(...args, "--hub-url", hub.url, "--cache-dir", `${dir}-cache2`, "--quiet");
        expect(r.code).toBe(1);
        expect(r.stderr).toContain("error HUB_ACCESS_DENIED: the Hub answered 401 to ");
        expect(r.stderr).toContain(`the token from the token file ${join(dir, "hf-home", "token")} was rejected`);
        expect(r.stderr).not.toContain("hf_wrong");
      }
    } finally {
      await hub.close();
    }
  });
});
