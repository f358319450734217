import { yamlLibrary } from "../../format/yaml-library.js";
import type { DialectCode } from "../../rules/syntax/dialect-conversion.js";
import type { PathSegment, SourceDocument } from "../../format/source.js";
import { DialectConversion, isObject, type Json } from "../conversion.js";
import { getEnvName, getNames, nodeProgram, shellText } from "./scripts.js";
import { ExpressionError } from "../../format/expression-error.js";
import {
  catalystTruthy,
  jsSubsetText,
  parseJsSubset,
  type JsNode,
} from "../../format/js-subset.js";

/**
 * Catalyst's YAML playbooks: steps that name their action by their first key ("action as key":
 * `git-branch: name`, `ai-prompt: text`), `if`/`then`/`else`, `for-each`, `${{ get('x') }}`
 * conditions, bare-name `{{x}}` templates, `var`, `catch` and `finally`. Each step becomes the v1
 * step that does what Catalyst's engine does; where the bot has no checkout (files, `xe://`),
 * the repository on GitHub stands in for it.
 */

export const CATALYST_HINTS: Record<DialectCode, string> = {
  "dialect-unmapped":
    "rewrite this part in the v1 format (`playbook-bot import <file>` converts the rest)",
  "dialect-invalid": "Catalyst's own validator refuses this too: fix it in the file",
  "dialect-drift":
    "nothing needs to change: it is read the way Catalyst reads it (`playbook-bot import <file>` writes the v1 equivalent)",
};

/** Keys of a step that are not its action (Catalyst's reserved keys). */
const RESERVED = new Set(["name", "errorPolicy", "isolated"]);
const INPUT_TYPES = ["string", "number", "boolean"] as const;
/** Catalyst's error actions that v1's on_error expresses. */
const ERROR_ACTIONS: Record<string, string> = {
  stop: "fail",
  continue: "continue",
  silentlycontinue: "ignore",
  ignore: "ignore",
};
const MAX_STEPS = 2000;
const MAX_NESTING = 16;
/** Catalyst's path protocol for the project's own `.xe/` folder; reads try these endings. */
const XE_ENDINGS = [".md", ".json"];
/** Protocols naming files the bot has no copy of (Catalyst's package, its temp folder). */
const FOREIGN_PROTOCOL = /^(catalyst|temp):\/\//;
/** A v1 condition of the `${{ … }}` form. */
const ifOf = (condition: string): string => `\${{ ${condition} }}`;

/**
 * Whether a condition's value is false as Catalyst's `if` reads it (false, 0, empty, or the text
 * `false`, `null` or `undefined`), written in the expression subset: JavaScript's `!` alone
 * would call the text `false` true. A value that is not a text has no `trim` (undefined).
 */
const falsyIn = (c: string): string =>
  `(!(${c}) || ["", "false", "null", "undefined"].includes((${c}).trim().toLowerCase()))`;
const truthyIn = (c: string): string => (c === "true" || c === "false" ? c : `!${falsyIn(c)}`);

/** A dotted v1 reference as a reference of a condition. */
const refOf = (dotted: string): JsNode => ({ k: "ref", path: dotted.split("."), offset: 0 });

/** Today's date as Catalyst's earliest playbooks wrote it, in JavaScript. */
const TODAY_IDIOM = /^new Date\(\)\.toISOString\(\)\.split\(\s*'T'\s*\)\[0\]$/;

/** What a named step's result is, in v1: how `{{name}}` and `{{name.path}}` read it. */
interface Named {
  id: string;
  /** The v1 output a bare `{{name}}` reads. */
  main: string;
  /** Catalyst field names of the result → the v1 output (or output path) holding them. */
  fields?: Record<string, string>;
  /** For a tool read: its call, whose `outputs` grow with what later steps read. */
  call?: { outputs: Record<string, string>; results: Record<string, string> };
  /** A `for-each` body step: its outputs are per item, unreadable from the other body steps. */
  loop?: Loop;
  /** Result fields known when converting (a written file's path and content): their text. */
  texts?: Record<string, string>;
}

interface Loop {
  item: string;
  index: string;
  /** The v1 template of the list. */
  over: string;
}

interface Scope {
  /** The condition the steps of this list run under (from enclosing `if`s), inside `${{ }}`. */
  condition?: string;
  depth: number;
  loop?: Loop;
  /** The v1 on_error of steps in this list (playbook-level catch and finally). */
  onError?: Json;
}

/** Where a v1 step and its fields came from, located once the list is final. */
interface Origin {
  at: PathSegment[];
  fields: [PathSegment[], PathSegment[]][];
}

/** One action step being converted: its action and config, and the v1 step it becomes. */
interface ActionStep {
  action: string;
  config: Json;
  /** The v1 step being filled. */
  out: Json;
  /** Where the action stands in the file. */
  here: PathSegment[];
  origin: Origin;
  scope: Scope;
  /** The action's main value: the action's own scalar, or key `p` of its mapping. */
  primary(p: string): unknown;
  /** Where a config key stands: inside the action's mapping, or beside the action. */
  from(key: string): PathSegment[];
  /** A value as a v1 template, located at `where` (the action by default). */
  t(v: unknown, where?: PathSegment[]): unknown;
}

/** An action reported rather than converted: no step is added for it. */
const REFUSED = Symbol("refused");
type Refused = typeof REFUSED;

/** How Catalyst's read actions become calls of the built-in GitHub tools. */
const READS: Record<
  string,
  { tool: string; arg: string; main: string; extra?: Json; results?: Record<string, string> }
> = {
  "file-read": { tool: "github/file_read", arg: "path", main: "content" },
  "json-read": { tool: "github/file_read", arg: "path", main: "value", extra: { json: true } },
  "file-exists": {
    tool: "github/file_read",
    arg: "path",
    main: "exists",
    extra: { missing_ok: true },
  },
  "file-list": { tool: "github/file_list", arg: "path", main: "names" },
  "github-issue-get": { tool: "github/issue_get", arg: "number", main: "" },
  "github-issue-find": { tool: "github/issue_find", arg: "query", main: "items" },
  "github-repo-info": { tool: "github/repo_info", arg: "", main: "" },
  "github-repo": { tool: "github/repo_info", arg: "", main: "" },
  "github-pr-get": {
    tool: "github/pull_request_get",
    arg: "number",
    main: "",
    // GitHub's pull request as Catalyst returned it → the tool's flatter result.
    results: { "head.ref": "head", "base.ref": "base", html_url: "url", "user.login": "author" },
  },
  "github-pr-threads": {
    tool: "github/review_threads",
    arg: "number",
    main: "threads",
  },
};

/** Catalyst result fields of the v1 steps the actions become. */
const FIELDS: Record<string, Record<string, string>> = {
  branch: { branch: "name", name: "name", sha: "sha" },
  commit: { sha: "sha", commit: "sha", branch: "branch" },
  pull_request: {
    number: "number",
    prNumber: "number",
    url: "url",
    prUrl: "url",
    html_url: "url",
    head: "head",
  },
  issue: { number: "number", issueNumber: "number", url: "url", html_url: "url" },
  comment: { id: "id", url: "url", html_url: "url" },
  script: { exitCode: "exit_code", exit_code: "exit_code", stdout: "stdout", stderr: "stderr" },
};
const MAIN_OUTPUT: Record<string, string> = {
  ai: "text",
  branch: "name",
  commit: "sha",
  pull_request: "number",
  issue: "number",
  comment: "id",
  script: "stdout",
  checkpoint: "choice",
};

/** What a step of a v1 kind returns, as later Catalyst steps name it. */
function namedOutputs(kind: string): Named {
  return {
    id: "",
    main: MAIN_OUTPUT[kind] ?? "value",
    ...(FIELDS[kind] ? { fields: FIELDS[kind] } : {}),
  };
}

export class CatalystYamlConversion extends DialectConversion {
  private readonly inputs = new Set<string>();
  /** Catalyst step names (variables) → what they are in v1. */
  private readonly named = new Map<string, Named>();
  /** `var` names → the v1 template text of their value. */
  private readonly aliases = new Map<string, string>();
  private readonly ids = new Set<string>();
  private readonly origins = new WeakMap<Json, Origin>();
  private steps: Json[] = [];
  private outputs: Json | undefined;
  private loops = false;

  constructor(doc: SourceDocument) {
    super(doc, CATALYST_HINTS);
  }

  convert(): SourceDocument {
    const src = this.doc.value;
    const out: Json = { apiVersion: "playbook-bot/v1" };
    if (!isObject(src)) {
      this.report("dialect-invalid", [], "a Catalyst playbook is a mapping of fields");
      return this.b.build(out);
    }
    this.header(src, out);
    if (src.inputs !== undefined) this.convertInputs(src.inputs, out);
    const handlers = this.handlers(src);
    if (!Array.isArray(src.steps) || src.steps.length === 0)
      this.report(
        "dialect-invalid",
        ["steps"],
        'Playbook must have at least one step in "steps" array',
        "add a step",
      );
    else this.mainSteps(src, handlers);
    if (src.resources !== undefined)
      this.report(
        "dialect-unmapped",
        ["resources"],
        "'resources' (locks on paths and branches) has no v1 equivalent; Catalyst's YAML loader drops it too",
        "remove it: one run per issue is the bot's lock",
        true,
      );
    if (this.steps.length) {
      out.steps = this.steps;
      this.b.locate(["steps"], ["steps"]);
      this.steps.forEach((step, i) => {
        const o = this.origins.get(step);
        if (!o) return;
        this.b.locate(["steps", i], o.at);
        for (const [to, from] of o.fields) this.b.locate(["steps", i, ...to], from);
      });
    }
    // Catalyst runs one step at a time, loops included.
    if (this.loops) out.limits = { max_parallel: 1 };
    if (this.outputs) out.outputs = this.outputs;
    if (isObject(src.outputs))
      for (const name of Object.keys(src.outputs))
        if (!this.outputs || !(name in this.outputs))
          this.report(
            "dialect-drift",
            ["outputs", name],
            `output '${name}' is declared with a type only; no \`return\` sets it, so the converted playbook has no value for it`,
            "set it in the final `return:`",
            true,
          );
    return this.b.build(out);
  }

  private header(src: Json, out: Json): void {
    const idKey = typeof src.name === "string" ? "name" : "id";
    const id = src[idKey];
    if (typeof id !== "string" || !id.trim())
      this.report(
        "dialect-invalid",
        [idKey],
        'Playbook must have a non-empty "name" field',
        "add `name: <kebab-case-name>`",
      );
    else {
      this.put(out, "id", id, ["id"], [idKey]);
      this.put(out, "name", id, ["name"], [idKey]);
      if (idKey === "id")
        this.report(
          "dialect-drift",
          ["id"],
          "Catalyst's format names a playbook with `name:`; `id:` is read as the name, as the bundled playbooks use it",
          undefined,
          true,
        );
    }
    for (const field of ["description", "owner"] as const) {
      if (typeof src[field] !== "string" || !(src[field] as string).trim())
        this.report(
          "dialect-invalid",
          [field],
          `Playbook must have a non-empty "${field}" field`,
          `add \`${field}:\``,
        );
    }
    const text = (v: unknown) => typeof v === "string";
    this.copySame(src, out, "description", text);
    this.copySame(src, out, "owner", text);
    this.copySame(src, out, "reviewers", isObject);
    if (src.triggers !== undefined) this.triggers(src.triggers, out);
  }

  /**
   * Catalyst's GitHub event triggers. Its engine does nothing with them; the bot starts a run
   * for the ones it can: a label added to an issue. The others are reported, not dropped.
   */
  private triggers(triggers: unknown, out: Json): void {
    if (!Array.isArray(triggers))
      return this.report("dialect-invalid", ["triggers"], "triggers is a list of {event, action}");
    const labels: string[] = [];
    triggers.forEach((t, i) => {
      const at: PathSegment[] = ["triggers", i];
      if (!isObject(t) || typeof t.event !== "string")
        return this.report("dialect-invalid", at, "a trigger is {event, action, args?}");
      const label = isObject(t.args) ? t.args.label : undefined;
      if (t.event === "issues" && t.action === "labeled" && typeof label === "string") {
        labels.push(label);
        return;
      }
      this.report(
        "dialect-drift",
        at,
        `the trigger '${t.event}${typeof t.action === "string" ? `.${t.action}` : ""}' does not start this playbook: Catalyst's engine does not act on triggers, and the bot starts runs from issue labels and \`/run\``,
        "start it with `/run <id>`, or add a trigger `{event: issues, action: labeled, args: {label: …}}`",
      );
    });
    if (labels.length) {
      out.on = { labels };
      this.b.locate(["on"], ["triggers"]);
    }
  }

  private convertInputs(list: unknown, out: Json): void {
    if (!Array.isArray(list)) {
      this.report("dialect-invalid", ["inputs"], "inputs must be a list of parameters");
      return;
    }
    const inputs: Json = {};
    list.forEach((item, i) => {
      const at: PathSegment[] = ["inputs", i];
      if (!isObject(item)) return this.report("dialect-invalid", at, "an input is a mapping");
      const type = INPUT_TYPES.find((t) => t in item);
      if (!type)
        return this.report(
          "dialect-invalid",
          at,
          "Input parameter missing type (string, number, or boolean)",
          "start the item with `string: <name>`, `number: <name>` or `boolean: <name>`",
        );
      const name = item[type];
      if (typeof name !== "string")
        return this.report("dialect-invalid", [...at, type], "an input's name is a string");
      const spec: Json = { type, required: item.required === true };
      const to: PathSegment[] = ["inputs", name];
      this.b.locate(to, [...at, type]);
      if (typeof item.description === "string")
        this.put(
          spec,
          "description",
          item.description,
          [...to, "description"],
          [...at, "description"],
        );
      if (item.default !== undefined)
        this.put(spec, "default", item.default, [...to, "default"], [...at, "default"]);
      if (Array.isArray(item.allowed)) {
        spec.type = "enum";
        this.put(spec, "values", item.allowed.map(String), [...to, "values"], [...at, "allowed"]);
      }
      if (item.validation !== undefined)
        this.validation(item.validation, [...at, "validation"], spec, to);
      inputs[name] = spec;
      this.inputs.add(name);
    });
    out.inputs = inputs;
    this.b.locate(["inputs"], ["inputs"]);
  }

  private validation(rules: unknown, at: PathSegment[], spec: Json, to: PathSegment[]): void {
    if (!Array.isArray(rules))
      return this.report("dialect-invalid", at, "validation is a list of rules");
    rules.forEach((rule, i) => {
      const here = [...at, i];
      if (!isObject(rule))
        return this.report("dialect-invalid", here, "a validation rule is a mapping");
      if (typeof rule.regex === "string")
        this.put(spec, "pattern", rule.regex, [...to, "pattern"], [...here, "regex"]);
      else if ("min" in rule || "max" in rule) {
        if (typeof rule.min === "number")
          this.put(spec, "min", rule.min, [...to, "min"], [...here, "min"]);
        if (typeof rule.max === "number")
          this.put(spec, "max", rule.max, [...to, "max"], [...here, "max"]);
      } else if ("minLength" in rule || "maxLength" in rule) {
        const min = typeof rule.minLength === "number" ? rule.minLength : 0;
        const max = typeof rule.maxLength === "number" ? String(rule.maxLength) : "";
        this.put(spec, "pattern", `^[\\s\\S]{${min},${max}}$`, [...to, "pattern"], [...here]);
      } else if ("script" in rule)
        return this.report(
          "dialect-unmapped",
          [...here, "script"],
          "a script validation rule runs code; v1 never evaluates code from a file",
          "use a regex rule instead",
          true,
        );
      else
        return this.report(
          "dialect-invalid",
          here,
          `Unknown validation rule type in ${JSON.stringify(rule).slice(0, 80)}`,
        );
      if (rule.code !== undefined || rule.message !== undefined)
        this.report(
          "dialect-drift",
          here,
          "the rule's own error code and message are not kept: a failing value is reported with v1's input error",
          undefined,
        );
    });
  }

  // ---- catch and finally -------------------------------------------------------------------

  /** The first step ids of the playbook's catch blocks and of its finally-after-failure. */
  private handlers(src: Json): {
    catches: { code: string; at: PathSegment[] }[];
    finally: boolean;
  } {
    const catches: { code: string; at: PathSegment[] }[] = [];
    if (src.catch !== undefined) {
      if (!Array.isArray(src.catch))
        this.report(
          "dialect-invalid",
          ["catch"],
          'Playbook "catch" must be an array of catch blocks',
          "write catch: [{ code: <ErrorCode>, steps: [...] }]",
        );
      else
        src.catch.forEach((block, i) => {
          const at: PathSegment[] = ["catch", i];
          if (!isObject(block) || typeof block.code !== "string" || !block.code)
            return this.report(
              "dialect-invalid",
              at,
              `Catch block at index ${i} is missing required "code" property`,
              "add code: <ErrorCode>",
            );
          if (!Array.isArray(block.steps))
            return this.report(
              "dialect-invalid",
              at,
              `Catch block "${block.code}" is missing required "steps" array`,
              "add steps: [...]",
            );
          if (!/^[A-Za-z][A-Za-z0-9]*(-[A-Z0-9]+)*$/.test(block.code))
            return this.report(
              "dialect-invalid",
              [...at, "code"],
              `'${block.code}' is not an error code (letters and digits)`,
            );
          catches.push({ code: block.code, at });
        });
    }
    if (src.finally !== undefined && !Array.isArray(src.finally))
      this.report("dialect-invalid", ["finally"], '"finally" is a list of steps');
    return { catches, finally: Array.isArray(src.finally) && src.finally.length > 0 };
  }

  /**
   * The steps, then `finally` and a successful end; each catch block (its code's errors go
   * there), then `finally` again and a failed end — a caught error still fails the run, as in
   * Catalyst.
   */
  private mainSteps(
    src: Json,
    handlers: { catches: { code: string; at: PathSegment[] }[]; finally: boolean },
  ): void {
    const guarded = handlers.catches.length > 0 || handlers.finally;
    const ids = {
      catches: handlers.catches.map((c) => this.reserveId(`catch-${c.code}`)),
      failed: guarded ? this.reserveId("finally-after-failure") : "",
    };
    let onError: Json | undefined;
    if (guarded) {
      onError = { default: `goto:${ids.failed}` };
      handlers.catches.forEach((c, i) => {
        (onError as Json)[c.code] = `goto:${ids.catches[i]}`;
      });
      this.report(
        "dialect-drift",
        handlers.catches.length ? ["catch"] : ["finally"],
        "a step's error goes to the catch block of its code (Catalyst's own codes; v1's codes are the GH-… and PB-… ones) and then to `finally`; the run still ends failed, as in Catalyst",
        undefined,
        true,
      );
    }
    const steps = src.steps as unknown[];
    const last = steps[steps.length - 1];
    const endsWithReturn = isObject(last) && firstAction(last) === "return";
    this.list(endsWithReturn && guarded ? steps.slice(0, -1) : steps, ["steps"], {
      depth: 0,
      onError,
    });
    if (!guarded) return;
    const main = this.steps.length;
    this.list(src.finally ?? [], ["finally"], { depth: 0 });
    if (endsWithReturn) this.list([last], ["steps", steps.length - 1], { depth: 0 });
    else this.endStep("completed", "success", ["steps"]);
    const blocks = src.catch as Json[];
    handlers.catches.forEach((c, i) => {
      const first = this.steps.length;
      this.list((blocks[Number(c.at[1])] as Json).steps, [...c.at, "steps"], { depth: 0 });
      const firstStep = this.steps[first];
      if (firstStep) firstStep.id = ids.catches[i];
      else this.note(ids.catches[i] as string, `Error ${c.code} caught.`, c.at);
      // A catch block goes on to finally, not into the next block (unless it ends the run).
      const last = this.steps[this.steps.length - 1] as Json;
      if (last.type !== "end") last.next = ids.failed;
    });
    const first = this.steps.length;
    this.list(src.finally ?? [], ["finally"], { depth: 0 });
    const firstFinal = this.steps[first];
    if (firstFinal) firstFinal.id = ids.failed;
    else this.note(ids.failed, "The playbook failed; there is no finally.", ["steps"]);
    this.endStep("failed", "failure", ["steps"]);
    // With no step converted, nothing leads to the handlers: their own problems are reported.
    if (main === 0) this.steps = [];
  }

  /** A comment step that only says where the run is (a catch block with no steps). */
  private note(id: string, body: string, at: PathSegment[]): void {
    const step: Json = { id, type: "comment", body };
    this.origins.set(step, { at, fields: [] });
    this.steps.push(step);
  }

  private endStep(suffix: string, status: string, at: PathSegment[]): void {
    const step: Json = { id: this.reserveId(suffix), type: "end", status };
    this.origins.set(step, { at, fields: [] });
    this.steps.push(step);
  }

  // ---- steps -------------------------------------------------------------------------------

  private list(steps: unknown, at: PathSegment[], scope: Scope): void {
    if (!Array.isArray(steps)) return this.report("dialect-invalid", at, "a step list is a list");
    if (scope.depth > MAX_NESTING)
      return this.report("dialect-invalid", at, `steps are nested more than ${MAX_NESTING} deep`);
    steps.forEach((step, i) => this.step(step, [...at, i], scope));
  }

  private step(step: unknown, at: PathSegment[], scope: Scope): void {
    if (this.steps.length >= MAX_STEPS) return;
    if (!isObject(step))
      return this.report("dialect-invalid", at, "a step is a mapping with an action key");
    const action = firstAction(step);
    if (!action)
      return this.report(
        "dialect-invalid",
        at,
        'Step must have a non-empty "action" field',
        "add the action as the step's first key",
      );
    const value = step[action];
    const extra: Json = {};
    for (const [k, v] of Object.entries(step)) if (k !== action && !RESERVED.has(k)) extra[k] = v;
    const config: Json = isObject(value) ? { ...value, ...extra } : { ...extra };
    const here = [...at, action];
    const primary = (p: string): unknown => (isObject(value) || value === null ? config[p] : value);
    const from = (key: string): PathSegment[] =>
      isObject(value) && key in value ? [...here, key] : [...at, key];
    if (action === "if" || action === "if-not") return this.conditional(step, action, at, scope);
    if (action === "for-each") return this.forEach(config, primary, at, scope);
    if (action === "var") return this.variable(config, primary, at, from, scope);
    const s: ActionStep = {
      action,
      config,
      here,
      scope,
      primary,
      from,
      out: { id: "", description: `Catalyst ${action} step` },
      origin: { at, fields: [[["type"], here]] },
      t: (v, where = here) => this.template(v, where, scope),
    };
    const convert =
      action in READS
        ? () => this.read(action, primary, config, s.out, here, scope)
        : Object.hasOwn(this.actions, action)
          ? this.actions[action]
          : undefined;
    if (!convert) return this.missingAction(step, action, at, s);
    const named = convert(s);
    if (named !== REFUSED) this.place(step, action, at, s, named);
  }

  /**
   * An action Catalyst's engine does not have either (its test fixtures' `custom-action`): the
   * file loads there and the run fails when it reaches the step (ActionNotFound). So here: a
   * warning at the step, and a step that ends the run there, failed, saying why.
   */
  private missingAction(step: Json, action: string, at: PathSegment[], s: ActionStep): void {
    this.report(
      "dialect-drift",
      s.here,
      `'${action}' is not an action Catalyst's engine has: the file loads, and a run stops at this step (as Catalyst's stops with ActionNotFound)`,
      "use one of Catalyst's actions (ai-prompt, git-branch, git-commit, github-pr-create, …), or write the step in v1",
      true,
    );
    Object.assign(s.out, {
      type: "end",
      status: "failure",
      conclusion: "ActionNotFound",
      advice: `The playbook's step '${action}' names an action that neither Catalyst's engine nor this bot has, so the run stops here.`,
    });
    this.place(step, action, at, s, undefined);
  }

  /** The converted step joins the list, with what its enclosing blocks and its name give it. */
  private place(
    step: Json,
    action: string,
    at: PathSegment[],
    { out, origin, scope }: ActionStep,
    named: Named | undefined,
  ): void {
    out.id = this.idFor(step, action);
    if (scope.condition) out.if = ifOf(scope.condition);
    if (scope.loop) out.for_each = scope.loop.over;
    if (step.errorPolicy !== undefined)
      this.errorPolicy(step.errorPolicy, [...at, "errorPolicy"], out, origin);
    else if (scope.onError) out.on_error = scope.onError;
    if (named) {
      named.id = String(out.id);
      if (scope.loop) named.loop = scope.loop;
      if (typeof step.name === "string") this.named.set(step.name, named);
    }
    this.origins.set(out, origin);
    this.steps.push(out);
  }

  /**
   * How each of Catalyst's actions (but reads and control flow) fills its v1 step: what the
   * step's result is called by later steps, or REFUSED when the action is reported instead.
   */
  private readonly actions: Record<string, (s: ActionStep) => Named | undefined | Refused> = {
    "ai-prompt": (s) => this.aiPrompt(s),
    markdown: (s) => this.aiPrompt(s),
    "git-branch": ({ out, config, primary, t }) => {
      out.type = "branch";
      out.name = t(primary("name"));
      // Catalyst branches from the checkout, which holds the run's work so far.
      const current = this.lastBranch();
      if (current) out.from = current;
      if (config.mustBeNew === true) out.if_exists = "fail";
      return namedOutputs("branch");
    },
    "git-commit": ({ out, config, primary, here, t }) => {
      out.type = "commit";
      out.message = t(primary("message"));
      out.branch = this.lastBranch() ?? this.runBranch(here);
      // Catalyst commits every change in the work tree.
      out.paths = ["**"];
      if (typeof config.push === "boolean") out.push = config.push;
      return namedOutputs("commit");
    },
    "file-write": (s) => this.fileWrite(s),
    "json-write": (s) => this.fileWrite(s),
    "gitignore-edit": (s) => this.fileWrite(s),
    checkpoint: ({ out, primary, t }) => {
      out.type = "checkpoint";
      out.message = t(primary("message"));
      return namedOutputs("checkpoint");
    },
    "github-pr-create": ({ out, config, primary, from, here, t }) => {
      out.type = "pull_request";
      out.title = t(primary("title"));
      out.head = this.lastBranch() ?? this.runBranch(here);
      if (config.body !== undefined) out.body = t(config.body, from("body"));
      return namedOutputs("pull_request");
    },
    "github-pr-await": ({ out, primary, here, t }) => {
      // A wait for a pull request opened elsewhere (a child playbook's) is a checkpoint.
      out.type = "checkpoint";
      out.message = `Waiting for pull request ${String(t(primary("pr")))} to be merged; approve when it is.`;
      this.report(
        "dialect-drift",
        here,
        "waiting for a pull request opened elsewhere becomes a checkpoint people approve once it is merged",
        undefined,
        true,
      );
      return namedOutputs("checkpoint");
    },
    "github-issue-create": ({ out, config, primary, from, t }) => {
      out.type = "issue";
      out.title = t(primary("title"));
      if (config.body !== undefined) out.body = t(config.body, from("body"));
      return namedOutputs("issue");
    },
    "github-issue-comment": (s) => this.comment(s),
    "github-pr-comment": (s) => this.comment(s),
    "github-pr-reply": (s) => this.comment(s),
    display: ({ out, primary, t }) => {
      out.type = "comment";
      out.body = t(primary("message"));
      return namedOutputs("comment");
    },
    playbook: (s) => this.childPlaybook(s),
    return: ({ out, config, here, scope }) => {
      if (scope.loop) {
        this.report(
          "dialect-unmapped",
          here,
          "a return inside a for-each: v1 ends a run from the main line only",
          "return after the loop",
        );
        return REFUSED;
      }
      this.returnStep(config, out, here, scope);
      return undefined;
    },
    bash: (s) => this.shell("bash", s),
    powershell: (s) => this.shell("powershell", s),
    script: ({ out, primary, here, scope }) => {
      this.jsScript(primary("code"), out, here, scope);
      return { id: "", main: "stdout", fields: {} };
    },
  };

  private aiPrompt({ out, config, primary, here, from, scope, origin }: ActionStep): Named {
    out.type = "ai";
    out.prompt = this.prompt(primary("prompt"), config, here, from, scope);
    const files = config.outputs ?? config.files;
    if (Array.isArray(files)) out.expect_files = files.map((f) => this.path(f, here, scope));
    if (typeof config.verify === "string") {
      out.verify = config.verify;
      origin.fields.push([["verify"], from("verify")]);
    }
    if (config.cache === true) out.cache = true;
    return { id: "", main: "text", fields: { value: "text", text: "text", response: "text" } };
  }

  private fileWrite({ action, primary, config, out, here, from, scope }: ActionStep): Named {
    return {
      ...namedOutputs("commit"),
      texts: this.write(action, primary, config, out, here, from, scope),
    };
  }

  private comment({ action, out, config, primary, from, t }: ActionStep): Named {
    out.type = "comment";
    out.issue = t(primary(action === "github-issue-comment" ? "issue" : "pr"));
    out.body = t(config.body, from("body"));
    if (action === "github-pr-reply") out.reply_to = t(config.commentId, from("commentId"));
    return namedOutputs("comment");
  }

  private childPlaybook({
    out,
    config,
    primary,
    here,
    from,
    scope,
    t,
  }: ActionStep): Named | Refused {
    if (scope.loop) {
      this.report(
        "dialect-unmapped",
        here,
        "a playbook started once per item of a for-each: v1 delegates to a playbook from the main line only",
        "start the child playbook after the loop, with the list as its input",
      );
      return REFUSED;
    }
    out.type = "playbook";
    out.mode = "delegate";
    out.playbook = primary("name");
    const inputs = config.inputs;
    if (isObject(inputs))
      out.with = Object.fromEntries(
        Object.entries(inputs).map(([k, v]) => [k, t(v, [...from("inputs"), k])]),
      );
    return { id: "", main: "value" };
  }

  private shell(shell: "bash" | "powershell", s: ActionStep): Named {
    this.shellScript(shell, s.primary("code"), s.config, s.out, s.here, s.scope);
    return namedOutputs("script");
  }

  /** A read becomes a call of a built-in GitHub tool that the bot makes itself. */
  private read(
    action: string,
    primary: (p: string) => unknown,
    config: Json,
    out: Json,
    here: PathSegment[],
    scope: Scope,
  ): Named {
    const spec = READS[action] as (typeof READS)[string];
    const args: Json = { ...spec.extra };
    const t = (v: unknown) => this.template(v, here, scope);
    if (spec.arg === "path") {
      const raw = primary("path");
      const xe = typeof raw === "string" ? /^xe:\/\/(.+)$/.exec(raw) : null;
      args.path = xe ? `.xe/${xe[1] as string}` : this.path(raw, here, scope);
      if (xe) args.extensions = XE_ENDINGS;
      if (typeof config.pattern === "string") args.pattern = config.pattern;
      const branch = this.lastBranch();
      if (branch) args.ref = branch;
    } else if (spec.arg === "number") {
      args.number = t(primary("number") ?? primary("pr") ?? primary("issue"));
    } else if (spec.arg === "query") args.query = t(primary("query"));
    if (action === "github-pr-threads" && typeof config.aiPlatform === "string") {
      // The bot's own replies in update-pull-request start with this marker.
      args.marker = `[Catalyst][${String(t(config.aiPlatform))}]`;
    }
    const outputs: Record<string, string> = { value: spec.main };
    out.type = "investigate";
    out.suggested_calls = [{ tool: spec.tool, args, run: "auto", required: true, outputs }];
    return {
      id: "",
      main: "value",
      call: { outputs, results: spec.results ?? {} },
    };
  }

  private prompt(
    text: unknown,
    config: Json,
    here: PathSegment[],
    from: (key: string) => PathSegment[],
    scope: Scope,
  ): unknown {
    let prompt = this.template(text, here, scope);
    if (typeof prompt !== "string") return prompt;
    if (isObject(config.context)) {
      const parts = Object.entries(config.context).map(
        ([k, v]) =>
          `### ${k}\n\n${String(this.template(typeof v === "string" ? v : JSON.stringify(v), [...from("context"), k], scope))}`,
      );
      prompt += `\n\n## Context\n\n${parts.join("\n\n")}`;
    }
    if (typeof config.return === "string")
      prompt += `\n\n## Answer\n\n${String(this.template(config.return, from("return"), scope))}`;
    return prompt;
  }

  /**
   * Catalyst writes into the checkout; the bot has none, so a write is a commit of that file on
   * the run's branch (the last git-branch), or on the default branch when none came before.
   */
  private write(
    action: string,
    primary: (p: string) => unknown,
    config: Json,
    out: Json,
    here: PathSegment[],
    from: (key: string) => PathSegment[],
    scope: Scope,
  ): Record<string, string> {
    const path = this.path(
      action === "json-write" ? config.path : primary("path"),
      here,
      scope,
      true,
    );
    let content: string;
    if (action === "json-write") {
      const v = primary("value");
      content =
        typeof v === "string"
          ? String(this.template(v, from("value"), scope))
          : `${JSON.stringify(v, null, 2)}\n`;
    } else if (action === "gitignore-edit") {
      const add = config.add;
      const lines = Array.isArray(add) ? add.map(String).join("\n") : String(add ?? "");
      const header = typeof config.header === "string" ? `# ${config.header}\n` : "";
      content = `${header}${String(this.template(lines, from("add"), scope))}\n`;
      this.report(
        "dialect-drift",
        here,
        "gitignore-edit merges lines into an existing file; the converted step writes the file with these lines",
        undefined,
        true,
      );
    } else {
      content = String(this.template(config.content ?? "", from("content"), scope));
      if (isObject(config.replace)) {
        for (const [a, b] of Object.entries(config.replace))
          content = content.split(a).join(String(b));
        if (/\{\{/.test(content))
          this.report(
            "dialect-drift",
            from("replace"),
            "replacements apply to the text as written, before its templates are filled",
            undefined,
            true,
          );
      }
      if (isObject(config["front-matter"])) {
        const fm = this.templates(config["front-matter"], from("front-matter"), scope);
        content = `---\n${yamlLibrary().dump(fm, { lineWidth: -1 }).trimEnd()}\n---\n${content}`;
      }
    }
    const branch = this.lastBranch() ?? this.runBranch(here);
    out.type = "commit";
    out.branch = branch;
    out.message = `${action} ${String(path)}`;
    out.files = [{ path, content }];
    return { path: String(path), content };
  }

  private returnStep(config: Json, out: Json, here: PathSegment[], scope: Scope): void {
    out.type = "end";
    out.status = "success";
    const outputs: Json = {};
    const values = isObject(config.outputs) ? config.outputs : config;
    for (const [k, v] of Object.entries(values))
      if (k === "message") out.advice = this.template(v, here, scope);
      else if (k === "code") out.conclusion = v;
      else if (k !== "outputs") {
        // A playbook's outputs are text here: `success: true` is returned as "true".
        const value = typeof v === "boolean" || typeof v === "number" || v === null ? String(v) : v;
        outputs[k] = this.template(value, here, scope);
        const from = isObject(config.outputs) ? [...here, "outputs", k] : [...here, k];
        this.b.locate(["outputs", k], from, this.doc, true);
      }
    if (Object.keys(outputs).length) this.outputs = outputs;
  }

  private shellScript(
    shell: "bash" | "powershell",
    code: unknown,
    config: Json,
    out: Json,
    here: PathSegment[],
    scope: Scope,
  ): void {
    if (typeof code !== "string")
      return this.report("dialect-invalid", here, "a script's code is text");
    const { text, refs, refused } = shellText(code, shell);
    for (const why of refused)
      this.report(
        "dialect-unmapped",
        here,
        why,
        "write the program's name in the script (`case {{tool}} in lint) npm run lint ;; esac`)",
      );
    const env: Json = {};
    for (const r of refs) {
      const before = this.problems.length;
      const value = this.template(`{{${r.expr}}}`, here, scope);
      // A reference already reported is not passed on to be reported again.
      if (this.problems.length === before) env[r.env] = value;
    }
    let run = text;
    if (config.cwd !== undefined) {
      env.CATALYST_CWD = this.template(config.cwd, here, scope);
      run =
        shell === "bash"
          ? `cd "\${CATALYST_CWD}"\n${run}`
          : `Set-Location -LiteralPath $env:CATALYST_CWD\n${run}`;
    }
    if (refs.length)
      this.report(
        "dialect-drift",
        here,
        `the script's {{…}} values reach it as environment variables (${refs.map((r) => `$${r.env}`).join(", ")}), never spliced into its text`,
        undefined,
        true,
      );
    out.type = "script";
    out.shell = shell;
    out.run = run;
    if (Object.keys(env).length) out.env = env;
  }

  private jsScript(code: unknown, out: Json, here: PathSegment[], scope: Scope): void {
    if (typeof code !== "string")
      return this.report("dialect-invalid", here, "a script's code is text");
    const env: Json = {};
    for (const name of getNames(code)) {
      const alias = this.aliases.get(name);
      if (alias !== undefined) {
        env[getEnvName(name)] = alias;
        continue;
      }
      const ref = this.reference(name, here, scope);
      if (ref !== undefined) env[getEnvName(name)] = ref.startsWith("{{") ? ref : `{{ ${ref} }}`;
    }
    out.type = "script";
    out.shell = "node";
    out.run = nodeProgram(code);
    if (Object.keys(env).length) out.env = env;
  }

  private conditional(step: Json, action: string, at: PathSegment[], scope: Scope): void {
    const raw = step[action];
    const cond = this.expression(isObject(raw) ? raw.condition : raw, [...at, action], scope);
    if (cond === undefined) return;
    const yes = action === "if" ? cond : falsyIn(cond);
    const no = action === "if" ? falsyIn(cond) : cond;
    const join = (c: string) =>
      scope.condition ? `${truthyIn(scope.condition)} && ${truthyIn(c)}` : c;
    this.list(step.then, [...at, "then"], {
      ...scope,
      condition: join(yes),
      depth: scope.depth + 1,
    });
    if (step.else !== undefined)
      this.list(step.else, [...at, "else"], {
        ...scope,
        condition: join(no),
        depth: scope.depth + 1,
      });
  }

  /**
   * `for-each: x, in: list, steps: [...]`: each body step repeats over the list (`{{x}}` is the
   * item). Catalyst runs the whole body for one item before the next; v1 runs each body step
   * over every item in turn — the same when the body is one step, or its steps do not read one
   * another's results.
   */
  private forEach(
    config: Json,
    primary: (p: string) => unknown,
    at: PathSegment[],
    scope: Scope,
  ): void {
    const here = [...at, "for-each"];
    if (scope.loop)
      return this.report(
        "dialect-unmapped",
        here,
        "a for-each inside a for-each: v1 repeats a step over one list at a time",
        "flatten the lists into one before the loop",
      );
    const item = primary("item") ?? "item";
    if (typeof item !== "string" || !/^[A-Za-z][\w-]*$/.test(item))
      return this.report("dialect-invalid", here, "the loop variable is a name");
    const over = this.template(config.in, [...at, "in"], scope);
    if (typeof over !== "string" || !/^\{\{[^{}]+\}\}$/.test(over.trim()))
      return this.report(
        "dialect-unmapped",
        [...at, "in"],
        "for-each `in:` is one {{reference}} to a list in v1",
        'write in: "{{step-name.field}}"',
      );
    if (!Array.isArray(config.steps) || config.steps.length === 0)
      return this.report("dialect-invalid", [...at, "steps"], "for-each needs steps: [...]");
    if (config.steps.length > 1)
      this.report(
        "dialect-drift",
        here,
        "each step of the loop runs for every item before the next step starts (Catalyst runs all the steps for one item, then the next item)",
        undefined,
        true,
      );
    this.loops = true;
    const index = typeof config.index === "string" ? config.index : "index";
    this.list(config.steps, [...at, "steps"], {
      ...scope,
      depth: scope.depth + 1,
      loop: { item, index, over },
    });
  }

  /** `var: name, value: v` names a value: later `{{name}}` reads it (set once, not changed). */
  private variable(
    config: Json,
    primary: (p: string) => unknown,
    at: PathSegment[],
    from: (key: string) => PathSegment[],
    scope: Scope,
  ): void {
    const name = primary("name");
    if (typeof name !== "string" || !/^[A-Za-z][\w-]*$/.test(name))
      return this.report("dialect-invalid", [...at, "var"], "a variable's name is a name");
    if (this.aliases.has(name) || this.named.has(name) || this.inputs.has(name))
      return this.report(
        "dialect-unmapped",
        [...at, "var"],
        `'${name}' is set again: v1 names each value once`,
        "use a new name for the new value",
      );
    if (scope.condition || scope.loop)
      this.report(
        "dialect-drift",
        [...at, "var"],
        `'${name}' is set inside an if or a loop; later steps read its value as written`,
        undefined,
        true,
      );
    const v = config.value;
    const value =
      typeof v === "string"
        ? this.rawProtocol(v, from("value"))
        : v === undefined
          ? ""
          : JSON.stringify(v);
    this.aliases.set(name, String(this.template(value, from("value"), scope)));
  }

  /** A plain value naming a Catalyst package or temp file: kept as text, with a warning. */
  private rawProtocol(v: string, at: PathSegment[]): string {
    if (FOREIGN_PROTOCOL.test(v))
      this.report(
        "dialect-drift",
        at,
        `'${v.slice(0, 80)}' names a file of Catalyst's own package or temp folder, which the bot does not have; the text is kept as it is`,
        undefined,
      );
    return v;
  }

  // ---- expressions and templates ------------------------------------------------------------

  /**
   * `${{ … }}` → the same JavaScript over the run's v1 values (`get('x')` becomes the reference
   * to `x`), interpreted within the subset of `js-subset.ts`; anything outside it is reported
   * where it is written.
   */
  private expression(v: unknown, at: PathSegment[], scope: Scope): string | undefined {
    if (typeof v === "boolean") return String(v);
    if (typeof v !== "string") {
      this.report("dialect-invalid", at, "a condition is a string or a boolean");
      return undefined;
    }
    const wrapped = /^\s*\$\{\{([\s\S]*)\}\}\s*$/.exec(v)?.[1];
    if (wrapped === undefined && v.trim() === "") {
      this.report("dialect-invalid", at, "a condition is not empty (Catalyst's if refuses it)");
      return undefined;
    }
    // Plain text is a condition by its own value, as Catalyst's if reads a text ('0' is true).
    if (wrapped === undefined && !v.includes("{{")) return String(catalystTruthy(v));
    const inner = wrapped ?? v;
    let node: JsNode;
    try {
      node = parseJsSubset(inner, 0, true);
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      this.reportInExpression(
        at,
        inner,
        err.offset,
        `the condition '${inner.trim().slice(0, 80)}': ${err.message}; the steps under it are not converted`,
      );
      return undefined;
    }
    const mapped = this.mapRefs(node, at, scope);
    return mapped && jsSubsetText(mapped);
  }

  /** A finding at a character of a condition, when the condition is written on one line. */
  private reportInExpression(
    at: PathSegment[],
    inner: string,
    offset: number,
    message: string,
  ): void {
    this.report(
      "dialect-unmapped",
      at,
      message,
      "use references (get('name')), comparisons, && || ! ?:, and text or list methods such as includes, startsWith, trim or length",
    );
    const problem = this.problems[this.problems.length - 1];
    const line = this.doc.text.split(/\r?\n/)[(problem?.span.line ?? 0) - 1];
    const from = line?.indexOf(inner, (problem?.span.column ?? 1) - 1) ?? -1;
    if (!problem || from < 0) return;
    const column = from + offset + 1;
    problem.span = {
      ...problem.span,
      line: problem.span.line,
      column,
      endLine: problem.span.line,
      endColumn: column + 1,
    };
  }

  /** Each Catalyst name of a tree as its v1 reference; undefined (reported) when one is not. */
  private mapRefs(n: JsNode, at: PathSegment[], scope: Scope): JsNode | undefined {
    const all = (xs: JsNode[]): JsNode[] | undefined => {
      const out = xs.map((x) => this.mapRefs(x, at, scope));
      return out.every((x) => x !== undefined) ? (out as JsNode[]) : undefined;
    };
    switch (n.k) {
      case "ref":
        return this.refNode(n.path, at, scope);
      case "lit": {
        if (!Array.isArray(n.v)) return n;
        const v = all(n.v);
        return v && { k: "lit", v };
      }
      case "get": {
        const [object, key] = all([n.object, n.key]) ?? [];
        return object && key && { k: "get", object, key };
      }
      case "call": {
        const [object, ...args] = all([n.object, ...n.args]) ?? [];
        return object && { ...n, object, args };
      }
      case "unary": {
        const arg = this.mapRefs(n.arg, at, scope);
        return arg && { ...n, arg };
      }
      case "binary": {
        const [left, right] = all([n.left, n.right]) ?? [];
        return left && right && { ...n, left, right };
      }
      case "cond": {
        const [test, then, otherwise] = all([n.test, n.then, n.otherwise]) ?? [];
        return test && then && otherwise && { ...n, test, then, otherwise };
      }
    }
  }

  /**
   * A Catalyst name read in a condition, as a v1 reference. A step of the same loop is read for
   * the item at hand: v1 has run it over every item already, its output is the list of them.
   */
  private refNode(path: string[], at: PathSegment[], scope: Scope): JsNode | undefined {
    const name = path.join(".");
    const xe = /^xe:\/\/(.+)$/.exec(name);
    if (xe) return refOf(this.xeRead(xe[1] as string, at, scope, "content"));
    const [head = "", ...rest] = path;
    const named = this.named.get(head);
    if (named?.loop && named.loop === scope.loop && !this.aliases.has(head)) {
      const [key = "", ...more] = this.output(named, rest).split(".");
      const list = refOf(["steps", named.id, "outputs", key].join("."));
      return more.reduce<JsNode>((object, f) => ({ k: "get", object, key: { k: "lit", v: f } }), {
        k: "get",
        object: list,
        key: { k: "ref", path: ["item_index"], offset: 0 },
      });
    }
    const ref = this.reference(name, at, scope);
    return ref === undefined ? undefined : refOf(ref);
  }

  /**
   * A Catalyst variable as a v1 reference (`inputs.x`, `steps.id.outputs.k`, `item.f`), or the
   * text of a `var`; undefined (reported) when it names nothing.
   */
  private reference(name: string, at: PathSegment[], scope: Scope): string | undefined {
    const [head = "", ...rest] = name.split(".");
    const loop = scope.loop;
    if (loop && head === loop.item) return ["item", ...rest].join(".");
    if (loop && head === loop.index && rest.length === 0) return "item_index";
    const alias = this.aliases.get(head);
    if (alias !== undefined) {
      const only = /^\{\{\s*([^{}\s]+)\s*\}\}$/.exec(alias);
      if (only) return [only[1], ...rest].join(".");
      this.report(
        "dialect-unmapped",
        at,
        `'${name}' is read as a value here, and '${head}' is text ('${alias.slice(0, 60)}')`,
        `use {{${head}}} inside text`,
      );
      return undefined;
    }
    if (this.inputs.has(head)) return ["inputs", head, ...rest].join(".");
    const named = this.named.get(head);
    if (named) {
      if (named.loop && named.loop !== loop)
        return ["steps", named.id, "outputs", this.output(named, rest)].join(".");
      const [key = "", ...more] = this.output(named, rest).split(".");
      // The same loop's step has run over every item already: its output lists them.
      if (named.loop && more.length === 0) return `steps.${named.id}.outputs.${key}[item_index]`;
      if (named.loop) {
        this.report(
          "dialect-unmapped",
          at,
          `'{{${name}}}' reads a field of step '${head}' for the same item: v1 reads the item's entry of a loop step's output only as a whole`,
          "compute what you need in one step, or loop in a child playbook",
        );
        return undefined;
      }
      return ["steps", named.id, "outputs", this.output(named, rest)].join(".");
    }
    if (rest.length === 0 && /^(inputs|steps|item|run|issue|repo)$/.test(head)) return name;
    if (head === "inputs" && rest.length > 0 && this.inputs.has(rest[0] as string))
      // Catalyst's documentation writes inputs.<name>, which its engine reads as undefined.
      return ["inputs", ...rest].join(".");
    this.report(
      "dialect-invalid",
      at,
      `'${name}' is not an input, a named step before this one, or a variable (Catalyst fails with "Variable '${head}' is undefined")`,
      "name the step that produces it (`name: …`), or declare the input",
    );
    return undefined;
  }

  /** The text of a `var`, or of a result field known when converting (a written file's). */
  private known(name: string, scope: Scope): string | undefined {
    const alias = this.aliases.get(name);
    if (alias !== undefined) return alias;
    const [head = "", field, ...more] = name.split(".");
    const named = this.named.get(head);
    if (!named?.texts || field === undefined || more.length || named.loop !== scope.loop)
      return undefined;
    return named.texts[field];
  }

  /** The v1 output (and path inside it) that reads `rest` of a named step's result. */
  private output(named: Named, rest: string[]): string {
    if (named.call) {
      const path = rest.join(".");
      if (!path) return "value";
      const result = named.call.results[path] ?? path;
      const name = `r_${rest.join("_").replace(/[^A-Za-z0-9_]/g, "_")}`.slice(0, 60);
      named.call.outputs[name] = result;
      return name;
    }
    const [first, ...more] = rest;
    if (first === undefined) return named.main;
    const field = named.fields?.[first];
    if (field) return [field, ...more].join(".");
    // The result's own field: a child playbook's output, a field of JSON text.
    return named.fields && named.main !== "value"
      ? [named.main, ...rest].join(".")
      : rest.join(".");
  }

  /** `{{path}}` → `{{ inputs.path }}` / `{{ steps.<id>.outputs.… }}`; `${{ … }}` values too. */
  private template(v: unknown, at: PathSegment[], scope: Scope): unknown {
    if (typeof v !== "string") return v;
    return v.replace(/\$?\{\{\s*([^{}]*?)\s*\}\}/g, (whole, expr: string) => {
      const xe = /^xe:\/\/([\w./-]+)$/.exec(expr);
      if (xe) {
        const ref = this.xeRead(xe[1] as string, at, scope, "content");
        return ref ? `{{ ${ref} }}` : whole;
      }
      if (/^(catalyst|temp):\/\/[\w./-]+$/.test(expr)) return this.rawProtocol(expr, at);
      if (TODAY_IDIOM.test(expr)) {
        this.report(
          "dialect-drift",
          at,
          "today's date is the day the run started ({{ run.date }}, UTC)",
          undefined,
        );
        return "{{ run.date }}";
      }
      const got = /^get\(\s*'([^':]*)'\s*\)$/.exec(expr)?.[1];
      const name = got ?? (/^[A-Za-z][\w.-]*$/.test(expr) ? expr : undefined);
      const alias = name === undefined ? undefined : this.known(name, scope);
      if (alias !== undefined) return alias;
      if (name !== undefined) {
        const ref = this.reference(name, at, scope);
        if (ref === undefined) return whole;
        return ref.includes("{{") ? ref : `{{ ${ref} }}`;
      }
      this.report(
        "dialect-unmapped",
        at,
        `'${whole.slice(0, 80)}' is not a look-up v1 templates express (calls, arithmetic and code are never evaluated)`,
        "use a plain `{{name}}` reference",
      );
      return whole;
    });
  }

  /** Every string inside a value (front matter), templated. */
  private templates(v: unknown, at: PathSegment[], scope: Scope): unknown {
    if (typeof v === "string") return this.template(v, at, scope);
    if (Array.isArray(v)) return v.map((x, i) => this.templates(x, [...at, i], scope));
    if (isObject(v))
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) => [k, this.templates(x, [...at, k], scope)]),
      );
    return v;
  }

  /** A Catalyst path: `xe://x` is `.xe/x` (`.md` when written without an ending). */
  private path(v: unknown, at: PathSegment[], scope: Scope, forWrite = false): unknown {
    if (typeof v !== "string") return v;
    const xe = /^xe:\/\/(.+)$/.exec(v);
    if (xe) {
      const p = `.xe/${xe[1] as string}`;
      return forWrite && !/\.[A-Za-z0-9]+$/.test(p) ? `${p}.md` : p;
    }
    return this.template(this.rawProtocol(v, at), at, scope);
  }

  /**
   * `{{xe://x}}` and `get('xe://x')` read a file of the project's `.xe/` folder when the step
   * runs: a read step just before it, whose output the step uses. A missing file has no content.
   */
  private xeRead(file: string, at: PathSegment[], scope: Scope, output: string): string {
    const id = this.reserveId(`read-xe-${file.replace(/[^A-Za-z0-9]+/g, "-")}`.slice(0, 60));
    const args: Json = { path: `.xe/${file}`, extensions: XE_ENDINGS, missing_ok: true };
    const branch = this.lastBranch(scope);
    if (branch) args.ref = branch;
    const step: Json = {
      id,
      type: "investigate",
      description: `Reads xe://${file} (.xe/${file}.md or .json) of the repository`,
      suggested_calls: [
        {
          tool: "github/file_read",
          args,
          run: "auto",
          required: true,
          outputs: { content: "content", exists: "exists" },
        },
      ],
    };
    if (scope.condition) step.if = ifOf(scope.condition);
    this.origins.set(step, { at, fields: [] });
    this.steps.push(step);
    return `steps.${id}.outputs.${output}`;
  }

  private errorPolicy(policy: unknown, at: PathSegment[], out: Json, origin: Origin): void {
    const one = (v: unknown, where: PathSegment[]): string | undefined => {
      const name = isObject(v) ? v.action : v;
      const mapped = typeof name === "string" ? ERROR_ACTIONS[name.toLowerCase()] : undefined;
      const retries = isObject(v) ? v.retryCount : undefined;
      if (typeof retries === "number" && retries > 0 && retries < 100) return `retry:${retries}`;
      if (!mapped)
        this.report(
          "dialect-unmapped",
          where,
          `the error action '${String(name)}' has no v1 on_error equivalent`,
          "use Stop, Continue or Ignore",
        );
      return mapped;
    };
    origin.fields.push([["on_error"], at]);
    if (!isObject(policy) || "action" in policy) {
      const p = one(policy, at);
      if (p) out.on_error = p;
      return;
    }
    const map: Json = {};
    for (const [code, v] of Object.entries(policy)) {
      const p = one(v, [...at, code]);
      if (p) map[code] = p;
    }
    this.report(
      "dialect-drift",
      at,
      "Catalyst's PascalCase error codes are kept as on_error keys; v1's own codes (GH-…) match only where they are the same",
      undefined,
      true,
    );
    out.on_error = map;
  }

  private reserveId(base: string): string {
    let id = base.replace(/^[^A-Za-z0-9]+/, "") || "step";
    for (let n = 2; this.ids.has(id); n++) id = `${base}-${n}`;
    this.ids.add(id);
    return id;
  }

  private idFor(step: Json, action: string): string {
    return this.reserveId(
      typeof step.name === "string" ? step.name : `${action}-${this.steps.length + 1}`,
    );
  }

  /**
   * A branch of the run's own, opened before the first write that no git-branch precedes: a run
   * never commits to the default branch (Catalyst would write into the checked-out one).
   */
  private runBranch(here: PathSegment[]): string {
    const id = this.reserveId("run-branch");
    const doc = isObject(this.doc.value) ? this.doc.value : {};
    const name = String(doc.id ?? doc.name ?? "catalyst")
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .slice(0, 40);
    const step: Json = {
      id,
      type: "branch",
      name: `playbook/${name}`,
      if_exists: "new-name",
      description: "A branch for this run's changes (the playbook opens none before it writes).",
    };
    this.origins.set(step, { at: here, fields: [] });
    this.steps.push(step);
    this.report(
      "dialect-drift",
      here,
      "Catalyst writes into the checked-out branch when no git-branch comes first; here the run opens a branch of its own first, and never commits to the default branch",
      "create a branch first (git-branch) to choose its name",
      true,
    );
    return `{{ steps.${id}.outputs.name }}`;
  }

  /**
   * The branch the run's work is on: the last branch step, or with `scope`, the last one sure
   * to have run there (none under another condition: a skipped branch has no name).
   */
  private lastBranch(scope?: Scope): string | undefined {
    const sure = (s: Json) =>
      !scope || s.if === undefined || (scope.condition && s.if === ifOf(scope.condition));
    const b = [...this.steps].reverse().find((s) => s.type === "branch" && sure(s));
    return b ? `{{ steps.${String(b.id)}.outputs.name }}` : undefined;
  }
}

/** A step's action: its first key that is not reserved (Catalyst's "action as key"). */
function firstAction(step: Json): string | undefined {
  return Object.keys(step).find((k) => !RESERVED.has(k));
}
