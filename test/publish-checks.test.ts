import { describe, expect, it } from "vitest";
import { ExitCodeError, InputError } from "../src/errors.js";
import { checkParentCommit, outcomeError, publishHub, renderOutcome } from "../src/publish/checks.js";
import type { PublishOutcome, PublishPlan } from "../src/publish/publish.js";

const SHA = "abcdef0123456789abcdef0123456789abcdef01";
const plan = (over: Partial<PublishPlan> = {}): PublishPlan => ({
  repo: "org/checkpoint-index",
  createRepo: false,
  parentCommit: SHA,
  repoMaybePrivate: false,
  release: { strict: true, warnings: 0, counts: [], ok: true },
  files: [{ path: "manifest.json", bytes: 10, sha256: "f".repeat(64), status: "changed" }],
  renames: [{ from: "org/a", to: "org/b" }],
  conflicts: [],
  ...over,
});
const outcome = (p: PublishPlan, over: Partial<PublishOutcome> = {}): PublishOutcome => ({
  plan: p,
  committed: "c0ffee",
  renamed: [...p.renames],
  failed: null,
  remaining: [],
  ...over,
});

describe("publish checks", () => {
  it("--parent-commit: a prefix of 7 or more hex digits of the plan's commit, any case", () => {
    expect(() => checkParentCommit(plan(), undefined)).not.toThrow();
    expect(() => checkParentCommit(plan(), " ABCDEF0 ")).not.toThrow();
    expect(() => checkParentCommit(plan(), "abcdef")).toThrow(
      `org/checkpoint-index is at commit ${SHA}, not at --parent-commit abcdef: nothing was done; run publish again to see the new plan`,
    );
    expect(() => checkParentCommit(plan({ parentCommit: null, createRepo: true }), "abcdef0")).toThrow(
      "org/checkpoint-index is absent, not at --parent-commit abcdef0",
    );
    const err = (() => {
      try {
        checkParentCommit(plan({ parentCommit: null }), "abcdef0");
      } catch (e) {
        return e as InputError;
      }
    })();
    expect(err).toBeInstanceOf(InputError);
    expect(err?.code).toBe("PUBLISH_HUB_CHANGED");
    expect(err?.message).toContain("is at an unknown commit");
  });

  it("--yes without a token is PUBLISH_NO_TOKEN; without --yes no token is needed", () => {
    const env = { HF_TOKEN_PATH: "/nonexistent/ptb-manifest-test/token" }; // no token file of this machine is read
    expect(() => publishHub("http://127.0.0.1:9", env, true)).toThrow(/no token is set/);
    expect(publishHub("http://127.0.0.1:9", env, false).accessToken).toBeUndefined();
  });

  it("renders the outcome: the plan without its last line, the commit and the renames done", () => {
    const text = renderOutcome(outcome(plan()), { json: false, allowWarnings: false });
    expect(text).not.toContain("run again with --yes");
    expect(text.endsWith("  1. org/a → org/b\ncommitted: c0ffee\nrenamed: 1 of 1\n")).toBe(true);
    expect(
      renderOutcome(outcome(plan(), { committed: null, renamed: [] }), { json: false, allowWarnings: false }),
    ).toMatch(/committed: nothing \(files unchanged\)\nrenamed: 0 of 1\n$/);
    const o = outcome(plan());
    expect(renderOutcome(o, { json: true, allowWarnings: false })).toBe(`${JSON.stringify(o, null, 2)}\n`);
  });

  it("ends with the failed step, else the conflicts left, else nothing", () => {
    expect(outcomeError(outcome(plan()))).toBeNull();
    const failed = outcomeError(
      outcome(plan(), {
        failed: { step: "rename org/a", code: "HUB_ERROR", error: "boom" },
        remaining: [{ from: "org/a", to: "org/b" }],
      }),
    );
    expect(failed).toBeInstanceOf(InputError);
    expect(failed?.message).toBe(
      "publish stopped at rename org/a: boom\n1 rename(s) remain; run publish again to continue",
    );
    const changed = outcomeError(
      outcome(plan(), { failed: { step: "commit", code: "PUBLISH_HUB_CHANGED", error: "moved" } }),
    );
    expect(changed?.message).toBe("publish stopped at commit: moved\n0 rename(s) remain");
    const left = outcomeError(outcome(plan({ conflicts: [{ from: "org/c", to: "org/d", reason: "exists" }] })));
    expect(left).toBeInstanceOf(ExitCodeError);
    expect((left as ExitCodeError).exitCode).toBe(2);
    expect(left?.message).toContain("PUBLISH_CONFLICTS_LEFT");
    expect(left?.message).toContain("1 rename(s) not done, to settle by hand:\n  org/c → org/d: exists");
  });
});
