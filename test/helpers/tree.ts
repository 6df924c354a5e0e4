import { mkdtemp, mkdir, writeFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";

/** Writes files (path → text or bytes; a `.gz` path given text is gzipped) under a new temp dir. */
export async function makeTree(files: Record<string, string | Buffer>, prefix = "ptb-"): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  await writeTree(root, files);
  return root;
}

export async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const abs = join(root, path);
    await mkdir(dirname(abs), { recursive: true });
    const body = path.endsWith(".gz") && typeof content === "string" ? gzipSync(Buffer.from(content)) : content;
    await writeFile(abs, body);
  }
}

export async function removeTree(root: string): Promise<void> {
  await rm(root, { recursive: true, force: true });
}

/** Lines joined with `\n`, with a final `\n`. */
export const lines = (...ls: string[]): string => ls.map((l) => `${l}\n`).join("");
