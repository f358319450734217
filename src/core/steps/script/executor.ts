import { playbookError } from "../../engine/errors.js";
import type { Value } from "../../engine/state.js";
import type { ScriptStep } from "../../format/types.js";
import { effectOrFail, type Outcome, type StepExecutor } from "../types.js";

const text = (v: Value | undefined): string => (typeof v === "string" ? v : "");

/**
 * Asks the host to run a script. The text is never templated (a value from an issue must not
 * become shell syntax); values reach it as environment variables. Hosts that do not run scripts
 * refuse the effect, so the step fails there with a coded error instead of running.
 */
export const scriptStep: StepExecutor<ScriptStep> = {
  kind: "script",
  // A script is not known to be idempotent: a lost result is not run again on its own.
  retryable: false,
  enter: (ctx) =>
    effectOrFail(ctx, "script", (render) => ({
      shell: ctx.step.shell,
      run: ctx.step.run,
      env: render.values(ctx.step.env),
      timeout: ctx.step.timeout,
    })),
  onEffect(ctx, outputs): Outcome {
    const exit = typeof outputs.exit_code === "number" ? outputs.exit_code : -1;
    const result = { exit_code: exit, stdout: text(outputs.stdout), stderr: text(outputs.stderr) };
    if (exit !== 0) {
      const tail = result.stderr.trim().split("\n").slice(-3).join(" / ").slice(0, 300);
      return {
        type: "fail",
        error: playbookError(
          "PB-SCRIPT-FAILED",
          `the ${ctx.step.shell} script exited with ${exit}${tail ? `: ${tail}` : ""}`,
        ),
      };
    }
    return { type: "done", outputs: result };
  },
};
