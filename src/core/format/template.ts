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
  /^([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_][A-Za-z0-9_-]*)*)((?:\[(?:[0-9]{1,4}|item_index)\])+)?$/;

type Token =
  | { t: "name"; v: string; at: number }
  | { t: "str"; v: string; at: number }
  | { t: "num"; v: number; at: number }
  | { t: "op"; v: string; at: number }
  | { t: "end"; at: number };

const NAME =
  /^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_][A-Za-z0-9_-]*)*(?:\[(?:[0-9]{1,4}|item_index)\])*/;

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
  return new ValueParser(src, base).parse();
}

/** A recursive descent over the tokens of one `{{ }}`. */
class ValueParser {
  private readonly tokens: Token[];
  private pos = 0;

  constructor(
    private readonly src: string,
    private readonly base: number,
  ) {
    this.tokens = tokenize(src, base);
  }

  parse(): TemplateValue {
    const v = this.value();
    const t = this.peek();
    if (t.t !== "end") throw new ExpressionError(`unexpected '${"v" in t ? t.v : ""}'`, t.at);
    return v;
  }

  private peek(): Token {
    return this.tokens[this.pos] as Token;
  }

  private isWord(w: string): boolean {
    const t = this.peek();
    return t.t === "name" && t.v === w;
  }

  private operand(): TemplateValue {
    const t = this.peek();
    if (t.t === "str" || t.t === "num") {
      this.pos++;
      return { kind: "literal", value: t.v };
    }
    if (t.t === "name" && !["if", "else", "or", "and", "not"].includes(t.v)) {
      this.pos++;
      return nameValue(t.v, t.at);
    }
    throw new ExpressionError(
      t.t === "end"
        ? "the template ends where a value was expected"
        : `unexpected '${"v" in t ? t.v : ""}'`,
      t.at,
    );
  }

  private alt(): TemplateValue {
    const options = [this.operand()];
    for (;;) {
      if (this.isWord("or")) {
        this.pos++;
        options.push(this.operand());
        continue;
      }
      const t = this.peek();
      if (t.t === "op" && t.v === "|") {
        this.pos++;
        options.push(this.defaultFilter());
        continue;
      }
      break;
    }
    return options.length === 1 ? (options[0] as TemplateValue) : { kind: "first", options };
  }

  /** `default('x')` after a `|`: the one filter there is, with one literal. */
  private defaultFilter(): TemplateValue {
    const filter = this.peek();
    if (filter.t !== "name" || filter.v !== "default")
      throw new ExpressionError(
        `'| ${"v" in filter ? filter.v : ""}' is not supported: the only filter is default('…')`,
        filter.at,
      );
    this.pos++;
    const open = this.peek();
    if (open.t !== "op" || open.v !== "(")
      throw new ExpressionError("expected '(' after default", open.at);
    this.pos++;
    const lit = this.peek();
    if (lit.t !== "str" && lit.t !== "num")
      throw new ExpressionError("default(…) takes one literal: default('utf-8')", lit.at);
    this.pos++;
    const close = this.peek();
    if (close.t !== "op" || close.v !== ")") throw new ExpressionError("expected ')'", close.at);
    this.pos++;
    return { kind: "literal", value: lit.v };
  }

  private value(): TemplateValue {
    const then = this.alt();
    if (!this.isWord("if")) return then;
    const ifAt = this.peek().at;
    this.pos++;
    let depth = 0;
    const start = this.pos;
    // The test runs up to the `else` of this choice (choices may nest in the else part only).
    while (this.peek().t !== "end" && !(depth === 0 && this.isWord("else"))) {
      const t = this.peek();
      if (t.t === "op" && t.v === "(") depth++;
      if (t.t === "op" && t.v === ")") depth--;
      this.pos++;
    }
    if (!this.isWord("else"))
      throw new ExpressionError("'x if test' needs an else: x if test else y", ifAt);
    const from = (this.tokens[start] as Token).at - this.base;
    const to = this.peek().at - this.base;
    const test = parseTest(this.src.slice(from, to), this.base + from);
    this.pos++;
    return { kind: "choice", test, testOffset: this.base + from, then, otherwise: this.value() };
  }
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

/**
 * Whether a text can hold anything but plain text: a placeholder, or a length past what is read.
 * Most fields hold no template at all, and their parse is the text itself.
 */
export function mayHoldTemplate(src: string): boolean {
  return src.length > MAX_TEMPLATE_LENGTH || src.includes("{") || src.includes("$");
}

export function parseTemplate(src: string): { parts: TemplatePart[]; problems: TemplateProblem[] } {
  if (src.length > MAX_TEMPLATE_LENGTH) {
    const problem = {
      message: `the template is ${src.length} characters long; at most ${MAX_TEMPLATE_LENGTH} are read`,
      offset: 0,
      hint: "split the text, or move it to a file the step reads",
    };
    return { parts: [{ kind: "text", text: src }], problems: [problem] };
  }
  if (!mayHoldTemplate(src))
    return { parts: src === "" ? [] : [{ kind: "text", text: src }], problems: [] };
  return new TemplateParser(src).parse();
}

/** Where the parser goes on after a piece: an index into the text, or the end (unclosed). */
type Next = number | "stop";

/** Reads a template left to right, one piece (text, `{{ }}`, `{% %}`, `${ }`) at a time. */
class TemplateParser {
  private readonly problems: TemplateProblem[] = [];
  private readonly top: TemplatePart[] = [];
  private readonly stack: Block[] = [];
  /** Plain text read but not yet added as a part. */
  private text = "";

  constructor(private readonly src: string) {}

  parse(): { parts: TemplatePart[]; problems: TemplateProblem[] } {
    const src = this.src;
    let i = 0;
    while (i < src.length) {
      const next = src.startsWith("${{", i)
        ? this.actionsSyntax(i)
        : src.startsWith("{{", i)
          ? this.expression(i)
          : src.startsWith("{%", i)
            ? this.block(i)
            : src.startsWith("${", i)
              ? this.placeholder(i)
              : this.plainText(i);
      if (next === "stop") break;
      i = next;
    }
    this.flush();
    for (const open of this.stack)
      this.problem("{% if %} is never closed", open.part.offset, "end the block with {% endif %}");
    return { parts: this.top, problems: this.problems };
  }

  private target(): TemplatePart[] {
    return this.stack[this.stack.length - 1]?.into ?? this.top;
  }

  private flush(): void {
    if (this.text !== "") this.target().push({ kind: "text", text: this.text });
    this.text = "";
  }

  private problem(message: string, offset: number, hint: string): void {
    this.problems.push({ message, offset, hint });
  }

  /** Where the tag opened at `i` closes; undefined (and reported) when it never does. */
  private closeOf(i: number, open: string, close: string): number | undefined {
    const at = this.src.indexOf(close, i + 2);
    if (at !== -1) return at;
    this.problem(`'${open}' is never closed`, i, `close it with '${close}'`);
    return undefined;
  }

  /** `${{ }}` is GitHub Actions' syntax: reported and skipped. */
  private actionsSyntax(i: number): Next {
    const close = this.src.indexOf("}}", i);
    this.problem(
      `'${this.src.slice(i, close === -1 ? undefined : close + 2)}' is GitHub Actions syntax, not a playbook template`,
      i,
      "write {{ inputs.name }} (no leading $)",
    );
    return close === -1 ? this.src.length : close + 2;
  }

  /** `{{ … }}`: a name (a reference), or a value (fallback, choice). */
  private expression(i: number): Next {
    const src = this.src;
    const close = this.closeOf(i, "{{", "}}");
    if (close === undefined) return "stop";
    const inner = src.slice(i + 2, close);
    const trimmed = inner.trim();
    const raw = src.slice(i, close + 2);
    const m = INDEXED_REF.exec(trimmed);
    if (trimmed === "") {
      this.problem("empty template '{{ }}'", i, "write a name such as {{ inputs.package }}");
    } else if (m && REF.test(m[1] as string)) {
      this.flush();
      const index = m[2] ? indexesOf(m[2]) : undefined;
      this.target().push({
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
        this.flush();
        this.target().push({ kind: "value", value, raw, offset: i });
      } catch (err) {
        if (!(err instanceof ExpressionError)) throw err;
        this.problem(
          `'{{ ${trimmed.length > 80 ? `${trimmed.slice(0, 77)}...` : trimmed} }}': ${err.message}`,
          err.offset,
          "a template holds a name ({{ inputs.package }}), a list item ({{ inputs.files[0] }}), a fallback ({{ a or b }}, {{ a | default('x') }}) or a choice ({{ x if test else y }}); nothing else",
        );
      }
    }
    return close + 2;
  }

  /** `{% if %}`, `{% elif %}`, `{% else %}`, `{% endif %}`: anything else is refused. */
  private block(i: number): Next {
    const src = this.src;
    const close = this.closeOf(i, "{%", "%}");
    if (close === undefined) return "stop";
    const inner = src.slice(i + 2, close);
    const tag = /^\s*([a-z]+)\b/.exec(inner);
    const word = tag?.[1] ?? "";
    const testAt = i + 2 + (tag?.[0].length ?? 0);
    const testSrc = inner.slice(tag?.[0].length ?? 0);
    try {
      if (word === "if") this.openIf(i, src.slice(i, close + 2), testSrc, testAt);
      else if (word === "elif" || word === "else" || word === "endif")
        this.continueIf(i, word, testSrc, testAt);
      else
        throw new ExpressionError(
          `'{% ${word || inner.trim().slice(0, 20)} %}' is not supported: blocks are {% if %}, {% elif %}, {% else %} and {% endif %}`,
          i,
        );
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      this.problem(
        err.message,
        err.offset,
        "write {% if test %}…{% else %}…{% endif %}, with a test such as inputs.mode == 'fast'",
      );
    }
    return close + 2;
  }

  private openIf(i: number, raw: string, testSrc: string, testAt: number): void {
    if (this.stack.length >= MAX_TEMPLATE_NESTING)
      throw new ExpressionError(`{% if %} blocks nest deeper than ${MAX_TEMPLATE_NESTING}`, i);
    let test: Expr = { kind: "literal", value: false };
    let bad: unknown;
    try {
      test = parseTest(testSrc, testAt);
    } catch (err) {
      // The block still opens, so its {% endif %} is not reported as well.
      bad = err;
    }
    this.flush();
    const part: Block["part"] = {
      kind: "if",
      branches: [{ test, testOffset: testAt, parts: [] }],
      otherwise: [],
      raw,
      offset: i,
    };
    this.target().push(part);
    this.stack.push({
      part,
      into: (part.branches[0] as { parts: TemplatePart[] }).parts,
      sawElse: false,
    });
    if (bad !== undefined) throw bad;
  }

  private continueIf(
    i: number,
    word: "elif" | "else" | "endif",
    testSrc: string,
    testAt: number,
  ): void {
    const block = this.stack[this.stack.length - 1];
    if (!block) throw new ExpressionError(`{% ${word} %} without an {% if %}`, i);
    this.flush();
    if (word === "endif") {
      if (testSrc.trim() !== "") throw new ExpressionError("{% endif %} takes nothing", testAt);
      this.stack.pop();
    } else if (block.sawElse) {
      throw new ExpressionError(`{% ${word} %} after {% else %}`, i);
    } else if (word === "else") {
      if (testSrc.trim() !== "") throw new ExpressionError("{% else %} takes nothing", testAt);
      block.sawElse = true;
      block.into = block.part.otherwise;
    } else {
      const branch = { test: parseTest(testSrc, testAt), testOffset: testAt, parts: [] };
      block.part.branches.push(branch);
      block.into = branch.parts;
    }
  }

  /** Triagent's `${name}`: an input. */
  private placeholder(i: number): Next {
    const src = this.src;
    const close = src.indexOf("}", i + 2);
    const inner = close === -1 ? "" : src.slice(i + 2, close).trim();
    if (close === -1 || !/^[A-Za-z_][A-Za-z0-9_-]*$/.test(inner)) {
      this.problem(
        `'${src.slice(i, close === -1 ? i + 12 : close + 1)}' is not a valid placeholder`,
        i,
        "a placeholder names one input: ${namespace}",
      );
      return close === -1 ? src.length : close + 1;
    }
    this.flush();
    this.target().push({
      kind: "ref",
      path: ["inputs", inner],
      raw: src.slice(i, close + 1),
      offset: i,
      placeholder: true,
    });
    return close + 1;
  }

  /** Plain text up to the next place a template could start, in one piece. */
  private plainText(i: number): Next {
    const src = this.src;
    const brace = src.indexOf("{", i + 1);
    const dollar = src.indexOf("$", i + 1);
    const stop = Math.min(brace === -1 ? src.length : brace, dollar === -1 ? src.length : dollar);
    this.text += src.slice(i, stop);
    return stop;
  }
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
