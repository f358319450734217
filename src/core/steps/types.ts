import { playbookError, type PlaybookError } from "../engine/errors.js";
import type { EffectKind, EffectParams, Message, Reply, RunEvent } from "../engine/events.js";
import type { RenderUse, Rendered } from "../engine/render.js";
import type { ApprovalFact, Frame, RunState, Scalar, Value } from "../engine/state.js";
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

/** A step's request for one effect: its kind, and params of that kind's type. */
export type EffectRequest<K extends EffectKind = EffectKind> = {
  [P in K]: { type: "effect"; kind: P; params: EffectParams<P> };
}[K];

/** What a step asks the engine to do next. */
export type Outcome =
  | {
      type: "done";
      outputs?: Record<string, Value>;
      /** A step answered with an approval: the approvals it completed with, as facts. */
      approvals?: ApprovalFact[];
      goto?: string;
      findings?: Record<string, Scalar>;
      messages?: Message[];
      reply?: Reply;
    }
  | EffectRequest
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
  | { type: "ignored"; reply?: Reply }
  /** Start lists of steps side by side, each from its first step, and wait for them (a join). */
  | { type: "fork"; lanes: { name: string; first: string }[] };

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
  /**
   * The times (epoch ms) at which the step, while it waits, acts by itself on a tick (a
   * reminder): the engine wakes the run then. A step's `timeout` is the engine's own.
   */
  wakeTimes?(step: S, line: Pick<Frame, "since" | "reminded">): number[];
}

/** What a FieldRenderer renders besides a field the step always has. */
export interface FieldRenderers {
  /** A field the step may leave out: it stays undefined, and out of the params. */
  optional(src: string | undefined, use?: RenderUse): string | undefined;
  /** Each element of a list (labels, reviewers, paths) for one use. */
  list(list: readonly string[] | undefined, use?: RenderUse): string[];
  /** The string values of a map (a workflow's inputs); other values pass as they are. */
  values(
    map: Record<string, string | number | boolean> | undefined,
  ): Record<string, string | number | boolean>;
  /** Text written inline, or in a file next to the playbook (a template, a prompt). */
  inlineOrFile(inline: string | undefined, file: string | undefined, what: string): string;
}

/**
 * Renders a step's fields into its effect's params. A field that fails does not stop the others
 * (rendering is pure); the first failure is kept and fails the step.
 */
export interface FieldRenderer extends FieldRenderers {
  /** A field the step always has. */
  (src: string, use?: RenderUse): string;
}

function fieldRenderer(ctx: StepContext): {
  render: FieldRenderer;
  failure: () => PlaybookError | undefined;
} {
  let first: PlaybookError | undefined;
  const keep = (r: Rendered): string => {
    if (r.ok) return r.value;
    first ??= r.error;
    return "";
  };
  const renderers: FieldRenderers = {
    optional: (src, use) => (src === undefined ? undefined : keep(ctx.render(src, use))),
    list: (list, use = "text") => (list ?? []).map((item) => keep(ctx.render(item, use))),
    values: (map) => {
      const r = renderValues(ctx, map);
      if (r.ok) return r.values;
      first ??= r.error;
      return {};
    },
    inlineOrFile: (inline, file, what) => keep(renderInlineOrFile(ctx, inline, file, what)),
  };
  const render: FieldRenderer = Object.assign(
    (src: string, use?: RenderUse) => keep(ctx.render(src, use)),
    renderers,
  );
  return { render, failure: () => first };
}

/** The object without its undefined properties: params hold only what the step says. */
function withoutUndefined<T extends object>(o: T): T {
  for (const k in o) if (o[k] === undefined) Reflect.deleteProperty(o, k);
  return o;
}

/**
 * A step that requests one effect, with params rendered from its fields (`build` says which);
 * a field that does not render fails the step instead.
 */
export function effectOrFail<K extends EffectKind>(
  ctx: StepContext,
  kind: K,
  build: (render: FieldRenderer) => EffectParams<K>,
): EffectRequest<K> | Extract<Outcome, { type: "fail" }> {
  const { render, failure } = fieldRenderer(ctx);
  const params = withoutUndefined(build(render));
  const error = failure();
  if (error) return { type: "fail", error };
  const request: EffectRequest<K> = { type: "effect", kind, params };
  return request;
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
