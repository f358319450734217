/**
 * A headless Chromium for page tests, driven by playwright-core: the system's browser
 * (`CHROMIUM_PATH`, else Debian's /usr/bin/chromium and its usual neighbours; `npm test` installs
 * it when missing, see scripts/ensure-test-packages.mjs). Playwright's own browser downloads are
 * never used: nothing is fetched from the network.
 */
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

export function chromiumPath(): string {
  const named = process.env.CHROMIUM_PATH;
  const found = [named, ...CANDIDATES].find((p) => p !== undefined && p !== "" && existsSync(p));
  if (!found)
    throw new Error(
      "no Chromium found: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH",
    );
  return found;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // Root in a container has no user namespace for Chromium's sandbox.
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
}
