/**
 * Mindscape's `{{ }}` templates and conditions, rewritten into v1's: `input.x` → `inputs.x`,
 * `step.id.key` → `steps.id.outputs.key`, `item`/`index` → `item`/`item_index`, and a bare name
 * the executor puts into inputs (`workspace_id`) → `inputs.<name>`. Their Python-like
 * expressions (`a or b`, `x if c else y`, `==`, `and`, `not`, `[0]`, `| default('x')`) are the
 * v1 template subset already, so only the names change; the result is then parsed by v1's own
 * template parser, which refuses anything else where it is written. Nothing is evaluated here.
 */

/** What a rewrite found: names of inputs it refers to, and step ids read whole. */
export interface Rewrite {
  text: string;
  inputs: Set<string>;
  /** `step.<id>` read as a whole (Mindscape's truthy dict): read here as the step's results. */
  wholeSteps: Set<string>;
  /** Bare names outside input/step/item/index/context (Mindscape leaves them as text). */
  bareNames: Set<string>;
  /** `context.<key>` names. */
  contextKeys: Set<string>;
  /** `step.<id>.<key>` reads, as `[id, key]` (the first key of the path). */
  stepKeys: [string, string][];
}

const WORDS = new Set([
  "and",
  "or",
  "not",
  "if",
  "else",
  "elif",
  "endif",
  "default",
  "true",
  "false",
  "none",
  "True",
  "False",
  "None",
]);
/**
 * How `step.<id>.results` of a for_each step and the fields of `item` are read: Mindscape keeps a
 * for_each step's result as `results`, one map of the step's outputs per item.
 */
export interface LoopReading {
  /** Ids of for_each steps whose `results` a template reads: each item's whole result. */
  results: ReadonlySet<string>;
  /** `item.<name>` → what it is read as (`item`, `item.<path>`), in a step looping over results. */
  itemFields?: Readonly<Record<string, string>>;
  /** Per playbook-slot step, its output names → the outputs of its playbook they are. */
  slots?: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

/** A dotted name with optional `[n]` items, not inside a string literal (handled by the caller). */
const NAME = /[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*(?:\[[0-9]{1,4}\])*/g;
/** The longest template this rewrites: spec values are prompts, not books. */
const MAX_LENGTH = 64 * 1024;

/** Rewrites the names in one expression (the inside of `{{ }}` or of a `{% if %}` tag). */
function rewriteExpression(expr: string, found: Rewrite, loops?: LoopReading): string {
  let out = "";
  let i = 0;
  while (i < expr.length) {
    const c = expr[i] as string;
    if (c === "'" || c === '"') {
      const close = expr.indexOf(c, i + 1);
      const end = close === -1 ? expr.length : close + 1;
      out += expr.slice(i, end);
      i = end;
      continue;
    }
    NAME.lastIndex = i;
    const m = NAME.exec(expr);
    if (m && m.index === i && !/[A-Za-z0-9_.]/.test(expr[i - 1] ?? "")) {
      out += rewriteName(m[0], found, loops);
      i += m[0].length;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

function rewriteName(name: string, found: Rewrite, loops?: LoopReading): string {
  const bracket = name.indexOf("[");
  const path = bracket === -1 ? name : name.slice(0, bracket);
  const index = bracket === -1 ? "" : name.slice(bracket);
  const parts = path.split(".");
  const [root, first] = parts;
  if (root === undefined || WORDS.has(root)) {
    if (root === "None" || root === "none") return "null";
    if (root === "True") return "true";
    if (root === "False") return "false";
    return name;
  }
  if (root === "input" && first !== undefined) {
    found.inputs.add(first);
    return `inputs.${parts.slice(1).join(".")}${index}`;
  }
  if (root === "step" && first !== undefined) {
    if (parts.length === 2) {
      found.wholeSteps.add(first);
      return `steps.${first}.outputs.results`;
    }
    const slot = loops?.slots?.get(first)?.[parts[2] as string];
    const key = slot
      ? slot
      : parts[2] === "results" && loops?.results.has(first)
        ? LOOP_RESULTS
        : parts[2];
    found.stepKeys.push([first, key as string]);
    return `steps.${first}.outputs.${[key, ...parts.slice(3)].join(".")}${index}`;
  }
  const field = root === "item" && first !== undefined ? loops?.itemFields?.[first] : undefined;
  if (field !== undefined) return [field, ...parts.slice(2)].join(".") + index;
  if (root === "item" || root === "index")
    return parts.length === 1 ? (root === "item" ? "item" : "item_index") + index : name;
  if (root === "context" && first !== undefined) {
    found.contextKeys.add(first);
    return `inputs.context_${first}${index}`;
  }
  if (parts.length === 1) {
    found.bareNames.add(root);
    found.inputs.add(root);
    return `inputs.${root}${index}`;
  }
  return name;
}

/** A rewrite that has found nothing yet. */
function emptyRewrite(): Rewrite {
  return {
    text: "",
    inputs: new Set(),
    wholeSteps: new Set(),
    bareNames: new Set(),
    contextKeys: new Set(),
    stepKeys: [],
  };
}

/** The output of a for_each step that keeps each item's whole result (Mindscape's `results`). */
export const LOOP_RESULTS = "item_results";

/** Rewrites a Mindscape template (text with `{{ }}` and `{% %}`) into v1's. */
export function rewriteTemplate(text: string, loops?: LoopReading): Rewrite {
  const found = emptyRewrite();
  if (text.length > MAX_LENGTH) {
    found.text = text;
    return found;
  }
  let out = "";
  let i = 0;
  while (i < text.length) {
    const open = text.slice(i, i + 2);
    if (open === "{{" || open === "{%") {
      const closer = open === "{{" ? "}}" : "%}";
      const close = text.indexOf(closer, i + 2);
      if (close === -1) {
        out += text.slice(i);
        break;
      }
      const inner = text.slice(i + 2, close);
      out += `${open} ${rewriteExpression(inner.trim(), found, loops)} ${closer}`;
      i = close + 2;
      continue;
    }
    out += text[i];
    i++;
  }
  found.text = out;
  return found;
}

/** A condition `{{ expr }}` (or a bare expression) as a v1 expression. */
export function rewriteCondition(condition: string, loops?: LoopReading): Rewrite {
  const trimmed = condition.trim();
  const inner =
    trimmed.startsWith("{{") && trimmed.endsWith("}}") ? trimmed.slice(2, -2).trim() : trimmed;
  const found = emptyRewrite();
  found.text = rewriteExpression(inner, found, loops);
  return found;
}
