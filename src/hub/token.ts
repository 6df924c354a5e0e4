/**
 * The Hub token, found where the Hub's own clients look for it
 * (`huggingface_hub`'s `get_token`): the `HF_TOKEN` environment variable,
 * else the file at `HF_TOKEN_PATH`, else `$HF_HOME/token`, where `HF_HOME`
 * defaults to `$XDG_CACHE_HOME/huggingface` (else `~/.cache/huggingface`),
 * so `huggingface-cli login` / `hf auth login` is enough. The value is never
 * printed: messages name where it came from, not what it is.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { InputError } from "../errors.js";
import { fsReason, isAbsent } from "../util/fs-errors.js";

/** A token and where it was read (`HF_TOKEN`, or the file's path). */
export interface HubToken {
  value: string;
  /** `"HF_TOKEN"` or `"the token file <path>"`: fit for a message. */
  source: string;
}

/** A token as the Hub's clients clean it: line breaks removed, trimmed; empty is none. */
function clean(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  return raw.replace(/[\r\n]/g, "").trim() || undefined;
}

/** `~` or `~/...` expanded with `home`; any other path unchanged. */
function expandHome(path: string, home: string): string {
  return path === "~" ? home : path.startsWith("~/") ? join(home, path.slice(2)) : path;
}

/**
 * The token file's path: `HF_TOKEN_PATH`, else `$HF_HOME/token`, else
 * `$XDG_CACHE_HOME/huggingface/token` (an absolute `XDG_CACHE_HOME` only),
 * else `~/.cache/huggingface/token`. A leading `~/` is expanded.
 */
export function hubTokenPath(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME || homedir();
  if (env.HF_TOKEN_PATH) return expandHome(env.HF_TOKEN_PATH, home);
  const xdg = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(home, ".cache");
  const hfHome = env.HF_HOME ? expandHome(env.HF_HOME, home) : join(xdg, "huggingface");
  return join(hfHome, "token");
}

/**
 * Reads the Hub token: `HF_TOKEN` when set and not blank, else the token
 * file ({@link hubTokenPath}); a missing file (or a missing folder on its
 * path) is no token. The value has line breaks removed and is trimmed, and
 * must look like a Hub token (`hf_` then printable ASCII, as a bearer header
 * can carry it).
 *
 * @returns the token and its source, or undefined when there is none.
 * @throws InputError `HUB_TOKEN_UNREADABLE` (the file exists but cannot be
 *   read: permissions, a folder, ...; named), `HUB_BAD_TOKEN` (a token that
 *   does not start with `hf_` or holds spaces or other characters; its
 *   source is named, its value never shown).
 */
export function readHubToken(env: NodeJS.ProcessEnv = process.env): HubToken | undefined {
  let token: HubToken | undefined;
  const fromEnv = clean(env.HF_TOKEN);
  if (fromEnv !== undefined) {
    token = { value: fromEnv, source: "HF_TOKEN" };
  } else {
    const path = hubTokenPath(env);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (err) {
      // A dangling link (a secret not mounted) is a token that cannot be read, never "no token": anonymous
      // requests would not see private repos.
      if (isAbsent(err)) return undefined;
      throw new InputError(
        "HUB_TOKEN_UNREADABLE",
        `the Hub token file ${path} cannot be read (${fsReason(err)}): fix its permissions, or set HF_TOKEN or HF_TOKEN_PATH`,
        path,
      );
    }
    const fromFile = clean(text);
    if (fromFile === undefined) return undefined;
    token = { value: fromFile, source: `the token file ${path}` };
  }
  if (!/^hf_[\x21-\x7e]+$/.test(token.value)) {
    throw new InputError(
      "HUB_BAD_TOKEN",
      `the Hub token from ${token.source} ${token.value.startsWith("hf_") ? "holds spaces or characters a token cannot have" : "does not start with hf_"} (its value is not shown)`,
    );
  }
  return token;
}
