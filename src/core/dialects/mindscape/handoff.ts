import type { DialectCode } from "../../rules/syntax/dialect-conversion.js";
import {
  loadSourceText,
  SourceDocument,
  type NodeLocation,
  type PathSegment,
  type SourceLimits,
} from "../../format/source.js";
import { DialectConversion, isObject, type Json } from "../conversion.js";
import type { DialectResult } from "../dialect.js";
import { rewriteCondition } from "./templates.js";

/**
 * Mindscape's HandoffPlan: the workflow its workspace assistant writes to chain playbooks,
 * `{steps: [WorkflowStep], context, estimated_duration}`, kept as `<name>.handoff.json` (or a
 * reply holding it between `<playbook_handoff>` tags, `<name>.handoff.md`). It becomes one
 * playbook whose steps delegate to the named playbooks, in the order Mindscape starts them.
 */

export const HANDOFF_FILE = /\.handoff\.(json|md)$/i;

const HINTS: Record<DialectCode, string> = {
  "dialect-unmapped":
    "rewrite this part in the v1 format (`playbook-bot import <file>` converts the rest)",
  "dialect-invalid": "Mindscape's HandoffPlan model refuses this too: fix it in the file",
  "dialect-drift": "nothing needs to change: it is read as Mindscape's orchestrator reads it",
};
const PLAN_FIELDS = new Set(["steps", "context", "estimated_duration"]);
const STEP_FIELDS = new Set([
  "playbook_code",
  "kind",
  "inputs",
  "input_mapping",
  "condition",
  "interaction_mode",
  "retry_policy",
  "error_handling",
]);
const RETRY_FIELDS = new Set([
  "max_retries",
  "retry_delay",
  "exponential_backoff",
  "retryable_errors",
]);
const KINDS = ["user_workflow", "system_tool"];
const MODES = ["silent", "needs_review", "conversational"];
const STRATEGIES = [
  "stop_workflow",
  "continue_on_error",
  "skip_step",
  "retry_then_stop",
  "retry_then_continue",
];
/** Mindscape's retries when a step has no retry_policy, by the called playbook's kind. */
const DEFAULT_RETRIES: Record<string, number> = { system_tool: 3, user_workflow: 1 };
const MAX_STEPS = 200;
/** v1's `retry:N` takes at most two digits. */
const MAX_RETRIES = 99;
const NAME = /^[A-Za-z0-9_]{1,64}$/;
/** Mindscape's workflow reference: `$<type>.<a>[.<b>][.<c>]`, each part up to a dot or a space. */
const REFERENCE = /\$(\w+)\.([^.\s]+)(?:\.([^.\s]+))?(?:\.([^.\s]+))?/g;

/** Loads a plan file: a HandoffPlan as JSON, or the first `<playbook_handoff>` block of a reply. */
export function loadHandoff(file: string, input: string, limits: SourceLimits): DialectResult {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const tagged = /<playbook_handoff>([\s\S]*?)<\/playbook_handoff>/.exec(text);
  let json = text;
  if (tagged) {
    // Only the block is JSON; the rest becomes blanks, so every position stays the author's.
    const start = tagged.index + "<playbook_handoff>".length;
    const end = start + (tagged[1] as string).length;
    const blank = (s: string) => s.replace(/[^\r\n]/g, " ");
    json = blank(text.slice(0, start)) + text.slice(start, end) + blank(text.slice(end));
  } else if (/\.md$/i.test(file) || text.includes("<playbook_handoff>")) {
    json = "";
  }
  const loaded = loadSourceText(file, json, limits);
  if (!loaded.ok) return { ok: false, failure: loaded };
  const locations = new Map<string, NodeLocation>();
  for (const [pointer, loc] of loaded.document.locationsUnder([])) {
    const ranges: NodeLocation = { ...loc };
    delete ranges.in;
    locations.set(pointer, ranges);
  }
  const doc = new SourceDocument(file, text, loaded.document.value, locations);
  const c = new HandoffConversion(doc, planName(file));
  if (json === "") c.missingBlock();
  return { ok: true, document: c.plan(), problems: c.problems };
}

/** `reports/weekly.handoff.json` → `weekly`, as a v1 id. */
function planName(file: string): string {
  const base = file.slice(file.lastIndexOf("/") + 1).replace(HANDOFF_FILE, "");
  const id = base.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^[^A-Za-z0-9]+/, "");
  return (id || "handoff").slice(0, 64);
}

/** A v1 name made of a playbook code (step ids and inputs are read inside expressions). */
function nameOf(code: string): string {
  // A code that is no v1 id is refused where `playbook:` stands; its step id needs no more care.
  return code.replace(/[^A-Za-z0-9_]+/g, "_").slice(0, 60);
}

interface Reference {
  /** Index of the step read (`$previous`), or undefined for `$context`. */
  step?: number;
  field: string;
  /** Whether the value starts with it: only those order steps in Mindscape. */
  leading: boolean;
  at: PathSegment[];
}

interface PlanStep {
  src: Json;
  index: number;
  id: string;
  code: string;
  refs: Reference[];
}

class HandoffConversion extends DialectConversion {
  private readonly out: Json = { apiVersion: "playbook-bot/v1" };
  private readonly inputs: Json = {};
  private readonly steps: PlanStep[] = [];
  /** The step `$previous.<code>` reads: Mindscape keys a plan's steps by code, the last wins. */
  private readonly byCode = new Map<string, PlanStep>();
  private block = true;

  constructor(
    doc: SourceDocument,
    private readonly name: string,
  ) {
    super(doc, HINTS);
  }

  missingBlock(): void {
    this.block = false;
    this.report(
      "dialect-invalid",
      [],
      "no HandoffPlan between <playbook_handoff> and </playbook_handoff> in this file",
      "put the plan's JSON between the tags, as Mindscape's assistant writes it",
    );
  }

  plan(): SourceDocument {
    this.put(this.out, "id", this.name, ["id"], []);
    this.out.name = this.name;
    this.out.description = "A Mindscape HandoffPlan.";
    const src = this.doc.value;
    if (!isObject(src)) {
      if (this.block)
        this.report(
          "dialect-invalid",
          [],
          "a HandoffPlan is a JSON object: { steps, context, estimated_duration }",
        );
      return this.b.build(this.out);
    }
    for (const key of Object.keys(src))
      if (!PLAN_FIELDS.has(key))
        this.report(
          "dialect-unmapped",
          [key],
          `'${key}' is not a HandoffPlan field`,
          "remove it",
          true,
        );
    this.context(src.context);
    let description = "A Mindscape HandoffPlan";
    const estimate = src.estimated_duration;
    if (estimate !== undefined && estimate !== null) {
      if (typeof estimate === "number" && Number.isInteger(estimate) && estimate >= 0)
        description += `, estimated to take ${estimate} seconds`;
      else
        this.report(
          "dialect-invalid",
          ["estimated_duration"],
          "estimated_duration is a whole number of seconds",
        );
    }
    this.planSteps(src.steps);
    const codes = [...new Set(this.steps.map((s) => s.code))];
    this.out.description = `${description}: runs ${codes.join(", ") || "no playbook"}.`;
    this.b.locate(["description"], []);
    if (Object.keys(this.inputs).length) {
      this.out.inputs = this.inputs;
      this.b.locate(["inputs"], src.context === undefined ? [] : ["context"]);
    }
    return this.b.build(this.out);
  }

  /** The plan's context: inputs of the playbook, its values their defaults. */
  private context(context: unknown): void {
    if (context === undefined) return;
    if (!isObject(context)) {
      this.report("dialect-invalid", ["context"], "context maps keys to values");
      return;
    }
    for (const [key, value] of Object.entries(context)) {
      if (!NAME.test(key)) {
        this.report(
          "dialect-unmapped",
          ["context", key],
          `context key '${key}' is no input name here (letters, digits and _)`,
          "rename it",
          true,
        );
        continue;
      }
      const input: Json = {
        type: Array.isArray(value)
          ? "list"
          : isObject(value)
            ? "object"
            : typeof value === "number"
              ? "number"
              : typeof value === "boolean"
                ? "boolean"
                : "string",
        description: "From the plan's context.",
      };
      if (value !== null) input.default = value;
      this.inputs[key] = input;
      this.b.locate(["inputs", key], ["context", key]);
      if (value !== null)
        this.b.locate(["inputs", key, "default"], ["context", key], this.doc, true);
    }
    if (Object.keys(context).length)
      this.report(
        "dialect-drift",
        ["context"],
        "Mindscape gives every playbook of the plan each context value (and each finished step's outputs) as an input it was not given; here a playbook gets only what its inputs and input_mapping name",
        "to pass a context value, write $context.<key> in the step's inputs or input_mapping",
        true,
      );
  }

  private planSteps(steps: unknown): void {
    if (!Array.isArray(steps) || steps.length === 0) {
      this.report("dialect-invalid", ["steps"], "the plan has no steps");
      return;
    }
    if (steps.length > MAX_STEPS) {
      this.report("dialect-invalid", ["steps"], `more than ${MAX_STEPS} steps`);
      return;
    }
    const used = new Set<string>();
    steps.forEach((s: unknown, index: number) => {
      if (!isObject(s)) {
        this.report("dialect-invalid", ["steps", index], "a plan step is an object");
        return;
      }
      if (typeof s.playbook_code !== "string" || !s.playbook_code.trim()) {
        this.report(
          "dialect-invalid",
          ["steps", index],
          "a plan step names the playbook it runs: playbook_code is required",
        );
        return;
      }
      const code = s.playbook_code;
      let id = nameOf(code);
      for (let n = 2; used.has(id); n++) id = `${nameOf(code)}_${n}`;
      used.add(id);
      const step: PlanStep = { src: s, index, id, code, refs: [] };
      this.steps.push(step);
      this.byCode.set(code, step);
    });
    for (const step of this.steps) {
      const last = this.byCode.get(step.code) as PlanStep;
      if (last !== step)
        this.report(
          "dialect-drift",
          ["steps", step.index, "playbook_code"],
          `Mindscape keeps one step per playbook_code, the last: this step does not run there, and $previous.${step.code} reads step '${last.id}'; here it runs too, as step '${step.id}'`,
          "give each run of the playbook its own plan, or keep one step of it",
        );
    }
    const order = this.order();
    const out: Json[] = [];
    this.b.locate(["steps"], ["steps"]);
    for (const step of order) out.push(this.step(step, out.length));
    this.out.steps = out;
    this.afterSteps(out);
  }

  /**
   * Mindscape's order: in rounds, every step whose `$previous` steps have finished starts; here
   * the steps of a round run one after another, in plan order. Steps in a cycle are reported.
   */
  private order(): PlanStep[] {
    for (const step of this.steps) step.refs = this.references(step);
    const deps = new Map(
      this.steps.map((s) => [
        s,
        new Set(s.refs.flatMap((r) => (r.step === undefined ? [] : [this.stepAt(r.step)]))),
      ]),
    );
    const done = new Set<PlanStep>();
    const order: PlanStep[] = [];
    const rounds: PlanStep[][] = [];
    for (;;) {
      const ready = this.steps.filter(
        (s) => !done.has(s) && [...(deps.get(s) as Set<PlanStep>)].every((d) => done.has(d)),
      );
      if (ready.length === 0) break;
      rounds.push(ready);
      for (const s of ready) {
        done.add(s);
        order.push(s);
      }
    }
    const stuck = this.steps.filter((s) => !done.has(s));
    for (const s of stuck) {
      // A stuck step always reads a stuck step: that reference is where the cycle shows.
      const ref = s.refs.find(
        (r) => r.step !== undefined && !done.has(this.stepAt(r.step)),
      ) as Reference;
      const read = this.stepAt(ref.step as number);
      this.report(
        "dialect-invalid",
        ref.at,
        read === s
          ? `step '${s.id}' reads its own outputs ($previous.${s.code}): it can never start, and Mindscape stops the plan there`
          : `steps ${stuck.map((x) => `'${x.id}'`).join(", ")} read each other's outputs ($previous), in a cycle: none of them can ever start, and Mindscape stops the plan there`,
        read === s
          ? `Mindscape keys results by playbook_code, so $previous.${s.code} is this very step; pass the value through the plan's context instead`
          : "remove one of the references of the cycle",
      );
    }
    const wide = rounds.find((r) => r.length > 1);
    if (wide)
      this.report(
        "dialect-drift",
        ["steps"],
        `Mindscape starts the steps whose $previous steps have finished side by side (${wide.map((s) => s.id).join(", ")}); a delegated playbook cannot run beside others here, so they run one after another, in plan order`,
        undefined,
        true,
      );
    return [...order, ...stuck];
  }

  private stepAt(index: number): PlanStep {
    return this.steps.find((s) => s.index === index) as PlanStep;
  }

  /** Every `$previous`/`$context` reference in a step's inputs and input_mapping. */
  private references(step: PlanStep): Reference[] {
    const refs: Reference[] = [];
    for (const field of ["inputs", "input_mapping"] as const) {
      const values = step.src[field];
      if (!isObject(values)) continue;
      for (const [name, value] of Object.entries(values))
        if (typeof value === "string")
          for (const m of value.matchAll(REFERENCE)) {
            const ref = this.reference(m, ["steps", step.index, field, name], m.index === 0);
            if (ref) refs.push(ref);
          }
    }
    return refs;
  }

  /** One reference as Mindscape resolves it; what it cannot resolve is reported. */
  private reference(
    m: RegExpMatchArray,
    at: PathSegment[],
    leading: boolean,
  ): Reference | undefined {
    const [raw, type, a, b, c] = m as unknown as [string, string, string, string?, string?];
    if (type === "context") {
      if (!NAME.test(a)) {
        this.report(
          "dialect-unmapped",
          at,
          `'${raw}' reads the context key '${a}' (up to the next dot or space); an input name here has letters, digits and _ only`,
          "put a space after the reference, or rename the key",
        );
        return undefined;
      }
      if (b !== undefined)
        this.report(
          "dialect-drift",
          at,
          `Mindscape reads '${raw}' as $context.${a} and leaves out the rest ('.${[b, c].filter(Boolean).join(".")}')`,
        );
      return { field: a, leading, at };
    }
    if (type !== "previous") return undefined;
    const target = this.byCode.get(a);
    if (!target) {
      this.report(
        "dialect-invalid",
        at,
        `'${raw}' names no step of the plan: no step runs playbook '${a}', so Mindscape passes the text as it is`,
        `name the playbook_code of a step of this plan (${[...this.byCode.keys()].join(", ")}), or read a value of the plan's context with $context.<key>`,
      );
      return undefined;
    }
    if (b !== "outputs" || c === undefined) {
      this.report(
        "dialect-invalid",
        at,
        `'${raw}' is no reference Mindscape resolves: it reads $previous.<playbook_code>.outputs.<field>`,
        `write $previous.${a}.outputs.<field>`,
      );
      return undefined;
    }
    if (!NAME.test(c)) {
      this.report(
        "dialect-unmapped",
        at,
        `'${raw}' reads the output '${c}' (up to the next dot or space); an output name here has letters, digits and _ only`,
        "put a space after the reference, or rename the output",
      );
      return undefined;
    }
    return { step: target.index, field: c, leading, at };
  }

  /** `$previous.<code>.outputs.<field>` → a v1 reference, `$context.<key>` → an input. */
  private rewrite(value: string, step: PlanStep): string {
    return value.replace(REFERENCE, (raw, type: string, a: string, b?: string, c?: string) => {
      if (type === "context" && NAME.test(a)) {
        this.contextInput(a, step);
        return `{{ inputs.${a} }}`;
      }
      const target = this.byCode.get(a);
      if (type !== "previous" || !target || b !== "outputs" || !c || !NAME.test(c)) return raw;
      return `{{ steps.${target.id}.outputs.${c} }}`;
    });
  }

  /** A `$context` key the plan's context does not have: an input the run must give. */
  private contextInput(key: string, step: PlanStep): void {
    if (Object.hasOwn(this.inputs, key)) return;
    this.inputs[key] = {
      type: "string",
      required: true,
      description:
        "Read by the plan as $context." + key + "; the plan's context has no value for it.",
    };
    // Rewritten references were all read as references first.
    const ref = step.refs.find((r) => r.step === undefined && r.field === key) as Reference;
    this.b.locate(["inputs", key], ref.at);
    this.report(
      "dialect-drift",
      ref.at,
      `the plan's context has no '${key}': Mindscape reads it from the context, where the outputs of the steps that finished before are too; here it is a required input '${key}'`,
      `add '${key}' to the plan's context, or read a step's output with $previous.<playbook_code>.outputs.${key}`,
    );
  }

  private step(step: PlanStep, index: number): Json {
    const { src } = step;
    const at: PathSegment[] = ["steps", step.index];
    const to: PathSegment[] = ["steps", index];
    for (const key of Object.keys(src))
      if (!STEP_FIELDS.has(key))
        this.report(
          "dialect-unmapped",
          [...at, key],
          `'${key}' is not a WorkflowStep field`,
          "remove it",
          true,
        );
    this.b.locate(to, at);
    const out: Json = { id: step.id, type: "playbook" };
    this.b.locate([...to, "id"], [...at, "playbook_code"]);
    this.b.locate([...to, "type"], at);
    this.put(out, "playbook", step.code, [...to, "playbook"], [...at, "playbook_code"]);
    out.mode = "delegate";
    this.b.locate([...to, "mode"], at);
    const kind = typeof src.kind === "string" && KINDS.includes(src.kind) ? src.kind : undefined;
    if (!kind)
      this.report(
        "dialect-invalid",
        src.kind === undefined ? at : [...at, "kind"],
        `kind is required: ${KINDS.join(" or ")}`,
      );
    const deps = [
      ...new Set(step.refs.flatMap((r) => (r.step === undefined ? [] : [this.stepAt(r.step).id]))),
    ];
    out.description =
      `Runs the Mindscape playbook ${step.code}${kind ? ` (${kind})` : ""}` +
      (deps.length ? ` once ${deps.join(", ")} finished.` : ".");
    this.b.locate([...to, "description"], at);
    this.withs(step, out, to);
    this.condition(step, out, to);
    this.errors(step, kind, out, to);
    this.interaction(src.interaction_mode, at);
    return out;
  }

  /** `inputs`, then `input_mapping` over them (Mindscape's order), as the child's `with:`. */
  private withs(step: PlanStep, out: Json, to: PathSegment[]): void {
    const { src } = step;
    const at: PathSegment[] = ["steps", step.index];
    const withs: Json = {};
    if (src.inputs === undefined)
      this.report("dialect-invalid", at, "inputs is required (it may be {})");
    else if (!isObject(src.inputs))
      this.report("dialect-invalid", [...at, "inputs"], "inputs maps names to values");
    if (src.input_mapping !== undefined && !isObject(src.input_mapping))
      this.report(
        "dialect-invalid",
        [...at, "input_mapping"],
        "input_mapping maps names to references",
      );
    for (const field of ["inputs", "input_mapping"] as const) {
      const values = src[field];
      if (!isObject(values)) continue;
      for (const [name, value] of Object.entries(values)) {
        const from: PathSegment[] = [...at, field, name];
        if (field === "input_mapping" && typeof value !== "string") {
          this.report("dialect-invalid", from, `input_mapping.${name} is a text reference`);
          continue;
        }
        if (field === "input_mapping" && isObject(src.inputs) && Object.hasOwn(src.inputs, name))
          this.report(
            "dialect-drift",
            [...at, "inputs", name],
            `input_mapping.${name} replaces this value, as in Mindscape`,
            undefined,
            true,
          );
        const v = this.withValue(value, from, step);
        if (v === undefined) continue;
        withs[name] = v;
        this.b.locate([...to, "with", name], from);
      }
    }
    if (Object.keys(withs).length) {
      out.with = withs;
      this.b.locate(
        [...to, "with"],
        isObject(src.input_mapping) && !isObject(src.inputs)
          ? [...at, "input_mapping"]
          : [...at, "inputs"],
      );
    }
  }

  private withValue(value: unknown, at: PathSegment[], step: PlanStep): unknown {
    if (typeof value === "string") return this.rewrite(value, step);
    if (typeof value === "number" || typeof value === "boolean") return value;
    if (value === null) {
      this.report(
        "dialect-drift",
        at,
        "null is no value here: the input is not passed, so the playbook uses its default",
      );
      return undefined;
    }
    // v1 passes a playbook's inputs as text: a list as its items, an object as JSON.
    const flat = Array.isArray(value) && value.every((v) => v === null || typeof v !== "object");
    this.report(
      "dialect-drift",
      at,
      flat
        ? "a list is passed as its items joined by ', ', as a list input keeps them"
        : "an object is passed as its JSON text",
    );
    return flat ? (value as unknown[]).join(", ") : JSON.stringify(value);
  }

  /**
   * `if:` — Mindscape runs a step only once the steps it reads from have completed (a skipped or
   * failed one holds it back): here, only when the outputs it reads are there; then its condition.
   */
  private condition(step: PlanStep, out: Json, to: PathSegment[]): void {
    const at: PathSegment[] = ["steps", step.index, "condition"];
    const tests = [
      ...new Set(
        step.refs.flatMap((r) =>
          r.step === undefined
            ? []
            : [`steps.${this.stepAt(r.step).id}.outputs.${r.field} != null`],
        ),
      ),
    ];
    const embedded = step.refs.filter(
      (r) =>
        r.step !== undefined &&
        !r.leading &&
        !step.refs.some((o) => o.leading && o.step === r.step),
    );
    for (const r of embedded)
      this.report(
        "dialect-drift",
        r.at,
        `Mindscape orders steps only by values that start with $previous., so it may run this step before ${this.stepAt(r.step as number).id}; here it waits for it`,
      );
    const condition = step.src.condition;
    let test: string | undefined;
    if (typeof condition === "string" && condition.trim())
      test = this.conditionTest(condition.trim(), at);
    else if (condition !== undefined && condition !== null && condition !== "")
      this.report("dialect-invalid", at, "condition is a text");
    if (test) tests.push(tests.length ? `(${test})` : test);
    if (!tests.length) return;
    out.if = tests.join(" and ");
    this.b.locate([...to, "if"], test ? at : ["steps", step.index]);
  }

  private conditionTest(condition: string, at: PathSegment[]): string | undefined {
    if (condition.startsWith("{{") && condition.endsWith("}}")) {
      const r = rewriteCondition(condition);
      for (const name of r.inputs)
        if (!Object.hasOwn(this.inputs, name) && NAME.test(name))
          this.inputs[name] = { type: "string", description: "Read by a step's condition." };
      if (r.stepKeys.length || r.wholeSteps.size)
        this.report(
          "dialect-drift",
          at,
          "Mindscape gives a plan's conditions no step outputs (step.<id>… is empty there); here it reads the outputs of that step of this playbook",
        );
      return r.text;
    }
    const previous = /^\$previous\.([^.\s]+)\.(.+)$/.exec(condition);
    if (previous) {
      const target = this.byCode.get(previous[1] as string);
      const field = /^outputs\.([A-Za-z0-9_]+)$/.exec(previous[2] as string)?.[1];
      if (!target) {
        this.report(
          "dialect-invalid",
          at,
          `'${condition}' names no step of the plan: no step runs playbook '${previous[1]}', so Mindscape never runs this step`,
          `name the playbook_code of a step of this plan (${[...this.byCode.keys()].join(", ")})`,
        );
        return undefined;
      }
      if (!field) {
        this.report(
          "dialect-unmapped",
          at,
          `'${condition}' reads a step's result beyond its outputs; here a condition reads $previous.<playbook_code>.outputs.<field>`,
        );
        return undefined;
      }
      return `steps.${target.id}.outputs.${field}`;
    }
    const context = /^\$context\.([A-Za-z0-9_]+)$/.exec(condition);
    if (context) {
      const key = context[1] as string;
      if (!Object.hasOwn(this.inputs, key))
        this.inputs[key] = { type: "string", description: "Read by a step's condition." };
      this.report(
        "dialect-drift",
        at,
        `Mindscape looks '${condition}' up among the steps' results, not in the context (so it is false unless a step runs a playbook named '${key}'); here it is the input '${key}'`,
      );
      return `inputs.${key}`;
    }
    this.report(
      "dialect-unmapped",
      at,
      "this condition is Python that Mindscape evaluates over results, previous() and has_output(); here a condition is {{ … }}, $previous.<playbook_code>.outputs.<field> or $context.<key>",
    );
    return undefined;
  }

  /** `error_handling` and `retry_policy` as `on_error`. */
  private errors(step: PlanStep, kind: string | undefined, out: Json, to: PathSegment[]): void {
    const { src } = step;
    const at: PathSegment[] = ["steps", step.index];
    const strategy = src.error_handling ?? "retry_then_stop";
    if (typeof strategy !== "string" || !STRATEGIES.includes(strategy)) {
      this.report(
        "dialect-invalid",
        [...at, "error_handling"],
        `error_handling is one of ${STRATEGIES.join(", ")}, not '${String(strategy)}'`,
      );
      return;
    }
    const policy = src.retry_policy;
    const retry = this.retryPolicy(policy, at, DEFAULT_RETRIES[kind ?? "user_workflow"] as number);
    if (!retry) return;
    const { retries, timing } = retry;
    const from: PathSegment[] =
      src.error_handling !== undefined
        ? [...at, "error_handling"]
        : isObject(policy)
          ? [...at, "retry_policy"]
          : at;
    const stops = ["stop_workflow", "retry_then_stop"].includes(strategy);
    if (stops && retries === 0) return;
    if (stops && retries > MAX_RETRIES) {
      this.report(
        "dialect-unmapped",
        [...at, "retry_policy", "max_retries"],
        `v1 retries a step at most ${MAX_RETRIES} times, not ${retries}`,
      );
      return;
    }
    out.on_error = stops ? `retry:${retries}` : "continue";
    this.b.locate([...to, "on_error"], from);
    if (stops && timing)
      this.report(
        "dialect-drift",
        [...at, "retry_policy"],
        "v1 waits 2, 4, 8… seconds between retries, whatever retry_delay and exponential_backoff say",
        undefined,
        true,
      );
    if (!stops && retries > 0)
      this.report(
        "dialect-drift",
        from,
        `Mindscape retries this step ${retries} time(s) before it goes on; v1 cannot retry and then go on, so here it goes on after the first failure`,
      );
  }

  /** A step's `retry_policy`: how often it retries, and whether it asks for timing v1 lacks. */
  private retryPolicy(
    policy: unknown,
    at: PathSegment[],
    retries: number,
  ): { retries: number; timing: boolean } | undefined {
    if (policy === undefined || policy === null) return { retries, timing: false };
    if (!isObject(policy)) {
      this.report("dialect-invalid", [...at, "retry_policy"], "retry_policy is an object");
      return undefined;
    }
    for (const key of Object.keys(policy))
      if (!RETRY_FIELDS.has(key))
        this.report(
          "dialect-unmapped",
          [...at, "retry_policy", key],
          `'${key}' is not a retry_policy field`,
          "remove it",
          true,
        );
    const max = policy.max_retries ?? 3;
    if (typeof max !== "number" || !Number.isInteger(max) || max < 0) {
      this.report(
        "dialect-invalid",
        [...at, "retry_policy", "max_retries"],
        "max_retries is a whole number, 0 or more",
      );
      return undefined;
    }
    const errors = policy.retryable_errors;
    if (Array.isArray(errors) && errors.length)
      this.report(
        "dialect-unmapped",
        [...at, "retry_policy", "retryable_errors"],
        `retryable_errors names Mindscape's error classes (${errors.map(String).join(", ")}), which errors here do not have: a retry here cannot be limited to them`,
        "remove it to retry every error, or write on_error by v1 error code after import",
      );
    return {
      retries: max,
      timing: policy.retry_delay !== undefined || policy.exponential_backoff !== undefined,
    };
  }

  private interaction(modes: unknown, at: PathSegment[]): void {
    if (modes === undefined) return;
    if (!Array.isArray(modes) || modes.some((m) => !MODES.includes(String(m)))) {
      this.report(
        "dialect-invalid",
        [...at, "interaction_mode"],
        `interaction_mode is a list of ${MODES.join(", ")}`,
      );
      return;
    }
    this.report(
      "dialect-drift",
      [...at, "interaction_mode"],
      "Mindscape only logs a plan step's interaction_mode; here the called playbook's own interaction_mode applies",
      undefined,
      true,
    );
  }

  /** What holds for every step: a failure inside a called playbook ends the run. */
  private afterSteps(out: Json[]): void {
    if (out.some((s) => s.on_error !== undefined))
      this.report(
        "dialect-drift",
        ["steps"],
        "error_handling and retry_policy become each step's on_error, which here covers the call itself (an unknown playbook, inputs it refuses); a failure inside a called playbook ends the run",
        undefined,
        true,
      );
  }
}
