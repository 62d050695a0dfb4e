// Finds Chromium for the browser tests: CHROMIUM_PATH or the usual Debian paths; skips with a hint when absent, fails on CI.
import fs from "fs";
import { chromium, type Browser } from "playwright-core";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable"];

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** The Chromium executable to use, or null when none is installed. */
export function findChromium(env: NodeJS.ProcessEnv = process.env, exists: (p: string) => boolean = fs.existsSync): string | null {
  const explicit = env.CHROMIUM_PATH?.trim();
  if (explicit) return exists(explicit) ? explicit : null;
  return CANDIDATES.find((p) => exists(p)) ?? null;
}

const HOW_TO_GET_IT =
  "Browser tests need Chromium: install it with `sudo apt-get install chromium` (or set CHROMIUM_PATH to a Chromium/Chrome binary).";

/**
 * describe() for browser tests: runs them when Chromium is found; otherwise prints how to get it and skips them,
 * except on CI (process.env.CI set), where a missing browser is a failure.
 */
export function describeWithBrowser(name: string, body: (executablePath: () => string) => void): void {
  const path = findChromium();
  if (path) {
    describe(name, () => body(() => path));
    return;
  }
  if (process.env.CI) {
    describe(name, () => {
      test("Chromium is installed", () => {
        throw new Error(`No Chromium found on CI. ${HOW_TO_GET_IT}`);
      });
    });
    return;
  }
  console.warn(`Skipping "${name}". ${HOW_TO_GET_IT}`);
  describe.skip(name, () => body(() => ""));
}

export async function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
}
