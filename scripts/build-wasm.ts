/**
 * Assembles the WebAssembly sources of src/ (`*.wat`, hand-written WAT) into
 * dist/ beside the compiled code that loads them (run by `npm run build` and
 * at `npm ci` through `prepare`, after tsc). The .wasm files are generated,
 * never committed.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import wabtInit from "wabt";

const REPO = resolve(import.meta.dirname, "..");
const SOURCES = ["util/marker-scan.wat", "util/json-skip.wat"];

const wabt = await wabtInit();
for (const rel of SOURCES) {
  const text = readFileSync(join(REPO, "src", rel), "utf8");
  const mod = wabt.parseWat(rel, text, { simd: true });
  try {
    mod.validate();
    const { buffer } = mod.toBinary({});
    const out = join(REPO, "dist", rel.replace(/\.wat$/, ".wasm"));
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, buffer);
  } finally {
    mod.destroy();
  }
}
