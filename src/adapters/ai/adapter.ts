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

/** Drain an adapter's stream into the outputs the engine's `ai` step expects. */
export async function collectAiOutputs(
  adapter: AiAdapter,
  prompt: string,
  tools: readonly string[],
  options: AiOptions,
): Promise<Record<string, string | number | boolean>> {
  const out: Record<string, string | number | boolean> = {};
  let text = "";
  const it = adapter.invoke(prompt, tools, options);
  for (let r = await it.next(); !r.done; r = await it.next()) {
    const m = r.value;
    if (m.type === "text" && m.text) text += m.text;
    if (m.type === "finding" && m.finding) out[`finding.${m.finding.key}`] = m.finding.value;
  }
  out.text = text;
  return out;
}

/** The engine's `ai` effect, run on an adapter: its params in, the step's outputs back. */
export function runAiEffect(
  adapter: AiAdapter,
  params: Record<string, unknown>,
  cwd?: string,
): Promise<Record<string, string | number | boolean>> {
  const options: AiOptions = {
    scope: params.scope === "write" ? "write" : "read-only",
    expectedFindings: (params.expected_findings as string[] | undefined) ?? [],
  };
  if (cwd !== undefined) options.cwd = cwd;
  return collectAiOutputs(
    adapter,
    String(params.prompt),
    (params.tools as string[] | undefined) ?? [],
    options,
  );
}
