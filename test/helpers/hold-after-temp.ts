const PRELOAD = new URL("./hold-after-temp.mjs", import.meta.url).href;

/**
 * The environment that makes a spawned `node bin/ptb-manifest.js` hold after
 * writing its `n`-th temporary output file (say so on stderr: `test hold
 * after n temporary file(s)`, then wait until killed), through the preload
 * test/helpers/hold-after-temp.mjs (`NODE_OPTIONS=--import`).
 */
export function holdAfterTempEnv(n: number): Record<string, string> {
  return { NODE_OPTIONS: `--import ${PRELOAD}`, PTB_MANIFEST_TEST_HOLD_AFTER: String(n) };
}
