/**
 * Every failure of a Hub call as a coded {@link InputError}, in one place
 * for `build --hub`, `snapshot-hub` and `publish` (README: Warnings and
 * errors). Messages name the URL and where the token came from, never the
 * token itself.
 */
import { HubApiError } from "@huggingface/hub";
import { InputError } from "../errors.js";
import { HubRequestError, isUnreachableCode, networkCode, redactUrl } from "./fetch.js";

/** What a message about a Hub failure may name. */
export interface HubErrorContext {
  hubUrl: string;
  /** Scrubbed from every message (also if the Hub echoes it back). */
  accessToken?: string;
  /** Where the token came from (`HF_TOKEN`, `the token file <path>`); absent when there is none. */
  tokenSource?: string;
}

/**
 * Maps any error of a Hub call to an {@link InputError}:
 * - an InputError: unchanged;
 * - {@link HubRequestError} `unreachable` → `HUB_UNREACHABLE` (refused,
 *   unknown host), any other kind → `HUB_UNAVAILABLE`;
 * - `HubApiError` 401/403 → `HUB_ACCESS_DENIED` (naming the token's source,
 *   or saying none is set), 429/5xx → `HUB_UNAVAILABLE`, any other status →
 *   `HUB_ERROR`;
 * - an error whose `cause` chain holds a HubRequestError (a library that
 *   wraps the fetch's error): as that one;
 * - a failed fetch that did not go through `createHubFetch` whose cause
 *   chain says nothing answers there (`ECONNREFUSED`, unknown host, a port
 *   fetch blocks; `networkCode`) → `HUB_UNREACHABLE`;
 * - anything else (a malformed answer, ...) → `HUB_ERROR`.
 */
export function hubError(err: unknown, ctx: HubErrorContext): InputError {
  const scrub = (text: string): string => (ctx.accessToken ? text.split(ctx.accessToken).join("hf_***") : text);
  if (err instanceof InputError) return err;
  const where = redactUrl(ctx.hubUrl);
  for (
    let c = (err as { cause?: unknown } | null)?.cause, depth = 0;
    c && depth < 8;
    c = (c as { cause?: unknown }).cause, depth++
  ) {
    if (c instanceof HubRequestError) return hubError(c, ctx);
  }
  if (!(err instanceof HubRequestError) && !(err instanceof HubApiError) && isUnreachableCode(networkCode(err))) {
    return new InputError(
      "HUB_UNREACHABLE",
      scrub(`cannot reach the Hub (${networkCode(err)}); is the Hub at ${where} up (--hub-url, HF_ENDPOINT)?`),
    );
  }
  if (err instanceof HubRequestError) {
    if (err.kind === "unreachable")
      return new InputError(
        "HUB_UNREACHABLE",
        scrub(`${err.message}; is the Hub at ${where} up (--hub-url, HF_ENDPOINT)?`),
      );
    return new InputError("HUB_UNAVAILABLE", scrub(err.message));
  }
  if (err instanceof HubApiError) {
    const url = redactUrl(err.url);
    if (err.statusCode === 401 || err.statusCode === 403) {
      const token = ctx.accessToken
        ? `the token from ${ctx.tokenSource ?? "HF_TOKEN"} was ${err.statusCode === 401 ? "rejected" : "refused access"}: check it (and its write access)`
        : "no token is set: set HF_TOKEN, or log in (HF_TOKEN_PATH, $HF_HOME/token)";
      return new InputError(
        "HUB_ACCESS_DENIED",
        scrub(`the Hub answered ${err.statusCode} to ${url} (${firstLine(err.message)}): ${token}`),
      );
    }
    if (err.statusCode === 429 || (err.statusCode >= 500 && err.statusCode <= 599)) {
      return new InputError(
        "HUB_UNAVAILABLE",
        scrub(`the Hub answered ${err.statusCode} to ${url}: ${firstLine(err.message)}`),
      );
    }
    return new InputError(
      "HUB_ERROR",
      scrub(`the Hub answered ${err.statusCode} to ${url}: ${firstLine(err.message)}`),
    );
  }
  const e = err as Error;
  return new InputError(
    "HUB_ERROR",
    scrub(`talking to the Hub at ${where} failed: ${e?.name ?? "Error"}: ${e?.message ?? String(err)}`),
  );
}

/** The library's message without its `URL: ... Request ID: ...` trailer (the URL is named apart). */
function firstLine(message: string): string {
  return message.split("\n")[0]!.replace(/\.\s*URL: .*$/, "");
}

/**
 * A `HubApiError` for an answer that is not ok, read the way the library
 * reads one (JSON `error`, else the text), with `X-Error-Message` when the
 * body says nothing: for the requests made by hand (`POST /api/repos/move`,
 * the dataset's existence check).
 */
export async function apiErrorOf(res: Response, url: string): Promise<HubApiError> {
  const err = new HubApiError(url, res.status, res.headers.get("x-request-id") ?? undefined);
  let message = res.headers.get("x-error-message") ?? `${res.status} ${res.statusText}`.trim();
  try {
    const text = await res.text();
    try {
      const json = JSON.parse(text) as { error?: unknown; message?: unknown };
      if (typeof json.error === "string") message = json.error;
      else if (typeof json.message === "string") message = json.message;
    } catch {
      if (text.trim()) message = text.trim().slice(0, 200);
    }
  } catch {
    // the body could not be read: the status says enough
  }
  err.message = message;
  return err;
}
