#!/usr/bin/env node
/**
 * `npm test` needs three programs the tests start themselves: a real redis-server (the
 * coordination tests), a Chromium (the playground page is tested in a headless browser) and
 * Neovim (docs/editors.md's editor recipe is run in the Neovim Debian ships).
 * Present: nothing to do. Missing: installed with apt-get when this runs as root on Debian or
 * Ubuntu; otherwise the test run stops here with the command that installs them.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/** Where the tests look for a browser (test/helpers/browser.ts): CHROMIUM_PATH, else these. */
export const CHROMIUM_PATHS = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
];

const NEEDED = [
  {
    pkg: "redis-server",
    present: () => spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0,
  },
  {
    pkg: "chromium",
    present: () =>
      [process.env.CHROMIUM_PATH, ...CHROMIUM_PATHS].some(
        (p) => p !== undefined && p !== "" && existsSync(p),
      ),
  },
  {
    pkg: "neovim",
    present: () => spawnSync("nvim", ["--version"], { stdio: "ignore" }).status === 0,
  },
];

const missing = NEEDED.filter((n) => !n.present());
if (missing.length === 0) process.exit(0);

const names = missing.map((m) => m.pkg).join(" ");
const INSTALL = `apt-get update && apt-get install -y --no-install-recommends ${names}`;
const root = typeof process.getuid === "function" && process.getuid() === 0;
const apt = spawnSync("apt-get", ["--version"], { stdio: "ignore" }).status === 0;
if (root && apt) {
  console.log(`${names} missing; installing: ${INSTALL}`);
  const run = spawnSync("sh", ["-c", INSTALL], {
    stdio: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  if (run.status === 0 && missing.every((m) => m.present())) process.exit(0);
  console.error(
    `playbook-bot: installing ${names} failed (exit ${run.status}); the tests need them. Run by hand: ${INSTALL}`,
  );
  process.exit(1);
}
console.error(
  [
    `playbook-bot: the tests need ${names}, not installed here.`,
    `Install with: sudo sh -c '${INSTALL}'`,
    "(or your system's packages; a Chromium elsewhere can be named with CHROMIUM_PATH), then run npm test again.",
  ].join("\n"),
);
process.exit(1);
