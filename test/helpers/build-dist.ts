import { execFileSync } from "node:child_process";
import { join } from "node:path";

const REPO = join(import.meta.dirname, "..", "..");

/**
 * Builds dist/ afresh as `npm run build` does (tsc, the WebAssembly scanner,
 * the bundled CLI of scripts/bundle-cli.ts), for the tests that run
 * bin/ptb-manifest.js or dist/ and must run the code as it is now.
 * @throws when a step fails (its output in the error).
 */
export function buildDist(): void {
  const node = (...args: string[]): void => {
    execFileSync(process.execPath, args, { cwd: REPO, stdio: "pipe" });
  };
  node(join(REPO, "node_modules", "typescript", "bin", "tsc"), "-p", join(REPO, "tsconfig.build.json"));
  const tsx = join(REPO, "node_modules", "tsx", "dist", "cli.mjs");
  node(tsx, join(REPO, "scripts", "build-wasm.ts"));
  node(tsx, join(REPO, "scripts", "bundle-cli.ts"));
}
