// Bench task: the floor of any Node.js tool on these files. It starts Node and reads every file
// given, synchronously, into one reused 2 MiB buffer (the tool's read size), and does nothing with
// the bytes. Usage: node bench/tasks/read-floor.mjs FILE...   (prints one JSON line)
import { closeSync, openSync, readSync } from "node:fs";

const buf = Buffer.allocUnsafe(2 << 20);
let bytes = 0;
for (const path of process.argv.slice(2)) {
  const fd = openSync(path, "r");
  for (let n = readSync(fd, buf, 0, buf.length, null); n > 0; n = readSync(fd, buf, 0, buf.length, null)) bytes += n;
  closeSync(fd);
}
process.stdout.write(`${JSON.stringify({ files: process.argv.length - 2, bytes })}\n`);
