import { describeValue } from "../../format/describe.js";
import type { PathSegment } from "../../format/source.js";
import {
  compileLinear,
  MAX_PROGRAM_SIZE,
  TOO_LARGE_GUIDANCE,
  type CompileResult,
} from "../../util/regex.js";
import { inputPatterns } from "../analysis/inputs.js";
import { diagnosticAt } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

const GUIDANCE = "write an RE2 expression: no backreferences or lookarounds";

/**
 * Input patterns, alert signal patterns and label matchers compile on the linear-time engine, to a
 * program small enough that matching stays cheap (`MAX_PROGRAM_SIZE`).
 */
export const regexInvalid: FileRule<"regex-invalid"> = {
  code: "regex-invalid",
  layer: "templates",
  severity: "error",
  summary: `a regular expression does not compile on the linear-time engine, or compiles to more than ${MAX_PROGRAM_SIZE} instructions`,
  guidance: GUIDANCE,
  check(ctx) {
    const { doc, playbook } = ctx;
    const out: Finding<"regex-invalid">[] = [];
    const check = (pattern: string, at: PathSegment[], compiled: CompileResult): void => {
      if (compiled.ok) return;
      out.push(
        diagnosticAt(
          doc,
          "regex-invalid",
          at,
          `pattern ${describeValue(pattern)} does not compile: ${compiled.error}`,
          compiled.tooLarge ? TOO_LARGE_GUIDANCE : GUIDANCE,
          { found: describeValue(pattern) },
        ),
      );
    };
    const compile = (pattern: string, at: PathSegment[]): void =>
      check(pattern, at, compileLinear(pattern));
    const patterns = inputPatterns(ctx);
    for (const [name, spec] of Object.entries(playbook.inputs ?? {})) {
      const compiled = patterns.get(name);
      if (spec.pattern !== undefined && compiled)
        check(spec.pattern, ["inputs", name, "pattern"], compiled);
    }
    const selector = playbook.on?.alerts;
    for (const on of ["alerts", "issues"] as const) {
      const signals = playbook.on?.[on]?.signals;
      for (const side of ["positive", "negative"] as const)
        signals?.[side]?.forEach((sig, i) => {
          if (sig.regex) compile(sig.pattern, ["on", on, "signals", side, i, "pattern"]);
        });
    }
    for (const [label, matcher] of Object.entries(selector?.match ?? {})) {
      if (matcher.startsWith("=~") || matcher.startsWith("!~"))
        compile(matcher.slice(2), ["on", "alerts", "match", label]);
    }
    return out;
  },
};
