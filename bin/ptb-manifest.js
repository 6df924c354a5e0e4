#!/usr/bin/env node
// Entry point: runs the compiled CLI (dist/ is built by `npm ci` through the `prepare` script).
import { main } from "../dist/cli.js";

main(process.argv, { stdout: process.stdout, stderr: process.stderr, env: process.env }).then((code) => {
  process.exitCode = code;
});
