import { EventEmitter } from "node:events";
import { main } from "../../src/cli.js";

/** An in-memory output stream (not a terminal): what the CLI writes to it, as text. */
class Sink extends EventEmitter {
  text = "";
  readonly isTTY = false;
  write(chunk: string | Uint8Array): boolean {
    this.text += String(chunk);
    return true;
  }
}

/**
 * Runs the CLI in-process on in-memory streams (no global is patched, so
 * runs may overlap), with `env` as its environment (default: a copy of
 * `process.env`), capturing stdout and stderr.
 */
export async function runCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliWith({}, ...args);
}

/** {@link runCli} with the environment the commands read (`HF_TOKEN`, `HF_ENDPOINT`, ...). */
export async function runCliWith(
  opts: { env?: NodeJS.ProcessEnv },
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new Sink();
  const stderr = new Sink();
  const code = await main(["node", "ptb-manifest", ...args], {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: stderr as unknown as NodeJS.WriteStream,
    env: opts.env ?? { ...process.env },
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}
