import type { Span } from "../../format/diagnostics.js";
import { ExpressionError, expressionRefs, parseExpression } from "../../format/expression.js";
import type { GraphStep } from "../../format/graph.js";
import { formatPath, type PathSegment, type SourceDocument } from "../../format/source.js";
import {
  mayHoldTemplate,
  parseTemplate,
  templateRefs,
  type TemplatePart,
  type TemplateProblem,
} from "../../format/template.js";
import { CONTEXT_MAPS, CONTEXT_VARIABLES } from "../../format/vocabulary.js";
import { expressionsOf, outputsOfStep } from "../../steps/registry.js";
import { didYouMean } from "../../util/suggest.js";
import { memoised, type DocumentContext } from "../context.js";

/** Fields that are not templates: ids, enums, expressions (checked as expressions), schemas. */
const NOT_TEMPLATES = new Set([
  "id",
  "type",
  "if",
  "when",
  "goto",
  "default",
  "label",
  "on_reject",
  "on_timeout",
  "response_schema",
  "expected_findings",
  "playbook",
  "mode",
  "handoff",
  "on_error",
  "authority",
  "timeout",
  "reminder",
  "tools",
  "tool",
  "scope",
  "status",
  "reason",
  "wait",
  "all",
  "any",
  "none",
  "finding",
  "template",
  "prompt_file",
  // A script's text is never templated (values reach it through env); `run: auto` is an enum.
  "run",
  // A parallel step's branches are steps of their own (walked as such), the rest ids and enums.
  "branches",
  "needs",
  "join",
  "on_branch_failure",
]);

/** Where a reference is written, which decides what it may see. */
export interface Scope {
  /** The step the reference is written in, or undefined for playbook outputs. */
  stepId?: string;
  /** Whether the step's own outputs are visible (a `when` branch runs after its step). */
  selfVisible: boolean;
}

/** A template as written in a step's field or a playbook output, parsed. */
export interface WrittenTemplate {
  text: string;
  at: PathSegment[];
  scope: Scope;
  parts: TemplatePart[];
  problems: TemplateProblem[];
}

/** An `if:` or `when:` expression, parsed: the names it uses, or why it does not parse. */
export interface WrittenExpression {
  text: string;
  at: PathSegment[];
  scope: Scope;
  refs: string[][];
  error?: ExpressionError;
}

/**
 * Every text in a playbook that can hold a template (its steps' fields and its outputs), with
 * where it is written; plain texts, most of a playbook, are passed over (they refer to nothing).
 */
function forEachTemplate(
  ctx: DocumentContext,
  visit: (text: string, at: PathSegment[], scope: Scope) => void,
): void {
  // One path, grown and shrunk as the walk goes: a copy is made only for a text that is visited.
  const at: PathSegment[] = [];
  const walk = (value: unknown, scope: Scope): void => {
    if (typeof value === "string") {
      if (mayHoldTemplate(value)) visit(value, [...at], scope);
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        at.push(i);
        walk(value[i], scope);
        at.pop();
      }
    } else if (value && typeof value === "object") {
      for (const k in value) {
        if (!Object.hasOwn(value, k) || NOT_TEMPLATES.has(k)) continue;
        at.push(k);
        walk((value as Record<string, unknown>)[k], scope);
        at.pop();
      }
    }
  };
  for (const s of ctx.graph.steps) {
    at.push(...s.path);
    walk(s.step, { stepId: s.id, selfVisible: false });
    at.length = 0;
  }
  for (const [name, text] of Object.entries(ctx.playbook.outputs ?? {}))
    if (mayHoldTemplate(text)) visit(text, ["outputs", name], { selfVisible: true });
}

/** The templates and expressions of a playbook, each parsed once. */
export const templateScan = memoised(
  (ctx: DocumentContext): { templates: WrittenTemplate[]; expressions: WrittenExpression[] } => {
    const templates: WrittenTemplate[] = [];
    forEachTemplate(ctx, (text, at, scope) =>
      templates.push({ text, at, scope, ...parseTemplate(text) }),
    );
    const expressions: WrittenExpression[] = [];
    const expression = (
      text: string,
      at: PathSegment[],
      scope: Scope,
      own: readonly string[] = [],
    ): void => {
      try {
        const refs = expressionRefs(parseExpression(text))
          .map((r) => r.path)
          .filter((path) => !own.includes(path[0] as string));
        expressions.push({ text, at, scope, refs });
      } catch (err) {
        if (!(err instanceof ExpressionError)) throw err;
        expressions.push({ text, at, scope, refs: [], error: err });
      }
    };
    for (const s of ctx.graph.steps) {
      if (s.step.if !== undefined)
        expression(s.step.if, [...s.path, "if"], { stepId: s.id, selfVisible: false });
      for (const e of expressionsOf(s.step))
        expression(e.text, [...s.path, ...e.at], { stepId: s.id, selfVisible: false }, e.own);
      if (Array.isArray(s.step.next)) {
        s.step.next.forEach((b, i) => {
          if (b.when !== undefined && b.when.trim() !== "")
            expression(b.when, [...s.path, "next", i, "when"], { stepId: s.id, selfVisible: true });
        });
      }
    }
    return { templates, expressions };
  },
);

/** What a reference names. */
export type Resolution =
  | { kind: "unresolved"; message: string; hint: string; guess?: string | undefined }
  | { kind: "finding"; key: string }
  | { kind: "step-output"; target: GraphStep }
  | { kind: "resolved" };

/** A name a template or expression uses, where it is written, and what it names. */
export interface Reference {
  ref: string[];
  /** As written in a template (`{{ inputs.x }}`), or the dotted name in an expression. */
  raw: string;
  at: PathSegment[];
  scope: Scope;
  resolution: Resolution;
}

/** Every reference of the playbook's templates, then of its expressions, resolved. */
export const references = memoised((ctx: DocumentContext): Reference[] => {
  const { templates, expressions } = templateScan(ctx);
  const out: Reference[] = [];
  const add = (ref: string[], raw: string, at: PathSegment[], scope: Scope): void => {
    out.push({ ref, raw, at, scope, resolution: resolve(ctx, ref, raw) });
  };
  for (const t of templates)
    for (const ref of templateRefs(t.parts)) add(ref.path, ref.raw, t.at, t.scope);
  for (const e of expressions) for (const ref of e.refs) add(ref, ref.join("."), e.at, e.scope);
  return out;
});

function resolve(ctx: DocumentContext, ref: string[], raw: string): Resolution {
  const { playbook, graph } = ctx;
  const unresolved = (message: string, hint: string, guess?: string): Resolution => ({
    kind: "unresolved",
    message,
    hint,
    guess,
  });
  const [head, second, third, fourth] = ref;
  if (head === "inputs") {
    const inputs = Object.keys(playbook.inputs ?? {});
    const spec = second === undefined ? undefined : playbook.inputs?.[second];
    // A field of an object input (`inputs.config.region`) reads into its JSON.
    const field = ref.length > 2 && spec?.type === "object";
    if ((ref.length !== 2 && !field) || !inputs.includes(second as string)) {
      return unresolved(
        `'${raw}' names no declared input`,
        `declare it under inputs:, or use one of: ${inputs.join(", ") || "(none declared)"}`,
        ref.length === 2 ? didYouMean(second as string, inputs) : undefined,
      );
    }
    return { kind: "resolved" };
  }
  if (head === "findings") {
    if (ref.length !== 2)
      return unresolved(`'${raw}' is not a finding; write findings.<key>`, "write findings.<key>");
    return { kind: "finding", key: second as string };
  }
  if (head === "steps") {
    const target = graph.byId.get(second ?? "");
    if (!target) {
      return unresolved(
        `'${raw}' names no step`,
        "name an existing step id",
        didYouMean(second ?? "", [...graph.byId.keys()]),
      );
    }
    // A field inside an output (`steps.s.outputs.result.items`) reads into its JSON.
    if (third !== "outputs" || fourth === undefined) {
      return unresolved(
        `'${raw}' must name one output: steps.${second}.outputs.<name>`,
        `write steps.${second}.outputs.<name>`,
      );
    }
    const known = outputsOfStep(target.step);
    if (known && !known.includes(fourth)) {
      return unresolved(
        `a ${target.step.type} step has no output '${fourth}' (it has: ${known.join(", ") || "none"})`,
        `use one of: ${known.join(", ") || "(none)"}`,
        didYouMean(fourth, known),
      );
    }
    return { kind: "step-output", target };
  }
  // Where `item` may be used is the dag-item-outside rule's question.
  // An item's fields (`item.path`) read into an item that is an object.
  if (head === "item" || (head === "item_index" && ref.length === 1)) return { kind: "resolved" };
  const vars = head !== undefined ? CONTEXT_VARIABLES[head] : undefined;
  if (vars) {
    const ok =
      (ref.length === 2 && vars.includes(second as string)) ||
      (ref.length === 3 && CONTEXT_MAPS.has(`${head}.${second}`));
    if (ok) return { kind: "resolved" };
    return unresolved(
      `'${raw}' is not a known ${head} field (known: ${vars.join(", ")})`,
      `use one of: ${vars.map((v) => `${head}.${v}`).join(", ")}`,
      didYouMean(second ?? "", [...vars]),
    );
  }
  return unresolved(
    `'${raw}' names nothing a template can use`,
    "templates name inputs.<name>, steps.<id>.outputs.<name>, findings.<key>, issue.*, repo.*, run.* or alert.*",
    didYouMean(head ?? "", ["inputs", "steps", "findings", ...Object.keys(CONTEXT_VARIABLES)]),
  );
}

/** An input default that is a template (`slug: '{{ inputs.package }}'`), parsed. */
export interface DefaultTemplate {
  name: string;
  at: PathSegment[];
  parts: TemplatePart[];
  problems: TemplateProblem[];
}

/** The string defaults of the inputs, parsed once. */
export const inputDefaultTemplates = memoised((ctx: DocumentContext): DefaultTemplate[] =>
  Object.entries(ctx.playbook.inputs ?? {}).flatMap(([name, spec]) =>
    typeof spec.default === "string"
      ? [{ name, at: ["inputs", name, "default"], ...parseTemplate(spec.default) }]
      : [],
  ),
);

/** A template's reference to the run's context (`issue.*`, `repo.*`, `run.*`, `alert.*`). */
export interface ContextReference {
  /** The name as a path: `issue.number` is `["issue", "number"]`. */
  ref: string[];
  /** As written: `{{ issue.number }}`. */
  raw: string;
  /** Where, as people read it: `steps[3].body`, or `(document)` in a file a step reads. */
  path: string;
  span: Span;
}

function isContextRef(ref: readonly string[]): boolean {
  return ref[0] !== undefined && Object.hasOwn(CONTEXT_VARIABLES, ref[0]);
}

/** The context references of a playbook's templates (expressions are left out: a missing value is false there). */
export function contextReferences(ctx: DocumentContext): ContextReference[] {
  const out: ContextReference[] = [];
  for (const { text, at, parts } of templateScan(ctx).templates) {
    // A name in a fallback, a choice or a block test may be missing: only required ones count.
    for (const part of templateRefs(parts)) {
      if (!part.optional && isContextRef(part.path)) {
        const span = refSpan(ctx.doc, at, text, part.offset, part.raw.length);
        out.push({ ref: part.path, raw: part.raw, path: formatPath(at), span });
      }
    }
  }
  return out;
}

/**
 * The reference itself where its value is written on one line as it reads (plain or quoted,
 * without escapes); otherwise the whole value.
 */
function refSpan(
  doc: SourceDocument,
  at: PathSegment[],
  text: string,
  offset: number,
  length: number,
): Span {
  const span = doc.span(at);
  if (span.line !== span.endLine) return span;
  const written = (doc.text.split("\n")[span.line - 1] ?? "").slice(
    span.column - 1,
    span.endColumn - 1,
  );
  const quoted = /^(["']).*\1$/.test(written);
  if ((quoted ? written.slice(1, -1) : written) !== text) return span;
  const column = span.column + (quoted ? 1 : 0) + offset;
  return { line: span.line, column, endLine: span.line, endColumn: column + length };
}

/** The context references of a text file a step reads (a commit's template, a prompt), each at its own line and column. */
export function textContextReferences(text: string): ContextReference[] {
  const out: ContextReference[] = [];
  for (const part of templateRefs(parseTemplate(text).parts)) {
    if (part.optional || !isContextRef(part.path)) continue;
    const before = text.slice(0, part.offset);
    const line = before.split("\n").length;
    const column = part.offset - before.lastIndexOf("\n");
    out.push({
      ref: part.path,
      raw: part.raw,
      path: "(document)",
      span: { line, column, endLine: line, endColumn: column + part.raw.length },
    });
  }
  return out;
}
