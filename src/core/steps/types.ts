import { playbookError, type PlaybookError } from "../engine/errors.js";
import type { EffectKind, Message, Reply, RunEvent } from "../engine/events.js";
import type { RenderUse, Rendered } from "../engine/render.js";
import type { Frame, RunState, Scalar, Value } from "../engine/state.js";
import type { Resolver } from "../format/expression.js";
import type { PlaybookGraph } from "../format/graph.js";
import type { PlaybookDocument, Step } from "../format/types.js";

/** A playbook as a run uses it: the document, its content hash, and the files its steps read. */
export interface PlaybookBundle {
  playbook: PlaybookDocument;
  hash: string;
  commit?: string;
  /** Template and prompt files by path relative to the playbook file. */
  files?: Record<string, string>;
}

export interface StepContext<S extends Step = Step> {
  step: S;
  run: RunState;
  frame: Frame;
  bundle: PlaybookBundle;
  graph: PlaybookGraph;
  now: string;
  resolve: Resolver;
  render(src: string, use?: RenderUse): Rendered;
}

/** What a step asks the engine to do next. */
export type Outcome =
  | {
      type: "done";
      outputs?: Record<string, Value>;
      goto?: string;
      findings?: Record<string, Scalar>;
      messages?: Message[];
      reply?: Reply;
    }
  | { type: "effect"; kind: EffectKind; params: Record<string, unknown> }
  | {
      type: "wait";
      messages?: Message[];
      awaiting?: Frame["awaiting"];
      reply?: Reply;
      findings?: Record<string, Scalar>;
    }
  | { type: "fail"; error: PlaybookError; reply?: Reply }
  | { type: "cancel"; message: string }
  | {
      type: "end";
      status: "success" | "failure" | "neutral";
      conclusion?: string;
      advice?: string;
      handoff?: string[];
    }
  | { type: "delegate"; playbook: string; inputs: Record<string, Scalar> }
  | { type: "handoff"; playbook: string; inputs: Record<string, Scalar> }
  | { type: "ignored"; reply?: Reply };

/**
 * One module per step kind. The engine enters a step, hands it the result of its effect, and
 * passes it the events that arrive while it waits; the step never does I/O itself.
 */
export interface StepExecutor<S extends Step = Step> {
  readonly kind: S["type"];
  /** Whether a failed attempt may be retried: its effect is found by key, never done twice. */
  readonly retryable: boolean;
  enter(ctx: StepContext<S>): Outcome;
  /** The effect's outputs arrived (default: the step is done with them). */
  onEffect?(ctx: StepContext<S>, outputs: Record<string, Value>): Outcome;
  /** An event while the step waits: a command, an outside event, or a timeout tick. */
  onEvent?(ctx: StepContext<S>, event: RunEvent): Outcome;
}

/** Render several fields at once; the first failure wins. */
export function renderAll(
  ctx: StepContext,
  fields: Record<string, { src: string | undefined; use?: RenderUse }>,
): { ok: true; values: Record<string, string | undefined> } | { ok: false; error: PlaybookError } {
  const values: Record<string, string | undefined> = {};
  for (const [name, f] of Object.entries(fields)) {
    if (f.src === undefined) {
      values[name] = undefined;
      continue;
    }
    const r = ctx.render(f.src, f.use);
    if (!r.ok) return r;
    values[name] = r.value;
  }
  return { ok: true, values };
}

/** Render each element of a list (labels, reviewers) for one use. */
export function renderList(
  ctx: StepContext,
  list: readonly string[] | undefined,
  use: RenderUse = "text",
): { ok: true; values: string[] } | { ok: false; error: PlaybookError } {
  const values: string[] = [];
  for (const item of list ?? []) {
    const r = ctx.render(item, use);
    if (!r.ok) return r;
    values.push(r.value);
  }
  return { ok: true, values };
}

/** A step that only requests one effect built from rendered fields. */
export function effectOrFail(
  rendered: { ok: true; values: Record<string, unknown> } | { ok: false; error: PlaybookError },
  kind: EffectKind,
  extra: Record<string, unknown> = {},
): Outcome {
  if (!rendered.ok) return { type: "fail", error: rendered.error };
  const params: Record<string, unknown> = {};
  for (const [k, v] of Object.entries({ ...rendered.values, ...extra }))
    if (v !== undefined) params[k] = v;
  return { type: "effect", kind, params };
}

/** Render the string values of a map (a child's inputs, a workflow's); other values pass as they are. */
export function renderValues(
  ctx: StepContext,
  map: Record<string, string | number | boolean> | undefined,
):
  | { ok: true; values: Record<string, string | number | boolean> }
  | { ok: false; error: PlaybookError } {
  const values: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(map ?? {})) {
    if (typeof v !== "string") {
      values[k] = v;
      continue;
    }
    const r = ctx.render(v, "value");
    if (!r.ok) return r;
    values[k] = r.value;
  }
  return { ok: true, values };
}

/**
 * Render text written inline, or in a file next to the playbook (a template, a prompt); the file
 * came with the bundle, so nothing is read here.
 */
export function renderInlineOrFile(
  ctx: StepContext,
  inline: string | undefined,
  file: string | undefined,
  what: string,
): Rendered {
  let source = inline;
  if (file !== undefined) {
    source = ctx.bundle.files?.[file];
    if (source === undefined) {
      return {
        ok: false,
        error: playbookError(
          "PB-TEMPLATE-UNDEFINED",
          `${what} '${file}' was not found next to the playbook`,
        ),
      };
    }
  }
  return ctx.render(source ?? "");
}
