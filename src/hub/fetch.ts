/**
 * The `fetch` handed to `@huggingface/hub`: bounded retries of 429 and 5xx
 * answers and of dropped connections, with exponential backoff and
 * `Retry-After` (DESIGN.md: "The library never retries ... best placed in the
 * fetch passed to it"). Keying the retry on the HTTP status here, not on
 * the error class the library throws, also covers `fileExists`, which turns
 * a 5xx into a `SyntaxError`.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { InputError } from "../errors.js";

/** Retry and timeout settings of {@link createHubFetch}. All durations in milliseconds. */
export interface RetryPolicy {
  /** Attempts per request, the first included (default 5). */
  maxAttempts: number;
  /** Backoff before the second attempt (default 500); doubled for each later one. */
  baseDelayMs: number;
  /** Largest backoff (default 8000). */
  maxDelayMs: number;
  /** Largest `Retry-After` waited for (default 60000); a longer one gives up at once. */
  maxRetryAfterMs: number;
  /** Time allowed for one attempt, headers and body (default 30000); a timeout is retried. */
  timeoutMs: number;
}

/** The defaults of {@link RetryPolicy}. */
const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterMs: 60_000,
  timeoutMs: 30_000,
};

/** Counters of one {@link createHubFetch} instance. */
export interface HubFetchStats {
  /** HTTP requests sent (attempts, retries included). */
  requests: number;
  /** Attempts that were retried (429, 5xx, a dropped connection, a timeout). */
  retries: number;
}

/**
 * A request that failed for good. `kind`: `unreachable` (no connection could
 * be made: refused, unknown host), `unavailable` (429/5xx or a dropped
 * connection on every attempt, or a `Retry-After` too long to wait),
 * `aborted` (the caller gave up, e.g. after another request failed). The
 * message names the method and URL (never a header, so never the token).
 */
export class HubRequestError extends Error {
  constructor(
    readonly kind: "unreachable" | "unavailable" | "aborted",
    readonly method: string,
    readonly url: string,
    readonly status: number | null,
    readonly attempts: number,
    message: string,
  ) {
    super(message);
    this.name = "HubRequestError";
  }
}

/** Options of {@link createHubFetch}. */
export interface HubFetchOptions {
  /** The underlying fetch (default: the global one). */
  fetch?: typeof fetch;
  retry?: Partial<RetryPolicy>;
  /** Aborts every request in flight and every wait; later calls fail at once. */
  signal?: AbortSignal;
  /** Counters to update (requests, retries). */
  stats?: HubFetchStats;
  /**
   * The Hub's URL: the `Authorization` header is sent only to its origin. A
   * pagination `Link` (followed by `@huggingface/hub` as given) or any other
   * URL on another origin gets the request without the token.
   */
  hubUrl?: string;
}

/** Methods that may be sent twice: a 5xx or a lost connection may have hit the server, so only these are retried then. */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);
const RETRY_STATUS = (status: number, method: string): boolean =>
  status === 429 || (status >= 500 && status <= 599 && IDEMPOTENT.has(method));
/** Network failures that mean "nothing is listening there": not retried, so a Hub that is down fails fast. */
const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_NONAME",
  "ERR_INVALID_URL",
  "BAD_PORT",
]);
/** True when `code` (from {@link networkCode}) means nothing answers at that address: fail at once, never retried. */
export function isUnreachableCode(code: string): boolean {
  return UNREACHABLE_CODES.has(code);
}
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/**
 * Wraps `fetch` for the Hub client (DESIGN.md, "Facts about @huggingface/hub": retry 429 and 5xx with
 * exponential backoff and `Retry-After`, bounded attempts).
 *
 * Each attempt has its own timeout and reads the whole body before
 * answering (the client only asks for listings and small files, never
 * weights), so a connection dropped mid-body is retried too; the answer
 * handed back is a fresh `Response` over those bytes, same status and
 * headers. An attempt is retried when it gets 429, or, for an idempotent
 * method (GET, HEAD, OPTIONS, PUT, DELETE: a POST may have been applied),
 * when it gets 5xx, times out or loses its connection (`ECONNRESET`,
 * undici's `UND_ERR_SOCKET`, ...), up to `maxAttempts`. The wait before attempt `n+1` is the answer's
 * `Retry-After` (seconds or an HTTP date) when it has one, else
 * `min(maxDelayMs, baseDelayMs × 2^(n−1))` with a deterministic jitter
 * (×0.75..1.25, a hash of the URL and `n`: no randomness).
 *
 * @throws HubRequestError `unreachable` at once when the connection is
 *   refused or the host unknown (the Hub is down: fail fast); `unavailable`
 *   when the attempts are used up; `aborted` when `signal` fires.
 */
export function createHubFetch(opts: HubFetchOptions = {}): typeof fetch {
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...opts.retry };
  const base = opts.fetch ?? fetch;
  const stats = opts.stats;
  const trustedOrigin = opts.hubUrl ? new URL(opts.hubUrl).origin : null;
  const hubFetch = async (input: string | URL | Request, initGiven: RequestInit = {}): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    let init = initGiven;
    if (trustedOrigin !== null && init.headers && new URL(url).origin !== trustedOrigin) {
      const headers = new Headers(init.headers);
      headers.delete("authorization");
      init = { ...init, headers };
    }
    const method = (init.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    const shown = redactUrl(url);
    let lastProblem = "";
    let lastStatus: number | null = null;
    for (let attempt = 1; ; attempt++) {
      if (opts.signal?.aborted)
        throw new HubRequestError("aborted", method, shown, null, attempt - 1, `${method} ${shown}: aborted`);
      const signals = [AbortSignal.timeout(policy.timeoutMs), ...(opts.signal ? [opts.signal] : [])];
      let waitMs: number | null;
      if (stats) stats.requests += 1;
      try {
        const res = await base(input, { ...init, signal: anySignal(signals) });
        const body = method === "HEAD" || NULL_BODY_STATUS.has(res.status) ? null : await res.arrayBuffer();
        if (!RETRY_STATUS(res.status, method)) {
          assertFollowedNextLink(res.headers.get("link"), method, shown);
          const copy = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
          // The library reads `url` (error messages; a redirected download's final URL): keep the real one.
          Object.defineProperty(copy, "url", { value: res.url || url });
          return copy;
        }
        lastStatus = res.status;
        lastProblem = `answered ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`;
        const retryAfterMs = parseRetryAfter(res.headers.get("retry-after"));
        if (retryAfterMs !== null && retryAfterMs > policy.maxRetryAfterMs) {
          throw new HubRequestError(
            "unavailable",
            method,
            shown,
            res.status,
            attempt,
            `${method} ${shown} ${lastProblem} and asks to retry after ${Math.round(retryAfterMs / 1000)} s (more than ${policy.maxRetryAfterMs / 1000} s): giving up`,
          );
        }
        waitMs = retryAfterMs ?? backoffMs(policy, url, attempt);
      } catch (err) {
        if (err instanceof HubRequestError || err instanceof InputError) throw err;
        if (opts.signal?.aborted)
          throw new HubRequestError("aborted", method, shown, null, attempt, `${method} ${shown}: aborted`);
        const code = networkCode(err);
        if (UNREACHABLE_CODES.has(code)) {
          const why =
            code === "BAD_PORT"
              ? "BAD_PORT: fetch never connects to this port, one the Fetch standard blocks; give the Hub's real port"
              : code;
          throw new HubRequestError(
            "unreachable",
            method,
            shown,
            null,
            attempt,
            `cannot reach the Hub: ${method} ${shown} failed (${why})`,
          );
        }
        lastStatus = null;
        lastProblem = `failed (${code})`;
        if (!IDEMPOTENT.has(method)) {
          throw new HubRequestError(
            "unavailable",
            method,
            shown,
            null,
            attempt,
            `${method} ${shown} ${lastProblem}; not retried (it may have reached the Hub)`,
          );
        }
        waitMs = backoffMs(policy, url, attempt);
      }
      if (attempt >= policy.maxAttempts) {
        throw new HubRequestError(
          "unavailable",
          method,
          shown,
          lastStatus,
          attempt,
          `${method} ${shown} ${lastProblem} on each of ${attempt} attempts: giving up`,
        );
      }
      if (stats) stats.retries += 1;
      try {
        await sleep(waitMs, undefined, opts.signal ? { signal: opts.signal } : undefined);
      } catch {
        throw new HubRequestError("aborted", method, shown, lastStatus, attempt, `${method} ${shown}: aborted`);
      }
    }
  };
  return hubFetch as typeof fetch;
}

/** `AbortSignal.any` (Node ≥ 20.3), or the same by hand on an older Node 20. */
function anySignal(signals: AbortSignal[]): AbortSignal {
  if (typeof AbortSignal.any === "function") return AbortSignal.any(signals);
  const c = new AbortController();
  for (const s of signals) {
    if (s.aborted) c.abort(s.reason);
    else s.addEventListener("abort", () => c.abort(s.reason), { once: true });
  }
  return c.signal;
}

/**
 * `Retry-After` in milliseconds: delta-seconds, or an HTTP date (then
 * relative to now, never negative); null when absent or unreadable.
 */
export function parseRetryAfter(value: string | null): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** The backoff before attempt `attempt + 1`: exponential, capped, with a deterministic jitter of ±25 %. */
export function backoffMs(
  policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">,
  url: string,
  attempt: number,
): number {
  const raw = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(raw * (0.75 + 0.5 * (fnv1a(`${url}#${attempt}`) / 0xffffffff)));
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * The error code behind a failed fetch. undici throws `TypeError: fetch
 * failed` with the system error as `cause` (`cause.code` `ECONNREFUSED`),
 * for a host with several addresses an `AggregateError` whose `errors` each
 * have a code, and for a port the Fetch standard blocks (`:9`, `:25`, ...)
 * an `Error("bad port")` with no code at all. The whole `cause` chain and
 * every error of an AggregateError are searched: a code meaning "nothing
 * answers there" ({@link UNREACHABLE_CODES}, `BAD_PORT`) wins over any
 * other, so a refused connection is never taken for a transient failure and
 * retried.
 */
export function networkCode(err: unknown): string {
  const e = err as { name?: string } | null;
  if (e?.name === "TimeoutError") return "timeout";
  const codes: string[] = [];
  const seen = new Set<unknown>();
  const visit = (x: unknown, depth: number): void => {
    if (x === null || typeof x !== "object" || seen.has(x) || depth > 8) return;
    seen.add(x);
    const o = x as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (typeof o.code === "string") codes.push(o.code);
    else if (o.message === "bad port") codes.push("BAD_PORT");
    if (Array.isArray(o.errors)) for (const sub of o.errors) visit(sub, depth + 1);
    visit(o.cause, depth + 1);
  };
  visit(err, 0);
  const fatal = codes.find((c) => UNREACHABLE_CODES.has(c));
  if (fatal !== undefined) return fatal;
  const x = err as { cause?: { name?: string }; name?: string } | null;
  return codes[0] ?? x?.cause?.name ?? x?.name ?? "error";
}

/**
 * A URL fit for a message: without user name and password, and without the
 * listing's `expand=` parameters (noise: a dozen of them on every listing).
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password && !u.searchParams.has("expand")) return url;
    u.username = "";
    u.password = "";
    u.searchParams.delete("expand");
    return u.href;
  } catch {
    // Not a URL: still never show what may be a user name and password before an "@".
    return url.replace(/\/\/[^/@\s]*@/, "//***@");
  }
}

/**
 * `@huggingface/hub`'s own reading of a `Link` header (its `parseLinkHeader`,
 * 2.17): only `<http(s)://...>; rel="..."` with a space after the `;` and a
 * quoted `rel`, keyed by the whole `rel` value.
 */
const CLIENT_LINK_RE = /<(https?:[/][/][^>]+)>;\s+rel="([^"]+)"/g;

/**
 * Refuses a `Link` header that announces a next page (a `rel` whose tokens
 * include `next`, in any form RFC 8288 allows) which the Hub client would
 * not follow (DESIGN.md, the Hub client: a relative URL, no space after the
 * `;`, an unquoted or multi-token `rel`): the listing would end there in
 * silence, without the repos of the later pages.
 *
 * @throws InputError `HUB_ERROR` naming the request and the header.
 */
export function assertFollowedNextLink(link: string | null, method: string, shown: string): void {
  if (link === null) return;
  const announced = link.split(",").some((part) => {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(part);
    return rel !== null && (rel[1] ?? rel[2] ?? "").toLowerCase().split(/\s+/).includes("next");
  });
  if (!announced) return;
  const followed = [...link.matchAll(CLIENT_LINK_RE)].some(([, , rel]) => rel === "next");
  if (followed) return;
  throw new InputError(
    "HUB_ERROR",
    `${method} ${shown}: the Hub (or a proxy at HF_ENDPOINT) announces the next page of the listing in a Link header the Hub client does not follow (${link.length > 200 ? `${link.slice(0, 200)}…` : link}; it reads only <http(s)://...>; rel="next"): the listing would end there in silence, without the repos of the later pages`,
  );
}
