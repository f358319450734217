import { RE2JS } from "re2js";
import { LruMap } from "./lru.js";

/**
 * Regular expressions that come from playbooks or alerts run on RE2 (linear time in the input),
 * never on the backtracking engine, so no pattern can stall the process.
 */
export interface LinearRegex {
  readonly source: string;
  test(input: string): boolean;
}

export type CompileResult =
  | { ok: true; regex: LinearRegex }
  | { ok: false; error: string; /** over `MAX_PROGRAM_SIZE` */ tooLarge?: true };

/**
 * The most instructions a pattern may compile to. RE2 is linear in the input, but each input
 * character costs up to one step per instruction, and counted repetitions multiply: 30 groups of
 * `[a-z]{1000}` are 60,000 instructions and seconds on one 10,000-character value. Like RE2's
 * `max_mem`, this bounds that product; `.{0,1000}` (about 2,000) still fits.
 */
export const MAX_PROGRAM_SIZE = 5000;

/** What to do about a pattern over the limit. */
export const TOO_LARGE_GUIDANCE =
  "use smaller repetition counts, or `+`, `*` or `{n,}` where the exact count does not matter, or check the length with the input's `max` instead";

/** Compiled patterns, by flags and text: the same input patterns and alert rules recur. */
const compiled = new LruMap<string, CompileResult>(1000);
/** Longer patterns are compiled each time rather than kept. */
const MAX_CACHED_PATTERN = 2000;

export function compileLinear(
  pattern: string,
  options: { ignoreCase?: boolean } = {},
): CompileResult {
  if (pattern.length > MAX_CACHED_PATTERN) return compile(pattern, options);
  const key = `${options.ignoreCase ? "i" : ""}:${pattern}`;
  let result = compiled.get(key);
  if (!result) compiled.set(key, (result = compile(pattern, options)));
  return result;
}

function tooLarge(size: number): CompileResult {
  return {
    ok: false,
    tooLarge: true,
    error: `it is too large: with its counted repetitions multiplied out it comes to about ${size} instructions, more than the limit of ${MAX_PROGRAM_SIZE}`,
  };
}

function compile(pattern: string, options: { ignoreCase?: boolean }): CompileResult {
  // Estimated first, as compiling a huge program takes long itself; then measured exactly.
  const estimate = expandedSize(pattern);
  if (estimate > MAX_PROGRAM_SIZE) return tooLarge(estimate);
  try {
    const re = RE2JS.compile(pattern, options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
    if (re.programSize() > MAX_PROGRAM_SIZE) return tooLarge(re.programSize());
    return { ok: true, regex: { source: pattern, test: (input: string) => re.test(input) } };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, error: message.replace(/^error parsing regexp: /, "") };
  }
}

/** For ajv's `code.regExp`: JSON Schema `pattern` keywords from playbooks also run on RE2. */
export function linearRegExpForAjv(
  pattern: string,
  flags: string,
): { test(s: string): boolean; toString(): string } {
  const result = compileLinear(pattern, { ignoreCase: flags.includes("i") });
  if (!result.ok) throw new Error(`invalid pattern ${JSON.stringify(pattern)}: ${result.error}`);
  // ajv caches compiled patterns by `toString()`: without a distinct one, every pattern after the
  // first compiled (a meta-schema's) would be checked with that first pattern.
  const { regex } = result;
  return { test: (s: string) => regex.test(s), toString: () => `/${pattern}/${flags}` };
}
linearRegExpForAjv.code = 'require("re2js").RE2JS';

/**
 * About the size of a pattern's program, read from its text in one pass: each atom (a character,
 * an escape, a class) counts one, a group the sum of what it holds, and a counted repetition
 * `{n}`, `{n,}` or `{n,m}` multiplies what it repeats by its count (an optional copy counts one more).
 * Not exact (the compiled program is measured as well); it stops counting past the limit.
 */
export function expandedSize(pattern: string): number {
  const groups: number[] = [0];
  let last = 0;
  const add = (n: number) => {
    groups[groups.length - 1] = Math.min((groups.at(-1) ?? 0) + n, 2 ** 40);
    last = n;
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      i += /^\\(?:[pP]\{[^}]*\}|x\{[^}]*\}|.)/su.exec(pattern.slice(i, i + 40))?.[0].length ?? 1;
      i -= 1;
      add(1);
    } else if (c === "[") {
      i = classEnd(pattern, i);
      add(1);
    } else if (c === "(") {
      groups.push(0);
    } else if (c === ")" && groups.length > 1) {
      const inner = (groups.pop() ?? 0) + 1;
      add(inner);
    } else if (c === "{" && /^\{\d+(?:,\d*)?\}/.test(pattern.slice(i, i + 24))) {
      const m = /^\{(\d+)(?:(,)(\d*))?\}/.exec(pattern.slice(i, i + 24)) as RegExpExecArray;
      const low = Number(m[1]);
      const high = m[2] === undefined ? low : m[3] ? Number(m[3]) : undefined;
      const repeated = last;
      // Each required copy as it is, each optional one with a branch more; `{n,}` ends in a loop.
      const total =
        high === undefined
          ? repeated * Math.max(low, 1) + 1
          : repeated * low + Math.max(high - low, 0) * (repeated + 1);
      add(total - repeated);
      last = total;
      i += m[0].length - 1;
    } else if (c === "*" || c === "+" || c === "?") {
      const repeated = last;
      add(1);
      last = repeated + 1;
    } else {
      add(1);
    }
  }
  while (groups.length > 1) add((groups.pop() ?? 0) + 1);
  return groups[0] ?? 0;
}

/** Where a character class that opens at `start` ends (its `]`), or the pattern's last index. */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === "^") i++;
  if (pattern[i] === "]") i++;
  for (; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++;
    else if (pattern[i] === "[" && pattern[i + 1] === ":") {
      const close = pattern.indexOf(":]", i + 2);
      if (close >= 0) i = close + 1;
    } else if (pattern[i] === "]") return i;
  }
  return pattern.length - 1;
}
