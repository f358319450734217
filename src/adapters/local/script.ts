import { spawn } from "node:child_process";
import { durationMs } from "../../core/engine/policy.js";
import type { EffectParams } from "../../core/engine/events.js";
import { SCRIPT_OUTPUT_LIMIT, type ScriptOutputs } from "../../core/steps/script/effect.js";
import type { ScriptShell } from "../../core/format/types.js";

/** A script with no timeout of its own stops after this long. */
export const DEFAULT_SCRIPT_TIMEOUT_MS = 10 * 60_000;

/** How each shell takes a script text as one argument (never through a file the script names). */
const COMMAND: Record<ScriptShell, (run: string) => [string, string[]]> = {
  bash: (run) => ["bash", ["--noprofile", "--norc", "-e", "-o", "pipefail", "-c", run]],
  sh: (run) => ["sh", ["-e", "-c", run]],
  powershell: (run) => ["pwsh", ["-NoProfile", "-NonInteractive", "-Command", run]],
  node: (run) => [process.execPath, ["-e", run]],
};

/** Keeps the last `limit` characters of a stream: errors are at the end. */
class Tail {
  private text = "";
  constructor(private readonly limit: number) {}
  push(chunk: string): void {
    this.text = (this.text + chunk).slice(-this.limit);
  }
  toString(): string {
    return this.text;
  }
}

/**
 * Runs a script an operator allowed, in the repository, with the step's environment on top of a
 * minimal one (PATH and HOME, not the operator's tokens): the script sees only what the playbook
 * passed it. Output is capped; a timeout kills the process group.
 */
export function runScript(
  params: EffectParams<"script">,
  cwd: string,
): Promise<{ outputs: ScriptOutputs; timedOut: boolean }> {
  const [command, args] = COMMAND[params.shell](params.run);
  const timeout = params.timeout ? durationMs(params.timeout) : DEFAULT_SCRIPT_TIMEOUT_MS;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? cwd,
  };
  for (const [k, v] of Object.entries(params.env)) env[k] = String(v);
  return new Promise((resolve) => {
    const stdout = new Tail(SCRIPT_OUTPUT_LIMIT);
    const stderr = new Tail(SCRIPT_OUTPUT_LIMIT);
    let timedOut = false;
    const child = spawn(command, args, {
      cwd,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }, timeout);
    child.stdout.setEncoding("utf8").on("data", (c: string) => stdout.push(c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => stderr.push(c));
    const finish = (code: number, extra = ""): void => {
      clearTimeout(timer);
      stderr.push(extra);
      resolve({
        outputs: { exit_code: code, stdout: stdout.toString(), stderr: stderr.toString() },
        timedOut,
      });
    };
    child.on("error", (err) => finish(127, `${command}: ${err.message}`));
    child.on("close", (code, signal) =>
      finish(code ?? 128, timedOut ? `\nstopped after ${timeout} ms` : signal ? `\n${signal}` : ""),
    );
  });
}
