import { formatPath } from "../../format/source.js";
import {
  inputDefaultTemplates,
  references,
  type ContextReference,
} from "../analysis/references.js";
import { diagnosticAt, locate, type DocumentContext } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

type Unresolved = Finding<"template-unresolved">;

/** Every name a template or expression uses exists: an input, a step's output, a finding, the run's context. */
export const templateUnresolved: FileRule<"template-unresolved"> = {
  code: "template-unresolved",
  layer: "templates",
  severity: "error",
  summary: "a template names something that does not exist",
  requires: "one-step-form",
  check(ctx) {
    const out: Unresolved[] = [];
    for (const { resolution: r, at, raw } of references(ctx)) {
      if (r.kind !== "unresolved") continue;
      out.push({
        rule: "template-unresolved",
        ...locate(ctx.doc, at),
        message: `${formatPath(at)}: ${r.message}${r.guess ? ` — did you mean '${r.guess}'?` : ""}`,
        found: raw,
        hint: r.guess ? `write '${r.guess}'` : r.hint,
      });
    }
    out.push(...inputDefaultRefs(ctx));
    return out;
  },
};

/** Input defaults may name other inputs (`slug: '{{ inputs.package }}'`), never in a cycle. */
function inputDefaultRefs(ctx: DocumentContext): Unresolved[] {
  const out: Unresolved[] = [];
  const names = Object.keys(ctx.playbook.inputs ?? {});
  const deps = new Map<string, string[]>();
  for (const { name, at, parts } of inputDefaultTemplates(ctx)) {
    const list: string[] = [];
    for (const part of parts) {
      if (part.kind !== "ref") continue;
      const [head, input] = part.path;
      if (head === "inputs" && part.path.length === 2 && names.includes(input as string)) {
        list.push(input as string);
        continue;
      }
      out.push({
        ...diagnosticAt(
          ctx.doc,
          "template-unresolved",
          at,
          `an input default can only name other inputs, not '${part.raw}'`,
          "name a declared input, e.g. {{ inputs.package }}",
        ),
        found: part.raw,
      });
    }
    deps.set(name, list);
  }
  // A default that depends on itself, directly or through others, has no value.
  for (const start of deps.keys()) {
    const seen = new Set<string>();
    const stack = [...(deps.get(start) ?? [])];
    while (stack.length > 0) {
      const n = stack.pop() as string;
      if (n === start) {
        out.push(
          diagnosticAt(
            ctx.doc,
            "template-unresolved",
            ["inputs", start, "default"],
            `the default of '${start}' depends on itself`,
            "break the cycle between input defaults",
          ),
        );
        break;
      }
      if (seen.has(n)) continue;
      seen.add(n);
      stack.push(...(deps.get(n) ?? []));
    }
  }
  return out;
}

/**
 * Context references a run will not have, as errors: `provided` says what the run has, `guidance`
 * (by the reference's first name) how to give it the rest, and `run` names the kind of run. Checked
 * before any step runs, so a run never stops half-way on a value it could never have had.
 */
export function unprovidedContext(
  refs: readonly ContextReference[],
  provided: (ref: readonly string[]) => boolean,
  guidance: Readonly<Record<string, string>>,
  run: string,
): Unresolved[] {
  return refs
    .filter((r) => !provided(r.ref))
    .map((r) => ({
      rule: "template-unresolved",
      path: r.path,
      span: r.span,
      message: `${r.path === "(document)" ? "" : `${r.path}: `}'${r.raw}' has no value in ${run}`,
      found: r.raw,
      hint: guidance[r.ref[0] as string] ?? `${run} does not have ${r.ref.join(".")}`,
    }));
}
