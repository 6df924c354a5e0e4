#!/usr/bin/env node
// Entry point: runs the bundled CLI (dist/bundle/, built from dist/ by `npm ci` through the
// `prepare` script, or by `npm run build`: scripts/bundle-cli.ts).
import { main } from "../dist/bundle/cli.js";

main(process.argv, { stdout: process.stdout, stderr: process.stderr, env: process.env }).then((code) => {
  process.exitCode = code;
});
