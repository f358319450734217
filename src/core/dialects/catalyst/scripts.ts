/**
 * Catalyst's code steps as v1 `script` steps. Catalyst splices `{{x}}` values into a script's
 * text; a v1 script's text is never templated, so each value reaches it as an environment
 * variable instead (`"${CATALYST_1}"` where the text had `{{x}}`), and a JavaScript body's
 * `get('x')` reads its variable the same way. The script runs only where an operator allowed
 * scripts; the app refuses it.
 */

import {
  arithmeticFlow,
  variableFlow,
  type ArithmeticFlow,
  type Range,
  type ScriptLayout,
} from "./bash-flow.js";
import { optionFix, optionPlaces, type OptionPlaces } from "./option-places.js";
import { PROGRAM_TEXT, programPlaces } from "./program-places.js";
import type { Escape } from "./sed-script.js";

/** A value the script needs: the environment variable that carries it, and its v1 template. */
export interface ScriptValue {
  env: string;
  template: string;
}

/** Catalyst's `get('name')` calls in a JavaScript body. */
export function getNames(body: string): string[] {
  const names = new Set<string>();
  for (const m of body.matchAll(/\bget\(\s*(['"])([^'"\n]{1,200})\1\s*\)/g))
    if (m[2]) names.add(m[2]);
  return [...names];
}

/** The environment variable that carries `get(name)`. */
export function getEnvName(name: string): string {
  return `CATALYST_GET_${name.replace(/[^A-Za-z0-9]/g, "_").toUpperCase()}`;
}

/**
 * A Catalyst `script:` body (an async function body with `get`, `fs` and `path`, whose return
 * value is the step's result) as a Node.js program: the result is printed as JSON on stdout, so
 * `stdout.<field>` reads into it; anything the body logs goes to stderr.
 */
export function nodeProgram(body: string): string {
  return [
    "// Catalyst script step: get(), fs and path as Catalyst gives them; the result is printed as JSON.",
    'const fs = require("node:fs");',
    'const path = require("node:path");',
    "const get = (name) => {",
    '  const v = process.env["CATALYST_GET_" + String(name).replace(/[^A-Za-z0-9]/g, "_").toUpperCase()];',
    "  if (v === undefined) return undefined;",
    "  try { return /^\\s*[[{]/.test(v) ? JSON.parse(v) : v; } catch { return v; }",
    "};",
    "console.log = (...args) => console.error(...args);",
    "(async () => {",
    body,
    "})().then(",
    "  (result) => { if (result !== undefined) process.stdout.write(JSON.stringify(result)); },",
    "  (err) => { console.error(err && err.stack ? err.stack : String(err)); process.exit(1); },",
    ");",
  ].join("\n");
}

/** A `{{x}}` splice in a script's text (`${{x}}` too). */
const SPLICE = /\$?\{\{\s*([^{}]*?)\s*\}\}/y;

/** A shell script's `{{x}}` splices replaced by environment variables (see `bashText`). */
export function shellText(text: string, shell: "bash" | "powershell"): ScriptText {
  if (shell === "bash") return bashText(text);
  // PowerShell binds a variable as one value and never parses it as code.
  const refs: { env: string; expr: string }[] = [];
  const out = text.replace(new RegExp(SPLICE.source, "g"), (_whole, expr: string) => {
    return `$env:${refOf(refs, expr).env}`;
  });
  return { text: out, refs, refused: [] };
}

/** A script with its values as variables, and what the conversion refuses in it. */
export interface ScriptText {
  text: string;
  refs: { env: string; expr: string }[];
  /** Why the script cannot run as written: a value that names the command to run. */
  refused: string[];
}

function refOf(refs: { env: string; expr: string }[], expr: string): { env: string; expr: string } {
  let ref = refs.find((r) => r.expr === expr);
  if (!ref) {
    ref = { env: `CATALYST_${refs.length + 1}`, expr };
    refs.push(ref);
  }
  return ref;
}

/**
 * A bash script's splices as `$CATALYST_1` … (one variable per distinct reference, in order of
 * appearance), each written so that bash takes its value as data, whatever it holds: one argument
 * where it stood unquoted (`"${CATALYST_1}"`), inside the quotes where it stood quoted. Arithmetic
 * (`$(( ))`, `(( ))`, `let`, subscripts, offsets, `[[ -eq ]]`) evaluates a value as an expression,
 * `a[$(cmd)]` included, and so does a variable's value where the variable is named in arithmetic
 * (`n={{n}}; (( n > 0 ))`, see `bash-flow.ts`), so a value that reaches arithmetic must be a plain
 * integer: a check at the top of the script stops it with a clear error before anything runs.
 * Where the script hides where values go (`eval`, `${!x}`, …), every value must be one. A value
 * inside a program's own code (a sed program, a jq filter, see `program-places.ts`) is escaped
 * for its place there, or must be a plain integer where it cannot be.
 */
export function bashText(text: string): ScriptText {
  const refs: { env: string; expr: string }[] = [];
  const layout = bashLayout(text);
  const guard = new ValueGuard(text, layout);
  let out = "";
  let from = 0;
  layout.splices.forEach((s, i) => {
    const ref = refOf(refs, s.expr);
    out += text.slice(from, s.start) + SPLICE_FORM[s.context](guard.form(i, ref));
    from = s.end;
  });
  out += text.slice(from);
  return { text: guard.prelude(refs) + out, refs, refused: guard.refused() };
}

/** `\` and the given characters escaped with `\`, newlines as given: one value for one place. */
const ESCAPE_FUNCTION = `__catalyst_escape() { local s=\${!1} c b='\\' rest=$3; s=\${s//"$b"/"$b$b"}; while [[ -n $rest ]]; do c=\${rest:0:1}; rest=\${rest:1}; [[ $c == "$b" ]] || s=\${s//"$c"/"$b$c"}; done; s=\${s//$'\\n'/"$4"}; printf -v "$2" '%s' "$s"; }\n`;

/** Variables whose value a program runs as a command or loads as code. */
const CODE_VARIABLE =
  /^(?:GIT_(?:SSH|SSH_COMMAND|PROXY_COMMAND|EDITOR|SEQUENCE_EDITOR|PAGER|ASKPASS|EXTERNAL_DIFF|CONFIG_PARAMETERS|CONFIG_VALUE_\d+|CONFIG_KEY_\d+)|SSH_ASKPASS|EDITOR|VISUAL|PAGER|MANPAGER|BASH_ENV|ENV|LD_PRELOAD|PERL5OPT|NODE_OPTIONS|PYTHONSTARTUP|RUBYOPT)$/;

/**
 * What each splice's value must be, and the form it takes: the checks at the top of the script
 * (a plain number, no leading `-`) and the escaped copies a program's code gets.
 */
class ValueGuard {
  private readonly flow: ArithmeticFlow;
  private readonly programs: ReturnType<typeof programPlaces>;
  private readonly viaVariables: ArithmeticFlow;
  private readonly words: OptionPlaces;
  private readonly numbers = new Map<string, { expr: string; why: string }>();
  private readonly options = new Map<string, { expr: string; program: string }>();
  private readonly escapes = new Map<string, { name: string; env: string; escape: Escape }>();

  constructor(
    text: string,
    private readonly layout: BashLayout,
  ) {
    this.flow = arithmeticFlow(text, layout);
    this.programs = programPlaces({ text, ...layout });
    this.viaVariables = variableFlow(text, layout, this.programs.opaque);
    this.words = optionPlaces({ text, ...layout }, layout.starts);
  }

  /** The values that name the command a script runs: the program to run is code. */
  refused(): string[] {
    const exprs = new Set(this.words.names.map((i) => this.layout.splices[i]!.expr));
    return [...exprs].map(
      (expr) =>
        `{{${expr}}} names the command to run: a value that chooses the program is code; name the program in the script and pass the value as its argument`,
    );
  }

  /** The variable the splice reads (an escaped copy where it lands in a program's code). */
  form(i: number, ref: { env: string; expr: string }): string {
    const why = this.why(i, ref.expr);
    if (why) {
      if (!this.numbers.has(ref.env)) this.numbers.set(ref.env, { expr: ref.expr, why });
      return ref.env;
    }
    const place = this.programs.places.get(i);
    const program =
      place && "operand" in place
        ? place.program
        : (this.words.operands.get(i) ?? this.throughVariable(i));
    if (program !== undefined && !this.options.has(ref.env))
      this.options.set(ref.env, { expr: ref.expr, program });
    if (!place || !("escape" in place)) return ref.env;
    const key = `${ref.env} ${place.escape.chars} ${place.escape.newline}`;
    let copy = this.escapes.get(key);
    if (!copy) {
      copy = { name: `CATALYST_ESC_${this.escapes.size + 1}`, env: ref.env, escape: place.escape };
      this.escapes.set(key, copy);
    }
    return copy.name;
  }

  /** The variable a splice is assigned to, where that variable's expansion starts an argument. */
  private throughVariable(i: number): string | undefined {
    const s = this.layout.splices[i]!;
    const a = this.layout.assignments.find(
      (v) => this.words.variables.has(v.name) && s.start >= v.start && s.start < v.end,
    );
    return a && `the program given $${a.name}`;
  }

  /** Why the splice's value must be a plain number, or undefined. */
  private why(i: number, expr: string): string | undefined {
    const s = this.layout.splices[i]!;
    const { flow, programs, viaVariables } = this;
    if (flow.all)
      return `must be a plain number: the script uses ${flow.all}, which ${flow.code ? "runs text as code" : "may take it into arithmetic"}`;
    if (s.numeric || flow.splices.has(i)) return "is used in arithmetic but is not a plain number";
    const place = programs.places.get(i);
    if (place && "refuse" in place)
      return `must be a plain number: it ${PROGRAM_TEXT[place.program]!.replaceAll("{{x}}", `{{${expr}}}`)}`;
    const inside = programs.opaque.some((r) => s.start >= r.start && s.start < r.end);
    if (inside || viaVariables.all || viaVariables.splices.has(i))
      return `must be a plain number: it reaches a sed program, a jq filter or a git setting through ${viaVariables.all ?? "a variable or a command's output"}, where it cannot be escaped; write {{${expr}}} in that text itself`;
    const assigned = this.layout.assignments.find(
      (a) => CODE_VARIABLE.test(a.name) && s.start >= a.start && s.start < a.end,
    );
    if (assigned)
      return `must be a plain number: it is assigned to ${assigned.name}, whose value a program runs`;
    return undefined;
  }

  /** A value that starts a word must not start with `-` (a plain number may): it would be an option. */
  private optionCheck(env: string, o: { expr: string; program: string }): string {
    const message = `the value of ${o.expr} ($${env}) starts with "-", and ${o.program} would read it as an option: ${optionFix(o.program)}`;
    return `[[ \${${env}} != -* || \${${env}} =~ ^-[0-9]+(\\.[0-9]+)?$ ]] || { printf '%s\\n' ${shellQuote(message)} >&2; exit 2; }\n`;
  }

  /** The checks and escaped copies, before the script's own text. */
  prelude(refs: { env: string; expr: string }[]): string {
    const lines: string[] = [];
    for (const r of refs) {
      const n = this.numbers.get(r.env);
      if (n)
        lines.push(
          `[[ \${${r.env}} =~ ^-?[0-9]+$ ]] || { printf '%s\\n' ${shellQuote(`the value of ${r.expr} ($${r.env}) ${n.why}`)} >&2; exit 2; }\n`,
        );
      const o = this.options.get(r.env);
      if (o) lines.push(this.optionCheck(r.env, o));
    }
    if (this.escapes.size)
      lines.push(
        "# Values escaped for where they stand in a sed program or a jq filter.\n",
        ESCAPE_FUNCTION,
      );
    for (const c of this.escapes.values())
      lines.push(
        `__catalyst_escape ${c.env} ${c.name} ${shellQuote(c.escape.chars)} ${shellQuote(c.escape.newline)}\n`,
      );
    return lines.join("");
  }
}

/** A text as one single-quoted bash word. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Where a splice stands, as the scanner sees it: what bash does with the text there. */
type BashContext = "plain" | "double" | "single" | "ansi" | "arith" | "literal";

const SPLICE_FORM: Record<BashContext, (env: string) => string> = {
  plain: (env) => `"\${${env}}"`,
  double: (env) => `\${${env}}`,
  // Out of the single quotes, in as a double-quoted value, and back in.
  single: (env) => `'"\${${env}}"'`,
  ansi: (env) => `'"\${${env}}"$'`,
  // Parenthesised so that `10-{{n}}` with n = -5 reads 10-(-5).
  arith: (env) => `(\${${env}})`,
  // A quoted here-document expands nothing; kept as before.
  literal: (env) => `\${${env}}`,
};

export interface BashSplice {
  start: number;
  end: number;
  expr: string;
  context: BashContext;
  numeric: boolean;
}

/** What the scan saw besides the splices: where bash evaluates arithmetic, assigns, or runs nothing. */
export interface BashLayout extends ScriptLayout {
  splices: BashSplice[];
  /** Where a program whose arguments are read as its code is named (see `program-places.ts`). */
  commands: CommandWord[];
  /** `$( )`, backquotes and `${ }`: from the `$` (or backquote) to its closing character. */
  substitutions: Range[];
  /** Where each simple command starts (its first word, or a reserved word before it). */
  starts: number[];
}

/** A command word the scan noticed: its name and where the word ends. */
export interface CommandWord {
  name: string;
  end: number;
}

/** `sed`, `jq`, `git` (a path before it counts) at a word's start. */
const WATCHED_COMMAND = /(?:[^\s;&|()<>'"`$]*\/)?(g?sed|jq|git)(?=[ \t]|\\\n)/y;

type FrameKind =
  "plain" | "command" | "double" | "single" | "ansi" | "arith" | "param" | "heredoc" | "literal";

interface Frame {
  kind: FrameKind;
  /** What ends the frame: `)`, `` ` ``, `))`, `]`, `}` or a here-document's delimiter line. */
  close: string;
  depth: number;
  /** A `${…}` past its name (an operator seen): what follows is a word, not an offset. */
  word?: boolean;
  /** A here-document whose delimiter may be indented with tabs (`<<-`). */
  tabs?: boolean;
  /** Where the frame's text starts. */
  from: number;
  /** Code frames: false once a command has started and until a separator ends it. */
  fresh?: boolean;
  /** Inside `[[ … ]]`, where `&&`, `||` and parentheses separate no commands. */
  test?: boolean;
}

const ARITH_TEST = /-(?:eq|ne|lt|le|gt|ge)/;
/** Where a command starts on a line: its beginning, after `;`, `&`, `|`, `(`, `{`, `then`, `do`, `else`. */
const COMMAND_START = /(?:^|[;&|({]\s*|\b(?:then|do|else)\s+)/.source;
/** A command that evaluates its arguments (or an integer variable's assignment) as arithmetic. */
const ARITH_COMMAND = new RegExp(
  `${COMMAND_START}(?:let|(?:declare|typeset|local|export|readonly)\\s+(?:-\\w+\\s+)*-\\w*i\\w*)\\s[^;&|]*$`,
);

/** The splices of a bash script, each with the context it stands in. */
export function bashSplices(text: string): BashSplice[] {
  return new BashScanner(text).scan().splices;
}

/** The splices of a bash script and where it evaluates arithmetic and assigns variables. */
export function bashLayout(text: string): BashLayout {
  return new BashScanner(text).scan();
}

/** `name=`, `name[i]=` or `name+=` where a word starts. */
const ASSIGNMENT = /([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]\n]*\])?\+?=/y;

/**
 * A small bash lexer: enough of quoting, expansions, arithmetic and here-documents to know what
 * bash would do with the text at each splice. Text it does not understand reads as plain.
 */
class BashScanner {
  private readonly stack: Frame[] = [{ kind: "plain", close: "", depth: 0, from: 0 }];
  private readonly heredocs: { delim: string; quoted: boolean; tabs: boolean }[] = [];
  private readonly layout: BashLayout = {
    splices: [],
    arith: [],
    assignments: [],
    quiet: [],
    commands: [],
    substitutions: [],
    starts: [],
  };
  /** The assignment whose word is being read: its frame level and parenthesis depth. */
  private open?: { name: string; start: number; level: number; depth: number };
  /** Where the scan is (for frames closed without an index at hand). */
  private at = 0;

  constructor(private readonly text: string) {}

  scan(): BashLayout {
    for (let i = 0; i < this.text.length;) {
      this.at = i;
      this.track(i);
      this.command(i);
      SPLICE.lastIndex = i;
      const m = SPLICE.exec(this.text);
      if (m) {
        this.splice(i, i + m[0].length, m[1] ?? "");
        i += m[0].length;
      } else i = this.step(i);
    }
    this.at = this.text.length;
    this.track(this.text.length);
    while (this.stack.length > 1) this.pop();
    return this.layout;
  }

  /** Opens and closes assignments: a word ends at unquoted blank, `;`, `&`, `|` or `)`. */
  private track(i: number): void {
    const t = this.text;
    const f = this.top;
    const o = this.open;
    const level = this.stack.length;
    if (
      o &&
      (level < o.level ||
        i >= t.length ||
        (level === o.level && f.depth <= o.depth && /[\s;&|)]/.test(t[i] ?? "")))
    ) {
      this.layout.assignments.push({ name: o.name, start: o.start, end: i });
      this.open = undefined;
    }
    if (this.open || (f.kind !== "plain" && f.kind !== "command")) return;
    if (i > 0 && !/[\s;&|(`]/.test(t[i - 1] ?? "")) return;
    ASSIGNMENT.lastIndex = i;
    const m = ASSIGNMENT.exec(t);
    if (m) this.open = { name: m[1]!, start: i + m[0].length, level, depth: f.depth };
  }

  /** Notes where a command starts, and a watched command's name where a word starts, in code. */
  private command(i: number): void {
    const kind = this.top.kind;
    if (kind !== "plain" && kind !== "command") return;
    this.commandStart(i, this.top);
    if (i > 0 && !/[\s;&|(`]/.test(this.text[i - 1] ?? "")) return;
    WATCHED_COMMAND.lastIndex = i;
    const m = WATCHED_COMMAND.exec(this.text);
    if (m)
      this.layout.commands.push({ name: m[1]!.replace(/^g(?=sed)/, ""), end: i + m[0].length });
  }

  /** Separators (`;`, `&`, `|`, newline, a subshell's parentheses) start a command after them. */
  private commandStart(i: number, f: Frame): void {
    const t = this.text;
    const c = t[i] ?? "";
    if (f.test) {
      if (t.startsWith("]]", i)) f.test = false;
      return;
    }
    // `&` in a redirection (`2>&1`, `&>`) separates nothing; `a=(` opens an array.
    const separates =
      c === "&"
        ? !/[<>]/.test(t[i - 1] ?? "") && t[i + 1] !== ">"
        : c === "("
          ? t[i - 1] !== "="
          : /[;|\n)]/.test(c);
    if (separates) f.fresh = true;
    else if (f.fresh !== false && !/[ \t]/.test(c)) {
      this.layout.starts.push(i);
      f.fresh = false;
      f.test = /^\[\[[ \t]/.test(t.slice(i, i + 3));
    }
  }

  private get top(): Frame {
    return this.stack[this.stack.length - 1]!;
  }

  private splice(start: number, end: number, expr: string): void {
    const kind = this.top.kind;
    const context: BashContext =
      kind === "plain" || kind === "command" || kind === "param"
        ? "plain"
        : kind === "heredoc"
          ? "double"
          : kind;
    this.layout.splices.push({ start, end, expr, context, numeric: this.numeric(start, end) });
  }

  /** Whether bash evaluates the text at the splice as arithmetic. */
  private numeric(start: number, end: number): boolean {
    for (let f = this.stack.length - 1; f >= 0; f--) {
      const kind = this.stack[f]!.kind;
      if (kind === "arith") return true;
      if (kind === "command") break;
    }
    const line = this.text.slice(this.text.lastIndexOf("\n", start - 1) + 1, start);
    const rest = this.text.slice(end, end + 200);
    return (
      // In a word beside `-eq` … `-ge` (within `[[ ]]` bash evaluates both sides).
      new RegExp(`${ARITH_TEST.source}\\s+\\S*$`).test(line) ||
      new RegExp(`^\\S*\\s+${ARITH_TEST.source}(?:\\s|$)`).test(rest) ||
      ARITH_COMMAND.test(line.trimStart()) ||
      // In a subscript within a quoted name, `"arr[{{n}}]"` (printf -v, read, test -v, unset).
      /[A-Za-z_][A-Za-z0-9_]*\[[^\]\s]*$/.test(line)
    );
  }

  private push(kind: FrameKind, close: string, extra: Partial<Frame> = {}): void {
    this.stack.push({ kind, close, depth: 0, from: this.at, ...extra });
  }

  private pop(): void {
    if (this.stack.length <= 1) return;
    const f = this.stack.pop()!;
    const range = { start: f.from, end: this.at };
    if (f.kind === "arith") this.layout.arith.push(range);
    if (f.kind === "heredoc" || f.kind === "literal") this.layout.quiet.push(range);
    if (f.kind === "command" || f.kind === "param") this.layout.substitutions.push(range);
  }

  /** Opens a frame; the scan goes on at `next`. */
  private enter(next: number, kind: FrameKind, close: string): number {
    this.push(kind, close);
    return next;
  }

  /** Closes the frame; the scan goes on at `next`. */
  private leave(next: number): number {
    this.pop();
    return next;
  }

  /** One step of the scan from `i`; returns where the next step starts. */
  private step(i: number): number {
    const frame = this.top;
    switch (frame.kind) {
      case "single":
        if (this.text[i] === "'") this.pop();
        return i + 1;
      case "ansi":
        if (this.text[i] === "\\") return i + 2;
        if (this.text[i] === "'") this.pop();
        return i + 1;
      case "literal":
      case "heredoc":
        return this.heredocStep(i, frame);
      case "double":
        if (this.text[i] === '"') {
          this.pop();
          return i + 1;
        }
        return this.expansion(i) ?? (this.text[i] === "\\" ? i + 2 : i + 1);
      default:
        return this.codeStep(i, frame);
    }
  }

  /** `$((`, `$[`, `$(`, `${` and backquotes: where an expansion starts, else undefined. */
  private expansion(i: number): number | undefined {
    const t = this.text;
    if (t.startsWith("$((", i)) return this.enter(i + 3, "arith", "))");
    if (t.startsWith("$[", i)) return this.enter(i + 2, "arith", "]");
    if (t.startsWith("$(", i)) return this.enter(i + 2, "command", ")");
    if (t.startsWith("${", i)) return this.enter(i + 2, "param", "}");
    if (t[i] === "`") {
      if (this.top.kind === "command" && this.top.close === "`") this.pop();
      else this.push("command", "`");
      return i + 1;
    }
    return undefined;
  }

  /** Unquoted text: plain, in `$( )`, in `${ }` or in arithmetic. */
  private codeStep(i: number, frame: Frame): number {
    const t = this.text;
    const c = t[i];
    if (c === "\\") return i + 2;
    if (c === "'") return this.enter(i + 1, "single", "'");
    if (t.startsWith("$'", i)) return this.enter(i + 2, "ansi", "'");
    if (c === '"') return this.enter(i + 1, "double", '"');
    const closed = this.closes(i, frame);
    if (closed !== undefined) return closed;
    const expanded = this.expansion(i);
    if (expanded !== undefined) return expanded;
    // A subscript, `a[i]=`, `${a[i]}` or `a=([i]=x)`, is arithmetic.
    if (c === "[" && (/[A-Za-z0-9_]/.test(t[i - 1] ?? "") || this.inArrayWord(i, frame)))
      return this.enter(i + 1, "arith", "]");
    if (frame.kind === "param") return this.paramStep(i, frame);
    if (c === "(") {
      if (frame.kind !== "arith" && t[i + 1] === "(") return this.enter(i + 2, "arith", "))");
      frame.depth++;
      return i + 1;
    }
    if (c === ")") frame.depth = Math.max(0, frame.depth - 1);
    if (frame.kind === "arith") return i + 1;
    if (c === "#" && /^$|[\s;&|()]/.test(t[i - 1] ?? "")) {
      const nl = t.indexOf("\n", i);
      this.layout.quiet.push({ start: i, end: nl === -1 ? t.length : nl });
      return nl === -1 ? t.length : nl;
    }
    // A here-string, `<<< word`, is a word like any other.
    if (t.startsWith("<<<", i)) return i + 3;
    if (c === "<" && t.startsWith("<<", i)) return this.heredocStart(i);
    if (c === "\n" && this.heredocs.length) {
      const next = this.heredocs.shift()!;
      this.push(next.quoted ? "literal" : "heredoc", next.delim, { tabs: next.tabs });
    }
    return i + 1;
  }

  /** Whether `[` at `i` starts a word inside an array assignment's parentheses, `a=([i]=x)`. */
  private inArrayWord(i: number, frame: Frame): boolean {
    const o = this.open;
    return (
      o !== undefined &&
      o.level === this.stack.length &&
      frame.depth > o.depth &&
      /[\s(]/.test(this.text[i - 1] ?? "")
    );
  }

  /** Where the frame ends at `i` (the index after its end), or undefined. */
  private closes(i: number, frame: Frame): number | undefined {
    const t = this.text;
    if (frame.kind === "command" && frame.close === ")" && t[i] === ")" && frame.depth === 0)
      return this.leave(i + 1);
    if (frame.kind === "param" && t[i] === "}") return this.leave(i + 1);
    if (frame.kind !== "arith") return undefined;
    if (frame.close === "]" && t[i] === "]") return this.leave(i + 1);
    // An offset ends where its `${…}` does; the `}` is the parameter's.
    if (frame.close === "}" && t[i] === "}") return this.leave(i);
    if (frame.close === "))" && frame.depth === 0 && t.startsWith("))", i))
      return this.leave(i + 2);
    return undefined;
  }

  /** Inside `${…}`: `${s:offset:length}` is arithmetic until an operator makes it a word. */
  private paramStep(i: number, frame: Frame): number {
    const c = this.text[i] ?? "";
    if (frame.word) return i + 1;
    if (c === ":" && !/[-=+?]/.test(this.text[i + 1] ?? "")) {
      frame.word = true;
      return this.enter(i + 1, "arith", "}");
    }
    if (!/[A-Za-z0-9_#!@*]/.test(c)) frame.word = true;
    return i + 1;
  }

  private heredocStart(i: number): number {
    const m = /<<(-?)[ \t]*(?:'([^'\n]*)'|"([^"\n]*)"|\\?([A-Za-z0-9_.-]+))/y;
    m.lastIndex = i;
    const found = m.exec(this.text);
    if (!found) return i + 2;
    const delim = found[2] ?? found[3] ?? found[4] ?? "";
    // Any quoting of the delimiter (`'EOF'`, `"EOF"`, `\EOF`) turns expansion off in the body.
    const quoted = found[4] === undefined || found[0].includes("\\");
    this.heredocs.push({ delim, quoted, tabs: found[1] === "-" });
    return i + found[0].length;
  }

  /** A here-document's body: ends at its delimiter line; expands like double quotes unless quoted. */
  private heredocStep(i: number, frame: Frame): number {
    const t = this.text;
    if (i === 0 || t[i - 1] === "\n") {
      const nl = t.indexOf("\n", i);
      const line = t.slice(i, nl === -1 ? t.length : nl);
      if ((frame.tabs ? line.replace(/^\t+/, "") : line) === frame.close) {
        this.pop();
        return nl === -1 ? t.length : nl;
      }
    }
    if (frame.kind === "literal") return i + 1;
    return this.expansion(i) ?? (t[i] === "\\" ? i + 2 : i + 1);
  }
}
