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

export type CompileResult = { ok: true; regex: LinearRegex } | { ok: false; error: string };

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

function compile(pattern: string, options: { ignoreCase?: boolean }): CompileResult {
  try {
    const re = RE2JS.compile(pattern, options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
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
