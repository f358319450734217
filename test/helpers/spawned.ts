import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

/** The bundled Action's entry, as a runner starts it. */
export const ACTION_BUNDLE = resolve(__dirname, "../../dist/action/index.js");

export interface SpawnedRun {
  code: number | null;
  /** Standard output and error together, in the order they came. */
  out: string;
  ms: number;
}

/**
 * `node <args>` (a built entry) in `cwd`, asynchronously, so loopback servers in this process can
 * answer it; with only PATH and NO_COLOR from this environment, and killed after `timeoutMs`.
 */
export function spawned(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 30_000,
): Promise<SpawnedRun> {
  const started = Date.now();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: { PATH: process.env.PATH, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", fail);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, out, ms: Date.now() - started });
    });
  });
}

/**
 * What a runner gives the Action on a push to the checkout at `workspace`: GitHub's push example
 * as the event and an output file, both beside the checkout, and no token.
 */
export function pushRunnerEnv(workspace: string): Record<string, string> {
  const examples = createRequire(import.meta.url)(
    "@octokit/webhooks-examples/api.github.com/index.json",
  ) as { name: string; examples: unknown[] }[];
  const eventPath = join(workspace, "..", "event.json");
  writeFileSync(eventPath, JSON.stringify(examples.find((d) => d.name === "push")?.examples[0]));
  const output = join(workspace, "..", "output");
  writeFileSync(output, "");
  return {
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: "push",
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: output,
    GITHUB_REPOSITORY: "octo/playbooks",
    INPUT_TOKEN: "",
  };
}
