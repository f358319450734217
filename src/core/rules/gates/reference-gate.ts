import type { DiagnosticInput, Span } from "../../format/diagnostics.js";
import { ExpressionError, expressionRefs, parseExpression } from "../../format/expression.js";
import { formatPath, type PathSegment } from "../../format/source.js";
import { parseTemplate } from "../../format/template.js";
import {
  CHECKPOINT_OUTPUTS,
  CONTEXT_MAPS,
  CONTEXT_VARIABLES,
  STEP_OUTPUTS,
} from "../../format/vocabulary.js";
import { didYouMean } from "../../util/suggest.js";
import type { GateContext } from "./context.js";
import { expectedFindings } from "./graph-gate.js";

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
]);

interface Scope {
  /** The step the reference is written in, or undefined for playbook outputs. */
  stepId?: string;
  /** Whether the step's own outputs are visible (a `when` branch runs after its step). */
  selfVisible: boolean;
}

/** Template and expression references: they name something that exists and has surely run. */
export function referenceGate(ctx: GateContext): DiagnosticInput[] {
  const { doc, playbook, graph } = ctx;
  const out: DiagnosticInput[] = [];
  const inputs = Object.keys(playbook.inputs ?? {});
  const findings = expectedFindings(ctx);
  const delegates = graph.steps.some(
    (s) => s.step.type === "playbook" && s.step.mode === "delegate",
  );
  const dominators = graph.dominators();
  const terminals = [...graph.reachable()].filter((id) => graph.isTerminal(id));

  const checkRef = (ref: string[], raw: string, at: PathSegment[], scope: Scope): void => {
    const where = formatPath(at);
    const span = doc.span(at);
    const unresolved = (message: string, hint: string, guess?: string): void => {
      out.push({
        rule: "template-unresolved",
        path: where,
        span,
        message: `${where}: ${message}${guess ? ` — did you mean '${guess}'?` : ""}`,
        found: raw,
        hint: guess ? `write '${guess}'` : hint,
      });
    };
    const [head, second, third, fourth] = ref;
    if (head === "inputs") {
      if (ref.length !== 2 || !inputs.includes(second as string)) {
        unresolved(
          `'${raw}' names no declared input`,
          `declare it under inputs:, or use one of: ${inputs.join(", ") || "(none declared)"}`,
          ref.length === 2 ? didYouMean(second as string, inputs) : undefined,
        );
      }
      return;
    }
    if (head === "findings") {
      if (ref.length !== 2)
        unresolved(`'${raw}' is not a finding; write findings.<key>`, "write findings.<key>");
      else if (!findings.has(second as string) && !delegates) {
        out.push({
          rule: "finding-unknown",
          path: where,
          span,
          message: `${where}: finding '${second}' is used but no step expects it`,
          hint: "list it in an investigate or ai step's expected_findings",
        });
      }
      return;
    }
    if (head === "steps") {
      const target = graph.byId.get(second ?? "");
      if (!target) {
        unresolved(
          `'${raw}' names no step`,
          "name an existing step id",
          didYouMean(second ?? "", [...graph.byId.keys()]),
        );
        return;
      }
      if (third !== "outputs" || fourth === undefined || ref.length !== 4) {
        unresolved(
          `'${raw}' must name one output: steps.${second}.outputs.<name>`,
          `write steps.${second}.outputs.<name>`,
        );
        return;
      }
      const known = outputsOf(target.step);
      if (known && !known.includes(fourth)) {
        unresolved(
          `a ${target.step.type} step has no output '${fourth}' (it has: ${known.join(", ") || "none"})`,
          `use one of: ${known.join(", ") || "(none)"}`,
          didYouMean(fourth, known),
        );
        return;
      }
      if (scope.stepId === undefined) {
        if (!terminals.every((t) => dominators.get(t)?.has(target.id))) {
          out.push({
            rule: "template-conditional",
            path: where,
            span,
            message: `${where}: '${raw}' has no value when the run ends without passing step '${target.id}'`,
            hint: "the output is empty on those paths; make sure that is what you want",
          });
        }
        return;
      }
      const self = target.id === scope.stepId;
      const dominates = dominators.get(scope.stepId)?.has(target.id) ?? false;
      if ((self && !scope.selfVisible) || !dominates) {
        out.push({
          rule: "template-order",
          path: where,
          span,
          message: self
            ? `${where}: step '${target.id}' uses its own output before it has run`
            : `${where}: '${raw}' is used in step '${scope.stepId}', but step '${target.id}' does not always run before it`,
          hint: "use outputs of steps that lie on every path to this one",
        });
      } else if (target.step.if !== undefined && !self) {
        out.push({
          rule: "template-conditional",
          path: where,
          span,
          message: `${where}: step '${target.id}' may be skipped by its if, leaving '${raw}' empty`,
          hint: "guard this step with the same if, or remove the if from the producer",
        });
      }
      return;
    }
    const vars = head !== undefined ? CONTEXT_VARIABLES[head] : undefined;
    if (vars) {
      const ok =
        (ref.length === 2 && vars.includes(second as string)) ||
        (ref.length === 3 && CONTEXT_MAPS.has(`${head}.${second}`));
      if (!ok) {
        unresolved(
          `'${raw}' is not a known ${head} field (known: ${vars.join(", ")})`,
          `use one of: ${vars.map((v) => `${head}.${v}`).join(", ")}`,
          didYouMean(second ?? "", [...vars]),
        );
      }
      return;
    }
    unresolved(
      `'${raw}' names nothing a template can use`,
      "templates name inputs.<name>, steps.<id>.outputs.<name>, findings.<key>, issue.*, repo.*, run.* or alert.*",
      didYouMean(head ?? "", ["inputs", "steps", "findings", ...Object.keys(CONTEXT_VARIABLES)]),
    );
  };

  const checkTemplate = (text: string, at: PathSegment[], scope: Scope): void => {
    const { parts, problems } = parseTemplate(text);
    for (const p of problems) {
      out.push({
        rule: "template-syntax",
        path: formatPath(at),
        span: doc.span(at),
        message: `${formatPath(at)}: ${p.message}`,
        hint: p.hint,
      });
    }
    for (const part of parts) if (part.kind === "ref") checkRef(part.path, part.raw, at, scope);
  };

  const checkExpression = (text: string, at: PathSegment[], scope: Scope): void => {
    try {
      const expr = parseExpression(text);
      for (const r of expressionRefs(expr)) checkRef(r.path, r.path.join("."), at, scope);
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      out.push({
        rule: "expression-syntax",
        path: formatPath(at),
        span: doc.span(at),
        message: `${formatPath(at)}: ${err.message} at character ${err.offset + 1} of '${text}'`,
        hint: "write comparisons joined by and/or/not, e.g. inputs.level == 'major' and findings.failing_pods > 0",
      });
    }
  };

  forEachTemplate(ctx, checkTemplate);
  for (const s of graph.steps) {
    const scope: Scope = { stepId: s.id, selfVisible: false };
    if (s.step.if !== undefined) checkExpression(s.step.if, [...s.path, "if"], scope);
    if (Array.isArray(s.step.next)) {
      s.step.next.forEach((b, i) => {
        if (b.when !== undefined && b.when.trim() !== "") {
          checkExpression(b.when, [...s.path, "next", i, "when"], {
            stepId: s.id,
            selfVisible: true,
          });
        }
      });
    }
  }
  out.push(...inputDefaultRefs(ctx));
  return out;
}

/** Every template a playbook holds (its steps' fields and its outputs), with where it is written. */
function forEachTemplate(
  ctx: GateContext,
  visit: (text: string, at: PathSegment[], scope: Scope) => void,
): void {
  const walk = (value: unknown, at: PathSegment[], scope: Scope): void => {
    if (typeof value === "string") visit(value, at, scope);
    else if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...at, i], scope));
    else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value))
        if (!NOT_TEMPLATES.has(k)) walk(v, [...at, k], scope);
    }
  };
  for (const s of ctx.graph.steps) walk(s.step, s.path, { stepId: s.id, selfVisible: false });
  for (const [name, text] of Object.entries(ctx.playbook.outputs ?? {}))
    visit(text, ["outputs", name], { selfVisible: true });
}

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
export function contextReferences(ctx: GateContext): ContextReference[] {
  const out: ContextReference[] = [];
  forEachTemplate(ctx, (text, at) => {
    for (const part of parseTemplate(text).parts) {
      if (part.kind === "ref" && isContextRef(part.path)) {
        const span = refSpan(ctx.doc, at, text, part.offset, part.raw.length);
        out.push({ ref: part.path, raw: part.raw, path: formatPath(at), span });
      }
    }
  });
  return out;
}

/**
 * The reference itself where its value is written on one line as it reads (plain or quoted,
 * without escapes); otherwise the whole value.
 */
function refSpan(
  doc: GateContext["doc"],
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
  for (const part of parseTemplate(text).parts) {
    if (part.kind !== "ref" || !isContextRef(part.path)) continue;
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

/**
 * Context references a run will not have, as errors: `provided` says what the run has, `guidance`
 * (by the reference's first name) how to give it the rest, and `run` names the kind of run. Checked
 * before any step runs, so a run never stops half-way on a value it could never have had.
 */
export function unprovidedContext(
  refs: readonly ContextReference[],
  provided: (ref: readonly string[]) => boolean,
  guidance: Readonly<Record<string, string>>,
  run: string,
): DiagnosticInput[] {
  return refs
    .filter((r) => !provided(r.ref))
    .map((r) => ({
      rule: "template-unresolved",
      path: r.path,
      span: r.span,
      message: `${r.path === "(document)" ? "" : `${r.path}: `}'${r.raw}' has no value in ${run}`,
      found: r.raw,
      hint: guidance[r.ref[0] as string] ?? `${run} does not have ${r.ref.join(".")}`,
    }));
}

function outputsOf(step: GateContext["graph"]["steps"][number]["step"]): readonly string[] | null {
  if (step.type === "checkpoint") {
    const props = step.response_schema?.properties;
    return [...CHECKPOINT_OUTPUTS, ...Object.keys(props && typeof props === "object" ? props : {})];
  }
  return STEP_OUTPUTS[step.type];
}

/** Input defaults may name other inputs (`slug: '{{ inputs.package }}'`), never in a cycle. */
function inputDefaultRefs(ctx: GateContext): DiagnosticInput[] {
  const out: DiagnosticInput[] = [];
  const inputs = ctx.playbook.inputs ?? {};
  const names = Object.keys(inputs);
  const deps = new Map<string, string[]>();
  for (const [name, spec] of Object.entries(inputs)) {
    if (typeof spec.default !== "string") continue;
    const at: PathSegment[] = ["inputs", name, "default"];
    const { parts, problems } = parseTemplate(spec.default);
    for (const p of problems) {
      out.push({
        rule: "template-syntax",
        path: formatPath(at),
        span: ctx.doc.span(at),
        message: `${formatPath(at)}: ${p.message}`,
        hint: p.hint,
      });
    }
    const list: string[] = [];
    for (const part of parts) {
      if (part.kind !== "ref") continue;
      if (
        part.path[0] !== "inputs" ||
        part.path.length !== 2 ||
        !names.includes(part.path[1] as string)
      ) {
        out.push({
          rule: "template-unresolved",
          path: formatPath(at),
          span: ctx.doc.span(at),
          message: `${formatPath(at)}: an input default can only name other inputs, not '${part.raw}'`,
          found: part.raw,
          hint: "name a declared input, e.g. {{ inputs.package }}",
        });
      } else list.push(part.path[1] as string);
    }
    deps.set(name, list);
  }
  // A default that depends on itself, directly or through others, has no value.
  for (const start of deps.keys()) {
    const seen = new Set<string>();
    const stack = [...(deps.get(start) ?? [])];
    while (stack.length > 0) {
      const n = stack.pop() as string;
      if (n === start) {
        const at: PathSegment[] = ["inputs", start, "default"];
        out.push({
          rule: "template-unresolved",
          path: formatPath(at),
          span: ctx.doc.span(at),
          message: `${formatPath(at)}: the default of '${start}' depends on itself`,
          hint: "break the cycle between input defaults",
        });
        break;
      }
      if (seen.has(n)) continue;
      seen.add(n);
      stack.push(...(deps.get(n) ?? []));
    }
  }
  return out;
}
