// The resolve hook of record-imports.mjs (module hooks run in their own thread): logs each resolved URL.
import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (process.env.PTB_IMPORTS_LOG) appendFileSync(process.env.PTB_IMPORTS_LOG, `${resolved.url}\n`);
  return resolved;
}
