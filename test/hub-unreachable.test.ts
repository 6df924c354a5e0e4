import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { createHubFetch, HubRequestError, networkCode, type HubFetchStats } from "../src/hub/fetch.js";
import { hubError } from "../src/hub/errors.js";

/** A port on 127.0.0.1 that nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

describe("a Hub nothing answers at fails at once (HUB_UNREACHABLE), never retried", () => {
  it("networkCode finds the code anywhere in the cause chain and in an AggregateError, the fatal code first", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    expect(networkCode(new TypeError("fetch failed", { cause: refused }))).toBe("ECONNREFUSED");
    const agg = new AggregateError([Object.assign(new Error("x"), { code: "ETIMEDOUT" }), refused], "all failed");
    expect(networkCode(new TypeError("fetch failed", { cause: agg }))).toBe("ECONNREFUSED");
    expect(networkCode(new TypeError("fetch failed", { cause: new Error("wrapped", { cause: refused }) }))).toBe(
      "ECONNREFUSED",
    );
    expect(networkCode(new TypeError("fetch failed", { cause: new Error("bad port") }))).toBe("BAD_PORT");
    expect(
      networkCode(new TypeError("fetch failed", { cause: Object.assign(new Error("reset"), { code: "ECONNRESET" }) })),
    ).toBe("ECONNRESET");
  });

  it("a closed port: one attempt, HubRequestError unreachable (ECONNREFUSED), mapped to HUB_UNREACHABLE", async () => {
    const port = await closedPort();
    const stats: HubFetchStats = { requests: 0, retries: 0 };
    const hubFetch = createHubFetch({ stats, hubUrl: `http://127.0.0.1:${port}` });
    const err = await hubFetch(`http://127.0.0.1:${port}/api/models`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(HubRequestError);
    expect((err as HubRequestError).kind).toBe("unreachable");
    expect((err as Error).message).toBe(
      `cannot reach the Hub: GET http://127.0.0.1:${port}/api/models failed (ECONNREFUSED)`,
    );
    expect(stats).toEqual({ requests: 1, retries: 0 });
    expect(hubError(err, { hubUrl: `http://127.0.0.1:${port}` }).code).toBe("HUB_UNREACHABLE");
  });

  it("a port fetch blocks (:9): one attempt, unreachable, the message says why", async () => {
    const stats: HubFetchStats = { requests: 0, retries: 0 };
    const hubFetch = createHubFetch({ stats, hubUrl: "http://127.0.0.1:9" });
    const err = await hubFetch("http://127.0.0.1:9/api/models").then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as HubRequestError).kind).toBe("unreachable");
    expect((err as Error).message).toContain("failed (BAD_PORT: fetch never connects to this port");
    expect(stats).toEqual({ requests: 1, retries: 0 });
  });

  it("hubError: a refused fetch that did not go through createHubFetch, or a HubRequestError wrapped by a library, is HUB_UNREACHABLE", () => {
    const refused = new TypeError("fetch failed", {
      cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
    });
    const e = hubError(refused, { hubUrl: "http://127.0.0.1:1" });
    expect({ code: e.code, message: e.message }).toEqual({
      code: "HUB_UNREACHABLE",
      message: "cannot reach the Hub (ECONNREFUSED); is the Hub at http://127.0.0.1:1 up (--hub-url, HF_ENDPOINT)?",
    });
    const inner = new HubRequestError(
      "unreachable",
      "GET",
      "http://127.0.0.1:1/x",
      null,
      1,
      "cannot reach the Hub: GET http://127.0.0.1:1/x failed (ECONNREFUSED)",
    );
    expect(hubError(new Error("request failed", { cause: inner }), { hubUrl: "http://127.0.0.1:1" }).code).toBe(
      "HUB_UNREACHABLE",
    );
  });
});
