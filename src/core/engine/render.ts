import { playbookError, type PlaybookError } from "./errors.js";
import { activeFrame, type Frame, type RunState, type Value } from "./state.js";
import { evaluateExpression, indexed, truthy, type Resolver } from "../format/expression.js";
import { parseTemplate, type TemplatePart, type TemplateValue } from "../format/template.js";
import { branchNameProblem, repoPathProblem } from "../util/git-ref.js";

/**
 * What a rendered value will be used as; each use has its own safety check. `text` is for people
 * (values made inert); `plain` is for a text node of a comment tree, which makes the whole
 * string inert, so values pass unchanged (inert twice would show `&lt;`); `value` passes values
 * through unchanged (inputs of a child playbook or workflow); `markdown` is the author's Markdown
 * (an end's advice), with values escaped so that they stay text in it.
 */
export type RenderUse =
  "text" | "plain" | "markdown" | "value" | "branch" | "path" | "label" | "number";

export type Rendered = { ok: true; value: string } | { ok: false; error: PlaybookError };

/**
 * Text from issues, alerts and GitHub rendered inert: no accidental @-mentions (a zero-width
 * space after '@'), and nothing that could open or close an HTML comment, so no value can pose
 * as the bot's hidden state marker.
 */
export function inert(text: string): string {
  return inertWhereValues([{ text, value: true }]);
}

/** A stretch of rendered text: the playbook author's own words, or a value put into them. */
type Piece = { text: string; value: boolean };

/** `@name`, `<!--` and `-->`/`--!>`, found at every position (they may overlap). */
const TOKENS = /(?=(@[A-Za-z0-9_-]|<!--|--!?>))/g;

/**
 * The pieces joined, with every mention or HTML comment marker that any value takes part in made
 * inert, whether it lies in one value, spans adjacent values (`{{a}}{{b}}` with `@` and `name`)
 * or joins a value to the author's text (`@{{ inputs.user }}`, `<!-{{ x }}`): the `@` is followed
 * by a zero-width space, the `<` of `<!--` and the `>` of `-->` become entities. What the author
 * wrote alone is kept, so an author's own `<!-- note -->` or `@octocat` stays.
 */
function inertWhereValues(pieces: readonly Piece[]): string {
  const joined = pieces.map((p) => p.text).join("");
  const fromValue: boolean[] = [];
  for (const p of pieces) for (let i = 0; i < p.text.length; i++) fromValue.push(p.value);
  const edits = new Map<number, string>();
  for (const m of joined.matchAll(TOKENS)) {
    const token = m[1] ?? "";
    const at = m.index;
    if (!fromValue.slice(at, at + token.length).some(Boolean)) continue;
    if (token.startsWith("@")) edits.set(at, "@\u200b");
    else if (token.startsWith("<")) edits.set(at, "&lt;");
    else edits.set(at + token.length - 1, "&gt;");
  }
  if (edits.size === 0) return joined;
  let out = "";
  for (let i = 0; i < joined.length; i++) out += edits.get(i) ?? joined[i];
  return out;
}

/** A value inside Markdown as text: what could open emphasis, code, a link or HTML is escaped. */
function markdownText(value: string): string {
  return value.replace(/[\\`*_[\]<>!&~|#]/g, "\\$&");
}

function asText(v: Value): string {
  if (Array.isArray(v)) return v.map((x) => String(x ?? "")).join(", ");
  return v === null ? "" : String(v);
}

/** The value of a `{{ }}` that is more than a name; `undefined` when it has none. */
function valueOf(v: TemplateValue, resolve: Resolver): unknown {
  switch (v.kind) {
    case "name":
      return indexed(resolve(v.path), v.index, resolve);
    case "literal":
      return v.value;
    case "first": {
      // The first option that is there and not empty; otherwise the last one that is there.
      let last: unknown;
      for (const o of v.options) {
        const value = valueOf(o, resolve);
        if (truthy(value)) return value;
        if (value !== undefined) last = value;
      }
      return last;
    }
    case "choice":
      return valueOf(evaluateExpression(v.test, resolve) ? v.then : v.otherwise, resolve);
  }
}

/** Fill a template from a resolver; a missing value is an error, never an empty guess. */
export function renderTemplate(src: string, resolve: Resolver, use: RenderUse = "text"): Rendered {
  const { parts, problems } = parseTemplate(src);
  const first = problems[0];
  if (first)
    return {
      ok: false,
      error: playbookError("PB-TEMPLATE-UNDEFINED", `template '${src}': ${first.message}`),
    };
  let missing: string | undefined;
  const fill = (list: readonly TemplatePart[], into: Piece[]): void => {
    for (const p of list) {
      if (missing !== undefined) return;
      if (p.kind === "text") {
        into.push({ text: p.text, value: false });
        continue;
      }
      if (p.kind === "if") {
        const branch = p.branches.find((b) => evaluateExpression(b.test, resolve));
        fill(branch ? branch.parts : p.otherwise, into);
        continue;
      }
      const v = (
        p.kind === "ref" ? indexed(resolve(p.path), p.index, resolve) : valueOf(p.value, resolve)
      ) as Value | undefined;
      if (v === undefined) {
        missing = p.raw;
        return;
      }
      into.push({ text: asText(v), value: true });
    }
  };
  const pieces: Piece[] = [];
  fill(parts, pieces);
  if (missing !== undefined)
    return {
      ok: false,
      error: playbookError("PB-TEMPLATE-UNDEFINED", `'${missing}' has no value in this run`),
    };
  // Values are made inert together with what surrounds them, never one by one: adjacent values,
  // or a value and the author's text, must not join into a mention or a marker.
  const out =
    use === "text"
      ? inertWhereValues(pieces)
      : pieces.map((p) => (use === "markdown" && p.value ? markdownText(p.text) : p.text)).join("");
  const problem =
    use === "branch"
      ? branchNameProblem(out)
      : use === "path"
        ? repoPathProblem(out)
        : use === "label"
          ? labelProblem(out)
          : use === "number"
            ? numberProblem(out)
            : undefined;
  if (problem) {
    return {
      ok: false,
      error: playbookError(
        "PB-TEMPLATE-UNSAFE",
        `'${src}' renders to '${out.slice(0, 120)}', which is not a safe ${use}: ${problem}`,
      ),
    };
  }
  return { ok: true, value: out };
}

/** An issue, pull request or comment number: a whole number GitHub could have given. */
function numberProblem(text: string): string | undefined {
  const t = text.trim();
  if (!/^[1-9][0-9]{0,15}$/.test(t) || !Number.isSafeInteger(Number(t)))
    return "it is not a positive whole number";
  return undefined;
}

function labelProblem(label: string): string | undefined {
  if (label.trim() === "") return "it is empty";
  if (label.length > 50) return "it is longer than 50 characters";
  if (/[\r\n]/.test(label)) return "it contains a line break";
  return undefined;
}

/** Largest JSON text read into by a dotted name (an object input, a tool's result). */
const MAX_JSON_READ = 64 * 1024;

/**
 * A field inside a value kept as JSON text (`inputs.config.region`): read, never evaluated;
 * a field that is an object or a list of objects comes back as JSON text again.
 */
function withinJson(value: Value | undefined, rest: readonly string[]): Value | undefined {
  if (typeof value !== "string" || value.length > MAX_JSON_READ || !/^\s*[{[]/.test(value))
    return undefined;
  let v: unknown;
  try {
    v = JSON.parse(value);
  } catch {
    return undefined;
  }
  for (const key of rest) {
    if (v === null || typeof v !== "object" || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  if (v === null || typeof v !== "object") return v as Value;
  if (Array.isArray(v) && v.every((i) => i === null || typeof i !== "object")) return v as Value;
  return JSON.stringify(v);
}

/** The names a template or expression can use, for the active frame of a run. */
export function runResolver(run: RunState, frame: Frame = activeFrame(run)): Resolver {
  return (path) => {
    const [head, a, b, c] = path;
    switch (head) {
      case "inputs":
        if (a === undefined || !Object.hasOwn(frame.inputs, a)) return undefined;
        return path.length === 2 ? frame.inputs[a] : withinJson(frame.inputs[a], path.slice(2));
      case "findings":
        return path.length === 2 && a !== undefined && Object.hasOwn(frame.findings, a)
          ? frame.findings[a]
          : undefined;
      case "steps": {
        if (path.length < 4 || b !== "outputs" || a === undefined || c === undefined)
          return undefined;
        const outputs = frame.results[a]?.outputs;
        if (!outputs || !Object.hasOwn(outputs, c)) return undefined;
        return path.length === 4 ? outputs[c] : withinJson(outputs[c], path.slice(4));
      }
      case "item":
        // An item that is an object is kept as JSON text; its fields read into it.
        return path.length === 1 ? frame.item : withinJson(frame.item, path.slice(1));
      case "item_index":
        return path.length === 1 ? frame.itemIndex : undefined;
      case "run": {
        const fields: Record<string, Value | undefined> = {
          id: run.id,
          initiator: run.initiator,
          playbook: frame.playbook,
          started_at: run.startedAt,
          // The day the run started (UTC), as YYYY-MM-DD.
          date: run.startedAt.slice(0, 10),
          url: run.context.url,
        };
        return path.length === 2 && a !== undefined ? fields[a] : undefined;
      }
      case "issue":
      case "repo": {
        const obj = run.context[head] as Record<string, Value | undefined> | undefined;
        return path.length === 2 && a !== undefined && obj && Object.hasOwn(obj, a)
          ? obj[a]
          : undefined;
      }
      case "alert": {
        const alert = run.context.alert;
        if (!alert || a === undefined || !Object.hasOwn(alert, a)) return undefined;
        const v = alert[a];
        if (path.length === 2) return v !== null && typeof v === "object" ? undefined : v;
        if (
          path.length === 3 &&
          v !== null &&
          typeof v === "object" &&
          b !== undefined &&
          Object.hasOwn(v, b)
        )
          return v[b];
        return undefined;
      }
      default:
        return undefined;
    }
  };
}
