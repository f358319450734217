/**
 * The one expression form of `if` and `when`: comparisons joined by and/or/not over references
 * (inputs.x, steps.id.outputs.k, findings.k, issue.number, ...) and literals. It is parsed into a
 * small tree and interpreted; nothing in it is ever handed to a JavaScript evaluator.
 */
import { ExpressionError, type Literal } from "./expression-error.js";
import {
  catalystTruthy,
  evaluateJsSubset,
  jsSubsetRefs,
  parseJsSubset,
  type JsNode,
} from "./js-subset.js";

export { ExpressionError, type Literal } from "./expression-error.js";

export type Expr =
  | { kind: "literal"; value: Literal }
  | { kind: "ref"; path: string[]; offset: number; index?: number[] }
  | { kind: "not"; operand: Expr }
  | { kind: "logic"; op: "and" | "or"; left: Expr; right: Expr }
  | { kind: "compare"; op: CompareOp; left: Expr; right: Expr }
  /** `${{ … }}`: a JavaScript expression of the subset in `js-subset.ts` (Catalyst's conditions). */
  | { kind: "js"; node: JsNode };

export type CompareOp = "==" | "!=" | "<" | "<=" | ">" | ">=";

type Token =
  | { t: "num"; v: number; at: number }
  | { t: "str"; v: string; at: number }
  | { t: "id"; v: string; at: number; index?: number[] }
  | { t: "op"; v: string; at: number }
  | { t: "end"; at: number };

const KEYWORDS: Record<string, Literal> = { true: true, false: false, null: null };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const rest = src.slice(i);
    const num = /^-?[0-9]+(\.[0-9]+)?/.exec(rest);
    if (num && (c !== "-" || out.length === 0 || out[out.length - 1]?.t === "op")) {
      out.push({ t: "num", v: Number(num[0]), at: i });
      i += num[0].length;
      continue;
    }
    if (c === "'" || c === '"') {
      let j = i + 1;
      let v = "";
      while (j < src.length && src[j] !== c) {
        if (src[j] === "\\" && j + 1 < src.length) j++;
        v += src[j];
        j++;
      }
      if (j >= src.length) throw new ExpressionError("unterminated string", i);
      out.push({ t: "str", v, at: i });
      i = j + 1;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_][A-Za-z0-9_-]*)*/.exec(rest);
    if (word) {
      // `name[0]`: an item of a list, by position (a fixed number, or the item at hand's).
      const index = /^(\[(?:[0-9]{1,4}|item_index)\])+/.exec(rest.slice(word[0].length));
      out.push({
        t: "id",
        v: word[0],
        at: i,
        ...(index ? { index: indexesOf(index[0]) } : {}),
      });
      i += word[0].length + (index?.[0].length ?? 0);
      continue;
    }
    const op = /^(==|!=|<=|>=|&&|\|\||[<>!()])/.exec(rest);
    if (op) {
      out.push({ t: "op", v: op[0], at: i });
      i += op[0].length;
      continue;
    }
    throw new ExpressionError(`unexpected character '${c}'`, i);
  }
  out.push({ t: "end", at: src.length });
  return out;
}

/** The text inside `${{ … }}` when an expression is written so, and where it starts. */
const JS_FORM = /^(\s*\$\{\{)([\s\S]*)\}\}\s*$/;

export function parseExpression(src: string): Expr {
  const js = JS_FORM.exec(src);
  if (js) return { kind: "js", node: parseJsSubset(js[2] as string, (js[1] as string).length) };
  const tokens = tokenize(src);
  let pos = 0;
  const peek = (): Token => tokens[pos] as Token;
  const isOp = (v: string): boolean => {
    const t = peek();
    return (t.t === "op" && t.v === v) || (t.t === "id" && t.v === v);
  };

  const primary = (): Expr => {
    const t = peek();
    if (t.t === "op" && t.v === "(") {
      pos++;
      const e = or();
      if (!isOp(")")) throw new ExpressionError("expected ')'", peek().at);
      pos++;
      return e;
    }
    if (t.t === "num" || t.t === "str") {
      pos++;
      return { kind: "literal", value: t.v };
    }
    if (t.t === "id") {
      if (["and", "or", "not"].includes(t.v))
        throw new ExpressionError(`unexpected '${t.v}'`, t.at);
      pos++;
      if (Object.hasOwn(KEYWORDS, t.v)) return { kind: "literal", value: KEYWORDS[t.v] as Literal };
      return {
        kind: "ref",
        path: t.v.split("."),
        offset: t.at,
        ...(t.index ? { index: t.index } : {}),
      };
    }
    if (t.t === "end") throw new ExpressionError("expression ends too early", t.at);
    throw new ExpressionError(`unexpected '${t.v}'`, t.at);
  };
  const compare = (): Expr => {
    const left = primary();
    const t = peek();
    if (t.t === "op" && ["==", "!=", "<", "<=", ">", ">="].includes(t.v)) {
      pos++;
      return { kind: "compare", op: t.v as CompareOp, left, right: primary() };
    }
    return left;
  };
  const not = (): Expr => {
    if (isOp("not") || isOp("!")) {
      pos++;
      return { kind: "not", operand: not() };
    }
    return compare();
  };
  const and = (): Expr => {
    let left = not();
    while (isOp("and") || isOp("&&")) {
      pos++;
      left = { kind: "logic", op: "and", left, right: not() };
    }
    return left;
  };
  const or = (): Expr => {
    let left = and();
    while (isOp("or") || isOp("||")) {
      pos++;
      left = { kind: "logic", op: "or", left, right: and() };
    }
    return left;
  };

  const e = or();
  const t = peek();
  if (t.t !== "end") {
    throw new ExpressionError(
      `unexpected ${t.t === "str" ? "string" : `'${t.v}'`} after a complete expression`,
      t.at,
    );
  }
  return e;
}

/** Every reference in an expression, for static checks. */
export function expressionRefs(e: Expr): { path: string[]; offset: number }[] {
  switch (e.kind) {
    case "literal":
      return [];
    case "ref":
      return [{ path: e.path, offset: e.offset }];
    case "not":
      return expressionRefs(e.operand);
    case "js":
      return jsSubsetRefs(e.node);
    default:
      return [...expressionRefs(e.left), ...expressionRefs(e.right)];
  }
}

/** The position `[item_index]` stands for: the index of the for_each item at hand. */
export const ITEM_INDEX = -1;

/** The positions written after a name: `[0][2]` is `[0, 2]`, `[item_index]` is `[ITEM_INDEX]`. */
export function indexesOf(brackets: string): number[] {
  return (brackets.match(/[0-9]+|item_index/g) ?? []).map((i) =>
    i === "item_index" ? ITEM_INDEX : Number(i),
  );
}

/** Looks a reference up; `undefined` when it has no value. */
export type Resolver = (path: readonly string[]) => unknown;

/**
 * An item of a list value by position (`topics[0]`); `undefined` where there is none. A text
 * value is a list of its items separated by commas or line breaks, as a list input keeps them.
 */
export function indexed(
  value: unknown,
  index: readonly number[] | undefined,
  resolve?: Resolver,
): unknown {
  let v = value;
  for (const at of index ?? []) {
    // A loop step's output is one entry per item: `[item_index]` reads the item at hand's.
    const i = at === ITEM_INDEX ? Number(resolve?.(["item_index"])) : at;
    const list =
      typeof v === "string"
        ? v
            .split(/[,\n]/)
            .map((item) => item.trim())
            .filter((item) => item !== "")
        : v;
    v = Array.isArray(list) ? list[i] : undefined;
  }
  return v;
}

/** Whether a value counts as true: not missing, empty, zero, false or an empty list. */
export function truthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  return !(v === undefined || v === null || v === false || v === 0 || v === "" || v === "false");
}

/** Numbers given as text (inputs from issue forms, /record values) compare as numbers. */
function asNumber(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "string" && /^-?[0-9]+(\.[0-9]+)?$/.test(v.trim())) return Number(v);
  return undefined;
}

function equal(a: unknown, b: unknown): boolean {
  const na = asNumber(a);
  const nb = asNumber(b);
  if (na !== undefined && nb !== undefined) return na === nb;
  if (typeof a === "boolean" || typeof b === "boolean") return truthy(a) === truthy(b);
  return (a ?? null) === (b ?? null) || String(a) === String(b);
}

export function evaluateExpression(e: Expr, resolve: Resolver): boolean {
  if (e.kind === "js") return catalystTruthy(evaluateJsSubset(e.node, resolve));
  return truthy(evaluate(e, resolve));
}

function evaluate(e: Expr, resolve: Resolver): unknown {
  switch (e.kind) {
    case "literal":
      return e.value;
    case "ref":
      return indexed(resolve(e.path), e.index, resolve);
    case "js":
      return evaluateJsSubset(e.node, resolve);
    case "not":
      return !truthy(evaluate(e.operand, resolve));
    case "logic": {
      const left = truthy(evaluate(e.left, resolve));
      if (e.op === "and") return left && truthy(evaluate(e.right, resolve));
      return left || truthy(evaluate(e.right, resolve));
    }
    case "compare": {
      const a = evaluate(e.left, resolve);
      const b = evaluate(e.right, resolve);
      if (e.op === "==") return equal(a, b);
      if (e.op === "!=") return !equal(a, b);
      const na = asNumber(a);
      const nb = asNumber(b);
      // Ordering is defined on numbers, or on two strings; anything else is false, not a guess.
      let cmp: number;
      if (na !== undefined && nb !== undefined) cmp = na - nb;
      else if (typeof a === "string" && typeof b === "string") cmp = a < b ? -1 : a > b ? 1 : 0;
      else return false;
      if (e.op === "<") return cmp < 0;
      if (e.op === "<=") return cmp <= 0;
      if (e.op === ">") return cmp > 0;
      return cmp >= 0;
    }
  }
}
