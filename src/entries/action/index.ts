import { run } from "./main.js";

process.exitCode = await run({
  workspace: process.env.GITHUB_WORKSPACE ?? process.cwd(),
  env: process.env,
  log: (line) => process.stdout.write(`${line}\n`),
});
