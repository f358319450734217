import * as core from "@actions/core";
import { run } from "./main.js";

// `mode: bot` runs the bot itself; its code (Probot and the app) loads only then, so that
// validation, the default, starts as fast as before.
const mode = (process.env.INPUT_MODE ?? "").trim() || "validate";
if (mode === "bot") {
  const { runBot } = await import("./bot.js");
  process.exitCode = await runBot({
    env: process.env,
    log: (line) => process.stdout.write(`${line}\n`),
  });
} else if (mode === "validate") {
  process.exitCode = await run({
    workspace: process.env.GITHUB_WORKSPACE ?? process.cwd(),
    env: process.env,
    log: (line) => process.stdout.write(`${line}\n`),
  });
} else {
  core.setFailed(`mode must be validate or bot, not ${JSON.stringify(mode)}`);
  process.exitCode = 1;
}
