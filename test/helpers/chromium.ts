/**
 * Headless Chromium for the page tests and the docs screenshots: Debian's
 * `chromium` (installed by .ci/run), driven by playwright-core, with no
 * network of its own (no background fetches, no QUIC, no sync).
 */
import { existsSync } from "node:fs";
import type { Browser } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

/** True when Chromium is installed; in CI (`CI` set) a missing one is an error, never a skip. */
export function haveChromium(): boolean {
  const have = existsSync(CHROMIUM);
  if (!have && process.env.CI)
    throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium for this test`);
  return have;
}

/** Launches headless Chromium with the flags every page test uses. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
