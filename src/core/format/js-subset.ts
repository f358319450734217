/**
 * The `${{ … }}` form of an `if`: a JavaScript expression, as Catalyst writes its conditions,
 * limited to what cannot call out. It is parsed by jsep (a maintained expression parser, never
 * an evaluator) into a small tree of our own and interpreted here: no `eval`, no `Function`, no
 * property of a value that is not its own. The subset:
 *
 * - literals (`'x'`, `1`, `true`, `null`, `undefined`) and lists of them (`['a', 'b']`);
 * - references to the run's values (`inputs.x`, `steps['id'].outputs.k`, `item`, `item_index`),
 *   with `.field`, `['field']` and `[index]` on what they hold;
 * - `==`, `!=`, `===`, `!==`, `<`, `<=`, `>`, `>=`, `&&`, `||`, `??`, `!`, unary `-`, `a ? b : c`;
 * - `.length`, and the methods of text and lists in `METHODS`, which only read their value.
 *
 * Anything else (a call of another function, an assignment, `this`, `constructor`,
 * `__proto__`, a template literal, arithmetic, …) is an `ExpressionError` at its position.
 */
import * as jsepModule from "jsep";
import { ExpressionError, type Literal } from "./expression-error.js";

export type JsNode =
  | { k: "lit"; v: Literal | undefined | JsNode[] }
  | { k: "ref"; path: string[]; offset: number }
  | { k: "get"; object: JsNode; key: JsNode }
  | { k: "call"; method: string; object: JsNode; args: JsNode[] }
  | { k: "unary"; op: "!" | "-"; arg: JsNode }
  | { k: "binary"; op: string; left: JsNode; right: JsNode }
  | { k: "cond"; test: JsNode; then: JsNode; otherwise: JsNode };

/** The methods that read a text or a list and return a new value; nothing else is called. */
export const METHODS: ReadonlySet<string> = new Set([
  "includes",
  "startsWith",
  "endsWith",
  "indexOf",
  "trim",
  "trimStart",
  "trimEnd",
  "toLowerCase",
  "toUpperCase",
  "split",
  "join",
]);

const OPERATORS = new Set(["==", "!=", "===", "!==", "<", "<=", ">", ">=", "&&", "||", "??"]);
/** Names that lead out of a value to its prototype or constructor: refused wherever written. */
const FORBIDDEN = new Set(["__proto__", "constructor", "prototype", "__defineGetter__"]);

/** jsep's parse function: its typings say `export =`, its ES module exports it as the default. */
const parse = (jsepModule as unknown as { default: (src: string) => jsepModule.Expression })
  .default;

const HOW = "write a comparison, a reference, or one of the text and list methods of the subset";

/**
 * Parses the text inside `${{ … }}`; `base` is where that text starts in its field. With
 * `lookups`, `get('a.b')` (Catalyst's look-up of a run value by name) is the reference `a.b`.
 */
export function parseJsSubset(src: string, base = 0, lookups = false): JsNode {
  let tree: jsepModule.Expression;
  try {
    tree = parse(src);
  } catch (err) {
    const e = err as { index?: number; description?: string; message: string };
    throw new ExpressionError(
      `${e.description ?? e.message} (a template literal, an assignment, an object or a function is outside the expression subset; ${HOW})`,
      base + (e.index ?? 0),
    );
  }
  return new Compiler(src, base, lookups).node(tree);
}

class Compiler {
  constructor(
    private readonly src: string,
    private readonly base: number,
    private readonly lookups: boolean,
  ) {}

  /** Where `needle` is first written, for a located error (jsep keeps no positions). */
  private at(needle: string): number {
    const i = this.src.indexOf(needle);
    return this.base + (i < 0 ? 0 : i);
  }

  private outside(what: string, needle: string): never {
    throw new ExpressionError(`${what} is outside the expression subset: ${HOW}`, this.at(needle));
  }

  node(n: jsepModule.Expression): JsNode {
    switch (n.type) {
      case "Literal":
        return this.literal(n as jsepModule.Literal);
      case "Identifier":
        return this.identifier((n as jsepModule.Identifier).name);
      case "ArrayExpression":
        return {
          k: "lit",
          v: (n as jsepModule.ArrayExpression).elements.map((e: jsepModule.Expression | null) =>
            e ? this.node(e) : { k: "lit", v: undefined },
          ),
        };
      case "MemberExpression":
        return this.member(n as jsepModule.MemberExpression);
      case "CallExpression":
        return this.call(n as jsepModule.CallExpression);
      case "UnaryExpression":
        return this.unary(n as jsepModule.UnaryExpression);
      case "BinaryExpression":
        return this.binary(n as jsepModule.BinaryExpression);
      case "ConditionalExpression": {
        const c = n as jsepModule.ConditionalExpression;
        const [test, then, otherwise] = [c.test, c.consequent, c.alternate].map((x) =>
          this.node(x),
        );
        return { k: "cond", test, then, otherwise } as JsNode;
      }
      case "ThisExpression":
        return this.outside("'this'", "this");
      default:
        return this.outside(`a ${n.type}`, n.type === "Compound" ? "," : "");
    }
  }

  private literal(n: jsepModule.Literal): JsNode {
    if (n.value instanceof RegExp) return this.outside("a regular expression", "/");
    return { k: "lit", v: n.value };
  }

  private identifier(name: string): JsNode {
    if (FORBIDDEN.has(name)) return this.outside(`'${name}'`, name);
    if (name === "undefined") return { k: "lit", v: undefined };
    return { k: "ref", path: [name], offset: this.at(name) };
  }

  private member(n: jsepModule.MemberExpression): JsNode {
    const object = this.node(n.object);
    const name = this.staticName(n);
    if (name !== undefined && FORBIDDEN.has(name)) return this.outside(`'${name}'`, name);
    // A reference grows by its fields; `.length` is the value's own length, not a field.
    if (name !== undefined && object.k === "ref" && name !== "length")
      return { ...object, path: [...object.path, name] };
    const key: JsNode = name !== undefined ? { k: "lit", v: name } : this.node(n.property);
    return { k: "get", object, key };
  }

  private staticName(n: jsepModule.MemberExpression): string | undefined {
    if (!n.computed && n.property.type === "Identifier")
      return (n.property as jsepModule.Identifier).name;
    const p = n.property as jsepModule.Literal;
    return n.computed && p.type === "Literal" && typeof p.value === "string" ? p.value : undefined;
  }

  private call(n: jsepModule.CallExpression): JsNode {
    const callee = n.callee;
    const looked = this.lookup(n);
    if (looked) return looked;
    if (callee.type !== "MemberExpression") {
      const name = callee.type === "Identifier" ? (callee as jsepModule.Identifier).name : "";
      return this.outside(`a call of the function '${name || "…"}'`, name ? `${name}(` : "(");
    }
    const method = this.staticName(callee as jsepModule.MemberExpression);
    if (method === undefined || !METHODS.has(method))
      return this.outside(`the method '${method ?? "…"}'`, method ?? "(");
    const object = this.node((callee as jsepModule.MemberExpression).object);
    return {
      k: "call",
      method,
      object,
      args: n.arguments.map((a: jsepModule.Expression) => this.node(a)),
    };
  }

  /** `get('name')` with `lookups`: the named value (a `xe://` name stays whole). */
  private lookup(n: jsepModule.CallExpression): JsNode | undefined {
    const arg = n.arguments[0] as jsepModule.Literal | undefined;
    const callee = n.callee as jsepModule.Identifier;
    if (!this.lookups || callee.type !== "Identifier" || callee.name !== "get") return undefined;
    if (n.arguments.length !== 1 || arg?.type !== "Literal" || typeof arg.value !== "string")
      return this.outside("get() of anything but one quoted name", "get(");
    const name = arg.value;
    if (name.split(".").some((part) => FORBIDDEN.has(part))) return this.outside(`'${name}'`, name);
    const path = name.includes("://") ? [name] : name.split(".");
    return { k: "ref", path, offset: this.at("get(") };
  }

  private unary(n: jsepModule.UnaryExpression): JsNode {
    if (n.operator !== "!" && n.operator !== "-")
      return this.outside(`the operator '${n.operator}'`, n.operator);
    return { k: "unary", op: n.operator, arg: this.node(n.argument) };
  }

  private binary(n: jsepModule.BinaryExpression): JsNode {
    if (!OPERATORS.has(n.operator))
      return this.outside(`the operator '${n.operator}'`, ` ${n.operator}`.trim());
    return { k: "binary", op: n.operator, left: this.node(n.left), right: this.node(n.right) };
  }
}

/** Every reference in a tree, for the static checks. */
export function jsSubsetRefs(n: JsNode): { path: string[]; offset: number }[] {
  switch (n.k) {
    case "lit":
      return Array.isArray(n.v) ? n.v.flatMap(jsSubsetRefs) : [];
    case "ref":
      return [{ path: n.path, offset: n.offset }];
    case "get":
      return [...jsSubsetRefs(n.object), ...jsSubsetRefs(n.key)];
    case "call":
      return [...jsSubsetRefs(n.object), ...n.args.flatMap(jsSubsetRefs)];
    case "unary":
      return jsSubsetRefs(n.arg);
    case "binary":
      return [...jsSubsetRefs(n.left), ...jsSubsetRefs(n.right)];
    case "cond":
      return [n.test, n.then, n.otherwise].flatMap(jsSubsetRefs);
  }
}

/**
 * How Catalyst's `if` reads a condition's value: a boolean as it is, a number unless 0, a text
 * unless empty, `false`, `null` or `undefined` (in any case); nothing is false, a list or an
 * object is true.
 */
export function catalystTruthy(v: unknown): boolean {
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v !== 0;
  if (typeof v === "string")
    return !["", "false", "null", "undefined"].includes(v.trim().toLowerCase());
  return v !== undefined && v !== null;
}

/** Looks a reference up; `undefined` when it has no value. */
export type JsResolver = (path: readonly string[]) => unknown;

/** The value of a tree over the run's values: JavaScript's meaning, within the subset. */
export function evaluateJsSubset(n: JsNode, resolve: JsResolver): unknown {
  switch (n.k) {
    case "lit":
      return Array.isArray(n.v) ? n.v.map((x) => evaluateJsSubset(x, resolve)) : n.v;
    case "ref": {
      const v = resolve(n.path);
      return typeof v === "function" ? undefined : v;
    }
    case "get":
      return ownValue(evaluateJsSubset(n.object, resolve), evaluateJsSubset(n.key, resolve));
    case "call":
      return callMethod(
        evaluateJsSubset(n.object, resolve),
        n.method,
        n.args.map((a) => evaluateJsSubset(a, resolve)),
      );
    case "unary": {
      const v = evaluateJsSubset(n.arg, resolve);
      return n.op === "!" ? !jsTruthy(v) : -Number(v);
    }
    case "binary":
      return binary(n.op, n.left, n.right, resolve);
    case "cond":
      return evaluateJsSubset(
        jsTruthy(evaluateJsSubset(n.test, resolve)) ? n.then : n.otherwise,
        resolve,
      );
  }
}

function jsTruthy(v: unknown): boolean {
  return Boolean(v);
}

/** A value's own field or item (a text's or list's length); nothing inherited. */
function ownValue(object: unknown, key: unknown): unknown {
  if (typeof key !== "string" && typeof key !== "number") return undefined;
  const name = String(key);
  if (FORBIDDEN.has(name)) return undefined;
  // The run keeps a list or an object of objects as JSON text; its items and fields read into it.
  if (typeof object === "string" && name !== "length" && /^\s*[[{]/.test(object)) {
    const parsed = parsedJson(object);
    if (parsed !== undefined) return ownValue(parsed, key);
  }
  if (typeof object === "string" || Array.isArray(object)) {
    if (name === "length") return object.length;
    return /^[0-9]+$/.test(name) ? object[Number(name)] : undefined;
  }
  if (object !== null && typeof object === "object" && Object.hasOwn(object, name))
    return (object as Record<string, unknown>)[name];
  return undefined;
}

function parsedJson(text: string): unknown {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" ? v : undefined;
  } catch {
    return undefined;
  }
}

/** A method of `METHODS` on a text or a list, with plain arguments; undefined otherwise. */
function callMethod(object: unknown, method: string, args: unknown[]): unknown {
  if (!args.every((a) => a === undefined || typeof a === "string" || typeof a === "number"))
    return undefined;
  const target = typeof object === "string" || Array.isArray(object) ? object : undefined;
  const fn = (target as unknown as Record<string, unknown> | undefined)?.[method];
  if (typeof fn !== "function") return undefined;
  return (fn as (...a: unknown[]) => unknown).apply(target, args);
}

function binary(op: string, l: JsNode, r: JsNode, resolve: JsResolver): unknown {
  const left = evaluateJsSubset(l, resolve);
  if (op === "&&") return jsTruthy(left) ? evaluateJsSubset(r, resolve) : left;
  if (op === "||") return jsTruthy(left) ? left : evaluateJsSubset(r, resolve);
  if (op === "??") return left ?? evaluateJsSubset(r, resolve);
  const right = evaluateJsSubset(r, resolve);
  switch (op) {
    case "===":
      return left === right;
    case "!==":
      return left !== right;
    case "==":
      return looseEqual(left, right);
    case "!=":
      return !looseEqual(left, right);
    default:
      return order(op, left, right);
  }
}

/** JavaScript's `==` on the values a run holds (primitives, lists and objects of them). */
function looseEqual(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined || b === null || b === undefined)
    return (a ?? null) === (b ?? null);
  if (typeof a === "object" || typeof b === "object") return a === b;
  if (typeof a === typeof b) return a === b;
  return Number(a) === Number(b);
}

/** `<`, `<=`, `>`, `>=`: two texts by their characters, anything else as numbers. */
function order(op: string, a: unknown, b: unknown): boolean {
  const both = typeof a === "string" && typeof b === "string";
  const x = both ? a : Number(a);
  const y = both ? b : Number(b);
  if (op === "<") return x < y;
  if (op === "<=") return x <= y;
  if (op === ">") return x > y;
  return x >= y;
}

/** The text of a tree, as `${{ … }}` holds it (every operation in parentheses). */
export function jsSubsetText(n: JsNode): string {
  switch (n.k) {
    case "lit":
      if (Array.isArray(n.v)) return `[${n.v.map(jsSubsetText).join(", ")}]`;
      return n.v === undefined ? "undefined" : JSON.stringify(n.v);
    case "ref":
      return n.path.reduce((text, seg, i) => (i === 0 ? seg : text + field(seg)), "");
    case "get":
      return n.key.k === "lit" && typeof n.key.v === "string"
        ? jsSubsetText(n.object) + field(n.key.v)
        : `${jsSubsetText(n.object)}[${jsSubsetText(n.key)}]`;
    case "call":
      return `${jsSubsetText(n.object)}.${n.method}(${n.args.map(jsSubsetText).join(", ")})`;
    case "unary":
      return `${n.op}(${jsSubsetText(n.arg)})`;
    case "binary":
      return `(${jsSubsetText(n.left)} ${n.op} ${jsSubsetText(n.right)})`;
    case "cond":
      return `(${jsSubsetText(n.test)} ? ${jsSubsetText(n.then)} : ${jsSubsetText(n.otherwise)})`;
  }
}

function field(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}
