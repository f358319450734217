import type { DialectCode } from "../../rules/syntax/dialect-conversion.js";
import {
  loadSourceText,
  type PathSegment,
  type SourceDocument,
  type SourceLimits,
  type SourceProblem,
} from "../../format/source.js";
import { DialectConversion, isObject, type Json } from "../conversion.js";
import { frontMatter as splitFrontMatter } from "../front-matter.js";
import type { Dialect, DialectResult, Siblings } from "../dialect.js";
import { HANDOFF_FILE, loadHandoff } from "./handoff.js";
import {
  LOOP_RESULTS,
  rewriteCondition,
  rewriteTemplate,
  type LoopReading,
  type Rewrite,
} from "./templates.js";

/**
 * Mindscape: an execution spec `<code>.json` (`playbook_code`, `kind`, `inputs`, `steps` that
 * call tools, `depends_on`, `condition`, `for_each`, `outputs`) with its SOP `<code>.md` (front
 * matter: name, kind, interaction_mode, required_tools, locale…; the body is the procedure in
 * prose), joined by `playbook_code`; and SOP-only playbooks (Markdown with front matter, also
 * under a `.yaml` name), whose body is the work. Each tool step becomes a call the bot makes.
 * A HandoffPlan (`<name>.handoff.json`) chains playbooks: see `handoff.ts`.
 */

const HINTS: Record<DialectCode, string> = {
  "dialect-unmapped":
    "rewrite this part in the v1 format (`playbook-bot import <file>` converts the rest)",
  "dialect-invalid": "Mindscape's own model refuses this too: fix it in the file",
  "dialect-drift": "nothing needs to change: it is read as Mindscape's engine reads it",
};

const INPUT_TYPES: Record<string, string> = {
  string: "string",
  str: "string",
  integer: "number",
  int: "number",
  number: "number",
  float: "number",
  boolean: "boolean",
  bool: "boolean",
  array: "list",
  list: "list",
  object: "object",
  dict: "object",
};
/** Front-matter fields about the Mindscape UI and localisation: no part of a run. */
const PRESENTATION = new Set([
  "version",
  "locale",
  "visible_in",
  "language_strategy",
  "supported_locales",
  "default_locale",
  "auto_localize",
  "entry_agent_type",
  "icon",
  "capability_code",
  "onboarding_task",
  "scope",
  "owner",
  "supports_execution_chat",
  "execution_chat_mode",
  "discussion_agent",
  "background",
  "optional_tools",
  "runtime_handler",
  "x_platform",
  "x_local_core",
]);
const STEP_FIELDS = new Set([
  "id",
  "tool",
  "tool_slot",
  "playbook_slot",
  "inputs",
  "outputs",
  "depends_on",
  "condition",
  "for_each",
  "gate",
  "tool_policy",
  "hooks",
]);
const MAX_STEPS = 200;

/** `core_llm.structured_extract` → `core_llm/structured_extract`; a plain name → `mindscape/<name>`. */
export function toolName(tool: string): string {
  const dot = tool.indexOf(".");
  return dot > 0 ? `${tool.slice(0, dot)}/${tool.slice(dot + 1)}` : `mindscape/${tool}`;
}

/** The front matter and the trimmed body of an SOP. */
function frontMatter(file: string, text: string, limits: SourceLimits) {
  // Mindscape reads front matter with PyYAML, which keeps the last value of a key written twice.
  const split = splitFrontMatter(file, text, limits, { duplicateKeys: "last" });
  return { ...split, body: split.body.trim() };
}

const hasFrontMatterCode = (text: string) =>
  /^---[ \t]*\r?\n[\s\S]*?^playbook_code\s*:/m.test(text.slice(0, 8192));

/**
 * A spec as Mindscape's own loader takes one: a JSON object naming its `playbook_code` (the
 * loader then requires its kind, steps, inputs and outputs, which the conversion checks). A v1
 * playbook says `apiVersion`.
 */
function isSpecText(text: string): boolean {
  return /"playbook_code"\s*:/.test(text) && !/"apiVersion"\s*:/.test(text);
}

/**
 * Whether `file` is an SOP (`<code>.md`, or a locale's `<code>.<locale>.md`) with its spec
 * (`<code>.json`, of that code) beside it.
 */
function isSopBesideItsSpec(file: string, siblings: Siblings): boolean {
  const name = /(?:^|\/)([^/.]+)(?:\.[A-Za-z]{2}(?:-[A-Za-z]{2,4})?)?\.md$/i.exec(file)?.[1];
  if (name === undefined || HANDOFF_FILE.test(file)) return false;
  const spec = siblings.read(`${name}.json`);
  if (spec === undefined || !isSpecText(spec)) return false;
  try {
    const value: unknown = JSON.parse(spec);
    return isObject(value) && value.playbook_code === name;
  } catch {
    return false;
  }
}

/**
 * Whether `file` is an SOP where Mindscape keeps them (`i18n/playbooks/<locale>/<code>.md`) whose
 * spec is where Mindscape keeps specs (`playbooks/specs/<code>.json`). Mindscape's registry loads
 * every SOP there; one without a spec is a playbook of its own, its body the procedure.
 */
function isSopOfSpecInLayout(file: string, siblings: Siblings): boolean {
  const name =
    /(?:^|\/)i18n\/playbooks\/[^/]+\/([^/.]+)(?:\.[A-Za-z]{2}(?:-[A-Za-z]{2,4})?)?\.md$/i.exec(
      file,
    )?.[1];
  return name !== undefined && siblings.read(`../../../playbooks/specs/${name}.json`) !== undefined;
}

export const mindscape: Dialect = {
  id: "mindscape",
  title: "Mindscape",
  // Mindscape looks a playbook up by its code when a plan or a slot runs it, not when it loads.
  softRules: ["set-unresolved-playbook"],
  recognise: (file, text) =>
    HANDOFF_FILE.test(file) ||
    (/\.json$/i.test(file) && isSpecText(text)) ||
    (/\.(md|ya?ml)$/i.test(file) && text.startsWith("---") && hasFrontMatterCode(text)),
  // The SOPs load with their spec: where Mindscape keeps them (i18n/playbooks/<locale>/), or
  // beside it in one folder (`<code>.md` next to `<code>.json`).
  isPart: (file, siblings) =>
    isSopOfSpecInLayout(file, siblings) || isSopBesideItsSpec(file, siblings),
  load: (file, text, siblings, limits) =>
    HANDOFF_FILE.test(file)
      ? loadHandoff(file, text, limits)
      : /\.json$/i.test(file)
        ? loadSpec(file, text, siblings, limits)
        : loadSop(file, text, limits),
};

function loadSpec(
  file: string,
  text: string,
  siblings: Siblings,
  limits: SourceLimits,
): DialectResult {
  const loaded = loadSourceText(file, text, limits);
  if (!loaded.ok) return { ok: false, failure: loaded };
  const doc = loaded.document;
  const code =
    isObject(doc.value) && typeof doc.value.playbook_code === "string"
      ? doc.value.playbook_code
      : "";
  // The SOP is found by its code: next to the spec, or where Mindscape keeps them.
  const dir = file.includes("/") ? file.slice(0, file.lastIndexOf("/") + 1) : "";
  let sop: { doc?: SourceDocument; body: string; duplicates?: SourceProblem[] } | undefined;
  for (const rel of [
    `${code}.md`,
    `../../i18n/playbooks/en/${code}.md`,
    `../../i18n/playbooks/zh-TW/${code}.md`,
  ]) {
    const sopText = code ? siblings.read(rel) : undefined;
    if (sopText === undefined) continue;
    sop = frontMatter(normalise(`${dir}${rel}`), sopText, limits);
    break;
  }
  const c = new MindscapeConversion(doc, sop?.doc);
  if (sop?.doc && sop.duplicates) c.duplicateKeys(sop.duplicates, sop.doc);
  return { ok: true, document: c.spec(sop?.body), problems: c.problems };
}

function loadSop(file: string, text: string, limits: SourceLimits): DialectResult {
  const fm = frontMatter(file, text, limits);
  if (fm.failure) return { ok: false, failure: fm.failure };
  if (!fm.doc) {
    const loaded = loadSourceText(file, "", limits);
    if (!loaded.ok) return { ok: false, failure: loaded };
    const c = new MindscapeConversion(loaded.document, undefined);
    return { ok: true, document: c.sopOnly(fm.body), problems: c.problems };
  }
  const c = new MindscapeConversion(fm.doc, fm.doc);
  if (fm.duplicates) c.duplicateKeys(fm.duplicates, fm.doc);
  return { ok: true, document: c.sopOnly(fm.body), problems: c.problems };
}

/** Text whose `{{` and `{%` are said literally in a v1 template. */
function literal(text: string): string {
  return text.replace(/\{([{%])/g, (_, c: string) => `{{ '{${c}' }}`);
}

/** `a/b/../../c` → `c`, for the file a diagnostic names. */
function normalise(path: string): string {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "..") out.pop();
    else if (part !== "." && part !== "") out.push(part);
  }
  return out.join("/");
}

class MindscapeConversion extends DialectConversion {
  private readonly out: Json = { apiVersion: "playbook-bot/v1" };
  private readonly inputs: Json = {};
  private readonly used = new Set<string>();
  private readonly stepOutputs = new Map<string, Record<string, string>>();
  private readonly stepCalls = new Map<string, Json>();
  private readonly stepReads: { id: string; key: string; at: PathSegment[] }[] = [];
  private loops: LoopReading = { results: new Set() };
  /** Per playbook-slot step: its output names → the outputs of its playbook they are. */
  private readonly slotOutputs = new Map<string, Record<string, string>>();
  /** What the for_each of the step being converted iterates over, when Mindscape's differs. */
  private loopPath: string | undefined;

  constructor(
    doc: SourceDocument,
    private readonly sop: SourceDocument | undefined,
  ) {
    super(doc, HINTS);
  }

  /** Keys the front matter writes twice: read as Mindscape reads them, the last value kept. */
  duplicateKeys(list: SourceProblem[], source: SourceDocument): void {
    for (const d of list)
      this.problems.push({
        rule: "dialect-drift",
        path: "",
        span: source === this.doc ? d.span : { ...d.span, file: source.file },
        message: `${d.message}: Mindscape's loader keeps the last value, and so does this reading`,
        hint: "remove the earlier one, so the file says once what it means",
      });
  }

  /** The spec, with its SOP's front matter for who it is and how it talks. */
  spec(sopBody: string | undefined): SourceDocument {
    const src = this.doc.value;
    if (!isObject(src)) {
      this.report("dialect-invalid", [], "a Mindscape spec is a JSON object");
      return this.b.build(this.out);
    }
    for (const key of Object.keys(src))
      if (
        ![
          "version",
          "playbook_code",
          "kind",
          "steps",
          "inputs",
          "outputs",
          "description",
          "output_artifacts",
        ].includes(key)
      )
        this.report(
          "dialect-unmapped",
          [key],
          `'${key}' has no equivalent here`,
          "remove it",
          true,
        );
    this.identity(src);
    if (src.output_artifacts !== undefined)
      this.report(
        "dialect-drift",
        ["output_artifacts"],
        "output_artifacts describe how Mindscape's UI shows the results; the run's outputs here are the playbook's outputs",
        undefined,
        true,
      );
    if (!sopBody && !src.description)
      this.report(
        "dialect-drift",
        ["playbook_code"],
        "no SOP (<code>.md) was found next to the spec or under i18n/playbooks/; the playbook has no description",
      );
    if (typeof src.description === "string")
      this.put(this.out, "description", src.description, ["description"], ["description"]);
    this.specInputs(src.inputs);
    this.specSteps(src.steps);
    this.specOutputs(src.outputs);
    this.addUsedInputs();
    return this.b.build(this.out);
  }

  /** An SOP-only playbook: the procedure in its body is the prompt of one `ai` step. */
  sopOnly(body: string): SourceDocument {
    const fm = this.doc.value;
    if (!isObject(fm)) {
      this.report("dialect-invalid", [], "the front matter is not a mapping");
      return this.b.build(this.out);
    }
    this.front(fm, this.doc);
    if (Array.isArray(fm.inputs)) this.listInputs(fm.inputs);
    const tools = Array.isArray(fm.tool_dependencies)
      ? fm.tool_dependencies.flatMap((t: unknown) =>
          isObject(t) && typeof t.name === "string" ? [toolName(t.name)] : [],
        )
      : [];
    const step: Json = {
      id: "sop",
      type: "ai",
      description: "The procedure of the SOP.",
      // Mindscape gives the model the SOP as written: its `{{ }}` are words, not templates.
      prompt: literal(body || String(fm.description ?? "")),
    };
    if (tools.length) {
      step.tools = tools;
      this.b.locate(["steps", 0, "tools"], ["tool_dependencies"], this.doc, true);
    }
    this.out.steps = [step];
    this.b.locate(["steps"], []);
    if (Array.isArray(fm.outputs)) {
      const outputs: Json = {};
      fm.outputs.forEach((o: unknown, i: number) => {
        if (!isObject(o) || typeof o.name !== "string") return;
        outputs[o.name] = "{{ steps.sop.outputs.text }}";
        this.b.locate(["outputs", o.name], ["outputs", i]);
      });
      if (Object.keys(outputs).length) this.out.outputs = outputs;
    }
    this.addUsedInputs();
    return this.b.build(this.out);
  }

  private identity(src: Json): void {
    if (typeof src.playbook_code !== "string" || !src.playbook_code) {
      const plan =
        Array.isArray(src.steps) && src.steps.some((s) => isObject(s) && "playbook_code" in s);
      this.report(
        "dialect-invalid",
        ["playbook_code"],
        "the spec has no playbook_code",
        plan
          ? "its steps name playbooks: a HandoffPlan is read from a file named <name>.handoff.json"
          : undefined,
      );
      return;
    }
    this.put(this.out, "id", src.playbook_code, ["id"], ["playbook_code"]);
    if (src.kind === "user_workflow" || src.kind === "system_tool")
      this.put(this.out, "kind", src.kind, ["kind"], ["kind"]);
    else this.report("dialect-invalid", ["kind"], "kind is user_workflow or system_tool");
    const fm = this.sop?.value;
    if (this.sop && isObject(fm)) this.front(fm, this.sop);
    if (this.out.name === undefined) this.out.name = src.playbook_code;
  }

  /** The SOP's front matter: name, description, tags, how it talks, what it needs. */
  private front(fm: Json, doc: SourceDocument): void {
    if (doc === this.doc && typeof fm.playbook_code === "string")
      this.put(
        this.out,
        "id",
        fm.playbook_code.replace(/\.en$/, ""),
        ["id"],
        ["playbook_code"],
        doc,
      );
    if (typeof fm.name === "string") this.put(this.out, "name", fm.name, ["name"], ["name"], doc);
    if (typeof fm.description === "string" && this.out.description === undefined)
      this.put(this.out, "description", fm.description, ["description"], ["description"], doc);
    if (Array.isArray(fm.tags) && fm.tags.every((t) => typeof t === "string")) {
      this.out.tags = { symptoms: fm.tags };
      this.b.locate(["tags"], ["tags"], doc);
      this.b.locate(["tags", "symptoms"], ["tags"], doc, true);
    }
    if (doc === this.doc && (fm.kind === "user_workflow" || fm.kind === "system_tool"))
      this.put(this.out, "kind", fm.kind, ["kind"], ["kind"], doc);
    this.frontRequires(fm, doc);
    this.frontLeftovers(fm, doc);
  }

  /** How the playbook talks (interaction_mode) and the tools it needs. */
  private frontRequires(fm: Json, doc: SourceDocument): void {
    if (Array.isArray(fm.interaction_mode)) {
      const modes = fm.interaction_mode.filter((m) =>
        ["silent", "needs_review", "conversational"].includes(String(m)),
      );
      if (modes.length)
        this.put(
          this.out,
          "interaction_mode",
          modes,
          ["interaction_mode"],
          ["interaction_mode"],
          doc,
        );
    }
    if (Array.isArray(fm.required_tools)) {
      const tools = fm.required_tools
        .filter((t): t is string => typeof t === "string")
        .map(toolName);
      if (tools.length) {
        this.out.requires = { tools };
        this.b.locate(["requires"], ["required_tools"], doc);
        this.b.locate(["requires", "tools"], ["required_tools"], doc, true);
      }
    }
    if (doc === this.doc && Array.isArray(fm.tool_dependencies)) {
      const required = fm.tool_dependencies.flatMap((t: unknown) =>
        isObject(t) && typeof t.name === "string" && t.required !== false ? [toolName(t.name)] : [],
      );
      if (required.length) {
        this.out.requires = { tools: required };
        this.b.locate(["requires"], ["tool_dependencies"], doc);
        this.b.locate(["requires", "tools"], ["tool_dependencies"], doc, true);
      }
    }
  }

  /** The front matter's fields with no part in a run here: reported, not read. */
  private frontLeftovers(fm: Json, doc: SourceDocument): void {
    if (fm.locale !== undefined && !["en", "zh-TW", "ja"].includes(String(fm.locale)))
      this.report(
        "dialect-drift",
        ["locale"],
        `Mindscape skips a file in locale '${String(fm.locale)}'; it is read here`,
        undefined,
        false,
        doc,
      );
    for (const key of Object.keys(fm))
      if (PRESENTATION.has(key))
        this.report(
          "dialect-drift",
          [key],
          `'${key}' is about Mindscape's UI or languages; it has no part in a run here`,
          undefined,
          true,
          doc,
        );
      else if (
        ![
          "playbook_code",
          "name",
          "description",
          "tags",
          "kind",
          "interaction_mode",
          "required_tools",
          "tool_dependencies",
          "inputs",
          "outputs",
        ].includes(key)
      )
        this.report(
          "dialect-unmapped",
          [key],
          `'${key}' has no equivalent here`,
          "remove it",
          true,
          doc,
        );
  }

  private specInputs(inputs: unknown): void {
    if (inputs === undefined) return;
    if (!isObject(inputs)) {
      this.report("dialect-invalid", ["inputs"], "inputs map names to { type, required, default }");
      return;
    }
    this.b.locate(["inputs"], ["inputs"]);
    for (const [name, spec] of Object.entries(inputs)) this.input(name, spec, ["inputs", name]);
    this.out.inputs = this.inputs;
  }

  private listInputs(list: unknown[]): void {
    list.forEach((spec: unknown, i: number) => {
      if (isObject(spec) && typeof spec.name === "string")
        this.input(spec.name, spec, ["inputs", i]);
    });
    this.b.locate(["inputs"], ["inputs"]);
    this.out.inputs = this.inputs;
  }

  private input(name: string, spec: unknown, at: PathSegment[]): void {
    if (!isObject(spec) || typeof spec.type !== "string") {
      this.report("dialect-invalid", at, `input '${name}' has no type`);
      return;
    }
    const base = spec.type.replace(/\[.*\]$/, "");
    const type = INPUT_TYPES[base];
    if (!type) {
      this.report(
        "dialect-unmapped",
        [...at, "type"],
        `input type '${spec.type}' has no equivalent here (string, integer, boolean, array, list[…], object)`,
      );
      return;
    }
    const input: Json = { type };
    if (Array.isArray(spec.enum) && spec.enum.every((v) => typeof v === "string")) {
      input.type = "enum";
      input.values = spec.enum;
      this.b.locate(["inputs", name, "values"], [...at, "enum"], this.doc, true);
    }
    if (typeof spec.description === "string") input.description = spec.description;
    // Mindscape's model makes an input required unless it says otherwise, even with a default.
    const required = spec.required !== false;
    if (spec.default !== undefined && spec.default !== null) {
      input.default = spec.default;
      if (spec.required === undefined)
        this.report(
          "dialect-drift",
          [...at, "default"],
          `input '${name}' has a default, and Mindscape still counts it required; here the default is used when it is not given`,
          undefined,
          true,
        );
    } else if (required) input.required = true;
    // An optional input not given reads as "" in Mindscape's templates; so it does here.
    else if (input.type === "string" || input.type === "list") input.default = "";
    this.inputs[name] = input;
    this.b.locate(["inputs", name], at, this.doc);
    for (const [key, as] of [
      ["type", "type"],
      ["default", "default"],
      ["description", "description"],
      ["required", "required"],
    ] as const)
      if (spec[key] !== undefined)
        this.b.locate(["inputs", name, as], [...at, key], this.doc, true);
  }

  /** Steps in Mindscape's order: each runs once its depends_on have, one after another. */
  private specSteps(steps: unknown): void {
    if (!Array.isArray(steps) || steps.length === 0) {
      this.report("dialect-invalid", ["steps"], "the spec has no steps");
      return;
    }
    if (steps.length > MAX_STEPS) {
      this.report("dialect-invalid", ["steps"], `more than ${MAX_STEPS} steps`);
      return;
    }
    const ids = steps.map((s: unknown) =>
      isObject(s) && typeof s.id === "string" ? s.id : undefined,
    );
    const order = runOrder(steps);
    if (!order) {
      this.report(
        "dialect-invalid",
        ["steps"],
        "Circular dependency or missing dependencies detected: some steps can never be ready",
        "check every depends_on names an earlier step and none loops",
      );
      return;
    }
    for (const [i, s] of steps.entries())
      if (isObject(s) && Array.isArray(s.depends_on))
        s.depends_on.forEach((d: unknown, j: number) => {
          if (!ids.includes(d as string))
            this.report(
              "dialect-invalid",
              ["steps", i, "depends_on", j],
              `depends_on names no step: '${String(d)}'`,
            );
        });
    this.loops = { results: loopResultsRead(steps, this.doc.value), slots: this.slotOutputs };
    const out: Json[] = [];
    this.b.locate(["steps"], ["steps"]);
    const taken = new Set(ids.filter((id): id is string => id !== undefined));
    for (const i of order) {
      const step = this.step(steps[i] as Json, i, out.length);
      if (!step) continue;
      out.push(step);
      const gate = this.gate(steps[i] as Json, i, step, out.length, taken);
      if (gate) out.push(gate);
    }
    this.out.steps = out;
    this.readFields();
  }

  private step(src: Json, i: number, index: number): Json | undefined {
    const at: PathSegment[] = ["steps", i];
    const to: PathSegment[] = ["steps", index];
    if (!isObject(src) || typeof src.id !== "string") {
      this.report("dialect-invalid", at, "a step has an id");
      return undefined;
    }
    for (const key of Object.keys(src))
      if (!STEP_FIELDS.has(key))
        this.report(
          "dialect-unmapped",
          [...at, key],
          `'${key}' is not a step field here`,
          "remove it",
          true,
        );
    this.b.locate(to, at);
    this.b.locate([...to, "id"], [...at, "id"]);
    this.readLoop(src);
    const step: Json = { id: src.id };
    const tool =
      typeof src.tool === "string"
        ? src.tool
        : typeof src.tool_slot === "string"
          ? src.tool_slot
          : undefined;
    if (typeof src.tool === "string" && typeof src.tool_slot === "string")
      this.report(
        "dialect-invalid",
        [...at, "tool_slot"],
        "Cannot specify both 'tool' and 'tool_slot'.",
      );
    if (typeof src.playbook_slot === "string")
      this.delegateStep(src, src.playbook_slot, at, to, step);
    else if (tool) this.toolStep(src, src.id, tool, at, to, step);
    else {
      this.report(
        "dialect-invalid",
        at,
        "Either 'tool' (legacy) or 'tool_slot' (recommended) must be provided",
      );
      return undefined;
    }
    if (Array.isArray(src.depends_on) && src.depends_on.length)
      step.description = `Runs once ${src.depends_on.join(", ")} ran.`;
    this.conditionAndLoop(src, at, to, step);
    if (isObject(src.tool_policy) && src.tool_policy.risk_level === "write") {
      step.authority = "ask-first";
      this.b.locate([...to, "authority"], [...at, "tool_policy"]);
    }
    if (src.hooks !== undefined)
      this.report(
        "dialect-unmapped",
        [...at, "hooks"],
        "step hooks (pre_step, post_step, on_error) call tool slots around a step; there is no equivalent here",
        "make them steps of their own",
        true,
      );
    return step;
  }

  /** `playbook_slot`: the step delegates to another playbook, with its inputs as `with`. */
  private delegateStep(
    src: Json,
    playbook: string,
    at: PathSegment[],
    to: PathSegment[],
    step: Json,
  ): void {
    step.type = "playbook";
    step.mode = "delegate";
    this.put(step, "playbook", playbook, [...to, "playbook"], [...at, "playbook_slot"]);
    if (isObject(src.inputs)) {
      const withs: Json = {};
      for (const [k, v] of Object.entries(src.inputs))
        if (typeof v === "string" || typeof v === "number" || typeof v === "boolean")
          withs[k] = typeof v === "string" ? this.template(v, [...at, "inputs", k]) : v;
      step.with = withs;
      this.b.locate([...to, "with"], [...at, "inputs"], this.doc, true);
    }
    // Mindscape maps the playbook's outputs to the step's: `summary: report` reads its report.
    if (isObject(src.outputs) && typeof src.id === "string") {
      const named: Record<string, string> = {};
      for (const [name, from] of Object.entries(src.outputs))
        if (typeof from === "string" && /^[A-Za-z0-9_.-]+$/.test(from)) named[name] = from;
      this.slotOutputs.set(src.id, named);
    }
  }

  /** `tool` or `tool_slot`: the step makes one call, with its inputs as the call's args. */
  private toolStep(
    src: Json,
    id: string,
    tool: string,
    at: PathSegment[],
    to: PathSegment[],
    step: Json,
  ): void {
    if (typeof src.tool_slot === "string")
      this.report(
        "dialect-drift",
        [...at, "tool_slot"],
        "a tool slot is resolved per workspace in Mindscape; here it names the tool itself",
        undefined,
        true,
      );
    step.type = "investigate";
    const call: Json = { tool: toolName(tool), run: "auto" };
    const named: PathSegment[] = [...at, typeof src.tool === "string" ? "tool" : "tool_slot"];
    this.b.locate([...to, "suggested_calls"], named);
    this.b.locate([...to, "suggested_calls", 0], named);
    this.b.locate([...to, "suggested_calls", 0, "tool"], named);
    if (src.inputs !== undefined) {
      call.args = this.args(src.inputs, [...at, "inputs"], 0);
      this.b.locate([...to, "suggested_calls", 0, "args"], [...at, "inputs"], this.doc, true);
    }
    if (isObject(src.outputs)) {
      const outputs: Record<string, string> = {};
      this.stepOutputs.set(id, outputs);
      for (const [name, path] of Object.entries(src.outputs))
        if (typeof path === "string" && /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/.test(name))
          outputs[name] = path;
      call.outputs = outputs;
      this.b.locate([...to, "suggested_calls", 0, "outputs"], [...at, "outputs"], this.doc, true);
    }
    // Mindscape's `results` of a for_each step: each item's result, which a later step reads.
    if (this.loops.results.has(id)) {
      call.outputs = { ...(call.outputs as Json | undefined), [LOOP_RESULTS]: "" };
      this.stepOutputs.set(id, { ...this.stepOutputs.get(id), [LOOP_RESULTS]: "" });
    }
    step.suggested_calls = [call];
    this.stepCalls.set(id, call);
  }

  /**
   * A for_each over the `results` of an earlier for_each step: Mindscape's items are that step's
   * outputs, one map per item. A step reading one of their fields loops over that output's values
   * (`item.temp_path` is the item); one reading more reads each item's whole result.
   */
  private readLoop(src: Json): void {
    this.loopPath = undefined;
    this.loops = { results: this.loops.results, slots: this.slotOutputs };
    const over =
      typeof src.for_each === "string"
        ? /^step\.([A-Za-z0-9_-]+)\.results$/.exec(src.for_each.trim())
        : null;
    const from = over ? this.stepOutputs.get(over[1] as string) : undefined;
    if (!over || !from || !this.loops.results.has(over[1] as string)) return;
    const text = JSON.stringify([src.inputs, src.condition]);
    const fields = new Set(
      [...text.matchAll(/\{\{\s*item\.([A-Za-z0-9_]+)/g)].map((m) => m[1] as string),
    );
    const whole = /\{\{\s*item\s*\}\}/.test(text);
    const [only] = fields;
    if (fields.size === 1 && !whole && only !== undefined && Object.hasOwn(from, only)) {
      this.loopPath = `step.${over[1] as string}.${only}`;
      this.loops = { ...this.loops, itemFields: { [only]: "item" } };
      return;
    }
    const itemFields: Record<string, string> = {};
    for (const [name, path] of Object.entries(from))
      itemFields[name] = path ? `item.${path}` : "item";
    this.loops = { ...this.loops, itemFields };
  }

  /** `condition` and `for_each`, rewritten into this format's expressions. */
  private conditionAndLoop(src: Json, at: PathSegment[], to: PathSegment[], step: Json): void {
    if (typeof src.condition === "string" && src.condition.trim()) {
      const r = rewriteCondition(src.condition, this.loops);
      this.noteRewrite(r, [...at, "condition"], true);
      this.put(step, "if", r.text, [...to, "if"], [...at, "condition"]);
    }
    if (typeof src.for_each === "string") {
      const path = src.for_each.trim();
      const m = /^(input|step)\.([A-Za-z0-9_.]+)$/.exec(path);
      if (!m)
        this.report(
          "dialect-invalid",
          [...at, "for_each"],
          `for_each must be input.<name> or step.<id>.<path>, not '${path}'`,
        );
      else {
        const r = rewriteTemplate(`{{${this.loopPath ?? path}}}`, this.loops);
        this.noteRewrite(r, [...at, "for_each"], false);
        this.put(step, "for_each", r.text, [...to, "for_each"], [...at, "for_each"]);
      }
    }
  }

  /**
   * A step's gate: Mindscape runs the step, then pauses for a person's decision on its result
   * (a rejection fails the playbook). So does a checkpoint right after the step.
   */
  private gate(
    src: Json,
    i: number,
    step: Json,
    index: number,
    taken: Set<string>,
  ): Json | undefined {
    const gate = src.gate;
    if (!isObject(gate) || gate.required !== true) return undefined;
    const at: PathSegment[] = ["steps", i, "gate"];
    const to: PathSegment[] = ["steps", index];
    let id = `${String(step.id)}_gate`;
    for (let n = 2; taken.has(id); n++) id = `${String(step.id)}_gate_${n}`;
    taken.add(id);
    const what = typeof gate.operation === "string" ? ` (${gate.operation})` : "";
    const out: Json = {
      id,
      type: "checkpoint",
      description: `The gate of ${String(step.id)}: its result is reviewed before the playbook goes on.`,
      message: `Review the result of ${String(step.id)}${what}: /approve to go on, /reject to stop the playbook.`,
    };
    this.b.locate(to, at);
    for (const key of ["id", "type", "description", "message"]) this.b.locate([...to, key], at);
    // A step that does not run (its condition is false) has no gate in Mindscape either.
    if (typeof step.if === "string") {
      out.if = step.if;
      this.b.locate([...to, "if"], ["steps", i, "condition"]);
    }
    if (isObject(gate.decision_payload_schema))
      this.put(
        out,
        "response_schema",
        gate.decision_payload_schema,
        [...to, "response_schema"],
        [...at, "decision_payload_schema"],
      );
    if (gate.type !== undefined && gate.type !== "validation" && gate.type !== "modification")
      this.report(
        "dialect-invalid",
        [...at, "type"],
        "a gate's type is validation or modification",
      );
    for (const key of ["type", "checkpoint_required"])
      if (gate[key] !== undefined)
        this.report(
          "dialect-drift",
          [...at, key],
          `Mindscape's executor does not read a gate's ${key}; here every gate is a review of the step's result`,
          undefined,
          true,
        );
    return out;
  }

  /**
   * A template that reads `step.<id>.<key>` where the step maps no output of that name: Mindscape
   * looks the key up in the step's result; so does an output of that name taken from it here.
   */
  private readFields(): void {
    for (const { id, key, at } of this.stepReads) {
      const call = this.stepCalls.get(id);
      if (!call) continue;
      const outputs = (call.outputs ??= {}) as Record<string, string>;
      if (Object.hasOwn(outputs, key) || !/^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/.test(key)) continue;
      outputs[key] = key;
      this.report(
        "dialect-drift",
        at,
        `step ${id} maps no output '${key}'; it is read from the field of that name in the step's result`,
      );
    }
  }

  /** A step's inputs as the call's arguments: every string rewritten as a v1 template. */
  private args(value: unknown, at: PathSegment[], depth: number): unknown {
    if (typeof value === "string") return this.template(value, at);
    if (depth > 8 || value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) return value.map((v, i) => this.args(v, [...at, i], depth + 1));
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) out[k] = this.args(v, [...at, k], depth + 1);
    return out;
  }

  private template(text: string, at: PathSegment[]): string {
    const r = rewriteTemplate(text, this.loops);
    this.noteRewrite(r, at, false);
    return r.text;
  }

  /** What a rewrite read differently from Mindscape, said where it is written. */
  private noteRewrite(r: Rewrite, at: PathSegment[], condition: boolean): void {
    for (const name of r.inputs) this.used.add(name);
    for (const name of r.bareNames)
      this.report(
        "dialect-drift",
        at,
        `'{{${name}}}' stays as written in Mindscape's engine; here it is the input '${name}' (empty when not given)`,
      );
    for (const key of r.contextKeys) this.used.add(`context_${key}`);
    for (const [id, key] of r.stepKeys) this.stepReads.push({ id, key, at });
    if (condition && r.wholeSteps.size)
      this.report(
        "dialect-drift",
        at,
        `'step.${[...r.wholeSteps][0]}' alone is not understood by Mindscape's condition reader, which then runs the step anyway; here it is true when that step ran`,
      );
  }

  /** Inputs the templates use but the spec does not declare: optional, as Mindscape passes them. */
  private addUsedInputs(): void {
    let added = false;
    for (const name of this.used)
      if (!Object.hasOwn(this.inputs, name) && /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/.test(name)) {
        this.inputs[name] = {
          type: "string",
          default: "",
          description: `Used by the playbook's templates; Mindscape's executor may pass it.`,
        };
        added = true;
      }
    if (added || Object.keys(this.inputs).length) this.out.inputs = this.inputs;
  }

  private specOutputs(outputs: unknown): void {
    if (outputs === undefined) return;
    if (!isObject(outputs)) {
      this.report("dialect-invalid", ["outputs"], "outputs map names to { type, source }");
      return;
    }
    const out: Json = {};
    for (const [name, spec] of Object.entries(outputs)) {
      const source = isObject(spec) ? spec.source : undefined;
      const at: PathSegment[] = ["outputs", name, "source"];
      const options = typeof source === "string" ? source.split(/\s+or\s+/) : [];
      const refs = options.map((o) => this.outputRef(o.trim(), at));
      if (refs.length === 0 || refs.some((r) => r === undefined)) {
        this.report(
          "dialect-invalid",
          ["outputs", name],
          `output '${name}' needs source: step.<id>.<key>`,
        );
        continue;
      }
      if (options.length > 1)
        this.report(
          "dialect-drift",
          at,
          "Mindscape's output collector reads this source as one key and finds nothing; here the first of these outputs that has a value is taken",
        );
      // A conditional step may not have run: its output is then empty, not a failure.
      out[name] = `{{ ${refs.join(" or ")} or '' }}`;
      this.b.locate(["outputs", name], at);
    }
    this.out.outputs = out;
    this.b.locate(["outputs"], ["outputs"]);
  }

  /** One `step.<id>[.<key>]` of an output's source, as a v1 name. */
  private outputRef(source: string, at: PathSegment[]): string | undefined {
    const whole = /^step\.([A-Za-z0-9_-]+)$/.exec(source);
    if (whole) {
      // Mindscape collects an output from step.<id>.<key>; a whole step gives nothing there.
      this.report(
        "dialect-drift",
        at,
        `'${source}' names a whole step, which Mindscape's output collector does not read; here it is that step's results`,
      );
      return `steps.${whole[1]}.outputs.results`;
    }
    const m = /^step\.([A-Za-z0-9_-]+)\.(.+)$/.exec(source);
    if (!m) return undefined;
    const id = m[1] as string;
    let key = m[2] as string;
    const [first, ...rest] = key.split(".");
    const slot = this.slotOutputs.get(id)?.[first as string];
    if (slot) key = [slot, ...rest].join(".");
    const mapped = this.stepOutputs.get(id);
    if (mapped && !Object.hasOwn(mapped, key.split(".")[0] as string)) {
      // The model's own text reads the map as "result field → output name"; some specs do.
      const named = Object.entries(mapped).find(([, path]) => path === key)?.[0];
      if (named) {
        this.report(
          "dialect-drift",
          at,
          `step ${id} maps its output '${named}' from the result's '${key}'; this source names the result's field, so it is read as the output '${named}'`,
        );
        key = named;
      }
    }
    return `steps.${id}.outputs.${key}`;
  }
}

/** The order Mindscape runs steps in: passes over the list, each ready step in file order. */
function runOrder(steps: unknown[]): number[] | undefined {
  const ids = steps.map((s) => (isObject(s) && typeof s.id === "string" ? s.id : ""));
  const done = new Set<string>();
  const order: number[] = [];
  while (order.length < steps.length) {
    const ready = steps.flatMap((s, i) => {
      if (order.includes(i)) return [];
      const needs = isObject(s) && Array.isArray(s.depends_on) ? s.depends_on : [];
      return needs.every((d) => done.has(String(d)) && ids.includes(String(d))) ? [i] : [];
    });
    if (ready.length === 0) return undefined;
    for (const i of ready) {
      order.push(i);
      done.add(ids[i] as string);
    }
  }
  return order;
}

/**
 * The for_each steps whose `results` some template or output reads (`step.<id>.results`): they
 * keep each item's result for it.
 */
function loopResultsRead(steps: unknown[], spec: unknown): Set<string> {
  const loops = new Set(
    steps.flatMap((s) =>
      isObject(s) && typeof s.id === "string" && typeof s.for_each === "string" ? [s.id] : [],
    ),
  );
  const text = JSON.stringify(spec) ?? "";
  const read = [...text.matchAll(/step\.([A-Za-z0-9_-]+)\.results\b/g)].map((m) => m[1] as string);
  return new Set(read.filter((id) => loops.has(id)));
}
