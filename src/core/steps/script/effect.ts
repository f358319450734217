import type { ScriptShell } from "../../format/types.js";

/** A script for a host that allows scripts: the text as written, values only through `env`. */
export type ScriptParams = {
  shell: ScriptShell;
  run: string;
  env: Record<string, string | number | boolean>;
  /** The step's own timeout, when it has one. */
  timeout?: string;
};

export type ScriptOutputs = {
  exit_code: number;
  /** The end of what the script printed, at most `SCRIPT_OUTPUT_LIMIT` characters each. */
  stdout: string;
  stderr: string;
};

/** Characters of a script's output kept in its outputs (the end of it: where errors are). */
export const SCRIPT_OUTPUT_LIMIT = 4_000;

/** Why a host that does not run scripts refuses the step, and where it could run. */
export const SCRIPT_REFUSED_HINT =
  "scripts run only where an operator allowed them: `playbook-bot run … --allow-scripts`, or the Actions runtime (mode: bot)";

/** What the effect does, in words (a failure says what was being done). */
export const describeScriptEffect = (p: ScriptParams): string => `run a ${p.shell} script`;
