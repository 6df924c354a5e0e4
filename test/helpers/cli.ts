import { main } from "../../src/cli.js";

/** Runs the CLI in-process, capturing stdout and stderr. */
export async function runCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const w1 = process.stdout.write.bind(process.stdout);
  const w2 = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((c: string | Uint8Array) => ((stdout += String(c)), true)) as typeof process.stdout.write;
  process.stderr.write = ((c: string | Uint8Array) => ((stderr += String(c)), true)) as typeof process.stderr.write;
  try {
    const code = await main(["node", "ptb-manifest", ...args]);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = w1;
    process.stderr.write = w2;
  }
}
