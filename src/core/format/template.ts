/**
 * Templates: `{{ inputs.x }}`, `{{ steps.id.outputs.k }}`, `{{ findings.k }}`, `{{ issue.number }}`,
 * and Triagent's `${placeholder}` for an input. Beyond names, a small logic-limited subset that
 * other systems' playbooks use: a list item (`{{ inputs.files[0] }}`), a fallback
 * (`{{ a or b }}`, `{{ a | default('x') }}`), a choice (`{{ x if <expression> else y }}`) and
 * `{% if %}…{% elif %}…{% else %}…{% endif %}` blocks, whose tests are the expression language of
 * `if:`. Templates are parsed into a tree and interpreted; nothing is ever evaluated as code, and
 * anything else (loops, other filters, calls) is refused where it is written.
 */
import {
  ExpressionError,
  expressionRefs,
  indexesOf,
  parseExpression,
  type Expr,
} from "./expression.js";

/** A value inside `{{ }}`: a name, a literal, a fallback chain, or a choice. */
export type TemplateValue =
  | { kind: "name"; path: string[]; index?: number[]; offset: number; raw: string }
  | { kind: "literal"; value: string | number }
  | { kind: "first"; options: TemplateValue[] }
  | {
      kind: "choice";
      test: Expr;
      testOffset: number;
      then: TemplateValue;
      otherwise: TemplateValue;
    };

export type TemplatePart =
  | { kind: "text"; text: string }
  | {
      kind: "ref";
      path: string[];
      /** Positions into a list value: `files[0]` is `[0]`. */
      index?: number[];
      raw: string;
      offset: number;
      placeholder: boolean;
    }
  /** `{{ a or b }}`, `{{ x if c else y }}`, `{{ a | default('x') }}`. */
  | { kind: "value"; value: TemplateValue; raw: string; offset: number }
  /** `{% if %}` with its `elif`s and `else`. */
  | {
      kind: "if";
      branches: { test: Expr; testOffset: number; parts: TemplatePart[] }[];
      otherwise: TemplatePart[];
      raw: string;
      offset: number;
    };

export interface TemplateProblem {
  message: string;
  offset: number;
  hint: string;
}

/** How deep `{% if %}` blocks may nest, and how long a template may be: both bound the work. */
export const MAX_TEMPLATE_NESTING = 8;
export const MAX_TEMPLATE_LENGTH = 256 * 1024;

const REF = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_][A-Za-z0-9_-]*)*$/;
const INDEXED_REF =
  /^([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_][A-Za-z0-9_-]*)*)((?:\[[0-9]{1,4}\])+)?$/;

type Token =
  | { t: "name"; v: string; at: number }
  | { t: "str"; v: string; at: number }
  | { t: "num"; v: number; at: number }
  | { t: "op"; v: string; at: number }
  | { t: "end"; at: number };

const NAME = /^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_][A-Za-z0-9_-]*)*(?:\[[0-9]{1,4}\])*/;

function tokenize(src: string, base: number): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const rest = src.slice(i);
    if (c === "'" || c === '"') {
      const close = src.indexOf(c, i + 1);
      if (close === -1) throw new ExpressionError("unterminated string", base + i);
      out.push({ t: "str", v: src.slice(i + 1, close), at: base + i });
      i = close + 1;
      continue;
    }
    const num = /^-?[0-9]+(\.[0-9]+)?/.exec(rest);
    if (num) {
      out.push({ t: "num", v: Number(num[0]), at: base + i });
      i += num[0].length;
      continue;
    }
    const name = NAME.exec(rest);
    if (name) {
      out.push({ t: "name", v: name[0], at: base + i });
      i += name[0].length;
      continue;
    }
    const op = /^(==|!=|<=|>=|[<>|()!])/.exec(rest);
    if (op) {
      out.push({ t: "op", v: op[0], at: base + i });
      i += op[0].length;
      continue;
    }
    throw new ExpressionError(`unexpected character '${c}'`, base + i);
  }
  out.push({ t: "end", at: base + src.length });
  return out;
}

function nameValue(v: string, at: number): TemplateValue {
  const m = INDEXED_REF.exec(v) as RegExpExecArray;
  const index = m[2] ? indexesOf(m[2]) : undefined;
  return {
    kind: "name",
    path: (m[1] as string).split("."),
    offset: at,
    raw: v,
    ...(index ? { index } : {}),
  };
}

/**
 * Parses the inside of `{{ }}` that is more than a name:
 * value := alt ('if' <expression> 'else' value)? ; alt := operand (('or' operand) | ('|' 'default' '(' literal ')'))*
 */
function parseValue(src: string, base: number): TemplateValue {
  const tokens = tokenize(src, base);
  let pos = 0;
  const peek = (): Token => tokens[pos] as Token;
  const isWord = (w: string): boolean => {
    const t = peek();
    return t.t === "name" && t.v === w;
  };
  const operand = (): TemplateValue => {
    const t = peek();
    if (t.t === "str" || t.t === "num") {
      pos++;
      return { kind: "literal", value: t.v };
    }
    if (t.t === "name" && !["if", "else", "or", "and", "not"].includes(t.v)) {
      pos++;
      return nameValue(t.v, t.at);
    }
    throw new ExpressionError(
      t.t === "end"
        ? "the template ends where a value was expected"
        : `unexpected '${"v" in t ? t.v : ""}'`,
      t.at,
    );
  };
  const alt = (): TemplateValue => {
    const options = [operand()];
    for (;;) {
      if (isWord("or")) {
        pos++;
        options.push(operand());
        continue;
      }
      const t = peek();
      if (t.t === "op" && t.v === "|") {
        pos++;
        const filter = peek();
        if (filter.t !== "name" || filter.v !== "default")
          throw new ExpressionError(
            `'| ${"v" in filter ? filter.v : ""}' is not supported: the only filter is default('…')`,
            filter.at,
          );
        pos++;
        const open = peek();
        if (open.t !== "op" || open.v !== "(")
          throw new ExpressionError("expected '(' after default", open.at);
        pos++;
        const lit = peek();
        if (lit.t !== "str" && lit.t !== "num")
          throw new ExpressionError("default(…) takes one literal: default('utf-8')", lit.at);
        pos++;
        const close = peek();
        if (close.t !== "op" || close.v !== ")")
          throw new ExpressionError("expected ')'", close.at);
        pos++;
        options.push({ kind: "literal", value: lit.v });
        continue;
      }
      break;
    }
    return options.length === 1 ? (options[0] as TemplateValue) : { kind: "first", options };
  };
  const value = (): TemplateValue => {
    const then = alt();
    if (!isWord("if")) return then;
    const ifAt = peek().at;
    pos++;
    let depth = 0;
    const start = pos;
    // The test runs up to the `else` of this choice (choices may nest in the else part only).
    while (peek().t !== "end" && !(depth === 0 && isWord("else"))) {
      const t = peek();
      if (t.t === "op" && t.v === "(") depth++;
      if (t.t === "op" && t.v === ")") depth--;
      pos++;
    }
    if (!isWord("else"))
      throw new ExpressionError("'x if test' needs an else: x if test else y", ifAt);
    const from = (tokens[start] as Token).at - base;
    const to = peek().at - base;
    const test = parseTest(src.slice(from, to), base + from);
    pos++;
    return { kind: "choice", test, testOffset: base + from, then, otherwise: value() };
  };
  const v = value();
  const t = peek();
  if (t.t !== "end") throw new ExpressionError(`unexpected '${"v" in t ? t.v : ""}'`, t.at);
  return v;
}

function parseTest(src: string, base: number): Expr {
  if (src.trim() === "") throw new ExpressionError("the test is empty", base);
  try {
    return parseExpression(src);
  } catch (err) {
    if (err instanceof ExpressionError) throw new ExpressionError(err.message, base + err.offset);
    throw err;
  }
}

type Block = {
  part: Extract<TemplatePart, { kind: "if" }>;
  /** Where the parts being collected go: the last branch's, or the else's. */
  into: TemplatePart[];
  sawElse: boolean;
};

export function parseTemplate(src: string): { parts: TemplatePart[]; problems: TemplateProblem[] } {
  const problems: TemplateProblem[] = [];
  if (src.length > MAX_TEMPLATE_LENGTH) {
    problems.push({
      message: `the template is ${src.length} characters long; at most ${MAX_TEMPLATE_LENGTH} are read`,
      offset: 0,
      hint: "split the text, or move it to a file the step reads",
    });
    return { parts: [{ kind: "text", text: src }], problems };
  }
  // Most fields hold no template at all.
  if (!src.includes("{") && !src.includes("$"))
    return { parts: src === "" ? [] : [{ kind: "text", text: src }], problems };
  const top: TemplatePart[] = [];
  const stack: Block[] = [];
  const target = (): TemplatePart[] => stack[stack.length - 1]?.into ?? top;
  let text = "";
  let i = 0;
  const flush = (): void => {
    if (text !== "") target().push({ kind: "text", text });
    text = "";
  };
  const problem = (message: string, offset: number, hint: string): void => {
    problems.push({ message, offset, hint });
  };
  while (i < src.length) {
    if (src.startsWith("${{", i)) {
      const close = src.indexOf("}}", i);
      problem(
        `'${src.slice(i, close === -1 ? undefined : close + 2)}' is GitHub Actions syntax, not a playbook template`,
        i,
        "write {{ inputs.name }} (no leading $)",
      );
      i = close === -1 ? src.length : close + 2;
      continue;
    }
    if (src.startsWith("{{", i)) {
      const close = src.indexOf("}}", i + 2);
      if (close === -1) {
        problem("'{{' is never closed", i, "close it with '}}'");
        break;
      }
      const inner = src.slice(i + 2, close);
      const trimmed = inner.trim();
      const raw = src.slice(i, close + 2);
      const m = INDEXED_REF.exec(trimmed);
      if (trimmed === "") {
        problem("empty template '{{ }}'", i, "write a name such as {{ inputs.package }}");
      } else if (m && REF.test(m[1] as string)) {
        flush();
        const index = m[2] ? indexesOf(m[2]) : undefined;
        target().push({
          kind: "ref",
          path: (m[1] as string).split("."),
          raw,
          offset: i,
          placeholder: false,
          ...(index ? { index } : {}),
        });
      } else {
        try {
          const value = parseValue(inner, i + 2);
          flush();
          target().push({ kind: "value", value, raw, offset: i });
        } catch (err) {
          if (!(err instanceof ExpressionError)) throw err;
          problem(
            `'{{ ${trimmed.length > 80 ? `${trimmed.slice(0, 77)}...` : trimmed} }}': ${err.message}`,
            err.offset,
            "a template holds a name ({{ inputs.package }}), a list item ({{ inputs.files[0] }}), a fallback ({{ a or b }}, {{ a | default('x') }}) or a choice ({{ x if test else y }}); nothing else",
          );
        }
      }
      i = close + 2;
      continue;
    }
    if (src.startsWith("{%", i)) {
      const close = src.indexOf("%}", i + 2);
      if (close === -1) {
        problem("'{%' is never closed", i, "close it with '%}'");
        break;
      }
      const inner = src.slice(i + 2, close);
      const tag = /^\s*([a-z]+)\b/.exec(inner);
      const word = tag?.[1] ?? "";
      const testAt = i + 2 + (tag?.[0].length ?? 0);
      const testSrc = inner.slice(tag?.[0].length ?? 0);
      const raw = src.slice(i, close + 2);
      const block = stack[stack.length - 1];
      try {
        if (word === "if") {
          if (stack.length >= MAX_TEMPLATE_NESTING)
            throw new ExpressionError(
              `{% if %} blocks nest deeper than ${MAX_TEMPLATE_NESTING}`,
              i,
            );
          let test: Expr = { kind: "literal", value: false };
          let bad: unknown;
          try {
            test = parseTest(testSrc, testAt);
          } catch (err) {
            // The block still opens, so its {% endif %} is not reported as well.
            bad = err;
          }
          flush();
          const part: Block["part"] = {
            kind: "if",
            branches: [{ test, testOffset: testAt, parts: [] }],
            otherwise: [],
            raw,
            offset: i,
          };
          target().push(part);
          stack.push({
            part,
            into: (part.branches[0] as { parts: TemplatePart[] }).parts,
            sawElse: false,
          });
          if (bad !== undefined) throw bad;
        } else if (word === "elif" || word === "else" || word === "endif") {
          if (!block) throw new ExpressionError(`{% ${word} %} without an {% if %}`, i);
          flush();
          if (word === "endif") {
            if (testSrc.trim() !== "")
              throw new ExpressionError("{% endif %} takes nothing", testAt);
            stack.pop();
          } else if (block.sawElse) {
            throw new ExpressionError(`{% ${word} %} after {% else %}`, i);
          } else if (word === "else") {
            if (testSrc.trim() !== "")
              throw new ExpressionError("{% else %} takes nothing", testAt);
            block.sawElse = true;
            block.into = block.part.otherwise;
          } else {
            const branch = { test: parseTest(testSrc, testAt), testOffset: testAt, parts: [] };
            block.part.branches.push(branch);
            block.into = branch.parts;
          }
        } else {
          throw new ExpressionError(
            `'{% ${word || inner.trim().slice(0, 20)} %}' is not supported: blocks are {% if %}, {% elif %}, {% else %} and {% endif %}`,
            i,
          );
        }
      } catch (err) {
        if (!(err instanceof ExpressionError)) throw err;
        problem(
          err.message,
          err.offset,
          "write {% if test %}…{% else %}…{% endif %}, with a test such as inputs.mode == 'fast'",
        );
      }
      i = close + 2;
      continue;
    }
    if (src.startsWith("${", i)) {
      const close = src.indexOf("}", i + 2);
      const inner = close === -1 ? "" : src.slice(i + 2, close).trim();
      if (close === -1 || !/^[A-Za-z_][A-Za-z0-9_-]*$/.test(inner)) {
        problem(
          `'${src.slice(i, close === -1 ? i + 12 : close + 1)}' is not a valid placeholder`,
          i,
          "a placeholder names one input: ${namespace}",
        );
        i = close === -1 ? src.length : close + 1;
        continue;
      }
      flush();
      target().push({
        kind: "ref",
        path: ["inputs", inner],
        raw: src.slice(i, close + 1),
        offset: i,
        placeholder: true,
      });
      i = close + 1;
      continue;
    }
    // Plain text up to the next place a template could start, in one piece.
    const brace = src.indexOf("{", i + 1);
    const dollar = src.indexOf("$", i + 1);
    const stop = Math.min(brace === -1 ? src.length : brace, dollar === -1 ? src.length : dollar);
    text += src.slice(i, stop);
    i = stop;
  }
  flush();
  for (const open of stack)
    problem("{% if %} is never closed", open.part.offset, "end the block with {% endif %}");
  return { parts: top, problems };
}

/** A name a template uses, wherever it stands (in a fallback, a choice's test, a block's test). */
export interface TemplateRef {
  path: string[];
  raw: string;
  offset: number;
  /** Inside a fallback or a choice or block: a missing value is not an error there. */
  optional: boolean;
}

function valueRefs(v: TemplateValue, optional: boolean, out: TemplateRef[]): void {
  switch (v.kind) {
    case "name":
      out.push({ path: v.path, raw: v.raw, offset: v.offset, optional });
      return;
    case "literal":
      return;
    case "first":
      for (const o of v.options) valueRefs(o, true, out);
      return;
    case "choice":
      testRefs(v.test, v.testOffset, out);
      valueRefs(v.then, optional, out);
      valueRefs(v.otherwise, optional, out);
  }
}

function testRefs(test: Expr, base: number, out: TemplateRef[]): void {
  for (const r of expressionRefs(test))
    out.push({ path: r.path, raw: r.path.join("."), offset: base + r.offset, optional: true });
}

/** Every name a parsed template uses, in order. */
export function templateRefs(parts: readonly TemplatePart[]): TemplateRef[] {
  const out: TemplateRef[] = [];
  const walk = (list: readonly TemplatePart[]): void => {
    for (const p of list) {
      if (p.kind === "ref")
        out.push({ path: p.path, raw: p.raw, offset: p.offset, optional: false });
      else if (p.kind === "value") valueRefs(p.value, false, out);
      else if (p.kind === "if") {
        for (const b of p.branches) {
          testRefs(b.test, b.testOffset, out);
          walk(b.parts);
        }
        walk(p.otherwise);
      }
    }
  };
  walk(parts);
  return out;
}

/** Whether a string contains anything a template would replace. */
export function isTemplated(src: string): boolean {
  return src.includes("{{") || src.includes("${") || src.includes("{%");
}

/** The literal skeleton of a template with each value replaced by `stand`: for static path checks. */
export function templateSkeleton(src: string, stand = "x"): string {
  // A block stands as one value too: which branch's text is there is known only when it runs.
  return parseTemplate(src)
    .parts.map((p) => (p.kind === "text" ? p.text : stand))
    .join("");
}
