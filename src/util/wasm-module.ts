/**
 * The WebAssembly modules of src/ (`*.wat`, assembled into dist/ by
 * scripts/build-wasm.ts and copied beside the bundle by scripts/bundle-cli.ts),
 * compiled once per thread.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const compiled = new Map<string, WebAssembly.Module | null>();

/**
 * The compiled module `name` (e.g. `marker-scan.wasm`), found beside this
 * code (dist/util/ or dist/bundle/) or, from the sources (tests run by
 * tsx), in dist/util/; null when it is not built or does not compile here
 * (an engine without WebAssembly SIMD): the caller then does the same work
 * in JavaScript.
 */
export function wasmModule(name: string): WebAssembly.Module | null {
  const known = compiled.get(name);
  if (known !== undefined) return known;
  let mod: WebAssembly.Module | null = null;
  for (const rel of [`./${name}`, `../../dist/util/${name}`]) {
    const path = fileURLToPath(new URL(rel, import.meta.url));
    if (!existsSync(path)) continue;
    try {
      mod = new WebAssembly.Module(readFileSync(path));
    } catch {
      mod = null;
    }
    break;
  }
  compiled.set(name, mod);
  return mod;
}
