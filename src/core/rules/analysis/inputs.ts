import { compileLinear, type CompileResult } from "../../util/regex.js";
import { memoised, type DocumentContext } from "../context.js";

/** Each input's pattern compiled once: regex-invalid reports failures, input-default uses the rest. */
export const inputPatterns = memoised((ctx: DocumentContext): Map<string, CompileResult> => {
  const out = new Map<string, CompileResult>();
  for (const [name, spec] of Object.entries(ctx.playbook.inputs ?? {}))
    if (spec.pattern !== undefined) out.set(name, compileLinear(spec.pattern));
  return out;
});
