import type { Scalar } from "../core/engine/state.js";
import { toolCallAuthority } from "../core/engine/tool-policy.js";
import { findingsOfResult, summarise } from "../core/steps/investigate/findings.js";
import type { ToolCallResult, ToolRunner } from "./tool-calls.js";

export type ToolErrorCode =
  | "TOOL-UNKNOWN"
  | "TOOL-DENIED"
  | "TOOL-TIMEOUT"
  | "TOOL-FAILED"
  | "TOOL-TOO-LARGE"
  | "TOOL-INVALID"
  | "TOOL-NOT-FOUND";

/** What a host knows of one configured tool. */
export interface ToolDescriptor {
  /** `server/tool`, as playbooks name it. */
  name: string;
  server: string;
  tool: string;
  readOnly: boolean;
  /** The deployment lets this tool's server write (`allow_writes: true`). */
  allowWrites: boolean;
  description: string;
  inputSchema?: Record<string, unknown>;
}

export interface ToolCallOptions {
  signal?: AbortSignal;
  /** How long the call may take; the port's default when absent. */
  deadlineMs?: number;
  /**
   * The caller decided the call may write (tool-policy said just-do-it, or a person approved).
   * Without it, a tool that is not read-only is refused with TOOL-DENIED.
   */
  writeApproved?: boolean;
}

export type ToolCallOutcome =
  | { ok: true; result: unknown; findings: Record<string, Scalar> }
  | { ok: false; code: ToolErrorCode; message: string };

/** The tools a run may call: built-in GitHub tools, allowed HTTP tools, MCP servers. */
export interface ToolsPort {
  /** How long a call may take here (the deployment's `timeout_ms`, or the default). */
  readonly deadlineMs?: number;
  /** The tool named `server/tool`, or undefined when it is not configured here. */
  describe(name: string): Promise<ToolDescriptor | undefined>;
  call(
    name: string,
    args: Record<string, unknown>,
    options?: ToolCallOptions,
  ): Promise<ToolCallOutcome>;
}

/** A failure an adapter reports; its message must already be free of secrets. */
export class ToolError extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** One server's tools (`github`, an HTTP tool group, an MCP server). */
export interface ToolProvider {
  readonly server: string;
  describe(tool: string): Promise<ToolDescriptor | undefined>;
  /** The tool's JSON result; throws ToolError (or any error, reported as TOOL-FAILED). */
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  close?(): Promise<void>;
}

const SERVER_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const TOOL_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** `server/tool` split in two, or undefined for any other shape (no paths, no `..`). */
export function parseToolName(name: string): { server: string; tool: string } | undefined {
  if (name.length > 200) return undefined;
  const slash = name.indexOf("/");
  if (slash < 0) return undefined;
  const server = name.slice(0, slash);
  const tool = name.slice(slash + 1);
  if (!SERVER_NAME.test(server) || !TOOL_NAME.test(tool) || tool.includes("..")) return undefined;
  return { server, tool };
}

/** Largest result (as JSON) a call may return. */
export const MAX_TOOL_RESULT_BYTES = 256 * 1024;
export const DEFAULT_TOOL_DEADLINE_MS = 30_000;
const MESSAGE_LIMIT = 500;

/** Every secret value replaced by `***`: messages from servers may echo what they were sent. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join("***");
  return out;
}

export interface ToolsPortOptions {
  maxResultBytes?: number;
  defaultDeadlineMs?: number;
  /** Values that must never appear in a result or an error (the secrets the providers use). */
  secrets?: readonly string[];
}

/** One call of a provider's tool, as the port's outcome (the deadline is the caller's). */
interface ProviderCall {
  name: string;
  tool: string;
  provider: ToolProvider | undefined;
  args: Record<string, unknown>;
  writeApproved: boolean;
  signal: AbortSignal;
  maxBytes: number;
  secrets: readonly string[];
  clean: (message: string) => string;
}

async function callProvider(c: ProviderCall): Promise<ToolCallOutcome> {
  const { name, tool, provider, args, writeApproved, signal, maxBytes, secrets, clean } = c;
  const descriptor = await provider?.describe(tool).catch((err: unknown) => err as Error);
  if (descriptor instanceof Error) {
    const code = descriptor instanceof ToolError ? descriptor.code : "TOOL-FAILED";
    return { ok: false, code, message: clean(`${name}: ${descriptor.message}`) };
  }
  if (!provider || !descriptor)
    return {
      ok: false,
      code: "TOOL-UNKNOWN",
      message: `no tool ${name} is configured here; add it to the tools config (PLAYBOOK_TOOLS_CONFIG)`,
    };
  if (!descriptor.readOnly && !writeApproved)
    return {
      ok: false,
      code: "TOOL-DENIED",
      message: `${name} may change things and this call was not approved; it stays a suggestion`,
    };
  try {
    const result = await provider.call(tool, args, signal);
    const json = JSON.stringify(result) ?? "null";
    if (Buffer.byteLength(json) > maxBytes)
      return {
        ok: false,
        code: "TOOL-TOO-LARGE",
        message: `${name} returned more than ${maxBytes} bytes; ask it for less`,
      };
    const safe: unknown = JSON.parse(
      redactSecrets(
        json,
        secrets.map((s) => JSON.stringify(s).slice(1, -1)),
      ),
    );
    return { ok: true, result: safe, findings: findingsOfResult(name, safe) };
  } catch (err) {
    const code =
      err instanceof ToolError ? err.code : signal.aborted ? "TOOL-TIMEOUT" : "TOOL-FAILED";
    return { ok: false, code, message: clean(`${name}: ${(err as Error).message}`) };
  }
}

/** The port over a set of providers, one per server name. */
export function createToolsPort(
  providers: readonly ToolProvider[],
  options: ToolsPortOptions = {},
): ToolsPort & { close(): Promise<void> } {
  const byServer = new Map(providers.map((p) => [p.server, p]));
  const maxBytes = options.maxResultBytes ?? MAX_TOOL_RESULT_BYTES;
  const secrets = options.secrets ?? [];
  const clean = (message: string) => summarise(redactSecrets(message, secrets), MESSAGE_LIMIT);

  async function describe(name: string): Promise<ToolDescriptor | undefined> {
    const parsed = parseToolName(name);
    if (!parsed) return undefined;
    return byServer.get(parsed.server)?.describe(parsed.tool);
  }

  async function call(
    name: string,
    args: Record<string, unknown>,
    callOptions: ToolCallOptions = {},
  ): Promise<ToolCallOutcome> {
    const parsed = parseToolName(name);
    if (!parsed)
      return {
        ok: false,
        code: "TOOL-INVALID",
        message: `${summarise(name, 100)} is not a tool name: write server/tool (letters, digits, '_', '-', '.')`,
      };
    const provider = byServer.get(parsed.server);
    const deadlineMs =
      callOptions.deadlineMs ?? options.defaultDeadlineMs ?? DEFAULT_TOOL_DEADLINE_MS;
    const controller = new AbortController();
    let finish: (outcome: ToolCallOutcome) => void = () => undefined;
    const stopped = new Promise<ToolCallOutcome>((resolve) => (finish = resolve));
    // A provider that ignores its signal still cannot hold the caller past the deadline.
    const stop = (message: string) => {
      controller.abort();
      finish({ ok: false, code: "TOOL-TIMEOUT", message });
    };
    const timer = setTimeout(() => stop(`${name} gave no answer in ${deadlineMs} ms`), deadlineMs);
    const onAbort = () => stop(`${name} was stopped before it answered`);
    if (callOptions.signal?.aborted) onAbort();
    callOptions.signal?.addEventListener("abort", onAbort);
    const work = callProvider({
      name,
      tool: parsed.tool,
      provider,
      args,
      writeApproved: callOptions.writeApproved === true,
      signal: controller.signal,
      maxBytes,
      secrets,
      clean,
    });
    try {
      return await Promise.race([work, stopped]);
    } finally {
      clearTimeout(timer);
      callOptions.signal?.removeEventListener("abort", onAbort);
    }
  }

  return {
    deadlineMs: options.defaultDeadlineMs ?? DEFAULT_TOOL_DEADLINE_MS,
    describe,
    call,
    close: async () => {
      await Promise.allSettled(providers.map((p) => p.close?.()));
    },
  };
}

/**
 * The port as the runner investigate steps call through. A tool that writes runs only with both
 * consents (the deployment's `allow_writes` and a just-do-it step), or after a person approved
 * the step (ask-first); otherwise it is refused and stays a suggestion.
 */
export function toolRunnerOf(port: ToolsPort): ToolRunner {
  return {
    ...(port.deadlineMs !== undefined ? { deadlineMs: port.deadlineMs } : {}),
    call: async (tool, args, signal, stepAuthority): Promise<ToolCallResult> => {
      const descriptor = await port.describe(tool).catch(() => undefined);
      const writeApproved =
        stepAuthority === "ask-first" ||
        (descriptor !== undefined &&
          toolCallAuthority({
            readOnly: descriptor.readOnly,
            deploymentAllowsWrites: descriptor.allowWrites,
            ...(stepAuthority ? { stepAuthority } : {}),
          }) === "just-do-it");
      const outcome = await port.call(tool, args, { signal, writeApproved });
      return outcome.ok ? { ok: true, result: outcome.result } : outcome;
    },
    describe: async (tool) => {
      const descriptor = await port.describe(tool).catch(() => undefined);
      if (!descriptor) return undefined;
      return {
        readOnly: descriptor.readOnly,
        ...(descriptor.description ? { description: descriptor.description } : {}),
        ...(descriptor.inputSchema ? { inputSchema: descriptor.inputSchema } : {}),
      };
    },
  };
}
