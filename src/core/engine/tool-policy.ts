import type { Authority } from "../format/types.js";

/** What decides how much authority one tool call gets. */
export interface ToolCallContext {
  /** The tool only reads (an MCP `readOnlyHint`, a deployment's `read_only`, or a built-in). */
  readOnly: boolean;
  /** The deployment lets this tool's server write (`allow_writes: true`). */
  deploymentAllowsWrites: boolean;
  /** The authority of the playbook step that suggests the call. */
  stepAuthority?: Authority;
}

/**
 * The authority a tool call runs with: a read-only tool runs at once; a tool that writes needs
 * both the deployment's and the playbook's consent to run at once, and otherwise asks first.
 */
export function toolCallAuthority(context: ToolCallContext): Authority {
  if (context.readOnly) return "just-do-it";
  return context.deploymentAllowsWrites && context.stepAuthority === "just-do-it"
    ? "just-do-it"
    : "ask-first";
}
