/** The two vitest projects of vitest.config.ts (README: Tests): every file the e2e list names exists. */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { E2E_TESTS } from "../vitest.config.js";

const REPO = join(import.meta.dirname, "..");

describe("vitest projects", () => {
  it("every file named in E2E_TESTS exists (a renamed test would silently fall into unit)", () => {
    expect(E2E_TESTS.filter((f) => !existsSync(join(REPO, f)))).toEqual([]);
  });

  it("the e2e list is sorted and names test files only", () => {
    expect([...E2E_TESTS].sort()).toEqual(E2E_TESTS);
    for (const f of E2E_TESTS) expect(f).toMatch(/^test\/[^/]+\.test\.ts$/);
    const all = readdirSync(join(REPO, "test")).filter((f) => f.endsWith(".test.ts"));
    expect(all.length).toBeGreaterThan(E2E_TESTS.length);
  });
});
