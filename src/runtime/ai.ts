import { createHash } from "node:crypto";
import { LruMap } from "./lru.js";
import {
  AI_TOOL_CALLS_PER_STEP,
  expectedFilesMissing,
  type AiOutputs,
  type AiParams,
} from "../core/steps/ai/effect.js";
import { toolScopeRefusal, type ToolAccess } from "../core/steps/ai/tool-scope.js";
import { playbookError, type PlaybookError } from "../core/engine/errors.js";
import { summarise } from "../core/steps/investigate/findings.js";
import type { EffectOutcome } from "./effects.js";
import { callTool, type ToolCallResult, type ToolRunner, type ToolSummary } from "./tool-calls.js";

/**
 * The AI adapter contract: `invoke(prompt, tools, options)` streams messages. Adapters for real
 * providers plug in here; the mock adapter is the default, so nothing needs credentials.
 */
export interface AiMessage {
  type: "text" | "tool_call" | "tool_result" | "finding" | "done";
  text?: string;
  tool?: string;
  args?: Record<string, unknown>;
  /** A tool_result: whether the call succeeded (its text is then a bounded summary of the result). */
  ok?: boolean;
  finding?: { key: string; value: string | number | boolean };
}

/**
 * The step's tools as the model may use them. Without one, the model's calls are only reported
 * (a `tool_call` message each); with one, each is made and its result goes back to the model.
 */
export interface AiToolHost {
  /** Calls the model may make in all; past them a call is refused (TOOL-DENIED). */
  readonly maxCalls: number;
  /** Calls made so far (refused ones not counted). */
  readonly made: number;
  describe(tool: string): Promise<ToolSummary | undefined>;
  call(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolCallResult>;
}

export interface AiOptions {
  /** Tool scope granted to the model: read-only unless the playbook opted into write. */
  scope: "read-only" | "write";
  /** Working directory for tools that touch files (default: the project folder). */
  cwd?: string;
  /** Findings the step asks the model to report. */
  expectedFindings?: string[];
  /** Where the model's tool calls are made; absent, they are only reported. */
  tools?: AiToolHost;
  signal?: AbortSignal;
}

export interface AiAdapter {
  readonly name: string;
  invoke(prompt: string, tools: readonly string[], options: AiOptions): AsyncIterator<AiMessage>;
}

/** An adapter's failure; its message is already free of secrets and fit to show people. */
export class AiAdapterError extends Error {
  constructor(
    message: string,
    /** Whether trying again later may help (a rate limit, an outage), as opposed to a bad request. */
    readonly transient = false,
  ) {
    super(message);
    this.name = "AiAdapterError";
  }
}

/** An `ai` effect that did not run, or whose adapter failed: the step's error. */
export class AiStepFailure extends Error {
  constructor(readonly error: PlaybookError) {
    super(error.message);
  }
}

export interface MockScript {
  /** Canned replies by a substring of the prompt; the first that matches answers. */
  replies?: {
    when: string;
    text: string;
    findings?: Record<string, string | number | boolean>;
    /** Tool calls the reply makes first, through the step's tools when the host gives them. */
    calls?: { tool: string; args?: Record<string, unknown> }[];
  }[];
}

/** A deterministic stand-in: echoes the prompt's first line unless a scripted reply matches. */
export class MockAiAdapter implements AiAdapter {
  readonly name = "mock";
  readonly calls: { prompt: string; tools: readonly string[]; options: AiOptions }[] = [];

  constructor(private readonly script: MockScript = {}) {}

  async *invoke(
    prompt: string,
    tools: readonly string[],
    options: AiOptions,
  ): AsyncGenerator<AiMessage> {
    this.calls.push({ prompt, tools, options });
    const reply = this.script.replies?.find((r) => prompt.includes(r.when));
    for (const call of reply?.calls ?? []) {
      if (!tools.includes(call.tool)) continue;
      const args = call.args ?? {};
      yield { type: "tool_call", tool: call.tool, args };
      if (options.tools)
        yield toolResultMessage(
          call.tool,
          await options.tools.call(call.tool, args, options.signal),
        );
    }
    yield {
      type: "text",
      text: reply?.text ?? `mock response to: ${prompt.split("\n")[0]?.slice(0, 80) ?? ""}`,
    };
    for (const [key, value] of Object.entries(reply?.findings ?? {})) {
      if (options.expectedFindings && !options.expectedFindings.includes(key)) continue;
      yield { type: "finding", finding: { key, value } };
    }
    yield { type: "done" };
  }
}

/** The answer to a call past the step's allowance: refused, and the model told why. */
export const TOO_MANY_CALLS: ToolCallResult = {
  ok: false,
  code: "TOOL-DENIED",
  message: "this step may make no more tool calls",
};

/** The longest summary of a tool's result kept in a `tool_result` message. */
export const TOOL_RESULT_SUMMARY_CHARS = 300;

/** A call's outcome as the stream reports it: whether it worked, and a bounded one-line summary. */
export function toolResultMessage(tool: string, result: ToolCallResult): AiMessage {
  return result.ok
    ? {
        type: "tool_result",
        tool,
        ok: true,
        text: summarise(result.result, TOOL_RESULT_SUMMARY_CHARS),
      }
    : {
        type: "tool_result",
        tool,
        ok: false,
        text: `${result.code}: ${summarise(result.message, TOOL_RESULT_SUMMARY_CHARS)}`,
      };
}

/**
 * Drain an adapter's stream into the outputs the engine's `ai` step expects; `onMessage` sees
 * each message as it arrives (the CLI prints text as the model writes it).
 */
export async function collectAiOutputs(
  adapter: AiAdapter,
  prompt: string,
  tools: readonly string[],
  options: AiOptions,
  onMessage?: (message: AiMessage) => void,
): Promise<AiOutputs> {
  const out: AiOutputs = { text: "" };
  const it = adapter.invoke(prompt, tools, options);
  for (let r = await it.next(); !r.done; r = await it.next()) {
    const m = r.value;
    onMessage?.(m);
    if (m.type === "text" && m.text) out.text += m.text;
    if (m.type === "finding" && m.finding) out[`finding.${m.finding.key}`] = m.finding.value;
    if (m.type === "tool_result") out.tool_calls = (out.tool_calls ?? 0) + 1;
  }
  return out;
}

/** Answers of `ai` steps that opted into `cache: true`, per adapter, by what they asked (bounded). */
const answers = new WeakMap<AiAdapter, LruMap<string, AiOutputs>>();

/** What makes two asks the same: the prompt, the tools, the scope, the findings wanted, the folder. */
function askKey(params: AiParams, cwd: string | undefined): string {
  const asked = [
    params.prompt,
    params.tools ?? [],
    params.scope ?? "read-only",
    params.expected_findings ?? [],
    cwd ?? "",
  ];
  return createHash("sha256").update(JSON.stringify(asked)).digest("hex");
}

/** What the host running an `ai` effect adds: its tools, a listener, a signal. */
export interface AiRunOptions {
  /** The host's tools: their descriptors decide the scope; the model's calls are made through them. */
  tools?: ToolRunner;
  /** Each message as the adapter streams it. */
  onMessage?: (message: AiMessage) => void;
  signal?: AbortSignal;
}

/**
 * The tools of a read-only step that may change things: by their descriptors where the host has
 * them, else by their names. Throws the step's failure naming the first.
 */
export async function checkToolScope(
  params: AiParams,
  describeTool?: (name: string) => Promise<ToolAccess | undefined>,
): Promise<void> {
  const scope = params.scope === "write" ? "write" : "read-only";
  if (scope === "write") return;
  for (const tool of params.tools ?? []) {
    const access = await describeTool?.(tool).catch(() => undefined);
    const why = toolScopeRefusal(tool, scope, access);
    if (why !== undefined)
      throw new AiStepFailure(
        playbookError(
          "PB-AI-TOOL-REFUSED",
          `the step's scope is read-only, but it offers the model ${tool}, which may change things (${why})`,
        ),
      );
  }
}

/**
 * The engine's `ai` effect, run on an adapter: its params in, the step's outputs back. A step
 * with `cache: true` says it is idempotent: the same ask is answered from the cache. A read-only
 * step that offers a tool that may write is refused before the adapter is asked (AiStepFailure).
 */
export async function runAiEffect(
  adapter: AiAdapter,
  params: AiParams,
  cwd?: string,
  run: AiRunOptions = {},
): Promise<AiOutputs> {
  const runner = run.tools;
  await checkToolScope(params, runner?.describe?.bind(runner));
  let cache = answers.get(adapter);
  if (params.cache === true && !cache) answers.set(adapter, (cache = new LruMap(200)));
  const key = params.cache === true ? askKey(params, cwd) : undefined;
  const cached = key === undefined ? undefined : cache?.get(key);
  if (cached) return { ...cached };
  const options: AiOptions = {
    scope: params.scope === "write" ? "write" : "read-only",
    expectedFindings: params.expected_findings ?? [],
  };
  if (cwd !== undefined) options.cwd = cwd;
  if (run.signal) options.signal = run.signal;
  if (runner && (params.tools?.length ?? 0) > 0 && (params.max_tool_calls ?? 1) > 0)
    options.tools = aiToolHost(runner, params);
  const outputs = await collectAiOutputs(
    adapter,
    params.prompt,
    params.tools ?? [],
    options,
    run.onMessage,
  );
  if (options.tools && options.tools.made > 0) outputs.tool_calls = options.tools.made;
  if (key !== undefined) cache?.set(key, { ...outputs });
  return outputs;
}

/**
 * The step's tools for the model: only those the step lists; a read-only step's calls carry no
 * authority (a tool that writes is refused), a write step's carry the playbook's consent, which
 * still needs the deployment's (`allow_writes`).
 */
function aiToolHost(runner: ToolRunner, params: AiParams): AiToolHost {
  const listed = new Set(params.tools ?? []);
  const authority = params.scope === "write" ? ("just-do-it" as const) : undefined;
  const maxCalls = Math.min(
    params.max_tool_calls ?? AI_TOOL_CALLS_PER_STEP,
    AI_TOOL_CALLS_PER_STEP,
  );
  let made = 0;
  return {
    maxCalls,
    get made() {
      return made;
    },
    describe: async (tool) => (await runner.describe?.(tool).catch(() => undefined)) ?? undefined,
    call: async (tool, args, signal) => {
      if (!listed.has(tool))
        return { ok: false, code: "TOOL-UNKNOWN", message: `the step does not offer ${tool}` };
      if (made >= maxCalls) return TOO_MANY_CALLS;
      made++;
      return callTool(runner, tool, args, authority, undefined, signal);
    },
  };
}

/**
 * `runAiEffect` as an effect's outcome: a refused tool or a failed adapter is the step's error
 * (`PB-AI-TOOL-REFUSED`, `PB-AI-FAILED`) instead of an exception.
 */
export async function performAiEffect(
  adapter: AiAdapter,
  params: AiParams,
  cwd?: string,
  run: AiRunOptions = {},
): Promise<{ ok: true; outputs: AiOutputs } | { ok: false; error: PlaybookError }> {
  try {
    return { ok: true, outputs: await runAiEffect(adapter, params, cwd, run) };
  } catch (err) {
    if (err instanceof AiStepFailure) return { ok: false, error: err.error };
    if (err instanceof AiAdapterError)
      return { ok: false, error: playbookError("PB-AI-FAILED", `${adapter.name}: ${err.message}`) };
    throw err;
  }
}

/** Where an adapter looks for the files an `ai` step expects. */
export interface ExpectedFiles {
  /** Said in the failure: "in the working tree", "on branch main". */
  where: string;
  /** The paths that are not files there. */
  missing(paths: readonly string[]): Promise<string[]>;
}

/**
 * The `ai` effect's result once the adapter has answered: its outputs, or a failure naming the
 * files of `expect_files` that do not exist where the adapter looks.
 */
export async function checkExpectedFiles(
  outputs: AiOutputs,
  params: AiParams,
  files: ExpectedFiles,
): Promise<EffectOutcome<"ai">> {
  const expected = params.expect_files ?? [];
  const missing = expected.length > 0 ? await files.missing(expected) : [];
  if (missing.length > 0) return { ok: false, error: expectedFilesMissing(missing, files.where) };
  return { ok: true, outputs };
}

/** The findings of a final fenced ```json block of an answer (an object), or undefined. */
export function findingsInText(text: string): Record<string, unknown> | undefined {
  const blocks = [...text.matchAll(/```json[^\S\n]*\n([\s\S]*?)\n?```/g)];
  const last = blocks[blocks.length - 1]?.[1];
  if (last === undefined) return undefined;
  try {
    const v = JSON.parse(last) as unknown;
    if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
    const o = v as Record<string, unknown>;
    // `{"findings": {...}}` or the object of findings itself.
    const inner = o.findings;
    return typeof inner === "object" && inner !== null && !Array.isArray(inner)
      ? (inner as Record<string, unknown>)
      : o;
  } catch {
    return undefined;
  }
}
