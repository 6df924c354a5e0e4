/**
 * Preload (`node --import`) that holds a real build at an exact point of its
 * atomic write (src/util/atomic.ts), so that a test can kill it there: after
 * the N-th temporary output file (`.<name>.<pid>.<8 hex>.tmp`, opened with
 * "wx") is written, synced and closed, where N is `PTB_MANIFEST_TEST_HOLD_AFTER`,
 * it says so on stderr and waits until killed. The tool itself has no hook:
 * this wraps `fs/promises.open` from outside (see hold-after-temp.ts).
 */
import { createRequire, syncBuiltinESMExports } from "node:module";
import { basename } from "node:path";

const holdAfter = Number(process.env.PTB_MANIFEST_TEST_HOLD_AFTER);
if (Number.isInteger(holdAfter) && holdAfter > 0) {
  const fsp = createRequire(import.meta.url)("node:fs/promises");
  const open = fsp.open;
  let written = 0;
  fsp.open = async (path, flags, ...rest) => {
    const handle = await open(path, flags, ...rest);
    if (flags !== "wx" || !/^\..+\.\d+\.[0-9a-f]{8}\.tmp$/.test(basename(String(path)))) return handle;
    const close = handle.close.bind(handle);
    handle.close = async () => {
      await close();
      written += 1;
      if (written !== holdAfter) return;
      process.stderr.write(`ptb-manifest: test hold after ${written} temporary file(s)\n`);
      await new Promise(() => {
        setInterval(() => {}, 1 << 30);
      });
    };
    return handle;
  };
  syncBuiltinESMExports();
}
