import { cycleAmong } from "../../util/cycle.js";
import type { DialectCode } from "../../rules/syntax/dialect-conversion.js";
import {
  loadSourceText,
  type PathSegment,
  type SourceDocument,
  type SourceLimits,
} from "../../format/source.js";
import { DialectConversion, isObject, type Json } from "../conversion.js";
import type { Dialect, DialectResult, Siblings } from "../dialect.js";
import { parseCortexMarkdown, type MarkdownStep, type ParsedMarkdown } from "./markdown.js";

/**
 * Cortex's playbook packages: a folder `playbooks/<name>/` whose `playbook.md` lays out the
 * steps (a DAG with authority gates, branches and error handling) in the system's Markdown
 * house style, `skills/<skill>.md` saying what a step does, `contracts/<x>.schema.json` the JSON
 * Schemas of the data between steps, and `requirements.md` the secrets and tools a run needs.
 * Each step becomes an `ai` step (or `investigate`, when its skill names tools); the package
 * folder's name is the playbook's id.
 */

const DEFAULT_HINTS: Record<DialectCode, string> = {
  "dialect-unmapped":
    "rewrite this part in the v1 format (`playbook-bot import <file>` converts the rest)",
  "dialect-invalid": "the package breaks a rule of Cortex's playbook layout: fix it in the file",
  "dialect-drift": "nothing needs to change: it is read the way Cortex's design describes it",
};

/** Cortex's authority tiers, lowest autonomy required first, and their v1 names. */
const AUTHORITY: Record<string, string> = {
  JustDoIt: "just-do-it",
  DoItAndShowMe: "show-me",
  AskMeFirst: "ask-first",
};
const SECTIONS = new Set(["metadata", "description", "agents", "steps", "error handling"]);
const METADATA = new Set(["name", "description", "trigger", "authority", "owner"]);
const STEP_FIELDS = new Set([
  "skill",
  "depends-on",
  "authority",
  "input-contract",
  "output-contract",
  "on-error",
  "retries",
  "description",
]);
/** What a skill's `executor` may be for the step to be converted. */
const MODEL_EXECUTORS = new Set(["llm"]);
const MAX_STEPS = 50;
const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/i;
const SECRET = /^[A-Z_][A-Z0-9_]*$/;
const TOOL = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*\/[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/** The package's main file: `playbook.md` with no front matter and a `## Steps` list of skills. */
export const cortex: Dialect = {
  id: "cortex",
  title: "Cortex",
  recognise: (file, text) =>
    /(^|\/)playbook\.md$/i.test(file) &&
    !/^\uFEFF?---\s*$/m.test(text.split("\n", 1)[0] ?? "") &&
    /^##\s+Steps\s*$/im.test(text) &&
    // Separate linear scans: a numbered step, and an indented skill line under some step.
    /^\d+\.\s+\S/m.test(text) &&
    /^[ \t]+-\s+\*\*skill\*\*:/im.test(text),
  isPart: (file) =>
    /(^|\/)playbooks\/[^/]+\/(skills\/[^/]+\.md|contracts\/[^/]+\.schema\.json|requirements\.md)$/i.test(
      file,
    ),
  load: (file, text, siblings, limits) => loadCortex(file, text, siblings, limits),
};

function loadCortex(
  file: string,
  text: string,
  siblings: Siblings,
  limits: SourceLimits,
): DialectResult {
  const parsed = parseCortexMarkdown(file, text, limits);
  if (!parsed.ok) return parsed;
  const c = new CortexConversion(parsed.parsed, file, siblings, limits);
  return { ok: true, document: c.convert(), problems: c.problems };
}

class CortexConversion extends DialectConversion {
  private readonly dir: string;

  constructor(
    private readonly main: ParsedMarkdown,
    file: string,
    private readonly siblings: Siblings,
    private readonly limits: SourceLimits,
  ) {
    super(main.document, DEFAULT_HINTS);
    this.dir = file.includes("/") ? file.slice(0, file.lastIndexOf("/") + 1) : "";
  }

  convert(): SourceDocument {
    const { model } = this.main;
    const out: Json = { apiVersion: "playbook-bot/v1" };
    for (const issue of this.main.issues)
      this.report("dialect-invalid", issue.path, issue.message, issue.hint);
    const folder = this.dir.split("/").filter(Boolean).pop() ?? "";
    this.put(out, "id", folder, ["id"], model.title !== undefined ? ["title"] : []);
    if (!NAME.test(folder))
      this.report(
        "dialect-invalid",
        model.title !== undefined ? ["title"] : [],
        `the package folder '${folder}' is not a playbook name (letters, digits, '_' and '-', at most 64)`,
        "keep the playbook in playbooks/<name>/playbook.md",
      );
    for (const name of Object.keys(model.sections))
      if (!SECTIONS.has(name))
        this.report(
          "dialect-unmapped",
          ["sections", name],
          `the section '${name}' has no equivalent here`,
          "say what it says in the steps (data between steps goes in input-contract/output-contract)",
          true,
        );
    this.metadata(out);
    this.agents();
    this.steps(out);
    this.requirements(out);
    return this.b.build(out);
  }

  private metadata(out: Json): void {
    const { model } = this.main;
    const fields = model.sections.metadata?.fields ?? {};
    const at = (key: string): PathSegment[] => ["sections", "metadata", "fields", key];
    for (const key of Object.keys(fields))
      if (!METADATA.has(key))
        this.report(
          "dialect-unmapped",
          at(key),
          `the metadata field '${key}' has no equivalent here`,
          undefined,
          true,
        );
    if (fields.name !== undefined) this.put(out, "name", fields.name, ["name"], at("name"));
    else if (model.title !== undefined) this.put(out, "name", model.title, ["name"], ["title"]);
    const description = fields.description ?? model.sections.description?.body;
    if (fields.description !== undefined)
      this.put(out, "description", description, ["description"], at("description"));
    else if (description)
      this.put(out, "description", description, ["description"], ["sections", "description"]);
    if (fields.owner !== undefined) this.put(out, "owner", fields.owner, ["owner"], at("owner"));
    if (fields.authority !== undefined) {
      const tier = this.tier(fields.authority, at("authority"));
      if (tier) {
        out.authority = { default: tier };
        this.b.locate(["authority"], at("authority"));
        this.b.locate(["authority", "default"], at("authority"));
      }
    }
    if (fields.trigger !== undefined) this.trigger(fields.trigger, out, at("trigger"));
  }

  /** `command <name>` and `label <name>` start runs here; a message type or a schedule cannot. */
  private trigger(trigger: string, out: Json, at: PathSegment[]): void {
    const m = /^(command|label)\s+\/?(\S+)$/i.exec(trigger.trim());
    if (!m) {
      this.report(
        "dialect-unmapped",
        at,
        `the trigger '${trigger}' has no equivalent here: runs start from an issue (a /run command, a label, an alert or a new issue)`,
        "write `command <name>` (/run <name>) or `label <name>`",
      );
      return;
    }
    const name = m[2] as string;
    out.on = (m[1] as string).toLowerCase() === "command" ? { command: name } : { labels: [name] };
    this.b.locate(["on"], at, this.doc, true);
    this.b.locate(["on", "command"], at);
    this.b.locate(["on", "labels", 0], at);
  }

  private agents(): void {
    const agents = this.main.model.sections.agents;
    if (!agents) return;
    // The design provisions one agent per role; here one bot runs every step in turn.
    this.report(
      "dialect-drift",
      ["sections", "agents"],
      "agent roles are not provisioned: the bot runs every step itself, with the skill the step names",
      undefined,
      true,
    );
  }

  private steps(out: Json): void {
    const section = this.main.model.sections.steps;
    const list = section?.steps ?? [];
    if (list.length === 0) {
      this.report(
        "dialect-invalid",
        section ? ["sections", "steps"] : [],
        "the playbook has no steps",
        "add a `## Steps` section with numbered steps, each naming its `- **skill**`",
        section !== undefined,
      );
      return;
    }
    if (list.length > MAX_STEPS) {
      this.report(
        "dialect-invalid",
        ["sections", "steps", "steps", MAX_STEPS],
        `the playbook has ${list.length} steps, more than the ${MAX_STEPS} one playbook may have`,
        "split it into several playbooks",
      );
      return;
    }
    const ids = new Set(list.map((s) => s.id));
    const errorDefault = this.errorDefault();
    const loop = cycleIn(list);
    // v1 runs a list by needs or by next, not both: with branches, the DAG is walked one step
    // at a time in an order that keeps every depends-on, and the branches choose the way.
    const branching = list.some((s) => s.branches.length > 0);
    const order = branching && !loop ? topologicalOrder(list) : list.map((_, i) => i);
    if (branching && list.some((s) => s.fields["depends-on"] !== undefined))
      this.report(
        "dialect-drift",
        ["sections", "steps"],
        "the steps have branches, so they run one at a time (in an order that keeps every depends-on) rather than side by side",
        undefined,
        true,
      );
    const steps: Json[] = [];
    this.b.locate(["steps"], ["sections", "steps"]);
    for (const from of order) {
      const step = this.step(
        list[from] as MarkdownStep,
        from,
        steps.length,
        ids,
        errorDefault,
        !branching,
      );
      steps.push(step);
      if (Array.isArray(step.next) && step.type !== "investigate")
        steps.push(this.choice(step, from, steps.length));
    }
    out.steps = steps;
    // Without branches the steps keep their needs, and the graph gates report a circle there.
    if (loop && branching)
      this.report(
        "dialect-invalid",
        [
          "sections",
          "steps",
          "steps",
          list.findIndex((s) => s.id === loop[0]),
          "fields",
          "depends-on",
        ],
        `the steps depend on each other in a circle (${loop.join(" → ")}): a DAG has no cycles`,
        "remove one of the depends-on entries",
      );
  }

  /**
   * Prose branches are chosen by people on an investigation step; the step that does the work
   * hands its branches to one that follows it and asks which way to go.
   */
  private choice(step: Json, index: number, position: number): Json {
    const at: PathSegment[] = ["sections", "steps", "steps", index, "branches"];
    const to: PathSegment[] = ["steps", position];
    const id = `${String(step.id)}-choice`.slice(0, 64);
    const choice: Json = {
      id,
      type: "investigate",
      description: `Choose how to go on after '${String(step.name ?? step.id)}'.`,
      next: step.next,
    };
    this.b.locate(to, at);
    this.b.locate([...to, "id"], at);
    this.b.locate([...to, "description"], at);
    this.b.locate([...to, "next"], at);
    (step.next as Json[]).forEach((_, i) =>
      this.b.locate([...to, "next", i], [...at, i], this.doc, true),
    );
    delete step.next;
    return choice;
  }

  /** The playbook-wide failure policy of `## Error Handling`, applied to steps without their own. */
  private errorDefault(): { policy: string; at: PathSegment[] } | undefined {
    const fields = this.main.model.sections["error handling"]?.fields ?? {};
    let found: { policy: string; at: PathSegment[] } | undefined;
    for (const [key, value] of Object.entries(fields)) {
      const at: PathSegment[] = ["sections", "error handling", "fields", key];
      if (key !== "default") {
        this.report(
          "dialect-unmapped",
          at,
          key === "escalation"
            ? "escalation has no equivalent here: a failed step stops the run and says so on the issue"
            : `the error-handling field '${key}' has no equivalent here`,
          "give each step `- **on-error**: fail | continue | ignore | retry <n>`",
          true,
        );
        continue;
      }
      const policy = this.policy(value, at);
      if (policy) found = { policy, at };
    }
    return found;
  }

  private step(
    s: MarkdownStep,
    index: number,
    position: number,
    ids: Set<string>,
    errorDefault: { policy: string; at: PathSegment[] } | undefined,
    withNeeds: boolean,
  ): Json {
    const at: PathSegment[] = ["sections", "steps", "steps", index];
    const to: PathSegment[] = ["steps", position];
    const f = (key: string): PathSegment[] => [...at, "fields", key];
    const step: Json = {};
    this.b.locate(to, at);
    this.put(step, "id", s.id, [...to, "id"], [...at, "id"]);
    for (const key of Object.keys(s.fields))
      if (!STEP_FIELDS.has(key))
        this.report(
          "dialect-unmapped",
          f(key),
          `the step field '${key}' has no equivalent here`,
          undefined,
          true,
        );
    if (s.title) this.put(step, "name", s.title, [...to, "name"], [...at, "title"]);
    if (s.fields.description !== undefined)
      this.put(step, "description", s.fields.description, [...to, "description"], f("description"));
    this.skill(s, at, to, step);
    const depends = s.fields["depends-on"];
    if (depends !== undefined) {
      const needs = needsOf(s);
      for (const need of needs)
        if (!ids.has(need))
          this.report(
            "dialect-invalid",
            f("depends-on"),
            `step '${s.id}' depends on '${need}', which is not a step of this playbook`,
            `name one of: ${[...ids].join(", ")}`,
          );
      if (withNeeds) {
        this.put(step, "needs", needs, [...to, "needs"], f("depends-on"));
        needs.forEach((_, i) => this.b.locate([...to, "needs", i], f("depends-on")));
      }
    }
    if (s.fields.authority !== undefined) {
      const tier = this.tier(s.fields.authority, f("authority"));
      if (tier) this.put(step, "authority", tier, [...to, "authority"], f("authority"));
    }
    for (const [field, key] of [
      ["input-contract", "input_schema"],
      ["output-contract", "output_schema"],
    ] as const) {
      const name = s.fields[field];
      if (name !== undefined) this.contract(name, f(field), [...to, key], step, key);
    }
    this.onError(s, at, to, step, errorDefault);
    if (s.branches.length) {
      step.next = s.branches.map((b) => ({ condition: b.condition, goto: b.goto }));
      this.b.locate([...to, "next"], [...at, "branches"]);
      s.branches.forEach((_, i) =>
        this.b.locate([...to, "next", i], [...at, "branches", i], this.doc, true),
      );
    }
    return step;
  }

  /** The step's skill file decides its kind: a prompt for the model, or tools to call. */
  private skill(s: MarkdownStep, at: PathSegment[], to: PathSegment[], step: Json): void {
    const name = s.fields.skill;
    const where: PathSegment[] = [...at, "fields", "skill"];
    const fallback = () => {
      step.type = "ai";
      step.prompt = s.title ?? s.id;
      this.b.locate([...to, "prompt"], [...at, s.title ? "title" : "id"]);
    };
    if (name === undefined) {
      this.report(
        "dialect-invalid",
        [...at, "id"],
        `step '${s.id}' names no skill: every step is done by a skill`,
        "add `- **skill**: <name>` with a skills/<name>.md in the package",
      );
      return fallback();
    }
    const file = `skills/${name}.md`;
    const parsed = this.skillFile(s, name, file, where);
    if (!parsed) return fallback();
    const { model, document } = parsed;
    const meta = model.sections.metadata?.fields ?? {};
    const m = (key: string): PathSegment[] => ["sections", "metadata", "fields", key];
    if (meta["skill-id"] !== undefined && meta["skill-id"] !== name)
      this.report(
        "dialect-invalid",
        m("skill-id"),
        `the skill-id '${meta["skill-id"]}' is not the file's name '${name}'`,
        "make them the same",
        false,
        document,
      );
    const promptPath: PathSegment[] | undefined = model.sections.prompt?.body
      ? ["sections", "prompt", "body"]
      : model.sections.description?.body
        ? ["sections", "description", "body"]
        : undefined;
    const prompt = promptPath ? model.sections[promptPath[1] as string]?.body : undefined;
    if (meta.tools !== undefined) {
      step.type = "investigate";
      if (prompt && promptPath)
        this.put(step, "description", prompt, [...to, "description"], promptPath, document);
      return this.suggestedCalls(meta.tools, to, step, document);
    }
    const executor = meta.executor ?? "llm";
    if (!MODEL_EXECUTORS.has(executor.toLowerCase())) {
      this.report(
        "dialect-unmapped",
        m("executor"),
        `the executor '${executor}' runs the skill's code file; playbooks here run no package code`,
        "describe the work as a prompt (`executor: llm`), name the tools the skill calls (`tools:`), or write a v1 `script` step",
        false,
        document,
      );
      return fallback();
    }
    if (!prompt || !promptPath) {
      this.report(
        "dialect-invalid",
        [],
        `the skill ${file} has neither a '## Prompt' nor a '## Description' to give the model`,
        "add a `## Prompt` section",
        false,
        document,
      );
      return fallback();
    }
    step.type = "ai";
    this.put(step, "prompt", prompt, [...to, "prompt"], promptPath, document);
  }

  /** The skill's Markdown file, read (its issues reported); undefined when it cannot be. */
  private skillFile(
    s: MarkdownStep,
    name: string,
    file: string,
    where: PathSegment[],
  ): ParsedMarkdown | undefined {
    const text = NAME.test(name) ? this.siblings.read(file) : undefined;
    if (text === undefined) {
      this.report(
        "dialect-invalid",
        where,
        `step '${s.id}' uses the skill '${name}', but the package has no ${file}`,
        `add ${file}, or name a skill the package has`,
      );
      return undefined;
    }
    const parsed = parseCortexMarkdown(`${this.dir}${file}`, text, this.limits);
    if (!parsed.ok) {
      this.report("dialect-invalid", where, `the skill file ${file} is too large to read`);
      return undefined;
    }
    const { document } = parsed.parsed;
    for (const issue of parsed.parsed.issues)
      this.report("dialect-invalid", issue.path, issue.message, issue.hint, false, document);
    return parsed.parsed;
  }

  /** A skill's `tools:` (`server/tool`, comma-separated) as the step's suggested calls. */
  private suggestedCalls(
    list: string,
    to: PathSegment[],
    step: Json,
    document: SourceDocument,
  ): void {
    const at: PathSegment[] = ["sections", "metadata", "fields", "tools"];
    const tools = list
      .split(",")
      .map((t) => t.trim().replace(/^`|`$/g, ""))
      .filter(Boolean);
    const calls: Json[] = [];
    for (const tool of tools) {
      if (!TOOL.test(tool)) {
        this.report(
          "dialect-invalid",
          at,
          `the skill's tool '${tool}' is not written <server>/<tool>`,
          undefined,
          false,
          document,
        );
        continue;
      }
      calls.push({ tool });
      this.b.locate([...to, "suggested_calls", calls.length - 1], at, document, true);
    }
    step.suggested_calls = calls;
    this.b.locate([...to, "suggested_calls"], at, document);
  }

  /** A contract file named by a step, as the JSON Schema of what enters or leaves it. */
  private contract(
    name: string,
    at: PathSegment[],
    to: PathSegment[],
    step: Json,
    key: string,
  ): void {
    const file = `contracts/${name}.schema.json`;
    const text = NAME.test(name) ? this.siblings.read(file) : undefined;
    if (text === undefined) {
      this.report(
        "dialect-invalid",
        at,
        `the contract '${name}' does not exist: the package has no ${file}`,
        `add ${file}, or name a contract the package has`,
      );
      return;
    }
    const loaded = loadSourceText(`${this.dir}${file}`, text, this.limits);
    if (!loaded.ok) {
      const first = loaded.problems[0];
      this.problems.push({
        rule: "dialect-invalid",
        path: "",
        span: {
          ...(first?.span ?? { line: 1, column: 1, endLine: 1, endColumn: 1 }),
          file: `${this.dir}${file}`,
        },
        message: `the contract ${file} is not valid JSON: ${first?.message ?? "it does not parse"}`,
        hint: first?.hint ?? "fix the file",
      });
      return;
    }
    const schema = loaded.document.value;
    if (!isObject(schema)) {
      this.report(
        "dialect-invalid",
        [],
        `the contract ${file} is not a JSON Schema: a schema is an object`,
        'write an object such as `{ "type": "object", "properties": { … } }`',
        false,
        loaded.document,
      );
      return;
    }
    this.put(step, key, schema, to, [], loaded.document);
  }

  private onError(
    s: MarkdownStep,
    at: PathSegment[],
    to: PathSegment[],
    step: Json,
    errorDefault: { policy: string; at: PathSegment[] } | undefined,
  ): void {
    const f = (key: string): PathSegment[] => [...at, "fields", key];
    const retries = s.fields.retries;
    const written = s.fields["on-error"];
    if (retries !== undefined && written !== undefined) {
      this.report(
        "dialect-invalid",
        f("retries"),
        `step '${s.id}' has both retries and on-error`,
        "write `- **on-error**: retry <n>` and remove retries",
      );
      return;
    }
    if (retries !== undefined) {
      const policy = this.policy(`retry ${retries}`, f("retries"));
      if (policy) this.put(step, "on_error", policy, [...to, "on_error"], f("retries"));
    } else if (written !== undefined) {
      const policy = this.policy(written, f("on-error"));
      if (policy) this.put(step, "on_error", policy, [...to, "on_error"], f("on-error"));
    } else if (errorDefault)
      this.put(step, "on_error", errorDefault.policy, [...to, "on_error"], errorDefault.at);
  }

  /** A failure behaviour in v1's words: fail, continue, ignore, retry:N. */
  private policy(value: string, at: PathSegment[]): string | undefined {
    const v = value.trim().toLowerCase();
    const retry = /^retry\s*:?\s*(\d+)(\s*times?)?$/.exec(v);
    if (retry) {
      const n = Number(retry[1]);
      if (n >= 1 && n <= 99) return `retry:${n}`;
      this.report("dialect-invalid", at, `a step may be retried 1 to 99 times, not ${n}`);
      return undefined;
    }
    if (v === "fail" || v === "continue" || v === "ignore") return v;
    this.report(
      "dialect-unmapped",
      at,
      `the failure behaviour '${value}' has no equivalent here (escalation to someone is not a step's failure policy)`,
      "write fail, continue, ignore or retry <n>; add a checkpoint step to hand a decision to a person",
    );
    return undefined;
  }

  private tier(value: string, at: PathSegment[]): string | undefined {
    const tier = AUTHORITY[value.trim()];
    if (!tier)
      this.report(
        "dialect-invalid",
        at,
        `'${value}' is not an authority tier`,
        "write JustDoIt, DoItAndShowMe or AskMeFirst",
      );
    return tier;
  }

  private requirements(out: Json): void {
    const text = this.siblings.read("requirements.md");
    if (text === undefined) return;
    const parsed = parseCortexMarkdown(`${this.dir}requirements.md`, text, this.limits);
    if (!parsed.ok) {
      this.report("dialect-invalid", [], "requirements.md is too large to read");
      return;
    }
    const { model, document } = parsed.parsed;
    const requires: Json = {};
    for (const [name, section] of Object.entries(model.sections)) {
      const kind =
        name === "secrets" || name === "api keys"
          ? "secrets"
          : name === "tools"
            ? "tools"
            : undefined;
      const items = section.items.map((item, i) => ({
        name:
          item
            .replace(/^\[[ xX]\]\s*/, "")
            .split(/\s+/)[0]
            ?.replace(/^`|`$/g, "") ?? "",
        at: ["sections", name, "items", i] as PathSegment[],
      }));
      if (!kind) {
        for (const item of items)
          this.report(
            "dialect-unmapped",
            item.at,
            `'${item.name}' (${name}) cannot be checked before a run: only secrets and tools can`,
            "make sure the runner has it, and keep the note in the playbook's description",
            false,
            document,
          );
        continue;
      }
      const names: string[] = [];
      for (const item of items) {
        const ok = kind === "secrets" ? SECRET.test(item.name) : TOOL.test(item.name);
        if (!ok) {
          this.report(
            "dialect-invalid",
            item.at,
            kind === "secrets"
              ? `'${item.name}' is not a secret name (capital letters, digits and '_')`
              : `'${item.name}' is not a tool written <server>/<tool>`,
            undefined,
            false,
            document,
          );
          continue;
        }
        this.b.locate(["requires", kind, names.length], item.at, document);
        names.push(item.name);
      }
      if (names.length) {
        requires[kind] = names;
        this.b.locate(["requires", kind], ["sections", name], document);
      }
    }
    if (Object.keys(requires).length) {
      out.requires = requires;
      this.b.locate(["requires"], [], document);
    }
  }
}

/** The steps' indexes in written order, each moved after the steps it depends on (no cycle). */
function topologicalOrder(steps: MarkdownStep[]): number[] {
  const index = new Map(steps.map((s, i) => [s.id, i]));
  const placed = new Set<number>();
  const order: number[] = [];
  const place = (i: number): void => {
    if (placed.has(i)) return;
    placed.add(i);
    for (const need of needsOf(steps[i] as MarkdownStep)) {
      const j = index.get(need);
      if (j !== undefined) place(j);
    }
    order.push(i);
  };
  steps.forEach((_, i) => place(i));
  return order;
}

const needsOf = (s: MarkdownStep): string[] =>
  (s.fields["depends-on"] ?? "")
    .split(",")
    .map((d) => d.trim())
    .filter(Boolean);

/** A circle through the steps' depends-on, as the ids along it; else undefined. */
function cycleIn(steps: MarkdownStep[]): string[] | undefined {
  const needs = new Map(steps.map((s) => [s.id, needsOf(s)]));
  return cycleAmong(
    steps.map((s) => s.id),
    (id) => needs.get(id) ?? [],
  );
}
