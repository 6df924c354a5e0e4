import { describe, expect, it } from "vitest";
import { createHubFetch } from "../src/hub/fetch.js";

describe("the Hub token stays with the Hub", () => {
  it("is sent to the --hub-url origin only, never to another origin a pagination Link names", async () => {
    const seen: [string, string | null][] = [];
    const base = (async (input: string | URL | Request, init?: RequestInit) => {
      seen.push([String(input), new Headers(init?.headers).get("authorization")]);
      return new Response("[]", { status: 200 });
    }) as typeof fetch;
    const hubFetch = createHubFetch({ fetch: base, hubUrl: "http://127.0.0.1:18706" });
    const headers = { Authorization: "Bearer hf_canary" };
    await hubFetch("http://127.0.0.1:18706/api/models?author=o", { headers });
    await hubFetch("http://localhost:18705/api/models?p=2", { headers });
    expect(seen).toEqual([
      ["http://127.0.0.1:18706/api/models?author=o", "Bearer hf_canary"],
      ["http://localhost:18705/api/models?p=2", null],
    ]);
  });
});
