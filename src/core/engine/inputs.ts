import type { CommandArgs } from "./events.js";
import { MAX_VALUE_LENGTH, type Scalar } from "./state.js";
import { parseTemplate, templateRefs } from "../format/template.js";
import { renderTemplate } from "./render.js";
import type { InputSpec, Transform } from "../format/types.js";
import { compileLinear } from "../util/regex.js";
import { didYouMean } from "../util/suggest.js";

export interface InputProblem {
  input: string;
  message: string;
}

export type InputResult =
  { ok: true; values: Record<string, Scalar> } | { ok: false; problems: InputProblem[] };

/** Split an argument line into words, honouring "double" and 'single' quotes (`k="a b"`). */
export function splitArgs(line: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quote: string | null = null;
  let has = false;
  for (const c of line) {
    if (quote) {
      if (c === quote) quote = null;
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur !== "") out.push(cur);
      cur = "";
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has || cur !== "") out.push(cur);
  return out;
}

/** `deploy version=1.2.3 note="looks good"` → positional and k=v values. */
export function parseArgs(line: string): CommandArgs {
  return argsOfWords(splitArgs(line), line.trim());
}

/** `o`'s own value at `key`: `constructor` or `toString` names nothing of an object's prototype. */
function own<T>(o: Record<string, T> | undefined, key: string): T | undefined {
  return o !== undefined && Object.hasOwn(o, key) ? o[key] : undefined;
}

/** Sets `key` as `o`'s own property: `__proto__` is a key like any other, never the prototype. */
function defineOwn<T>(o: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Words already split (a shell's argv): each word is taken whole, spaces and quotes included. */
export function argsOfWords(words: readonly string[], text = words.join(" ")): CommandArgs {
  const positional: string[] = [];
  const values: Record<string, string> = {};
  for (const word of words) {
    const eq = word.indexOf("=");
    // Defined, not assigned: `__proto__=x` is a value (an unknown input), never the prototype.
    if (eq > 0 && /^[A-Za-z0-9_-]+$/.test(word.slice(0, eq)))
      defineOwn(values, word.slice(0, eq), word.slice(eq + 1));
    else positional.push(word);
  }
  return { positional, values, text };
}

/**
 * Values from an issue form body: each `### Heading` followed by its answer. GitHub writes
 * `_No response_` for an empty optional field; that counts as absent.
 */
export function parseIssueForm(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  const sections = body.split(/^###[ \t]+/m).slice(1);
  for (const section of sections) {
    const nl = section.indexOf("\n");
    const heading = (nl === -1 ? section : section.slice(0, nl)).trim();
    const value = (nl === -1 ? "" : section.slice(nl + 1)).trim();
    if (heading && value && value !== "_No response_") out[normaliseHeading(heading)] = value;
  }
  return out;
}

function normaliseHeading(h: string): string {
  return h
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

export interface InputSources {
  /** From `/run id k=v` or the CLI. */
  args?: Record<string, string>;
  /** From the issue form (`parseIssueForm`). */
  form?: Record<string, string>;
  alert?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  issue?: { title?: string; body?: string; number?: number; author?: string };
}

/** Raw values per input, by the `from:` of each spec; explicit arguments win. */
export function collectInputs(
  specs: Record<string, InputSpec> | undefined,
  sources: InputSources,
): Record<string, Scalar> {
  const raw: Record<string, Scalar> = {};
  for (const [name, spec] of Object.entries(specs ?? {})) {
    const from = spec.from;
    let v: Scalar | undefined;
    if (from?.startsWith("labels.")) v = own(sources.alert?.labels, from.slice(7));
    else if (from?.startsWith("annotations.")) v = own(sources.alert?.annotations, from.slice(12));
    else if (from?.startsWith("issue.form."))
      v = own(sources.form, normaliseHeading(from.slice(11)));
    else if (from === "issue.title") v = sources.issue?.title;
    else if (from === "issue.body") v = sources.issue?.body;
    else if (from === "issue.number") v = sources.issue?.number ?? null;
    else if (from === "issue.author") v = sources.issue?.author;
    v ??= own(sources.form, normaliseHeading(name));
    if (v !== undefined && v !== null) raw[name] = v;
  }
  for (const [k, v] of Object.entries(sources.args ?? {})) defineOwn(raw, k, v);
  return raw;
}

function words(s: string): string[] {
  return s
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== "")
    .map((w) => w.toLowerCase());
}

export function applyTransform(value: string, transform: Transform): string {
  const w = words(value);
  if (transform === "kebab-case") return w.join("-");
  if (transform === "snake-case") return w.join("_");
  return w.map((x, i) => (i === 0 ? x : x.charAt(0).toUpperCase() + x.slice(1))).join("");
}

/**
 * The items of a list written as text (a list input, a finding): separated by commas or line
 * breaks, trimmed, empty ones left out. A list input is kept as its items joined by ", ".
 */
export function listItems(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((i) => i.trim())
    .filter((i) => i !== "");
}

/**
 * Check and convert every input at once: types, enums, patterns (RE2), ranges, transforms and
 * defaults (which may name other inputs). No run starts unless all of them are fine.
 */
export function resolveInputs(
  specs: Record<string, InputSpec> | undefined,
  raw: Record<string, Scalar>,
): InputResult {
  const declared = specs ?? {};
  const problems: InputProblem[] = [];
  const values: Record<string, Scalar> = {};
  const names = Object.keys(declared);

  for (const key of Object.keys(raw)) {
    if (!Object.hasOwn(declared, key)) {
      const guess = didYouMean(key, names);
      problems.push({
        input: key,
        message: `unknown input '${key}'${guess ? ` — did you mean '${guess}'?` : ""} (inputs: ${names.join(", ") || "none"})`,
      });
    }
  }

  const pendingDefaults: string[] = [];
  for (const [name, spec] of Object.entries(declared)) {
    // Only what was given: an input named `constructor` or `toString` inherits nothing.
    const given = own(raw, name);
    if (given === undefined || given === null || given === "") {
      if (spec.default !== undefined) pendingDefaults.push(name);
      else if (spec.required)
        problems.push({
          input: name,
          message: `'${name}' is required${spec.description ? ` (${spec.description})` : ""}`,
        });
      continue;
    }
    const checked = checkValue(name, spec, given);
    if ("problem" in checked) problems.push({ input: name, message: checked.problem });
    else values[name] = checked.value;
  }

  // Defaults may name other inputs; resolve them in dependency order.
  let progress = true;
  while (pendingDefaults.length > 0 && progress) {
    progress = false;
    for (let i = 0; i < pendingDefaults.length; i++) {
      const name = pendingDefaults[i] as string;
      const spec = declared[name] as InputSpec;
      const d = defaultValue(spec.default);
      let rendered: Scalar = d;
      if (typeof d === "string") {
        const refs = templateRefs(parseTemplate(d).parts).map((r) => r.path[1] as string);
        if (refs.some((r) => !Object.hasOwn(values, r) && pendingDefaults.includes(r))) continue;
        // Another input's value, or empty where it has none (an optional input left out).
        const filled = renderTemplate(d, (path) => own(values, path[1] as string) ?? "", "value");
        rendered = filled.ok ? filled.value : d;
      }
      pendingDefaults.splice(i--, 1);
      progress = true;
      const checked = checkValue(name, spec, rendered);
      if ("problem" in checked)
        problems.push({ input: name, message: `default of ${checked.problem}` });
      else values[name] = checked.value;
    }
  }
  for (const name of pendingDefaults)
    problems.push({ input: name, message: `the default of '${name}' depends on itself` });

  return problems.length > 0 ? { ok: false, problems } : { ok: true, values };
}

/** A default as an input value: a list's items joined as a list input keeps them, an object as JSON. */
function defaultValue(d: InputSpec["default"]): Scalar {
  if (Array.isArray(d))
    return d.map((i) => (typeof i === "string" ? i : JSON.stringify(i))).join(", ");
  if (d !== null && typeof d === "object") return JSON.stringify(d);
  return d ?? null;
}

function checkValue(name: string, spec: InputSpec, given: Scalar): Checked {
  const text = String(given);
  if (text.length > MAX_VALUE_LENGTH)
    return { problem: `'${name}' is longer than ${MAX_VALUE_LENGTH} characters` };
  switch (spec.type) {
    case "number":
      return checkNumber(name, spec, given, text);
    case "boolean": {
      if (typeof given === "boolean") return { value: given };
      const t = text.trim().toLowerCase();
      if (["true", "yes", "on", "1"].includes(t)) return { value: true };
      if (["false", "no", "off", "0"].includes(t)) return { value: false };
      return { problem: `'${name}' must be true or false, not '${text}'` };
    }
    case "enum": {
      const allowed = spec.values ?? [];
      if (!allowed.includes(text)) {
        const guess = didYouMean(text, allowed);
        return {
          problem: `'${name}' must be one of ${allowed.join(", ")}, not '${text}'${guess ? ` — did you mean '${guess}'?` : ""}`,
        };
      }
      return { value: text };
    }
    case "object":
      return checkObject(name, text);
    case "list":
      return checkList(name, spec, text);
    default: {
      const value = spec.transform ? applyTransform(text, spec.transform) : text;
      if (spec.pattern !== undefined) {
        const re = compileLinear(spec.pattern);
        if (!re.ok || !re.regex.test(value))
          return { problem: `'${name}' must match ${spec.pattern}, not '${value}'` };
      }
      if (spec.min !== undefined && value.length < spec.min)
        return { problem: `'${name}' must have at least ${spec.min} characters` };
      if (spec.max !== undefined && value.length > spec.max)
        return { problem: `'${name}' must have at most ${spec.max} characters` };
      return { value };
    }
  }
}

type Checked = { value: Scalar } | { problem: string };

function checkNumber(name: string, spec: InputSpec, given: Scalar, text: string): Checked {
  const n =
    typeof given === "number"
      ? given
      : /^-?[0-9]+(\.[0-9]+)?$/.test(text.trim())
        ? Number(text)
        : NaN;
  if (Number.isNaN(n)) return { problem: `'${name}' must be a number, not '${text}'` };
  if (spec.min !== undefined && n < spec.min)
    return { problem: `'${name}' must be at least ${spec.min}, not ${n}` };
  if (spec.max !== undefined && n > spec.max)
    return { problem: `'${name}' must be at most ${spec.max}, not ${n}` };
  return { value: n };
}

function checkObject(name: string, text: string): Checked {
  // Kept as its JSON text: state holds scalars; `inputs.name.field` reads into it.
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {
      problem: `'${name}' must be a JSON object such as {"key": "value"}, not '${text.slice(0, 60)}'`,
    };
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    return { problem: `'${name}' must be a JSON object such as {"key": "value"}` };
  return { value: JSON.stringify(parsed) };
}

function checkList(name: string, spec: InputSpec, text: string): Checked {
  const items = listItems(text).map((i) =>
    spec.transform ? applyTransform(i, spec.transform) : i,
  );
  if (spec.pattern !== undefined) {
    const re = compileLinear(spec.pattern);
    const bad = items.find((i) => !re.ok || !re.regex.test(i));
    if (bad !== undefined)
      return { problem: `every item of '${name}' must match ${spec.pattern}, not '${bad}'` };
  }
  if (spec.min !== undefined && items.length < spec.min)
    return { problem: `'${name}' must have at least ${spec.min} items` };
  if (spec.max !== undefined && items.length > spec.max)
    return { problem: `'${name}' must have at most ${spec.max} items` };
  return { value: items.join(", ") };
}
