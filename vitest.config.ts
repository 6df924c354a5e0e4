import { configDefaults, defineConfig } from "vitest/config";

/**
 * Two projects: `unit` (in-memory data and small temp trees: seconds) and
 * `e2e` (tests that run the CLI, spawn the built binary, run whole builds,
 * start a fake Hub server or Chromium: minutes).
 *
 * A test file is e2e when it is named in this list or ends in
 * `.e2e.test.ts`; every other `test/**\/*.test.ts` is unit, so a new test
 * file lands in `unit` unless it is added here.
 *
 *   npx vitest run --project unit   # npm run test:unit
 *   npx vitest run --project e2e    # npm run test:e2e
 *   npx vitest run                  # both (npm test also type-checks and lints)
 */
export const E2E_TESTS = [
  "test/audit-commands.test.ts",
  "test/bad-input.test.ts",
  "test/build-cache.test.ts",
  "test/build.test.ts",
  "test/card-datapackage.test.ts",
  "test/cli-usage.test.ts",
  "test/cost.test.ts",
  "test/diff-input.test.ts",
  "test/family-names.test.ts",
  "test/fast-path.test.ts",
  "test/fault-tolerance.test.ts",
  "test/hub-token.test.ts",
  "test/install.test.ts",
  "test/live-build.test.ts",
  "test/live-hub.test.ts",
  "test/live-pvc.test.ts",
  "test/messiness.test.ts",
  "test/out-folder.test.ts",
  "test/properties.test.ts",
  "test/publish.test.ts",
  "test/report-html.test.ts",
  "test/reporting.test.ts",
  "test/safety.test.ts",
  "test/sources-truth.test.ts",
  "test/terminal-restore.test.ts",
  "test/terminal.test.ts",
  "test/token-coverage.test.ts",
  "test/tokens-cell.test.ts",
  "test/trajectory-cli.test.ts",
  "test/trajectory-found.test.ts",
  "test/unreadable-inputs.test.ts",
  "test/warnings-other-sources.test.ts",
];
const E2E = [...E2E_TESTS, "test/**/*.e2e.test.ts"];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...E2E] },
      },
      { extends: true, test: { name: "e2e", include: E2E } },
    ],
  },
});
