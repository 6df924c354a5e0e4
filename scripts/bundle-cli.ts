/**
 * Bundles the compiled CLI (dist/cli.js and the two worker entries) into
 * dist/bundle/, which bin/ptb-manifest.js runs (README: Performance, start-up).
 * One file per entry plus shared chunks, so a run resolves and compiles a few
 * files instead of every module of ours and of commander and fast-glob; a
 * command's own code stays a chunk loaded only when it runs, and the other
 * libraries (Vega among them) stay packages loaded when used. Run by `npm run build`
 * and at `npm ci` through `prepare`, after tsc and scripts/build-wasm.ts.
 *
 * dist/bundle/ sits two folders below the repository, as dist/<folder>/ does,
 * so the paths the code finds beside itself stay right: `../../templates/`,
 * `./marker-scan.wasm` and `./json-skip.wasm` (copied here), `./scan-worker.js`,
 * `./pvc-walk-worker.js`. A file is written only when its bytes changed, each
 * atomically, and chunks of an older build are removed: a test that rebuilds
 * while another runs the CLI never sees half a file (the tests' builds take
 * turns: test/helpers/build-dist.ts).
 *
 * Usage: npx tsx scripts/bundle-cli.ts
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { build } from "esbuild";

const REPO = resolve(import.meta.dirname, "..");
const DIST = join(REPO, "dist");
const OUT = join(DIST, "bundle");
const PACKAGE = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
};
const BUNDLED = new Set(["commander", "fast-glob"]);

/** Writes `bytes` to `path` unless it holds them already (atomically: a temporary file renamed). */
function writeIfChanged(path: string, bytes: Uint8Array): void {
  if (existsSync(path) && Buffer.compare(readFileSync(path), bytes) === 0) return;
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, path);
}

const result = await build({
  entryPoints: {
    cli: join(DIST, "cli.js"),
    "scan-worker": join(DIST, "extractors", "trajectory", "scan-worker.js"),
    "pvc-walk-worker": join(DIST, "extractors", "pvc-walk-worker.js"),
  },
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  write: false,
  logLevel: "warning",
  // Only commander and fast-glob (which every command loads first) are bundled; every other library stays a
  // package Node loads as published (some, like jsonc-parser's UMD build, require files by
  // computed names, which a bundle cannot follow).
  external: Object.keys(PACKAGE.dependencies).filter((name) => !BUNDLED.has(name)),
  // CommonJS libraries inside an ES module bundle call `require` for Node's own modules.
  banner: {
    js: "import { createRequire as __ptbRequire } from 'node:module'; const require = __ptbRequire(import.meta.url);",
  },
});

mkdirSync(OUT, { recursive: true });
const keep = new Set<string>();
for (const file of result.outputFiles) {
  keep.add(basename(file.path));
  writeIfChanged(file.path, file.contents);
}
for (const wasm of ["marker-scan.wasm", "json-skip.wasm"]) {
  keep.add(wasm);
  writeIfChanged(join(OUT, wasm), readFileSync(join(DIST, "util", wasm)));
}
// Another build's temporary file (a test building at the same time) is not this build's to remove.
for (const name of readdirSync(OUT))
  if (!keep.has(name) && !name.endsWith(".tmp")) rmSync(join(OUT, name), { force: true });
