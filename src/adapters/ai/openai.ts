import OpenAI, { APIConnectionError, APIError, APIUserAbortError, AzureOpenAI } from "openai";
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { redactSecrets } from "../../runtime/tools.js";
import { crossOriginRedirectIn, sameOriginFetch } from "../same-origin-fetch.js";
import type { ToolCallResult, ToolSummary } from "../../runtime/tool-calls.js";
import {
  AiAdapterError,
  findingsInText,
  toolResultMessage,
  type AiAdapter,
  type AiMessage,
  type AiOptions,
} from "../../runtime/ai.js";

/**
 * An adapter for any OpenAI-compatible chat-completions endpoint (OpenAI, GitHub Models, Azure
 * OpenAI, Ollama), streamed: text is yielded as it arrives. Findings come back through a function
 * the model is offered, `report_finding` (key: one of the step's expected findings), or, from a
 * model that cannot call functions, a final fenced ```json block holding an object of them; only
 * expected keys are kept, and values are bounded. Calls the model makes to the step's tools are
 * made through the host's tools when it gives them (each result goes back to the model, round
 * after round, within the step's allowance), and otherwise only reported. Transient failures (429, 5xx, a broken connection) are tried
 * again with exponential backoff and jitter, honouring Retry-After, but never once text has been
 * yielded; anything else fails at once. Error messages never carry the API key.
 */

export type AiProviderKind = "openai" | "github-models" | "azure" | "ollama";

export interface OpenAiCompatibleConfig {
  provider: AiProviderKind;
  model: string;
  /** The API's base URL; for Azure, the resource's endpoint (`https://<name>.openai.azure.com`). */
  baseURL: string;
  /** Sent as `Authorization: Bearer …` (Azure: as the `api-key` header); never shown anywhere. */
  apiKey?: string;
  /** Azure's `api-version` query parameter. */
  apiVersion?: string;
  /** How long one request may take, in milliseconds. */
  timeoutMs?: number;
  /** Attempts in all for one ask, retries included (at least 1). */
  maxAttempts?: number;
  /** First backoff delay; each retry doubles it (with jitter), up to `maxDelayMs`. */
  baseDelayMs?: number;
  /** Longest wait before a retry; a Retry-After beyond it fails the ask instead. */
  maxDelayMs?: number;
  /** Where the variables came from, named in errors (`PLAYBOOK_AI_API_KEY`). */
  keyVariable?: string;
  /** Tests replace these. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_ATTEMPTS = 4;
export const DEFAULT_BASE_DELAY_MS = 500;
export const DEFAULT_MAX_DELAY_MS = 30_000;
/** The longest answer kept; text beyond it is dropped (the model is not stopped: tool calls may follow). */
export const MAX_ANSWER_CHARS = 100_000;
/** The longest finding value kept (longer strings are cut). */
export const MAX_FINDING_CHARS = 500;
/** The longest part of a provider's own error message shown. */
const MAX_PROVIDER_MESSAGE = 300;

export const REPORT_FINDING = "report_finding";

function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error("aborted"));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error("aborted"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** A tool's name as a function name (`[A-Za-z0-9_-]{1,64}`): `server/tool` → `server__tool`. */
export function functionName(tool: string): string {
  return tool
    .replace(/\//g, "__")
    .replace(/[^A-Za-z0-9_-]/g, "_")
    .slice(0, 64);
}

/** A finding's value as the step keeps it: a scalar, strings cut to a bound; else undefined. */
export function boundedFinding(value: unknown): string | number | boolean | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "string")
    return value.length > MAX_FINDING_CHARS ? `${value.slice(0, MAX_FINDING_CHARS - 1)}…` : value;
  return undefined;
}

function systemPrompt(options: AiOptions): string {
  const lines = [
    "You are a step of an operational playbook run by Playbook Bot.",
    options.scope === "write"
      ? "You may use the offered tools, including tools that change things."
      : "Your scope is read-only: do not try to change anything.",
  ];
  const expected = options.expectedFindings ?? [];
  if (expected.length > 0)
    lines.push(
      `Report each of these findings once you know it: ${expected.join(", ")}. ` +
        `Call the function ${REPORT_FINDING} with {"key": <one of them>, "value": <a short string, a number or a boolean>} for each. ` +
        'If you cannot call functions, end your answer with a ```json fenced block holding one object, {"<key>": <value>, ...}.',
    );
  return lines.join("\n");
}

/** The stream ended without a finish reason: the connection broke. */
class StreamCutShort extends Error {
  constructor() {
    super("the stream ended before the answer was complete");
  }
}

interface PartialCall {
  id: string;
  name: string;
  args: string;
}

/** Rounds of tool calls one ask may take before the model is asked to answer without more. */
export const MAX_TOOL_ROUNDS = 8;
/** The most of one tool's result given back to the model. */
export const MAX_TOOL_RESULT_CHARS = 20_000;
/** The largest argument schema offered as declared; a larger one is offered as any object. */
const MAX_TOOL_SCHEMA_CHARS = 16_384;
const MAX_TOOL_DESCRIPTION_CHARS = 1_024;

/** A call's arguments: the JSON object the model wrote, or none when it wrote something else. */
function argumentsOf(raw: string): Record<string, unknown> {
  try {
    const v = JSON.parse(raw || "{}") as unknown;
    return typeof v === "object" && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** A tool as the model is offered it: its own description and argument schema where the host has them. */
function toolFunction(
  fn: string,
  tool: string,
  summary: ToolSummary | undefined,
): ChatCompletionTool {
  const schema = summary?.inputSchema;
  const declared =
    schema !== undefined &&
    schema.type === "object" &&
    JSON.stringify(schema).length <= MAX_TOOL_SCHEMA_CHARS;
  return {
    type: "function",
    function: {
      name: fn,
      description: (summary?.description || `The tool ${tool}.`).slice(
        0,
        MAX_TOOL_DESCRIPTION_CHARS,
      ),
      parameters: declared ? schema : { type: "object", additionalProperties: true },
    },
  };
}

/** A call's outcome as the model reads it: the result as JSON, or the failure's code and message; bounded. */
function resultForModel(result: ToolCallResult): string {
  const text = result.ok
    ? typeof result.result === "string"
      ? result.result
      : (JSON.stringify(result.result) ?? "null")
    : `error ${result.code}: ${result.message}`;
  return text.length > MAX_TOOL_RESULT_CHARS
    ? `${text.slice(0, MAX_TOOL_RESULT_CHARS)}… (cut at ${MAX_TOOL_RESULT_CHARS} characters)`
    : text;
}

/** Whether a failure may pass if the same request is sent again (nothing was yielded yet). */
function isTransient(err: unknown): boolean {
  if (err instanceof APIUserAbortError) return false;
  // The same request would be redirected again.
  if (crossOriginRedirectIn(err)) return false;
  if (err instanceof StreamCutShort) return true;
  if (err instanceof APIConnectionError) return true;
  if (err instanceof APIError) {
    const s = err.status;
    if (s === undefined) return true; // an error event in the stream, without a status
    return s === 408 || s === 409 || s === 429 || s >= 500;
  }
  const e = err as { message?: string; cause?: { code?: string } } | undefined;
  const code = e?.cause?.code ?? (err as { code?: string } | undefined)?.code;
  if (code && ["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "UND_ERR_SOCKET"].includes(code))
    return true;
  return err instanceof TypeError && /terminated|fetch failed|socket/i.test(e?.message ?? "");
}

/** How long the provider asked to wait (Retry-After, in seconds or as a date; retry-after-ms), or undefined. */
export function retryAfterMs(err: unknown, now = Date.now()): number | undefined {
  if (!(err instanceof APIError) || !err.headers) return undefined;
  const ms = Number(err.headers.get("retry-after-ms") ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = err.headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export class OpenAiCompatibleAdapter implements AiAdapter {
  readonly name: string;
  private readonly client: OpenAI;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;

  constructor(private readonly config: OpenAiCompatibleConfig) {
    this.name = `${config.provider} (${config.model})`;
    this.maxAttempts = Math.max(1, config.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
    this.baseDelayMs = config.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
    this.maxDelayMs = config.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
    this.sleep = config.sleep ?? sleepFor;
    this.random = config.random ?? Math.random;
    // Retries are this adapter's (never once output has started); the library logs nothing.
    const common = {
      maxRetries: 0,
      timeout: config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      logLevel: "off" as const,
      // The key goes to the configured endpoint only: a redirect to another origin is refused.
      fetch: sameOriginFetch(),
    };
    this.client =
      config.provider === "azure"
        ? new AzureOpenAI({
            ...common,
            endpoint: config.baseURL,
            apiKey: config.apiKey ?? "",
            apiVersion: config.apiVersion ?? "",
            deployment: config.model,
          })
        : new OpenAI({
            ...common,
            baseURL: config.baseURL,
            // Ollama wants no key; the client wants one.
            apiKey: config.apiKey ?? "none",
            organization: null,
            project: null,
          });
  }

  async *invoke(
    prompt: string,
    tools: readonly string[],
    options: AiOptions,
  ): AsyncGenerator<AiMessage> {
    const expected = options.expectedFindings ?? [];
    const host = options.tools;
    const byFunction = new Map<string, string>();
    const offered: ChatCompletionTool[] = [];
    for (const tool of tools) {
      const fn = functionName(tool);
      if (fn === REPORT_FINDING || byFunction.has(fn)) continue;
      byFunction.set(fn, tool);
      offered.push(toolFunction(fn, tool, await host?.describe(tool).catch(() => undefined)));
    }
    if (expected.length > 0)
      offered.push({
        type: "function",
        function: {
          name: REPORT_FINDING,
          description: "Report one finding of this step.",
          parameters: {
            type: "object",
            properties: {
              key: { type: "string", enum: [...expected] },
              value: { type: ["string", "number", "boolean"] },
            },
            required: ["key", "value"],
            additionalProperties: false,
          },
        },
      });
    const messages: ChatCompletionMessageParam[] = [
      { role: "system", content: systemPrompt(options) },
      { role: "user", content: prompt },
    ];

    let text = "";
    let reported = false;
    for (let round = 0; ; round++) {
      // Past the calls or rounds allowed, the model is asked to answer without calling more.
      const closing =
        host !== undefined && (host.made >= host.maxCalls || round >= MAX_TOOL_ROUNDS);
      const body: ChatCompletionCreateParamsStreaming = {
        model: this.config.model,
        stream: true,
        messages,
        ...(offered.length > 0 ? { tools: offered } : {}),
        ...(closing ? { tool_choice: "none" as const } : {}),
      };
      const answer = yield* this.round(body, options.signal, text);
      text += answer.text;
      const wanted: { call: PartialCall; tool: string; args: Record<string, unknown> }[] = [];
      for (const call of answer.calls) {
        const args = argumentsOf(call.args);
        if (call.name === REPORT_FINDING) {
          const key = args.key;
          const value = boundedFinding(args.value);
          if (typeof key === "string" && expected.includes(key) && value !== undefined) {
            reported = true;
            yield { type: "finding", finding: { key, value } };
          }
          continue;
        }
        const tool = byFunction.get(call.name);
        if (tool === undefined) continue;
        // Nowhere to make it (or no more allowed): the call is reported for people.
        if (host === undefined || closing) yield { type: "tool_call", tool, args };
        else wanted.push({ call, tool, args });
      }
      if (host === undefined || wanted.length === 0 || closing) break;
      // The answer so far, then one result per call, as the protocol has them.
      messages.push({
        role: "assistant",
        content: answer.text === "" ? null : answer.text,
        tool_calls: answer.calls.map((c) => ({
          id: c.id,
          type: "function" as const,
          function: { name: c.name, arguments: c.args },
        })),
      });
      for (const call of answer.calls) {
        const w = wanted.find((x) => x.call === call);
        let content: string;
        if (w === undefined) {
          content =
            call.name === REPORT_FINDING
              ? "recorded"
              : `error TOOL-UNKNOWN: no tool ${call.name} is offered`;
        } else {
          yield { type: "tool_call", tool: w.tool, args: w.args };
          const result = await host.call(w.tool, w.args, options.signal);
          yield toolResultMessage(w.tool, result);
          content = resultForModel(result);
        }
        messages.push({ role: "tool", tool_call_id: call.id, content });
      }
    }
    if (!reported && expected.length > 0) {
      const found = findingsInText(text) ?? {};
      for (const key of expected) {
        const value = boundedFinding(found[key]);
        if (value !== undefined) yield { type: "finding", finding: { key, value } };
      }
    }
    yield { type: "done" };
  }

  /**
   * One request and its streamed answer: text yielded as it comes (bounded with what `before`
   * holds), the calls the model made returned. Retried while nothing has streamed.
   */
  private async *round(
    body: ChatCompletionCreateParamsStreaming,
    signal: AbortSignal | undefined,
    before: string,
  ): AsyncGenerator<AiMessage, { text: string; calls: PartialCall[] }> {
    let started = false;
    let text = "";
    const calls = new Map<number, PartialCall>();
    for (let attempt = 1; ; attempt++) {
      try {
        const stream = await this.client.chat.completions.create(body, signal ? { signal } : {});
        let finished = false;
        for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
          const choice = chunk.choices?.[0];
          if (choice?.finish_reason) finished = true;
          const delta = choice?.delta;
          if (!delta) continue;
          if (typeof delta.content === "string" && delta.content !== "") {
            // A later round's answer starts on a paragraph of its own.
            const gap = text === "" && before !== "" && !before.endsWith("\n") ? "\n\n" : "";
            const room = MAX_ANSWER_CHARS - before.length - text.length;
            if (room > 0) {
              const part = (gap + delta.content).slice(0, room);
              text += part;
              started = true;
              yield { type: "text", text: part };
            }
          }
          for (const call of delta.tool_calls ?? []) {
            started = true;
            const c = calls.get(call.index) ?? { id: "", name: "", args: "" };
            if (call.id) c.id = call.id;
            if (call.function?.name) c.name += call.function.name;
            if (call.function?.arguments) c.args += call.function.arguments;
            calls.set(call.index, c);
          }
        }
        // A stream cut short (no finish_reason) is a broken connection, not an answer.
        if (!finished) throw new StreamCutShort();
        break;
      } catch (err) {
        if (signal?.aborted || err instanceof APIUserAbortError)
          throw new AiAdapterError(`${this.config.provider}: the request was stopped`);
        const transient = isTransient(err);
        if (started || !transient || attempt >= this.maxAttempts)
          throw this.failure(err, transient, started, attempt);
        const asked = retryAfterMs(err);
        if (asked !== undefined && asked > this.maxDelayMs)
          throw this.failure(err, transient, started, attempt, asked);
        const backoff = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
        // Full jitter over the upper half: replicas that failed together do not retry together.
        const wait = asked ?? Math.round(backoff * (0.5 + this.random() * 0.5));
        try {
          await this.sleep(wait, signal);
        } catch {
          throw new AiAdapterError(`${this.config.provider}: the request was stopped`);
        }
      }
    }
    const ordered = [...calls.keys()].sort((a, b) => a - b).map((k) => calls.get(k)!);
    // A provider that gives no call id: one of our own, unique within the answer.
    ordered.forEach((c, i) => {
      if (c.id === "") c.id = `call_${i}`;
    });
    return { text, calls: ordered };
  }

  /** A failure as people read it: what the provider answered, and what to do; never the key. */
  private failure(
    err: unknown,
    transient: boolean,
    started: boolean,
    attempt: number,
    retryAfter?: number,
  ): AiAdapterError {
    const { provider } = this.config;
    const keyVar = this.config.keyVariable ?? "PLAYBOOK_AI_API_KEY";
    const status = err instanceof APIError ? err.status : undefined;
    let what: string;
    const redirect = crossOriginRedirectIn(err);
    if (redirect) {
      what = `redirected the request to another origin: ${redirect.message}`;
    } else if (status === 401 || status === 403) {
      // The provider's own words may echo part of the key: not shown.
      what =
        provider === "github-models"
          ? `refused the token (${status}): check ${keyVar}, and that the workflow grants permissions: models: read`
          : `refused the credentials (${status}): check ${keyVar}`;
    } else {
      const raw = err instanceof Error ? err.message : String(err);
      const said = redactSecrets(raw, this.config.apiKey ? [this.config.apiKey] : [])
        .replace(/\s+/g, " ")
        .slice(0, MAX_PROVIDER_MESSAGE);
      const head =
        status !== undefined
          ? `answered ${status}`
          : err instanceof APIConnectionError || transient
            ? "could not be reached or dropped the connection"
            : "failed";
      what = `${head}: ${said}`;
    }
    const after = started
      ? " (after the answer had started, so it was not tried again)"
      : retryAfter !== undefined
        ? ` (it asked to wait ${Math.ceil(retryAfter / 1000)} s, longer than this host waits)`
        : transient && attempt > 1
          ? ` (after ${attempt} attempts)`
          : "";
    return new AiAdapterError(`${provider} ${what}${after}`, transient);
  }
}
