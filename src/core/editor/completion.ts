import { PLAYBOOK_SCHEMA } from "../format/schema.js";
import type { Span } from "../format/diagnostics.js";
import type { PathSegment } from "../format/source.js";
import { CHECKPOINT_OUTPUTS, CONTEXT_VARIABLES, ITEM_VARIABLES } from "../format/vocabulary.js";
import type { Outline } from "./cursor.js";
import {
  enclosingStep,
  ERROR_GOTO,
  isPlaybookTarget,
  isStepTarget,
  valueAt,
  writtenSteps,
} from "./references.js";
import {
  allowedValues,
  branchDescriptions,
  descriptionsOf,
  expandAll,
  propertiesOf,
  schemasAt,
  type SchemaNode,
} from "./schema-docs.js";

/** A playbook that targets may name: one of the set, or of the bundled library. */
export interface PlaybookSummary {
  id: string;
  /** Absolute path of its file. */
  file: string;
  name?: string;
  description?: string;
  inputs: string[];
  outputs: string[];
  /** Where its id is written in its file. */
  idSpan?: Span;
}

export type CandidateKind = "step" | "playbook" | "value" | "field" | "variable";

export interface Candidate {
  label: string;
  kind: CandidateKind;
  detail?: string;
  documentation?: string;
}

/**
 * The outputs every step of a kind produces (the step-kind registry's `outputs`). Passed in, so
 * that completion runs without the registry's executors (the playground's page has no use for
 * them).
 */
export type KindOutputs = (kind: string) => readonly string[] | null | undefined;

export interface CompletionRequest {
  outline: Outline;
  /** The document's value: as it parses now, or as it last parsed. */
  document: unknown;
  /** The playbooks of the set and of the library, the set's first. */
  playbooks: readonly PlaybookSummary[];
  schema?: SchemaNode;
  /** What steps of each kind output; without it, only what a step declares is offered. */
  kindOutputs?: KindOutputs;
}

export interface Completions {
  candidates: Candidate[];
  /** The column from which a candidate replaces what is typed (to the cursor). */
  from: number;
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function keysOf(v: unknown): string[] {
  return isMap(v) ? Object.keys(v) : [];
}

function stepDetail(step: Record<string, unknown>): string {
  const kind = str(step.type) ?? "step";
  const name = str(step.name);
  return name ? `${kind}: ${name}` : kind;
}

/** The outputs a step offers templates, by its kind and what it declares. */
export function stepOutputs(
  step: Record<string, unknown>,
  playbooks: readonly PlaybookSummary[],
  kindOutputs: KindOutputs = () => undefined,
): string[] {
  const kind = str(step.type);
  if (kind === "checkpoint") {
    const schema = isMap(step.response_schema) ? step.response_schema : {};
    return [...CHECKPOINT_OUTPUTS, ...keysOf(schema.properties)];
  }
  if (kind === "investigate") {
    const calls = Array.isArray(step.suggested_calls) ? step.suggested_calls : [];
    return [
      ...(kindOutputs("investigate") ?? []),
      ...calls.flatMap((c: unknown) => (isMap(c) ? keysOf(c.outputs) : [])),
    ];
  }
  if (kind === "playbook") {
    const target = str(step.playbook);
    return playbooks.find((p) => p.id === target)?.outputs ?? [];
  }
  return [...((kind && kindOutputs(kind)) || [])];
}

/** Finding keys the playbook mentions: what its steps expect and what its rules test. */
function findingKeys(document: unknown): string[] {
  const out = new Set<string>();
  for (const s of writtenSteps(document)) {
    for (const k of Array.isArray(s.value.expected_findings) ? s.value.expected_findings : [])
      if (typeof k === "string") out.add(k);
    for (const r of Array.isArray(s.value.rules) ? s.value.rules : [])
      if (isMap(r))
        for (const field of ["all", "any", "none"])
          for (const k of Array.isArray(r[field]) ? (r[field] as unknown[]) : [])
            if (typeof k === "string") out.add(k);
  }
  return [...out];
}

/** Completions inside `{{ … }}`: the names a template may use, one segment at a time. */
function templateCompletions(req: CompletionRequest, ref: string, start: number): Completions {
  const segments = ref.split(".");
  const last = segments.pop() as string;
  const from = start + ref.length - last.length;
  const doc = req.document;
  const [head, second, third] = segments;
  const out: Candidate[] = [];
  if (segments.length === 0) {
    out.push(
      { label: "inputs", kind: "variable", detail: "the playbook's inputs" },
      { label: "steps", kind: "variable", detail: "outputs of earlier steps" },
      { label: "findings", kind: "variable", detail: "findings recorded so far" },
    );
    for (const name of Object.keys(CONTEXT_VARIABLES))
      out.push({ label: name, kind: "variable", detail: `${name} context` });
    const step = enclosingStep(doc, req.outline.path);
    if (step && step.value.for_each !== undefined)
      for (const name of ITEM_VARIABLES)
        out.push({ label: name, kind: "variable", detail: "the for_each item" });
  } else if (head === "inputs" && segments.length === 1) {
    const inputs = isMap(doc) && isMap(doc.inputs) ? doc.inputs : {};
    for (const [name, spec] of Object.entries(inputs)) {
      const c: Candidate = { label: name, kind: "field" };
      if (isMap(spec) && str(spec.type)) c.detail = `input (${String(spec.type)})`;
      if (isMap(spec) && str(spec.description)) c.documentation = String(spec.description);
      out.push(c);
    }
  } else if (head === "steps" && segments.length === 1) {
    for (const s of writtenSteps(doc))
      out.push({ label: s.id, kind: "step", detail: stepDetail(s.value) });
  } else if (head === "steps" && segments.length === 2) {
    out.push({ label: "outputs", kind: "field", detail: `outputs of step ${second}` });
  } else if (head === "steps" && segments.length === 3 && third === "outputs") {
    const step = writtenSteps(doc).find((s) => s.id === second);
    for (const name of step ? stepOutputs(step.value, req.playbooks, req.kindOutputs) : [])
      out.push({
        label: name,
        kind: "field",
        detail: `output of ${stepDetail(step?.value ?? {})}`,
      });
  } else if (head === "findings" && segments.length === 1) {
    for (const key of findingKeys(doc)) out.push({ label: key, kind: "field", detail: "finding" });
  } else if (head !== undefined && segments.length === 1 && CONTEXT_VARIABLES[head]) {
    for (const field of CONTEXT_VARIABLES[head] ?? [])
      out.push({ label: field, kind: "field", detail: `${head}.${field}` });
  }
  return { candidates: out, from };
}

/** A value as a completion: strings as they are, other scalars as YAML writes them. */
function valueLabel(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return undefined;
}

function valueCompletions(req: CompletionRequest, path: PathSegment[]): Candidate[] {
  const doc = req.document;
  const schema = req.schema ?? (PLAYBOOK_SCHEMA as unknown as SchemaNode);
  if (isStepTarget(doc, path)) {
    const own = enclosingStep(doc, path);
    const ownId = own ? (own.path[0] === "nodes" ? own.path[1] : str(own.value.id)) : undefined;
    const onError = path[path.length - 1] === "on_error" || path[path.length - 2] === "on_error";
    return writtenSteps(doc)
      .filter((s) => s.id !== ownId)
      .map((s) => ({
        label: onError ? `${ERROR_GOTO}${s.id}` : s.id,
        kind: "step",
        detail: stepDetail(s.value),
        ...(str(s.value.description) ? { documentation: String(s.value.description) } : {}),
      }));
  }
  if (isPlaybookTarget(doc, path)) {
    const self = isMap(doc) ? str(doc.id) : undefined;
    const seen = new Set<string>();
    const out: Candidate[] = [];
    for (const p of req.playbooks) {
      if (p.id === self || seen.has(p.id)) continue;
      seen.add(p.id);
      const c: Candidate = { label: p.id, kind: "playbook", detail: p.name ?? "playbook" };
      if (p.description) c.documentation = p.description;
      out.push(c);
    }
    return out;
  }
  const schemas = schemasAt(schema, path, doc);
  const docs = descriptionsOf(schemas).join("\n\n");
  const parent = path.slice(0, -1);
  const key = path[path.length - 1];
  const parentSchemas = typeof key === "string" ? schemasAt(schema, parent, undefined) : [];
  const out: Candidate[] = [];
  for (const v of allowedValues(schemas)) {
    const label = valueLabel(v);
    if (label === undefined) continue;
    const own = typeof key === "string" ? branchDescriptions(parentSchemas, key, v) : [];
    const documentation = own.length > 0 ? own.join("\n\n") : docs;
    out.push({ label, kind: "value", ...(documentation ? { documentation } : {}) });
  }
  return out;
}

function keyCompletions(req: CompletionRequest, path: PathSegment[]): Candidate[] {
  const schema = req.schema ?? (PLAYBOOK_SCHEMA as unknown as SchemaNode);
  const present = new Set(keysOf(valueAt(req.document, path)));
  const out: Candidate[] = calledInputs(req, path).filter((c) => !present.has(c.label));
  for (const [name, subs] of propertiesOf(schemasAt(schema, path, req.document))) {
    if (present.has(name)) continue;
    const documentation = descriptionsOf(expandAll(schema, subs)).join("\n\n");
    out.push({ label: name, kind: "field", ...(documentation ? { documentation } : {}) });
  }
  return out;
}

/** Under a call's `with:`, the inputs the called playbook declares. */
function calledInputs(req: CompletionRequest, path: PathSegment[]): Candidate[] {
  if (path[path.length - 1] !== "with") return [];
  const step = valueAt(req.document, path.slice(0, -1));
  const target = isMap(step) ? str(step.playbook) : undefined;
  const called = req.playbooks.find((p) => p.id === target);
  if (!called) return [];
  return called.inputs.map((name) => ({
    label: name,
    kind: "variable",
    detail: `input of ${called.id}`,
  }));
}

/** What may be written at the cursor. */
export function completionsAt(req: CompletionRequest): Completions {
  const { outline } = req;
  if (outline.template)
    return templateCompletions(req, outline.template.ref, outline.template.start);
  const from = outline.partialStart;
  // Words with spaces between them are prose (a plain scalar going on), never a name or a value
  // offered here.
  if (/\s/.test(outline.partial)) return { candidates: [], from };
  if (outline.mode === "key") return { candidates: keyCompletions(req, outline.path), from };
  const values = valueCompletions(req, outline.path);
  if (outline.mode === "item") {
    // `- ` starts a list item: a value, or the first key of a mapping.
    return { candidates: [...values, ...keyCompletions(req, outline.path)], from };
  }
  return { candidates: values, from };
}
