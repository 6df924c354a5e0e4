import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { createServer, type Server, type Socket } from "node:net";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { byteProgress, RESTORE_TERMINAL } from "../src/util/progress.js";
import { fakeTty } from "./helpers/fake-tty.js";
import { holdAfterTempEnv } from "./helpers/hold-after-temp.js";
import { removeTree } from "./helpers/tree.js";
import { buildDist } from "./helpers/build-dist.js";

/**
 * The progress bar hides the cursor and turns line wrap off; every way out of
 * a build must turn them back on (README: Fault tolerance). The end-to-end
 * cases run the built CLI on a pseudo-terminal (`script` from util-linux, so
 * that the bar is drawn) and press Ctrl-C there (a `\x03` byte typed into the
 * terminal, which sends SIGINT to the build, as a user's key would): once
 * while the build waits on the Hub (reading), once while it writes (held by
 * the preload of test/helpers/hold-after-temp.ts). What the terminal got must end with the
 * show-cursor and wrap-on sequences. The unit cases check the stop path.
 */

const REPO = join(import.meta.dirname, "..");
const bin = join(REPO, "bin", "ptb-manifest.js");
const haveScript = spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;
const roots: string[] = [];
let silentHub: Server | null = null;
const sockets: Socket[] = [];

beforeAll(() => {
  buildDist();
}, 120_000);
afterAll(async () => {
  for (const s of sockets) s.destroy();
  silentHub?.close();
  await Promise.all(roots.map(removeTree));
});

describe("the progress bar's stop path", () => {
  it("stop() ends the output with show-cursor and wrap-on, and leaves no signal handler behind", () => {
    const before = [process.listenerCount("SIGINT"), process.listenerCount("SIGTERM"), process.listenerCount("exit")];
    const stderr = fakeTty();
    const p = byteProgress({ stdout: fakeTty(), stderr });
    p.stage("reading", 1000);
    p.add(10);
    expect(stderr.text()).toContain("\x1b[?25l"); // the bar hid the cursor
    p.stop();
    expect(stderr.text().endsWith(RESTORE_TERMINAL)).toBe(true);
    expect([process.listenerCount("SIGINT"), process.listenerCount("SIGTERM"), process.listenerCount("exit")]).toEqual(
      before,
    );
    const once = stderr.text();
    p.stop(); // twice is harmless: nothing more is written
    expect(stderr.text()).toBe(once);
  });

  it("SIGINT while the bar is drawn restores the terminal, then exits 130 when no other handler does", () => {
    const stderr = fakeTty();
    const p = byteProgress({ stdout: fakeTty(), stderr });
    p.stage("reading", 1000);
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    try {
      process.emit("SIGINT", "SIGINT");
      expect(stderr.text().endsWith(RESTORE_TERMINAL)).toBe(true);
      expect(exit).toHaveBeenCalledWith(130);
    } finally {
      exit.mockRestore();
      p.stop();
    }
  });
});

/** Runs `args` on a pseudo-terminal; once its output matches `ready`, types Ctrl-C. */
function ctrlCOnPty(
  args: string[],
  ready: RegExp,
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const command = [process.execPath, bin, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      env: { PATH: process.env.PATH ?? "", TERM: "xterm", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    let pressed = false;
    child.stdout.on("data", (c: Buffer) => {
      output += c.toString("latin1");
      if (!pressed && ready.test(output)) {
        pressed = true;
        child.stdin.write("\x03");
      }
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe.skipIf(!haveScript)("Ctrl-C on a terminal (script from util-linux)", () => {
  it("while reading (a Hub that never answers): exit 130, the terminal ends restored", async () => {
    silentHub = createServer((s) => sockets.push(s)); // accepts, never answers
    await new Promise<void>((r) => silentHub!.listen(0, "127.0.0.1", r));
    const port = (silentHub.address() as { port: number }).port;
    const root = await mkdtemp(join(tmpdir(), "ptb-pty-"));
    roots.push(root);
    const r = await ctrlCOnPty(
      [
        "build",
        "--sources",
        join(REPO, "sources"),
        "--out",
        join(root, "out"),
        "--no-cache",
        "--hub",
        "--hub-url",
        `http://127.0.0.1:${port}`,
      ],
      /reading the Hub/,
      { HF_HUB_OFFLINE: "", XDG_CACHE_HOME: join(root, "cache") },
    );
    expect(r.output).toContain("\x1b[?25l");
    expect(r.output.endsWith(RESTORE_TERMINAL)).toBe(true);
    expect(r.code).toBe(130);
  }, 120_000);

  it("while writing (held after the first temporary file): exit 130, the terminal ends restored", async () => {
    const root = await mkdtemp(join(tmpdir(), "ptb-pty-"));
    roots.push(root);
    const r = await ctrlCOnPty(
      ["build", "--sources", join(REPO, "sources"), "--out", join(root, "out"), "--no-cache"],
      /test hold after 1/,
      holdAfterTempEnv(1),
    );
    expect(r.output).toContain("\x1b[?25l");
    expect(r.output.endsWith(RESTORE_TERMINAL)).toBe(true);
    expect(r.code).toBe(130);
  }, 120_000);
});
