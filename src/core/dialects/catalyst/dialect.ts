import type { DialectCode } from "../../rules/syntax/dialect-conversion.js";
import {
  loadSourceText,
  type PathSegment,
  type SourceDocument,
  type SourceLimits,
} from "../../format/source.js";
import { frontMatter } from "../front-matter.js";
import { DialectConversion, isObject, type Json } from "../conversion.js";
import type { Dialect, DialectResult } from "../dialect.js";

/**
 * Catalyst's playbooks: YAML whose steps name their action by their first key ("action as
 * key": `git-branch: name`, `ai-prompt: text`), with `if`/`then`/`else`, `${{ get('x') }}`
 * conditions and bare-name `{{x}}` templates; and Markdown playbooks, whose whole text is the
 * prompt of one AI task. Each step becomes the v1 step that does what Catalyst's engine does.
 */

const DEFAULT_HINTS: Record<DialectCode, string> = {
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
/** The read-only GitHub look-ups the bot runs itself. */
const GITHUB_READS: Record<string, string> = {
  "github-issue-find": "github/issue_find",
  "github-issue-get": "github/issue_get",
  "github-repo-info": "github/repo_info",
};
const SHELLS: Record<string, string> = { bash: "bash", powershell: "powershell", script: "node" };
/** Folders Catalyst keeps playbooks in, across its generations. */
const PLAYBOOK_FOLDER =
  /(^|\/)(src\/playbooks|src\/resources\/playbooks|tests\/fixtures\/playbooks)\//;
const MAX_STEPS = 2000;
/** The output a bare reference to a named step reads, per v1 step kind. */
const MAIN_OUTPUT: Record<string, string> = {
  ai: "text",
  branch: "name",
  pull_request: "url",
  issue: "url",
};
const MAX_NESTING = 16;

export const catalyst: Dialect = {
  id: "catalyst",
  title: "Catalyst",
  recognise: (file, text) => {
    if (/\.md$/i.test(file)) return PLAYBOOK_FOLDER.test(file) && /^#\s+Playbook:/m.test(text);
    if (!/\.ya?ml$/i.test(file)) return false;
    // Triagent files have nodes/entrypoint; runbooks have match/tool steps.
    if (/^(nodes|entrypoint|match)\s*:/m.test(text)) return false;
    return /^(id|name)\s*:/m.test(text) && /^steps\s*:/m.test(text) && /^owner\s*:/m.test(text);
  },
  load: (file, text, _siblings, limits) => loadCatalyst(file, text, limits),
};

function loadCatalyst(file: string, text: string, limits: SourceLimits): DialectResult {
  if (/\.md$/i.test(file)) return loadMarkdown(file, text, limits);
  const loaded = loadSourceText(file, text, limits);
  if (!loaded.ok) return { ok: false, failure: loaded };
  const c = new Conversion(loaded.document);
  return { ok: true, document: c.convert(), problems: c.problems };
}

/** A Markdown playbook: front matter (owner, reviewers), and a body that is the prompt. */
function loadMarkdown(file: string, text: string, limits: SourceLimits): DialectResult {
  const front = frontMatter(file, text, limits);
  if (front.failure) return { ok: false, failure: front.failure };
  let doc = front.doc;
  if (!doc) {
    const empty = loadSourceText(file, "{}", limits);
    if (!empty.ok) return { ok: false, failure: empty };
    doc = empty.document;
  }
  const c = new MarkdownConversion(doc, file, front.body);
  return { ok: true, document: c.convert(), problems: c.problems };
}

class MarkdownConversion extends DialectConversion {
  constructor(
    doc: SourceDocument,
    private readonly file: string,
    private readonly body: string,
  ) {
    super(doc, DEFAULT_HINTS);
  }

  convert(): SourceDocument {
    const meta = isObject(this.doc.value) ? this.doc.value : {};
    const stem = (this.file.split("/").pop() ?? "playbook").replace(/\.md$/i, "");
    const title = /^#\s+Playbook:\s*(.+)$/m.exec(this.body)?.[1]?.trim() ?? stem;
    const goal = /\*\*Goal\*\*:\s*(.+)$/m.exec(this.body)?.[1]?.trim();
    const out: Json = { apiVersion: "playbook-bot/v1", id: stem, name: title };
    if (goal) out.description = goal;
    copyMeta(this, meta, out);
    out.steps = [
      {
        id: "run-playbook",
        type: "ai",
        description: "The playbook's whole text is the prompt (Catalyst's markdown task).",
        prompt: this.body,
      },
    ];
    return this.b.build(out);
  }

  put2(out: Json, key: string, value: unknown, path: PathSegment[]): void {
    this.put(out, key, value, path, path);
  }
}

function copyMeta(
  c: { put2(out: Json, key: string, v: unknown, p: PathSegment[]): void },
  src: Json,
  out: Json,
): void {
  if (typeof src.owner === "string") c.put2(out, "owner", src.owner, ["owner"]);
  if (isObject(src.reviewers)) c.put2(out, "reviewers", src.reviewers, ["reviewers"]);
}

interface Scope {
  /** The v1 condition the steps of this list run under (from enclosing `if`s). */
  condition?: string;
  depth: number;
}

class Conversion extends DialectConversion {
  private readonly inputs = new Set<string>();
  /** Catalyst step names (variables) → v1 step ids. */
  private readonly stepIds = new Map<string, string>();
  private readonly steps: Json[] = [];
  private outputs: Json | undefined;

  constructor(doc: SourceDocument) {
    super(doc, DEFAULT_HINTS);
  }

  put2(out: Json, key: string, value: unknown, path: PathSegment[]): void {
    this.put(out, key, value, path, path);
  }

  convert(): SourceDocument {
    const src = this.doc.value;
    const out: Json = { apiVersion: "playbook-bot/v1" };
    if (!isObject(src)) {
      this.report("dialect-invalid", [], "a Catalyst playbook is a mapping of fields");
      return this.b.build(out);
    }
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
    if (typeof src.description === "string")
      this.put2(out, "description", src.description, ["description"]);
    copyMeta(this, src, out);
    if (src.triggers !== undefined)
      this.report(
        "dialect-unmapped",
        ["triggers"],
        "Catalyst's GitHub event triggers (event/action pairs) have no v1 selector; Catalyst's engine does not act on them either",
        "start the playbook with `on.labels` or `on.command` in a v1 playbook",
        true,
      );
    if (src.inputs !== undefined) this.convertInputs(src.inputs, out);
    if (!Array.isArray(src.steps) || src.steps.length === 0)
      this.report(
        "dialect-invalid",
        ["steps"],
        'Playbook must have at least one step in "steps" array',
        "add a step",
      );
    else this.list(src.steps, ["steps"], { depth: 0 });
    for (const key of ["catch", "finally", "resources"])
      if (src[key] !== undefined)
        this.report(
          "dialect-unmapped",
          [key],
          `'${key}' has no v1 equivalent (v1 handles errors per step with on_error)`,
          undefined,
          true,
        );
    if (this.steps.length) {
      out.steps = this.steps;
      this.b.locate(["steps"], ["steps"]);
    }
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
    const action = Object.keys(step).find((k) => !RESERVED.has(k));
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
    const primary = (p: string) => (isObject(value) || value === null ? config[p] : value);
    const here = [...at, action];
    if (action === "if" || action === "if-not") return this.conditional(step, action, at, scope);
    if (action === "for-each")
      return this.report(
        "dialect-unmapped",
        here,
        "for-each runs a nested list per item; v1's for_each repeats one step, not a list",
        "split the loop body into one step with for_each",
        true,
      );
    const id = this.idFor(step, action);
    const out: Json = { id, description: `Catalyst ${action} step` };
    this.b.locate(["steps", this.steps.length], at);
    this.b.locate(["steps", this.steps.length, "type"], here);
    const prior = this.steps.length;
    /** Where a config key stands: inside the action's mapping, or beside the action. */
    const from = (key: string): PathSegment[] =>
      isObject(value) && key in value ? [...here, key] : [...at, key];
    const t = (v: unknown) => this.template(v, here);
    switch (action) {
      case "ai-prompt":
      case "markdown":
        out.type = "ai";
        out.prompt = t(primary("prompt"));
        if (Array.isArray(config.outputs ?? config.files))
          out.expect_files = ((config.outputs ?? config.files) as unknown[]).map(t);
        if (typeof config.verify === "string") {
          out.verify = config.verify;
          // An unknown check is reported at the author's `verify:`.
          this.b.locate(["steps", prior, "verify"], from("verify"));
        }
        if (config.cache === true) out.cache = true;
        break;
      case "git-branch":
        out.type = "branch";
        out.name = t(primary("name"));
        if (config.mustBeNew === true) out.require_new = true;
        break;
      case "git-commit":
        out.type = "commit";
        out.message = t(primary("message"));
        out.branch = this.lastBranch() ?? "{{ run.branch }}";
        // Catalyst commits every change in the work tree.
        out.paths = ["**"];
        if (typeof config.push === "boolean") out.push = config.push;
        break;
      case "checkpoint":
        out.type = "checkpoint";
        out.message = t(primary("message"));
        break;
      case "github-pr-create":
        out.type = "pull_request";
        out.title = t(primary("title"));
        out.head = this.lastBranch() ?? "{{ run.branch }}";
        if (config.body !== undefined) out.body = t(config.body);
        break;
      case "github-pr-await":
        // v1 waits for a merge on the pull_request step itself; a wait for another playbook's PR is a checkpoint.
        out.type = "checkpoint";
        out.message = `Waiting for pull request ${String(t(primary("pr")))} to be merged; approve when it is.`;
        this.report(
          "dialect-drift",
          here,
          "waiting for a pull request opened elsewhere becomes a checkpoint people approve once it is merged",
          undefined,
          true,
        );
        break;
      case "github-issue-create":
        out.type = "issue";
        out.title = t(primary("title"));
        if (config.body !== undefined) out.body = t(config.body);
        break;
      case "playbook": {
        out.type = "playbook";
        out.mode = "delegate";
        out.playbook = primary("name");
        const inputs = config.inputs;
        if (isObject(inputs))
          out.with = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, t(v)]));
        break;
      }
      case "return": {
        out.type = "end";
        out.status = "success";
        const outputs: Json = {};
        for (const [k, v] of Object.entries(config))
          if (k === "message") out.advice = t(v);
          else if (k === "code") out.conclusion = v;
          else outputs[k] = t(v);
        if (Object.keys(outputs).length) this.outputs = outputs;
        break;
      }
      case "bash":
      case "powershell":
      case "script":
        out.type = "script";
        out.shell = SHELLS[action];
        out.run = primary("code");
        break;
      default:
        if (action in GITHUB_READS) {
          out.type = "investigate";
          out.suggested_calls = [
            { tool: GITHUB_READS[action], args: { value: t(value) }, run: "auto" },
          ];
          break;
        }
        return this.report(
          "dialect-unmapped",
          here,
          `the action '${action}' has no v1 step kind`,
          "do this in an `ai` or `script` step of a v1 playbook",
          true,
        );
    }
    if (scope.condition) out.if = scope.condition;
    if (step.errorPolicy !== undefined)
      this.errorPolicy(step.errorPolicy, [...at, "errorPolicy"], out);
    this.stepIds.set(id, String(out.type));
    this.steps.splice(prior, 0, out);
  }

  private conditional(step: Json, action: string, at: PathSegment[], scope: Scope): void {
    const raw = step[action];
    const cond = this.expression(isObject(raw) ? raw.condition : raw, [...at, action]);
    if (cond === undefined) return;
    const yes = action === "if" ? cond : `not (${cond})`;
    const no = action === "if" ? `not (${cond})` : cond;
    const join = (c: string) => (scope.condition ? `(${scope.condition}) and (${c})` : c);
    this.list(step.then, [...at, "then"], { condition: join(yes), depth: scope.depth + 1 });
    if (step.else !== undefined)
      this.list(step.else, [...at, "else"], { condition: join(no), depth: scope.depth + 1 });
  }

  /** `${{ … }}` → a v1 expression: comparisons and look-ups only, never evaluated. */
  private expression(v: unknown, at: PathSegment[]): string | undefined {
    if (typeof v === "boolean") return String(v);
    if (typeof v !== "string") {
      this.report("dialect-invalid", at, "a condition is a string or a boolean");
      return undefined;
    }
    const inner = /^\s*\$\{\{([\s\S]*)\}\}\s*$/.exec(v)?.[1] ?? v;
    const m =
      /^\s*(get\(\s*'([^']*)'\s*\)|[A-Za-z][\w.-]*)\s*(?:(==|!=|<=|>=|<|>)\s*('[^']*'|-?\d+(?:\.\d+)?|true|false))?\s*$/.exec(
        inner,
      );
    const ref = m ? (m[2] ?? m[1] ?? "") : "";
    if (!m || ref.includes("://")) {
      this.report(
        "dialect-unmapped",
        at,
        `the condition '${inner.trim().slice(0, 80)}' is not a comparison or look-up v1 can express${ref.includes("://") ? " (it reads a file through a Catalyst path protocol)" : ""}; it is never evaluated, and the steps under it are not converted`,
        "express it as a comparison of inputs or step outputs",
      );
      return undefined;
    }
    const path = this.reference(ref);
    return m[3] ? `${path} ${m[3]} ${m[4]}` : path;
  }

  /** A Catalyst variable: an input by bare name, or a named step's result. */
  private reference(name: string): string {
    const [head = "", ...rest] = name.split(".");
    if (this.inputs.has(head)) return ["inputs", head, ...rest].join(".");
    const kind = this.stepIds.get(head);
    // A named step's result is its variable: the v1 step's main output.
    if (kind)
      return [
        "steps",
        head,
        "outputs",
        ...(rest.length ? rest : [MAIN_OUTPUT[kind] ?? "value"]),
      ].join(".");
    return name;
  }

  /** `{{path}}` → `{{ inputs.path }}` / `{{ steps.<id>.outputs.… }}`; `${{ … }}` values too. */
  private template(v: unknown, at: PathSegment[]): unknown {
    if (typeof v !== "string") return v;
    return v.replace(/\$?\{\{\s*([^{}]*?)\s*\}\}/g, (whole, expr: string) => {
      if (/^[A-Za-z][\w.-]*$/.test(expr)) return `{{ ${this.reference(expr)} }}`;
      const got = /^get\(\s*'([^':]*)'\s*\)$/.exec(expr);
      if (got?.[1]) return `{{ ${this.reference(got[1])} }}`;
      this.report(
        "dialect-unmapped",
        at,
        `'${whole.slice(0, 80)}' is not a look-up v1 templates express (calls, arithmetic and code are never evaluated)`,
        "use a plain `{{name}}` reference",
      );
      return whole;
    });
  }

  private errorPolicy(policy: unknown, at: PathSegment[], out: Json): void {
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

  private idFor(step: Json, action: string): string {
    const base = typeof step.name === "string" ? step.name : `${action}-${this.steps.length + 1}`;
    let id = base;
    for (let n = 2; this.stepIds.has(id); n++) id = `${base}-${n}`;
    return id;
  }

  private lastBranch(): string | undefined {
    const b = [...this.steps].reverse().find((s) => s.type === "branch");
    return b ? `{{ steps.${String(b.id)}.outputs.name }}` : undefined;
  }
}
