#!/usr/bin/env node
/**
 * `npm test` needs a real redis-server (the coordination tests start one). Present: nothing to do.
 * Missing: installed with apt-get when this runs as root on Debian or Ubuntu; otherwise the test
 * run stops here with the command that installs it.
 */
import { spawnSync } from "node:child_process";

const INSTALL = "apt-get update && apt-get install -y --no-install-recommends redis-server";

function installed() {
  const probe = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
  return !probe.error && probe.status === 0;
}

if (installed()) process.exit(0);

const root = typeof process.getuid === "function" && process.getuid() === 0;
const apt = spawnSync("apt-get", ["--version"], { stdio: "ignore" }).status === 0;
if (root && apt) {
  console.log(`redis-server is missing; installing it: ${INSTALL}`);
  const run = spawnSync("sh", ["-c", INSTALL], {
    stdio: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  if (run.status === 0 && installed()) process.exit(0);
  console.error(
    `playbook-bot: installing redis-server failed (exit ${run.status}); the tests need it. Run by hand: ${INSTALL}`,
  );
  process.exit(1);
}
console.error(
  [
    "playbook-bot: the tests need redis-server, which is not installed.",
    `Install it with: sudo sh -c '${INSTALL}'`,
    "(or your system's redis package), then run npm test again.",
  ].join("\n"),
);
process.exit(1);
