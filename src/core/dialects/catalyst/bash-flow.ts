/**
 * Which of a bash script's values reach arithmetic through a variable. Bash evaluates a variable's
 * value as an arithmetic expression wherever the variable is named in arithmetic (`(( n > 0 ))`,
 * `$((n))`, `[[ $n -gt 0 ]]`, `let`, subscripts, an integer variable's assignment), and an
 * expression such as `a[$(cmd)]` runs `cmd`. So a value assigned to such a variable (or to one
 * whose value reaches it, `m={{v}}; n=$m`) must be a plain integer too. Where the text cannot say
 * where a value goes (`eval`, `${!x}`, a name reference, a name built at run time, `read` into such
 * a variable, positional parameters in arithmetic), every value of the script must be one.
 */

export interface Range {
  start: number;
  end: number;
}

/** What a scan of the script saw (see `bashLayout` in `scripts.ts`). */
export interface ScriptLayout {
  splices: Range[];
  /** The text of each arithmetic context: `$(( ))`, `(( ))`, `$[ ]`, subscripts, offsets. */
  arith: Range[];
  /** `name=word`, `name+=word`, `name=(words)` at a word's start: the name and the word. */
  assignments: Assignment[];
  /** Comments and here-document bodies: text bash runs nothing of. */
  quiet: Range[];
}

export interface Assignment extends Range {
  name: string;
}

/** The splices (by index in `layout.splices`) that must be plain integers, and why all must be. */
export interface ArithmeticFlow {
  splices: Set<number>;
  /** Set when every value must be a plain integer: what the script does that hides where values go. */
  all?: string;
  /** Set when that is because the script runs text as code (`bash -c`, `trap`, …). */
  code?: true;
}

const NAME = /[A-Za-z_][A-Za-z0-9_]*/g;
/** `$1`, `${2}`, `$@`, `$*`: values a function or `set --` may have been given. */
const POSITIONAL = /\$(?:[1-9@*]|\{[#!]?[1-9@*])/;
/** Variables bash sets from data: `read`'s default, `getopts`, `mapfile`'s default, `=~` groups. */
const SET_BY_BASH = ["REPLY", "OPTARG", "MAPFILE", "BASH_REMATCH"];
const ARITH_TEST = /(\S+)\s+-(?:eq|ne|lt|le|gt|ge)\s+(\S+)/g;
const DECLARE = "(?:declare|typeset|local|export|readonly)";
const ARITH_COMMAND = new RegExp(
  `(?:^|[\\s;&|({\`])(?:let|${DECLARE}\\s+(?:[-+]\\w+\\s+)*-\\w*i\\w*)\\s([^;&|\\n]*)`,
  "g",
);
/** `name[...]` anywhere: in a quoted name (`printf -v "a[$i]"`) the subscript is arithmetic. */
const SUBSCRIPT = /[A-Za-z_][A-Za-z0-9_]*\[([^\]\n]*)\]/g;

/**
 * A variable name that an expansion or a splice makes (`"$v"`, `{{v}}`): bash evaluates a
 * subscript in it (`a[$(cmd)]`) where it takes a name (`declare`, `read`, `printf -v`, `test -v`).
 */
const BUILT_NAME = `["']?[A-Za-z0-9_]*(?:\\$|\\{\\{)`;

/** What hides where a value goes: the text's first such construct, or undefined. */
const OPAQUE: [RegExp, string][] = [
  [/(?:^|[\s;&|({`])eval(?:\s|$)/, "eval"],
  [/\$\{![A-Za-z_][A-Za-z0-9_]*(?![A-Za-z0-9_[*@])/, "${!name} indirection"],
  [
    new RegExp(
      `(?:^|[\\s;&|({\`])(?:declare|typeset|local|readonly)[ \\t]+(?:[-+]\\w+[ \\t]+)*-\\w*n`,
    ),
    "a name reference (declare -n)",
  ],
  [
    new RegExp(
      `(?:^|[\\s;&|({\`])(?:${DECLARE}|unset|read|mapfile|readarray)(?:[ \\t]+[^\\s;&|<>]+)*?[ \\t]+${BUILT_NAME}`,
    ),
    "a variable name built at run time",
  ],
  [
    new RegExp(`(?:^|[\\s;&|({\`])printf[ \\t]+-v[ \\t]*${BUILT_NAME}`),
    "a variable name built at run time",
  ],
  [
    new RegExp(`(?:^|[\\s;&|({\`])(?:\\[\\[?|test)[ \\t]+(?:![ \\t]+)?-v[ \\t]+${BUILT_NAME}`),
    "a variable name built at run time",
  ],
];

/** Where a command word starts (a path's last part counts: `/bin/sh`; so does a quoted word). */
const WORD = "(?:^|[\\s;&|({`/'\"])";
/** Options before the part that says where the program comes from. */
const OPTIONS = "(?:[ \\t]+-[\\w-]*)*?";
/**
 * Words before an inline program's flag: options (`-i.bak`, `-I/lib`, `--input-type=module`) and
 * the arguments of the options that take one (`-o pipefail`, `-W ignore`, `-I lib`, `-d x=1`,
 * `-r module`), but not a script file, a module (`-m pip`) or a subcommand, after which a `-c` or
 * `-r` is theirs (`python3 -m pip install -r requirements.txt`).
 */
const OPTION_WORDS =
  "(?:[ \\t]+(?:[-+][oO]|-[WXIdr]|--(?:require|import|loader|rcfile|init-file))[ \\t]+[^-\\s;&|<>][^\\s;&|<>]*|[ \\t]+-[^\\s;&|<>]*)*?";
/** Where a command's words end: the program then comes from standard input (`| bash`, `bash <<EOF`). */
const FROM_STDIN = "[ \\t]*(?=$|[;&|<>\\n)])";
const SHELLS = "(?:ba|da|k|z|c|tc|a|mk|ya|po)?sh|fish|su|runuser";
const INTERPRETERS = "python[0-9.]*|perl|ruby|node|nodejs|php|deno|bun|lua|Rscript|tclsh";

/**
 * What runs text as code, where a value inside that text is code however this script quoted it:
 * another shell's `-c` or standard input, `source` and `.`, a `trap` action, a prompt (bash
 * expands `$(…)` in `PS4`, and in any value by `${x@P}`), `ssh` and `watch` (their words are a
 * remote or a new shell's command line), an interpreter's inline program or standard input, an
 * awk program, an alias's text, completion word lists (`compgen -W` expands them), a quoted
 * array assignment to `declare` (`declare -a a="($x)"` parses the value again), `env -S` (one
 * word split into a command line), GNU `parallel`, `flock -c` and `script -c` (a shell's command
 * line), sed reading its program from standard input or a `<( )`, and `xargs -I` putting its
 * input into sed's or jq's arguments (see `program-places.ts` for values written into them).
 */
const RUNS_CODE: [RegExp, string][] = [
  [
    new RegExp(`${WORD}(?:${SHELLS})${OPTION_WORDS}[ \\t]+-[a-zA-Z]*[cs](?=[ \\t]|$)`),
    "a shell's -c or -s",
  ],
  [new RegExp(`${WORD}(?:${SHELLS})${OPTIONS}${FROM_STDIN}`), "a shell reading standard input"],
  [/(?:^|[\n;&|({`]|\b(?:then|do|else))[ \t]*(?:source|\.)[ \t]/, "source"],
  [/(?:^|[\s;&|({`])trap[ \t]/, "trap"],
  [/(?:^|[\s;&|({`])(?:PS[0-4]|PROMPT_COMMAND)\+?=/, "a prompt variable"],
  [/(?:^|[\s;&|({`])(?:ssh|watch)[ \t]/, "ssh or watch"],
  [
    new RegExp(
      `${WORD}(?:${INTERPRETERS})${OPTION_WORDS}[ \\t]+(?:-[a-zA-Z]*[ceEpr]|--eval|--print|-)(?=[ \\t=]|$)`,
    ),
    "an interpreter's inline program",
  ],
  [new RegExp(`${WORD}deno[ \\t]+eval(?=[ \\t]|$)`), "an interpreter's inline program"],
  [
    new RegExp(`${WORD}(?:${INTERPRETERS})${OPTIONS}${FROM_STDIN}`),
    "an interpreter reading standard input",
  ],
  [/(?:^|[\s;&|({`/])[gmn]?awk[ \t](?!(?:[^\n;&|]*[ \t])?-f[ \t])/, "an awk program"],
  [/(?:^|[\s;&|({`/])[gmn]?awk(?=[ \t])[^\n;&|]*?[ \t](?:-e|--source)(?=[ \t=])/, "an awk program"],
  [/(?:^|[\s;&|({`])(?:alias|compgen|complete)[ \t]/, "alias or completion words"],
  [/@P\}/, "prompt expansion (${x@P})"],
  [
    new RegExp(`(?:^|[\\s;&|({\`])${DECLARE}[ \\t][^;&|\\n]*=["']\\(`),
    'a quoted array assignment (declare a="(…)")',
  ],
  [/(?:^|[\s;&|({`/])env(?:[ \t]+-[^\s;&|]*)*?[ \t]+(?:-[a-zA-Z]*S|--split-string)/, "env -S"],
  [/(?:^|[\s;&|({`/])parallel[ \t]/, "GNU parallel"],
  [
    /(?:^|[\s;&|({`/])(?:flock|script)(?=[ \t])[^\n;&|]*?[ \t]-[a-zA-Z]*c(?=[ \t])/,
    "flock -c or script -c",
  ],
  [
    /(?:^|[\s;&|({`/])g?sed(?=[ \t])[^\n;&|]*?(?:[ \t]-[a-zA-Z]*f[ \t]*|[ \t]--file[ \t=])(?:-(?=[\s;&|<>]|$)|\/dev\/(?:stdin|fd\/)|<\()/,
    "sed reading its program from standard input",
  ],
  [
    /(?:^|[\s;&|({`/])xargs(?=[ \t])[^\n;&|]*?[ \t](?:-[a-zA-Z]*[Ii]|--replace)[^\n;&|]*?[ \t]\/?(?:[\w./-]*\/)?(?:g?sed|jq)[ \t]/,
    "xargs putting its input into sed's or jq's arguments",
  ],
];

/** The splices of `layout` whose values reach arithmetic (see the module's comment). */
export function arithmeticFlow(text: string, layout: ScriptLayout): ArithmeticFlow {
  const code = blank(text, layout.quiet);
  const runs = RUNS_CODE.find(([re]) => re.test(code));
  if (runs && layout.splices.length) return { splices: new Set(), all: runs[1], code: true };
  const opaque = OPAQUE.find(([re]) => re.test(code));
  if (opaque && layout.splices.length) return { splices: new Set(), all: opaque[1] };
  const { names, positional } = arithmeticNames(code, layout.arith);
  if (positional)
    return { splices: new Set(), all: "positional parameters ($1, $@) in arithmetic" };
  return flowInto(code, layout, names, "arithmetic");
}

/**
 * The splices whose values reach the text of `sinks` (expansions inside another program's code,
 * see `program-places.ts`) through a variable, as they reach arithmetic: the same assignments,
 * loops, `printf -v` and reads, and positional parameters hide where a value goes.
 */
export function variableFlow(text: string, layout: ScriptLayout, sinks: Range[]): ArithmeticFlow {
  if (!sinks.length) return { splices: new Set() };
  const code = blank(text, layout.quiet);
  const parts = sinks.map((r) => code.slice(r.start, r.end));
  const names = new Set(parts.flatMap((p) => [...p.matchAll(NAME)].map((m) => m[0])));
  if (parts.some((p) => POSITIONAL.test(p)))
    return { splices: new Set(), all: "positional parameters ($1, $@) in program text" };
  return flowInto(code, layout, names, "program text");
}

/** The splices assigned to `names` (spread through the variables that feed them). */
function flowInto(
  code: string,
  layout: ScriptLayout,
  names: Set<string>,
  where: string,
): ArithmeticFlow {
  const assignments = [...layout.assignments, ...loopAndPrintfAssignments(code)];
  if (!spread(code, assignments, names) || positionalLoops(code).some((n) => names.has(n)))
    return { splices: new Set(), all: `positional parameters ($1, $@) in ${where}` };
  const read = readTargets(code).find((n) => names.has(n)) ?? SET_BY_BASH.find((n) => names.has(n));
  if (read) return { splices: new Set(), all: `${read}, read from input, in ${where}` };
  const splices = new Set<number>();
  layout.splices.forEach((s, i) => {
    if (assignments.some((a) => names.has(a.name) && s.start >= a.start && s.start < a.end))
      splices.add(i);
  });
  return { splices };
}

/**
 * Adds to `names` every name in the value of an assignment to one of them (bash evaluates a bare
 * name in arithmetic too); false where such a value holds a positional parameter.
 */
function spread(code: string, assignments: Assignment[], names: Set<string>): boolean {
  for (let grew = true; grew;) {
    grew = false;
    for (const a of assignments) {
      if (!names.has(a.name)) continue;
      const value = code.slice(a.start, a.end);
      if (POSITIONAL.test(value)) return false;
      for (const [n] of value.matchAll(NAME))
        if (!names.has(n)) {
          names.add(n);
          grew = true;
        }
    }
  }
  return true;
}

/** The text with comments and here-document bodies blanked out (same length). */
function blank(text: string, quiet: Range[]): string {
  let out = text;
  for (const q of quiet)
    out =
      out.slice(0, q.start) + out.slice(q.start, q.end).replace(/[^\n]/g, " ") + out.slice(q.end);
  return out;
}

/** The names used in arithmetic, and whether a positional parameter is. */
function arithmeticNames(
  code: string,
  arith: Range[],
): { names: Set<string>; positional: boolean } {
  const parts = arith.map((r) => code.slice(r.start, r.end));
  for (const m of code.matchAll(ARITH_TEST)) parts.push(m[1] ?? "", m[2] ?? "");
  for (const m of code.matchAll(ARITH_COMMAND)) parts.push(m[1] ?? "");
  for (const m of code.matchAll(SUBSCRIPT)) parts.push(m[1] ?? "");
  const names = new Set<string>();
  for (const p of parts) for (const [n] of p.matchAll(NAME)) names.add(n);
  return { names, positional: parts.some((p) => POSITIONAL.test(p)) };
}

/** `for x in words` and `printf -v x …`: assignments the scanner does not see as `x=`. */
function loopAndPrintfAssignments(code: string): Assignment[] {
  const out: Assignment[] = [];
  for (const m of code.matchAll(/\b(?:for|select)\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\b([^;\n]*)/g))
    out.push({
      name: m[1]!,
      start: m.index + m[0].length - m[2]!.length,
      end: m.index + m[0].length,
    });
  for (const m of code.matchAll(/\bprintf\s+-v\s*["']?([A-Za-z_][A-Za-z0-9_]*)([^;&|\n]*)/g))
    out.push({
      name: m[1]!,
      start: m.index + m[0].length - m[2]!.length,
      end: m.index + m[0].length,
    });
  return out;
}

/** `for x; do` and `for x do`: loops over the positional parameters. */
function positionalLoops(code: string): string[] {
  return [...code.matchAll(/\bfor\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?:;|\n|\s+do\b)/g)].map(
    (m) => m[1]!,
  );
}

/** The names `read`, `mapfile` and `readarray` assign (options' words included: more is safe). */
function readTargets(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(/(?:^|[\s;&|({`])(?:read|mapfile|readarray)\b([^;&|<>\n]*)/g))
    for (const word of (m[1] ?? "").split(/\s+/))
      if (!word.startsWith("-"))
        out.push(...(word.replace(/["']/g, "").match(/^[A-Za-z_]\w*/) ?? []));
  return out;
}
