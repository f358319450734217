import type { DialectCode } from "../../rules/syntax/dialect-conversion.js";
import {
  loadSourceText,
  type PathSegment,
  type SourceDocument,
  type SourceLimits,
} from "../../format/source.js";
import { confidenceOf } from "../../steps/investigate/findings.js";
import { DialectConversion, isObject, type Json } from "../conversion.js";
import type { Dialect, DialectResult, Siblings } from "../dialect.js";
import type { FindingRule } from "../../steps/investigate/findings.js";
import {
  defaultRules,
  derivesStatus,
  policyFindings,
  rulesOfNormalization,
  statusDerivation,
  statusRules,
} from "./evidence.js";

/**
 * The runbook spec: `<name>.yaml` (match, limits, steps that call `trace.`/`db.`/`redis.` tools,
 * decision rules, output) with its sidecars `<name>.selector.json` (how incidents select it),
 * `<name>.execution.json` (the operations, when the YAML lists no steps) and
 * `<name>.decision.json` (the rules its engine uses). All of them become one v1 playbook: the
 * selector an `on.alerts` and `on.issues` selector, each step an `investigate` step whose call
 * the bot makes, the decision a `decide` step — every value at its place in the file it came
 * from.
 */

/** The incident context types the spec's own schema accepts. */
const CONTEXT_TYPES = ["trace_id", "request_id", "order_id", "task_id", "message_id", "user_id"];
const TOOL_PREFIXES = ["trace.", "db.", "redis."];
/** Parameters the spec's checker requires to be SQL identifiers. */
const IDENTIFIER_PARAMS = [
  "table",
  "match_column",
  "trace_ref_table",
  "trace_ref_column",
  "trace_ref_match_column",
];
const IDENTIFIER = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const KEY_TEMPLATE = /^[a-zA-Z0-9_:.-]*(\{\{context_id\}\})?[a-zA-Z0-9_:.-]*$/;
/** What the spec's executor uses when a parameter is not given (`context_type` for the columns). */
const PARAM_DEFAULTS: Record<string, string> = {
  trace_ref_table: "orders",
  trace_ref_column: "trace_id",
  trace_ref_match_column: "{{ inputs.context_type }}",
  table: "orders",
  match_column: "{{ inputs.context_type }}",
  key_template: "{{ inputs.context_id }}",
};
/** Finding types the spec's executor derives itself, whatever the adapters emit. */
const DERIVED_FINDINGS = ["step_error", "status_mismatch"];
const DEFAULT_ROOT_CAUSE = "Current evidence is insufficient to isolate a single root cause.";

const HINTS: Record<DialectCode, string> = {
  "dialect-unmapped":
    "rewrite this part in the v1 format (`playbook-bot import <file>` converts the rest)",
  "dialect-invalid": "the runbook spec's own check refuses this too: fix it in the file",
  "dialect-drift": "nothing needs to change: it is read the way the runbook spec's engine reads it",
};

const TOP_FIELDS = new Set([
  "name",
  "description",
  "match",
  "limits",
  "steps",
  "decision_rules",
  "output",
]);
const STEP_FIELDS = new Set(["id", "tool", "required", "purpose", "params"]);

const SIDECARS = ["selector", "execution", "decision"] as const;
type Sidecar = (typeof SIDECARS)[number];

/** The spec's `{{context_id}}`, as this format's input. */
function fillContextId(value: string): string {
  return value.replace(/\{\{context_id\}\}/g, "{{ inputs.context_id }}");
}

function stemOf(file: string): string {
  return (file.split("/").pop() ?? file).replace(/\.ya?ml$/i, "");
}

export const runbook: Dialect = {
  id: "runbook",
  title: "the runbook spec",
  recognise: (file, text) =>
    /\.ya?ml$/i.test(file) &&
    /^match\s*:/m.test(text) &&
    (/^\s+(-\s+)?tool\s*:\s*(trace|db|redis)\./m.test(text) ||
      /^decision_rules\s*:/m.test(text) ||
      /^output\s*:/m.test(text)),
  isPart: (file) => /\.(selector|execution|decision)\.json$/i.test(file),
  load: (file, text, siblings, limits) => loadRunbook(file, text, siblings, limits),
};

function loadRunbook(
  file: string,
  text: string,
  siblings: Siblings,
  limits: SourceLimits,
): DialectResult {
  const loaded = loadSourceText(file, text, limits);
  if (!loaded.ok) return { ok: false, failure: loaded };
  const stem = stemOf(file);
  const sidecars: Partial<Record<Sidecar, SourceDocument>> = {};
  const unreadable: Sidecar[] = [];
  for (const kind of SIDECARS) {
    const name = `${stem}.${kind}.json`;
    const sidecarText = siblings.read(name);
    if (sidecarText === undefined) {
      unreadable.push(kind);
      continue;
    }
    const dir = file.includes("/") ? file.slice(0, file.lastIndexOf("/") + 1) : "";
    const doc = loadSourceText(`${dir}${name}`, sidecarText, limits);
    if (doc.ok) sidecars[kind] = doc.document;
    else unreadable.push(kind);
  }
  const c = new RunbookConversion(loaded.document, stem, sidecars, siblings);
  for (const kind of unreadable) c.unreadableSidecar(`${stem}.${kind}.json`);
  return { ok: true, document: c.convert(), problems: c.problems };
}

class RunbookConversion extends DialectConversion {
  private readonly out: Json = { apiVersion: "playbook-bot/v1" };
  /** Each operation the runbook calls, where it is named. */
  private readonly operations: { tool: string; at: PathSegment[]; doc: SourceDocument }[] = [];
  /** Each converted call with its operation, for the derivation's rules added once all are known. */
  private readonly calls: { tool: string; call: Json }[] = [];
  /** The finding types each operation's adapter emits; undefined when its file is absent. */
  private readonly emitted = new Map<string, string[] | undefined>();

  constructor(
    doc: SourceDocument,
    private readonly stem: string,
    private readonly sidecars: Partial<Record<Sidecar, SourceDocument>>,
    private readonly siblings: Siblings,
  ) {
    super(doc, HINTS);
  }

  unreadableSidecar(name: string): void {
    this.report(
      "dialect-invalid",
      [],
      `Missing or invalid JSON file: ${name}`,
      `add ${name} next to the runbook, or fix its JSON: the runbook spec reads every runbook with its selector, execution and decision files`,
    );
  }

  convert(): SourceDocument {
    const src = this.doc.value;
    if (!isObject(src)) {
      this.report("dialect-invalid", [], "a runbook is a mapping of fields");
      return this.b.build(this.out);
    }
    for (const key of Object.keys(src))
      if (!TOP_FIELDS.has(key))
        this.report(
          "dialect-unmapped",
          [key],
          `'${key}' is not a field of the runbook spec, and has no equivalent here`,
          "remove it",
          true,
        );
    this.out.id = this.stem;
    this.b.locate(["id"], typeof src.name === "string" ? ["name"] : []);
    if (typeof src.name === "string") {
      this.put(this.out, "name", src.name, ["name"], ["name"]);
      if (src.name !== this.stem)
        this.report(
          "dialect-drift",
          ["name"],
          `the runbook is named '${src.name}' but its file is ${this.stem}.yaml; the spec knows runbooks by file name, and so does this reading`,
        );
    }
    if (typeof src.description === "string")
      this.put(this.out, "description", src.description, ["description"], ["description"]);
    const types = this.match(src);
    this.inputs(types);
    this.limits(src);
    this.selector(types);
    const steps: Json[] = [];
    this.b.locate(["steps"], Array.isArray(src.steps) ? ["steps"] : []);
    this.steps(src, steps);
    this.decision(src, steps);
    steps.push({
      id: "report",
      type: "end",
      description: "The investigation's report.",
      // The spec's report opens with the incident as it was told.
      advice:
        "Incident: {{ inputs.symptom or 'not told' }} — expected behavior: {{ inputs.expected or 'not told' }}",
    });
    this.b.locate(["steps", steps.length - 1], ["output"]);
    this.out.steps = steps;
    return this.b.build(this.out);
  }

  /** `match`: the context types a run may have (enforced), and its symptoms (tags). */
  private match(src: Json): string[] {
    const match = src.match;
    if (match === undefined) return CONTEXT_TYPES;
    if (!isObject(match)) {
      this.report("dialect-invalid", ["match"], "match must be a mapping");
      return CONTEXT_TYPES;
    }
    for (const key of Object.keys(match))
      if (key !== "context_types" && key !== "symptoms")
        this.report(
          "dialect-unmapped",
          ["match", key],
          `'match.${key}' is not a field of the runbook spec`,
          "remove it",
          true,
        );
    if (Array.isArray(match.symptoms) && match.symptoms.every((s) => typeof s === "string")) {
      this.out.tags = { symptoms: match.symptoms };
      this.b.locate(["tags"], ["match", "symptoms"]);
      this.b.locate(["tags", "symptoms"], ["match", "symptoms"], this.doc, true);
    }
    const types = match.context_types;
    if (types === undefined) return CONTEXT_TYPES;
    if (!Array.isArray(types) || types.some((t) => typeof t !== "string")) {
      this.report(
        "dialect-invalid",
        ["match", "context_types"],
        "context_types must be a list of names",
      );
      return CONTEXT_TYPES;
    }
    types.forEach((t: string, i: number) => {
      if (!CONTEXT_TYPES.includes(t))
        this.report(
          "dialect-invalid",
          ["match", "context_types", i],
          `'${t}' is not a context type of the runbook spec (${CONTEXT_TYPES.join(", ")})`,
        );
    });
    return types.length ? (types as string[]) : CONTEXT_TYPES;
  }

  /** The incident a runbook investigates: its locator, the symptom and what was expected. */
  private inputs(types: string[]): void {
    this.out.inputs = {
      // An alert names the incident in its labels; an issue in its form (`### Context ID`).
      context_id: {
        type: "string",
        required: true,
        from: "labels.context_id",
        description: "The incident's locator: the id of the request, order, trace, … it is about.",
      },
      context_type: {
        type: "enum",
        values: types,
        required: true,
        from: "labels.context_type",
        description: "What the locator is; the runbook supports only these.",
      },
      symptom: {
        type: "string",
        from: "issue.title",
        description: "What went wrong.",
      },
      expected: {
        type: "string",
        from: "issue.body",
        description: "What should have happened.",
      },
    };
    this.b.locate(
      ["inputs", "context_type"],
      this.doc.value && isObject((this.doc.value as Json).match) ? ["match", "context_types"] : [],
    );
  }

  private limits(src: Json): void {
    const limits = src.limits;
    if (limits === undefined) return;
    if (!isObject(limits)) {
      this.report("dialect-invalid", ["limits"], "limits must be a mapping");
      return;
    }
    const out: Json = {};
    this.b.locate(["limits"], ["limits"]);
    for (const [key, value] of Object.entries(limits)) {
      if (key === "max_steps" || key === "max_tool_calls")
        this.put(out, key, value, ["limits", key], ["limits", key]);
      else
        this.report(
          "dialect-unmapped",
          ["limits", key],
          `'limits.${key}' has no equivalent here (limits are max_steps and max_tool_calls)`,
          "remove it",
          true,
        );
    }
    this.out.limits = out;
  }

  /** `<name>.selector.json`: which incidents (alerts and issues) select this runbook. */
  private selector(types: string[]): void {
    const doc = this.sidecars.selector;
    if (!doc) return;
    const sel = doc.value;
    if (!isObject(sel)) {
      this.report(
        "dialect-invalid",
        [],
        "the selector is not a JSON object",
        undefined,
        false,
        doc,
      );
      return;
    }
    this.sidecarName("selector", sel, doc);
    this.selectorRequired(sel, doc);
    const selector: Json = {};
    const issues: Json = {};
    this.b.locate(["on"], [], doc);
    this.b.locate(["on", "alerts"], [], doc);
    this.b.locate(["on", "issues"], [], doc);
    if (Array.isArray(sel.context_types))
      this.selectorContextTypes(sel.context_types, types, selector, issues, doc);
    if (typeof sel.priority === "number") {
      this.put(selector, "priority", sel.priority, ["on", "alerts", "priority"], ["priority"], doc);
      this.put(issues, "priority", sel.priority, ["on", "issues", "priority"], ["priority"], doc);
    }
    const signals: Json = {};
    for (const [side, key] of [
      ["positive", "positive_signals"],
      ["negative", "negative_signals"],
    ] as const) {
      const list = sel[key];
      if (!Array.isArray(list)) continue;
      const converted: Json[] = [];
      list.forEach((signal: unknown, i: number) => {
        const s = this.signal(signal, key, i, doc);
        if (!s) return;
        converted.push(s);
        this.b.locate(["on", "alerts", "signals", side, converted.length - 1], [key, i], doc, true);
        this.b.locate(["on", "issues", "signals", side, converted.length - 1], [key, i], doc, true);
      });
      signals[side] = converted;
    }
    this.symptomsAsSignals(sel, signals, doc);
    if (Object.keys(signals).length) {
      selector.signals = signals;
      issues.signals = structuredClone(signals);
    }
    this.out.on = { alerts: selector, issues, command: this.stem.replace(/_/g, "-") };
    this.b.locate(["on", "command"], []);
  }

  /** What the spec's checker requires of a selector: context types and both signal lists. */
  private selectorRequired(sel: Json, doc: SourceDocument): void {
    if (!Array.isArray(sel.context_types) || sel.context_types.length === 0)
      this.report(
        "dialect-invalid",
        ["context_types"],
        `Selector for ${this.stem} must define context_types.`,
        undefined,
        false,
        doc,
      );
    if (!Array.isArray(sel.positive_signals) || !Array.isArray(sel.negative_signals))
      this.report(
        "dialect-invalid",
        [],
        `Selector for ${this.stem} must define positive_signals and negative_signals.`,
        undefined,
        false,
        doc,
      );
  }

  /** The selector's context types, for alerts and issues alike. */
  private selectorContextTypes(
    contextTypes: unknown[],
    types: string[],
    selector: Json,
    issues: Json,
    doc: SourceDocument,
  ): void {
    const listed = contextTypes.filter((t): t is string => typeof t === "string");
    for (const [target, to] of [
      [selector, "alerts"],
      [issues, "issues"],
    ] as const)
      this.put(
        target,
        "context_types",
        listed,
        ["on", to, "context_types"],
        ["context_types"],
        doc,
      );
    const unsupported = listed.filter((t) => !types.includes(t));
    if (unsupported.length)
      this.report(
        "dialect-drift",
        ["context_types"],
        `the selector picks incidents of ${unsupported.join(", ")}, which the runbook's match.context_types refuses; such a run stops before any step`,
        undefined,
        false,
        doc,
      );
  }

  /** One positive or negative signal (pattern, weight, mode), or undefined when it is not one. */
  private signal(
    signal: unknown,
    key: "positive_signals" | "negative_signals",
    i: number,
    doc: SourceDocument,
  ): Json | undefined {
    if (
      !isObject(signal) ||
      typeof signal.pattern !== "string" ||
      typeof signal.weight !== "number"
    ) {
      this.report(
        "dialect-invalid",
        [key, i],
        "a signal has a pattern (text) and a weight (number)",
        undefined,
        false,
        doc,
      );
      return undefined;
    }
    for (const field of Object.keys(signal))
      if (!["pattern", "weight", "mode"].includes(field))
        this.report(
          "dialect-invalid",
          [key, i, field],
          `'${field}' is not a field of a signal`,
          undefined,
          true,
          doc,
        );
    if (signal.mode !== undefined && signal.mode !== "regex")
      this.report(
        "dialect-invalid",
        [key, i, "mode"],
        `mode '${String(signal.mode)}' is not 'regex'`,
        undefined,
        false,
        doc,
      );
    const s: Json = { pattern: signal.pattern, weight: signal.weight };
    if (signal.mode === "regex") s.regex = true;
    return s;
  }

  /** With no positive signal nothing else would select it: the runbook's symptoms stand in. */
  private symptomsAsSignals(sel: Json, signals: Json, doc: SourceDocument): void {
    const symptoms = (this.out.tags as Json | undefined)?.symptoms;
    if (
      Array.isArray(sel.positive_signals) &&
      sel.positive_signals.length === 0 &&
      Array.isArray(symptoms) &&
      symptoms.length
    ) {
      // Nothing else would ever select it: the runbook's own symptoms stand in.
      signals.positive = symptoms.map((pattern) => ({ pattern, weight: 1 }));
      symptoms.forEach((_, i) => {
        for (const to of ["alerts", "issues"])
          this.b.locate(
            ["on", to, "signals", "positive", i],
            ["match", "symptoms", i],
            this.doc,
            true,
          );
      });
      this.report(
        "dialect-drift",
        ["positive_signals"],
        `the selector has no positive signals; the runbook's match.symptoms select it here (weight 1 each), where the spec would select it by its context type alone`,
        undefined,
        false,
        doc,
      );
    }
  }

  /** The name inside a sidecar must be the runbook's (the spec's checker requires it). */
  private sidecarName(kind: Sidecar, value: Json, doc: SourceDocument): void {
    if (value.name !== this.stem) {
      const label = kind[0]?.toUpperCase() + kind.slice(1);
      this.report(
        "dialect-invalid",
        ["name"],
        `${label === "Execution" ? "Execution" : label} name mismatch for ${this.stem}.${kind}.json.`,
        `set "name": "${this.stem}"`,
        false,
        doc,
      );
    }
  }

  /** Each step (or each operation of the execution sidecar) becomes a call the bot makes. */
  private steps(src: Json, out: Json[]): void {
    const declared = src.steps;
    if (declared === undefined) {
      const doc = this.sidecars.execution;
      const exec = doc?.value;
      if (!doc || !isObject(exec)) {
        this.report(
          "dialect-invalid",
          [],
          `runbook ${this.stem} lists no steps, and its ${this.stem}.execution.json is missing`,
          "add steps: to the runbook, or the execution sidecar with its operations",
        );
        return;
      }
      this.sidecarName("execution", exec, doc);
      if (!Array.isArray(exec.operations) || exec.operations.length === 0) {
        this.report(
          "dialect-invalid",
          ["operations"],
          `Execution metadata for ${this.stem} must define at least one operation.`,
          undefined,
          false,
          doc,
        );
        return;
      }
      exec.operations.forEach((op: unknown, i: number) => {
        if (typeof op !== "string") return;
        this.step(
          { id: op.replace(/[^a-zA-Z0-9_-]/g, "_"), tool: op, required: false, purpose: op },
          out,
          ["operations", i],
          doc,
        );
      });
      return;
    }
    if (!Array.isArray(declared)) {
      this.report("dialect-invalid", ["steps"], "steps must be a list");
      return;
    }
    declared.forEach((step: unknown, i: number) => {
      if (!isObject(step)) {
        this.report("dialect-invalid", ["steps", i], "a step is a mapping with id and tool");
        return;
      }
      this.step(step, out, ["steps", i], this.doc);
    });
    const exec = this.sidecars.execution?.value;
    if (this.sidecars.execution && isObject(exec))
      this.sidecarName("execution", exec, this.sidecars.execution);
  }

  private step(step: Json, out: Json[], at: PathSegment[], doc: SourceDocument): void {
    const id = typeof step.id === "string" ? step.id : undefined;
    const tool = typeof step.tool === "string" ? step.tool : undefined;
    if (!id)
      this.report("dialect-invalid", [...at, "id"], "the step has no id", undefined, false, doc);
    if (!tool) {
      this.report(
        "dialect-invalid",
        [...at, "tool"],
        `step ${id ?? "?"} has no tool`,
        undefined,
        false,
        doc,
      );
      return;
    }
    for (const key of Object.keys(step))
      if (!STEP_FIELDS.has(key))
        this.report(
          "dialect-unmapped",
          [...at, key],
          `'${key}' is not a field of a runbook step`,
          "remove it",
          true,
          doc,
        );
    const prefix = TOOL_PREFIXES.find((p) => tool.startsWith(p));
    if (!prefix)
      this.report(
        "dialect-invalid",
        [...at, "tool"],
        `Runbook ${this.stem} step [${id ?? "?"}]: unknown tool prefix "${tool}". Must start with trace./db./redis.`,
        undefined,
        false,
        doc,
      );
    this.operations.push({ tool, at: step.tool === undefined ? at : [...at, "tool"], doc });
    const args = this.params(step, at, doc, id ?? "?");
    const call: Json = {
      tool: `${tool.slice(0, tool.indexOf("."))}/${tool.slice(tool.indexOf(".") + 1)}`,
      args,
      run: "auto",
    };
    if (step.required === true) call.required = true;
    if (typeof step.purpose === "string") call.purpose = step.purpose;
    const rules = this.evidenceRules(tool, [...at, "tool"], doc);
    if (rules) call.findings = rules;
    this.calls.push({ tool, call });
    const index = out.length;
    const converted: Json = {
      id: (id ?? `step-${index + 1}`).slice(0, 64),
      type: "investigate",
      suggested_calls: [call],
    };
    // Not expected_findings: the step would wait for all of them, and an adapter emits one of
    // each pair (found or missing). People see what the call can report.
    const findings = this.adapterFindings(tool);
    const purpose = typeof step.purpose === "string" ? step.purpose : undefined;
    const reports = findings?.length ? `it reports one of: ${findings.join(", ")}.` : undefined;
    if (purpose || reports) converted.description = [purpose, reports].filter(Boolean).join(" — ");
    out.push(converted);
    this.b.locate(["steps", index], at, doc);
    this.b.locate(["steps", index, "id"], [...at, "id"], doc);
    this.b.locate(["steps", index, "description"], [...at, "purpose"], doc);
    this.b.locate(["steps", index, "suggested_calls"], at, doc);
    this.b.locate(["steps", index, "suggested_calls", 0], at, doc);
    this.b.locate(["steps", index, "suggested_calls", 0, "tool"], [...at, "tool"], doc);
    this.b.locate(["steps", index, "suggested_calls", 0, "findings"], [...at, "tool"], doc);
    this.b.locate(
      ["steps", index, "suggested_calls", 0, "args"],
      step.params !== undefined ? [...at, "params"] : at,
      doc,
    );
    for (const key of Object.keys(args))
      this.b.locate(
        ["steps", index, "suggested_calls", 0, "args", key],
        [...at, "params", key],
        doc,
      );
  }

  /**
   * A step's parameters as its call's arguments: the incident's locator and type always, each
   * `<param>_by_context_type` map as a choice on the run's context type (the map wins over the
   * plain value, which wins over the spec's default), `{{context_id}}` as the run's locator.
   */
  private params(step: Json, at: PathSegment[], doc: SourceDocument, id: string): Json {
    const args: Json = {
      context_id: "{{ inputs.context_id }}",
      context_type: "{{ inputs.context_type }}",
    };
    const params = step.params;
    if (params === undefined) return args;
    if (!isObject(params)) {
      this.report(
        "dialect-invalid",
        [...at, "params"],
        "params must be a mapping",
        undefined,
        false,
        doc,
      );
      return args;
    }
    const names = new Set(Object.keys(params).map((k) => k.replace(/_by_context_type$/, "")));
    for (const name of names) {
      const direct = params[name];
      const map = params[`${name}_by_context_type`];
      const where = [...at, "params", map !== undefined ? `${name}_by_context_type` : name];
      const check = (value: unknown, path: PathSegment[], label: string): value is string =>
        this.paramText(value, name, path, label, id, doc);
      const fallback =
        direct !== undefined && check(direct, [...at, "params", name], name)
          ? fillContextId(direct)
          : PARAM_DEFAULTS[name];
      // The spec's key template is filled here: the call is given the key itself.
      const arg = name === "key_template" ? "key" : name;
      if (map === undefined) {
        if (fallback !== undefined) args[arg] = fallback;
        continue;
      }
      if (!isObject(map)) {
        this.report(
          "dialect-invalid",
          where,
          `params.${name}_by_context_type must map context types to values`,
          undefined,
          false,
          doc,
        );
        continue;
      }
      let block = "";
      for (const [type, value] of Object.entries(map)) {
        if (!check(value, [...where, type], `${name}_by_context_type.${type}`)) continue;
        if (!CONTEXT_TYPES.includes(type))
          this.report(
            "dialect-invalid",
            [...where, type],
            `'${type}' is not a context type of the runbook spec`,
            undefined,
            true,
            doc,
          );
        block += `{% ${block ? "elif" : "if"} inputs.context_type == '${type}' %}${fillContextId(value)}`;
      }
      if (!block) continue;
      args[arg] = `${block}${fallback !== undefined ? `{% else %}${fallback}` : ""}{% endif %}`;
    }
    return args;
  }

  /** A parameter's value is text, and an identifier or key template where the spec wants one. */
  private paramText(
    value: unknown,
    name: string,
    path: PathSegment[],
    label: string,
    id: string,
    doc: SourceDocument,
  ): value is string {
    if (typeof value !== "string") {
      this.report("dialect-invalid", path, `params.${label} must be text`, undefined, false, doc);
      return false;
    }
    if (IDENTIFIER_PARAMS.includes(name) && !IDENTIFIER.test(value))
      this.report(
        "dialect-invalid",
        path,
        `Runbook ${this.stem} step [${id}]: ${label} "${value}" is not a valid identifier.`,
        undefined,
        false,
        doc,
      );
    if (name === "key_template" && !KEY_TEMPLATE.test(value))
      this.report(
        "dialect-invalid",
        path,
        `Runbook ${this.stem} step [${id}]: params.${label} "${value}" has invalid format. Use alphanumeric, colon, dash, dot, or {{context_id}}.`,
        undefined,
        false,
        doc,
      );
    return true;
  }

  /** The decision: the sidecar's rules (the engine's), checked against the YAML's own. */
  private decision(src: Json, steps: Json[]): void {
    const doc = this.sidecars.decision;
    const sidecar = doc?.value;
    const decide: Json = {
      id: "decide",
      type: "decide",
      description: "Conclude from the findings.",
    };
    const index = steps.length;
    steps.push(decide);
    const output = src.output;
    if (output !== undefined) this.output(output, decide, index);
    this.derivation(decide, index);
    const known = this.knownFindings();
    if (doc && isObject(sidecar)) {
      this.b.locate(["steps", index], [], doc);
      this.sidecarName("decision", sidecar, doc);
      this.sidecarDecision(sidecar, doc, decide, index, known);
      if (src.decision_rules !== undefined) this.compareYamlRules(src.decision_rules, sidecar, doc);
    } else if (src.decision_rules !== undefined) {
      this.b.locate(["steps", index], ["decision_rules"]);
      this.yamlDecision(src.decision_rules, decide, index, known);
    } else {
      this.b.locate(["steps", index], []);
      decide.rules = [];
      this.report(
        "dialect-invalid",
        [],
        `runbook ${this.stem} has no ${this.stem}.decision.json and no decision_rules`,
        "add the decision sidecar with its rules and fallback",
      );
    }
  }

  private output(output: unknown, decide: Json, index: number): void {
    if (!isObject(output)) {
      this.report("dialect-invalid", ["output"], "output must be a mapping");
      return;
    }
    for (const key of Object.keys(output))
      if (key !== "schema" && key !== "require_evidence")
        this.report(
          "dialect-unmapped",
          ["output", key],
          `'output.${key}' has no equivalent here`,
          "remove it",
          true,
        );
    if (output.schema !== undefined && output.schema !== "incident_report")
      this.report(
        "dialect-unmapped",
        ["output", "schema"],
        `output schema '${String(output.schema)}' is not known: the report here is the incident report (conclusion, confidence, root cause, evidence, next actions)`,
        "use schema: incident_report",
      );
    if (typeof output.require_evidence === "boolean")
      this.put(
        decide,
        "require_evidence",
        output.require_evidence,
        ["steps", index, "require_evidence"],
        ["output", "require_evidence"],
      );
  }

  private sidecarDecision(
    sidecar: Json,
    doc: SourceDocument,
    decide: Json,
    index: number,
    known: Set<string> | undefined,
  ): void {
    const at: PathSegment[] = ["steps", index];
    const rules = sidecar.rules;
    if (!Array.isArray(rules) || rules.length === 0)
      this.report(
        "dialect-invalid",
        ["rules"],
        `Decision metadata for ${this.stem} must define rules.`,
        undefined,
        false,
        doc,
      );
    const converted: Json[] = [];
    this.b.locate([...at, "rules"], ["rules"], doc);
    (Array.isArray(rules) ? rules : []).forEach((rule: unknown, i: number) => {
      if (!isObject(rule)) {
        this.report("dialect-invalid", ["rules", i], "a rule is an object", undefined, false, doc);
        return;
      }
      const c = this.conclusion(rule, ["rules", i], doc, [...at, "rules", converted.length]);
      if (typeof rule.id === "string") c.id = rule.id;
      else
        this.report(
          "dialect-invalid",
          ["rules", i, "id"],
          "the rule has no id",
          undefined,
          false,
          doc,
        );
      this.b.locate([...at, "rules", converted.length, "id"], ["rules", i, "id"], doc);
      if (Array.isArray(rule.all)) {
        c.all = rule.all;
        this.b.locate([...at, "rules", converted.length, "all"], ["rules", i, "all"], doc, true);
        this.knownCheck(
          rule.all,
          ["rules", i, "all"],
          doc,
          known,
          `decision rule ${String(rule.id)}`,
        );
      }
      converted.push(c);
    });
    decide.rules = converted;
    const fallback = sidecar.fallback;
    if (!isObject(fallback))
      this.report(
        "dialect-invalid",
        [],
        `Decision metadata for ${this.stem} must define fallback.`,
        undefined,
        false,
        doc,
      );
    else {
      decide.fallback = this.conclusion(fallback, ["fallback"], doc, [...at, "fallback"]);
      this.b.locate([...at, "fallback"], ["fallback"], doc);
    }
    this.confirmedFacts(sidecar, doc, decide, at, known);
  }

  /** The facts a conclusion states: per finding (confirmed_fact_templates) and always. */
  private confirmedFacts(
    sidecar: Json,
    doc: SourceDocument,
    decide: Json,
    at: PathSegment[],
    known: Set<string> | undefined,
  ): void {
    const facts: Json[] = [];
    const templates = sidecar.confirmed_fact_templates;
    if (Array.isArray(templates))
      templates.forEach((t: unknown, i: number) => {
        if (!isObject(t) || typeof t.finding_type !== "string" || typeof t.text !== "string")
          return;
        this.knownCheck(
          [t.finding_type],
          ["confirmed_fact_templates", i, "finding_type"],
          doc,
          known,
          "confirmed_fact_templates",
        );
        facts.push({ finding: t.finding_type, text: t.text });
        this.b.locate(
          [...at, "confirmed_facts", facts.length - 1],
          ["confirmed_fact_templates", i],
          doc,
        );
        this.b.locate(
          [...at, "confirmed_facts", facts.length - 1, "finding"],
          ["confirmed_fact_templates", i, "finding_type"],
          doc,
        );
        this.b.locate(
          [...at, "confirmed_facts", facts.length - 1, "text"],
          ["confirmed_fact_templates", i, "text"],
          doc,
        );
      });
    const always = sidecar.default_confirmed_facts;
    if (Array.isArray(always))
      always.forEach((text: unknown, i: number) => {
        if (typeof text !== "string") return;
        facts.push({ text });
        this.b.locate(
          [...at, "confirmed_facts", facts.length - 1],
          ["default_confirmed_facts", i],
          doc,
          true,
        );
      });
    if (facts.length) {
      decide.confirmed_facts = facts;
      this.b.locate([...at, "confirmed_facts"], ["confirmed_fact_templates"], doc);
    }
  }

  /** A rule's or the fallback's conclusion, with the spec's defaults for what it leaves out. */
  private conclusion(
    rule: Json,
    from: PathSegment[],
    doc: SourceDocument,
    to: PathSegment[],
  ): Json {
    const c: Json = {
      conclusion:
        typeof rule.conclusion === "string" ? rule.conclusion : "investigation_inconclusive",
    };
    this.b.locate([...to, "conclusion"], [...from, "conclusion"], doc);
    const confidence =
      confidenceOf(rule.confidence) ?? (rule.confidence === undefined ? 0.4 : undefined);
    if (confidence === undefined)
      this.report(
        "dialect-invalid",
        [...from, "confidence"],
        "confidence is a number from 0 to 1, or low, medium or high",
        undefined,
        false,
        doc,
      );
    else c.confidence = confidence;
    this.b.locate([...to, "confidence"], [...from, "confidence"], doc);
    c.root_cause = typeof rule.root_cause === "string" ? rule.root_cause : DEFAULT_ROOT_CAUSE;
    this.b.locate([...to, "root_cause"], [...from, "root_cause"], doc);
    for (const [key, as] of [
      ["alternative_hypotheses", "alternatives"],
      ["recommended_next_actions", "next_actions"],
    ] as const)
      if (Array.isArray(rule[key])) {
        c[as] = (rule[key] as unknown[]).filter((x) => typeof x === "string");
        this.b.locate([...to, as], [...from, key], doc, true);
      }
    return c;
  }

  /** The YAML's own rules, used when there is no decision sidecar: `when.all` over finding types. */
  private yamlDecision(
    rules: unknown,
    decide: Json,
    index: number,
    known: Set<string> | undefined,
  ): void {
    if (!Array.isArray(rules)) {
      this.report("dialect-invalid", ["decision_rules"], "decision_rules must be a list");
      decide.rules = [];
      return;
    }
    const converted: Json[] = [];
    rules.forEach((rule: unknown, i: number) => {
      if (!isObject(rule)) return;
      const to = ["steps", index, "rules", converted.length];
      const c = this.conclusion(rule, ["decision_rules", i], this.doc, to);
      c.id = typeof rule.id === "string" ? rule.id : `rule-${i + 1}`;
      this.b.locate(to, ["decision_rules", i]);
      const all = this.yamlAll(rule, i);
      if (all.length) c.all = all;
      this.knownCheck(
        all,
        ["decision_rules", i, "when"],
        this.doc,
        known,
        `decision rule ${String(c.id)}`,
      );
      converted.push(c);
    });
    decide.rules = converted;
    decide.fallback = {
      conclusion: "investigation_inconclusive",
      confidence: 0.4,
      root_cause: DEFAULT_ROOT_CAUSE,
    };
  }

  private yamlAll(rule: Json, i: number): string[] {
    const when = rule.when;
    if (when === undefined) return [];
    if (!isObject(when) || !Array.isArray(when.all)) {
      this.report(
        "dialect-unmapped",
        ["decision_rules", i, "when"],
        "a rule's when is { all: [{ finding_type }] } here",
        "write when: { all: [...] }",
      );
      return [];
    }
    return when.all.flatMap((x: unknown) =>
      isObject(x) && typeof x.finding_type === "string" ? [x.finding_type] : [],
    );
  }

  /** The YAML's rules that disagree with the sidecar's, which the engine uses. */
  private compareYamlRules(yamlRules: unknown, sidecar: Json, doc: SourceDocument): void {
    const sideRules = sidecar.rules;
    if (!Array.isArray(yamlRules) || !Array.isArray(sideRules)) return;
    const sideIds = sideRules.map((r: unknown) => (isObject(r) ? r.id : undefined));
    const yamlIds = yamlRules.map((r: unknown) => (isObject(r) ? r.id : undefined));
    yamlRules.forEach((rule: unknown, i: number) => {
      if (!isObject(rule)) return;
      const j = sideIds.indexOf(rule.id);
      const side = sideRules[j] as Json | undefined;
      const sidecarName = doc.file.split("/").pop();
      if (!side) {
        this.report(
          "dialect-drift",
          ["decision_rules", i],
          `rule '${String(rule.id)}' is not in ${sidecarName}, whose rules the engine uses; it is not applied`,
        );
        return;
      }
      const mine = this.yamlAll(rule, i).sort().join(",");
      const theirs = (Array.isArray(side.all) ? side.all : []).map(String).sort().join(",");
      const differs: string[] = [];
      if (mine !== theirs)
        differs.push(`its findings (${mine || "none"} here, ${theirs || "none"} there)`);
      const order = sideIds.filter((id) => yamlIds.includes(id));
      if (order.indexOf(rule.id) !== yamlIds.filter((id) => sideIds.includes(id)).indexOf(rule.id))
        differs.push(`its place in the first-match order (${order.indexOf(rule.id) + 1} there)`);
      if (differs.length)
        this.report(
          "dialect-drift",
          ["decision_rules", i],
          `rule '${String(rule.id)}' differs from ${sidecarName} in ${differs.join(" and ")}; the engine uses ${sidecarName}, and so does this reading`,
        );
    });
  }

  /**
   * The finding types the adapters of this runbook's operations emit (their normalization files
   * next to the runbooks, as the spec's repository keeps them), plus the derived ones; undefined
   * when none of those files can be read (a runbook copied on its own).
   */
  private knownFindings(): Set<string> | undefined {
    const known = new Set(DERIVED_FINDINGS);
    let read = 0;
    const missing: typeof this.operations = [];
    for (const op of this.operations) {
      const findings = this.adapterFindings(op.tool);
      if (findings === undefined) missing.push(op);
      else read++;
      for (const f of findings ?? []) known.add(f);
    }
    const derived = this.siblings.read("../evidence-policies/derived-evidence.json");
    if (derived !== undefined) collectFindingTypes(parseJson(derived), known);
    // Neither an adapter nor the evidence policy is in reach: a runbook copied on its own.
    if (read === 0 && derived === undefined) return undefined;
    for (const op of missing)
      this.report(
        "dialect-invalid",
        op.at,
        `Missing normalization metadata for operation ${op.tool} used by runbook ${this.stem}.`,
        `add adapters/${op.tool.slice(0, op.tool.indexOf("."))}/${op.tool}.normalization.json`,
        false,
        op.doc,
      );
    return known;
  }

  /**
   * How the call's raw answer becomes findings: its adapter's normalization file next door, as
   * the spec reads it, or else the spec's own reading of that operation; undefined for another
   * operation without a file (its answer then gives what it reports itself).
   */
  private evidenceRules(
    tool: string,
    at: PathSegment[],
    doc: SourceDocument,
  ): FindingRule[] | undefined {
    const text = this.normalizationText(tool);
    if (text === undefined) return defaultRules(tool);
    const rules = rulesOfNormalization(parseJson(text));
    if (rules) return rules;
    this.report(
      "dialect-unmapped",
      at,
      `the normalization file of ${tool} is in none of the forms the spec's engine reads (cases, collection, table_rows); the call's answer gives only the findings it reports itself`,
      "write the normalization as cases, collection or table_rows",
      false,
      doc,
    );
    return undefined;
  }

  private normalizationText(tool: string): string | undefined {
    const prefix = tool.slice(0, Math.max(0, tool.indexOf(".")));
    return /^[a-z0-9_]+\.[a-z0-9_]+$/i.test(tool)
      ? this.siblings.read(`../adapters/${prefix}/${tool}.normalization.json`)
      : undefined;
  }

  /**
   * The spec's cross-source derivation: with a cache and a database call, the cached status and
   * the persisted one are read from their answers, and each finding of the evidence policy (by
   * default `status_mismatch`) is derived when both are known and differ.
   */
  private derivation(decide: Json, index: number): void {
    if (!derivesStatus(this.calls.map((c) => c.tool))) return;
    for (const { tool, call } of this.calls) {
      const extra = statusRules(tool);
      if (extra.length)
        call.findings = [...((call.findings as FindingRule[] | undefined) ?? []), ...extra];
    }
    const policy = this.siblings.read("../evidence-policies/derived-evidence.json");
    const findings = (policy === undefined ? undefined : policyFindings(parseJson(policy))) ?? [
      "status_mismatch",
    ];
    if (findings.length === 0) return;
    decide.derive = findings.map(statusDerivation);
    this.b.locate(["steps", index, "derive"], []);
  }

  /** The finding types the adapter of `tool` emits, from its normalization file next door. */
  private adapterFindings(tool: string): string[] | undefined {
    if (this.emitted.has(tool)) return this.emitted.get(tool);
    const text = this.normalizationText(tool);
    const found = text === undefined ? undefined : new Set<string>();
    if (text !== undefined && found) collectFindingTypes(parseJson(text), found);
    const list = found && [...found];
    this.emitted.set(tool, list);
    return list;
  }

  private knownCheck(
    types: unknown[],
    at: PathSegment[],
    doc: SourceDocument,
    known: Set<string> | undefined,
    where: string,
  ): void {
    if (!known) return;
    types.forEach((t, i) => {
      if (typeof t === "string" && !known.has(t))
        this.report(
          "dialect-invalid",
          at.length && at[at.length - 1] === "finding_type" ? at : [...at, i],
          `Unknown finding_type ${t} in ${where} for runbook ${this.stem}.`,
          "use a finding type that an adapter's normalization file or the derived evidence policy emits",
          false,
          doc,
        );
    });
  }
}

/** A JSON file's value, or undefined when it does not parse (the spec's own check reports it). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Every finding type a normalization file or evidence policy emits, wherever it says so. */
function collectFindingTypes(value: unknown, into: Set<string>, depth = 0): void {
  if (depth > 20) return;
  if (Array.isArray(value)) {
    for (const v of value) collectFindingTypes(v, into, depth + 1);
    return;
  }
  if (!isObject(value)) return;
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === "string" && /finding_type/.test(k)) into.add(v);
    else collectFindingTypes(v, into, depth + 1);
  }
}
