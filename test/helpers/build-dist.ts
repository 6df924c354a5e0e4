import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";

const REPO = join(import.meta.dirname, "..", "..");
/** Held while one test file builds: test files run at once, and two builds must not write dist/ together. */
const LOCK = join(REPO, "dist", ".build-lock");
/** A lock older than this was left by a killed run. */
const STALE_MS = 10 * 60_000;

/** Runs `fn` holding {@link LOCK} (waiting for another test file's build to end). */
function withBuildLock(fn: () => void): void {
  mkdirSync(join(REPO, "dist"), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > STALE_MS) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // released meanwhile
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/**
 * Builds dist/ afresh as `npm run build` does (tsc, the WebAssembly scanner,
 * the bundled CLI of scripts/bundle-cli.ts), for the tests that run
 * bin/ptb-manifest.js or dist/ and must run the code as it is now; one test
 * file's build at a time.
 * @throws when a step fails (its output in the error).
 */
export function buildDist(): void {
  const node = (...args: string[]): void => {
    execFileSync(process.execPath, args, { cwd: REPO, stdio: "pipe" });
  };
  withBuildLock(() => {
    node(join(REPO, "node_modules", "typescript", "bin", "tsc"), "-p", join(REPO, "tsconfig.build.json"));
    const tsx = join(REPO, "node_modules", "tsx", "dist", "cli.mjs");
    node(tsx, join(REPO, "scripts", "build-wasm.ts"));
    node(tsx, join(REPO, "scripts", "bundle-cli.ts"));
  });
}
