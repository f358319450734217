import type { EffectParams } from "../core/engine/events.js";
import type { Scalar, Value } from "../core/engine/state.js";
import type { Authority } from "../core/format/types.js";
import { TOOL_RESULT_TEXT_LIMIT, type ToolCallOutputs } from "../core/steps/investigate/effect.js";
import {
  findingsByRules,
  findingsOfResult,
  reportsFindings,
  summarise,
  valueAtPath,
} from "../core/steps/investigate/findings.js";

/** What one tool call gives: its result, or a coded failure with a message. */
export type ToolCallResult =
  { ok: true; result: unknown } | { ok: false; code: string; message: string };

/** A configured tool as a runner describes it. */
export interface ToolSummary {
  readOnly: boolean;
  description?: string;
  /** The JSON Schema of its arguments, as its server declares it. */
  inputSchema?: Record<string, unknown>;
}

/** Where a host's tools are called: built-in GitHub tools, allowed HTTP tools, MCP servers. */
export interface ToolRunner {
  /** The deadline the runner itself keeps for a call, which the caller then honours. */
  readonly deadlineMs?: number;
  /** `stepAuthority`: the step's authority, which (with the deployment's) decides whether a tool may write. */
  call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    stepAuthority?: Authority,
  ): Promise<ToolCallResult>;
  /**
   * What a configured tool is: whether it only reads, and what it says of itself (offered to a
   * model); undefined when the tool is not configured here.
   */
  describe?(tool: string): Promise<ToolSummary | undefined>;
}

/** A host with no tools: every call is unknown (its suggestion stays for people). */
export const NO_TOOLS: ToolRunner = {
  call: async (tool) => ({
    ok: false,
    code: "TOOL-UNKNOWN",
    message: `no tool ${tool} is configured here`,
  }),
};

/** How long one call may take before it is abandoned, when the runner keeps no deadline. */
export const TOOL_CALL_TIMEOUT_MS = 30_000;
/** Time past the runner's own deadline before the call is abandoned here: its answer wins. */
const DEADLINE_GRACE_MS = 1_000;

/** The deadline a call to `runner` is held to: its own (the deployment's timeout_ms) with a backstop just past it. */
export function callDeadlineMs(runner: ToolRunner): number {
  return runner.deadlineMs !== undefined
    ? runner.deadlineMs + DEADLINE_GRACE_MS
    : TOOL_CALL_TIMEOUT_MS;
}

/**
 * One call through `runner`, abandoned after `timeoutMs` or when `outer` aborts; a call that
 * throws is a coded failure, so a caller never sees an exception.
 */
export async function callTool(
  runner: ToolRunner,
  tool: string,
  args: Record<string, unknown>,
  authority: Authority | undefined,
  timeoutMs = callDeadlineMs(runner),
  outer?: AbortSignal,
): Promise<ToolCallResult> {
  if (outer?.aborted) return { ok: false, code: "TOOL-TIMEOUT", message: "the step was stopped" };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const onOuterAbort = () => controller.abort();
  outer?.addEventListener("abort", onOuterAbort, { once: true });
  try {
    return await Promise.race([
      runner.call(tool, args, controller.signal, authority),
      new Promise<ToolCallResult>((resolve) =>
        controller.signal.addEventListener("abort", () =>
          resolve({
            ok: false,
            code: "TOOL-TIMEOUT",
            message: outer?.aborted ? "the step was stopped" : `no answer in ${timeoutMs} ms`,
          }),
        ),
      ),
    ]);
  } catch (err) {
    return { ok: false, code: "TOOL-FAILED", message: summarise((err as Error).message, 200) };
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onOuterAbort);
  }
}

/**
 * The `tool_call` effect on any host: the calls one after another, each within its time, their
 * results made into findings. A failed call never fails the step (its suggestion stays for
 * people); a failed required call is recorded as the finding `step_error`.
 */
export async function performToolCalls(
  runner: ToolRunner,
  params: EffectParams<"tool_call">,
  timeoutMs = callDeadlineMs(runner),
): Promise<ToolCallOutputs> {
  const findings: Record<string, Scalar> = {};
  const taken: Record<`output.${string}`, Value> = {};
  const failed: string[] = [];
  const lines: string[] = [];
  for (const call of params.calls) {
    const outcome = await callTool(runner, call.tool, call.args, params.authority, timeoutMs);
    if (outcome.ok) {
      Object.assign(findings, findingsOfResult(call.tool, outcome.result));
      // The call's own rules read a raw result (their findings win over the generic reading);
      // a result that is already evidence is taken as it reports itself.
      if (call.findings && !reportsFindings(outcome.result))
        Object.assign(findings, findingsByRules(call.findings, outcome.result));
      for (const [name, path] of Object.entries(call.outputs ?? {})) {
        const value = valueAtPath(outcome.result, path);
        if (value !== undefined) taken[`output.${name}`] = value;
      }
      lines.push(
        `${call.number}. ${call.tool}: ${summarise(outcome.result, TOOL_RESULT_TEXT_LIMIT)}`,
      );
    } else {
      failed.push(`${call.tool} (${outcome.code})`);
      lines.push(
        `${call.number}. ${call.tool} failed: ${outcome.code} ${summarise(outcome.message, 200)}`,
      );
      if (call.required) findings.step_error = `${call.tool}: ${outcome.code}`;
    }
  }
  const outputs: ToolCallOutputs = {
    called: params.calls.length,
    failed,
    results: lines.join("\n"),
  };
  for (const [k, v] of Object.entries(findings)) outputs[`finding.${k}`] = v;
  return Object.assign(outputs, taken);
}
