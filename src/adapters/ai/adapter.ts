import { createHash } from "node:crypto";
import { LruMap } from "../../runtime/lru.js";
import { expectedFilesMissing, type AiOutputs, type AiParams } from "../../core/steps/ai/effect.js";
import { toolScopeRefusal, type ToolAccess } from "../../core/steps/ai/tool-scope.js";
import { playbookError, type PlaybookError } from "../../core/engine/errors.js";
import type { EffectOutcome } from "../../runtime/effects.js";

/**
 * The AI adapter contract: `invoke(prompt, tools, options)` streams messages. Adapters for real
 * providers plug in here; the mock adapter is the default, so nothing needs credentials.
 */
export interface AiMessage {
  type: "text" | "tool_call" | "finding" | "done";
  text?: string;
  tool?: string;
  args?: Record<string, unknown>;
  finding?: { key: string; value: string | number | boolean };
}

export interface AiOptions {
  /** Tool scope granted to the model: read-only unless the playbook opted into write. */
  scope: "read-only" | "write";
  /** Working directory for tools that touch files (default: the project folder). */
  cwd?: string;
  /** Findings the step asks the model to report. */
  expectedFindings?: string[];
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
  replies?: { when: string; text: string; findings?: Record<string, string | number | boolean> }[];
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

/** What the host running an `ai` effect adds: its tools' descriptors, a listener, a signal. */
export interface AiRunOptions {
  /** Whether a configured tool only reads (undefined: not configured here). */
  describeTool?: (name: string) => Promise<ToolAccess | undefined>;
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
  describeTool?: AiRunOptions["describeTool"],
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
  await checkToolScope(params, run.describeTool);
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
  const outputs = await collectAiOutputs(
    adapter,
    params.prompt,
    params.tools ?? [],
    options,
    run.onMessage,
  );
  if (key !== undefined) cache?.set(key, { ...outputs });
  return outputs;
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
