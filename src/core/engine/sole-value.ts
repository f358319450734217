import { indexed, type Resolver } from "../format/expression.js";
import { parseTemplate } from "../format/template.js";
import { listItems } from "./inputs.js";

/** Largest JSON text read back into an object or a list. */
const MAX_JSON = 64 * 1024;

/**
 * The value itself of a template that is exactly one name (`{{ steps.a.outputs.photos }}`), for
 * a tool's arguments: a list stays a list (a list input, kept as its items joined, is split
 * again), an object or list kept as JSON text is that object or list, a number or a boolean
 * stays one. Undefined otherwise (more than one name, text, no value): the template is then
 * rendered as text, which also says what is missing.
 */
export function soleValue(
  src: string,
  resolve: Resolver,
  isListInput: (name: string) => boolean = () => false,
): unknown {
  const { parts, problems } = parseTemplate(src.trim());
  const only = parts[0];
  if (problems.length || parts.length !== 1 || only?.kind !== "ref") return undefined;
  const value = indexed(resolve(only.path), only.index);
  if (Array.isArray(value) || typeof value === "number" || typeof value === "boolean") return value;
  if (typeof value !== "string") return undefined;
  const [head, name] = only.path;
  if (head === "inputs" && only.path.length === 2 && !only.index?.length && isListInput(name ?? ""))
    return listItems(value);
  if (value.length > MAX_JSON || !/^\s*[{[]/.test(value)) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}
