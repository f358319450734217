import { describeValue } from "../../format/describe.js";
import type { PathSegment } from "../../format/source.js";
import { isTemplated } from "../../format/template.js";
import type { InputSpec } from "../../format/types.js";
import { inputPatterns } from "../analysis/inputs.js";
import { diagnosticAt } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

/** An input's default has the input's type and meets its constraints (a templated default is checked when it is rendered). */
export const inputDefault: FileRule<"input-default"> = {
  code: "input-default",
  layer: "templates",
  severity: "error",
  summary: "an input default does not fit the input's type or constraints",
  check(ctx) {
    const out: Finding<"input-default">[] = [];
    const patterns = inputPatterns(ctx);
    for (const [name, spec] of Object.entries(ctx.playbook.inputs ?? {})) {
      if (spec.default === undefined) continue;
      const at: PathSegment[] = ["inputs", name, "default"];
      const compiled = patterns.get(name);
      const matches = (d: string): boolean => !compiled?.ok || compiled.regex.test(d);
      for (const [message, hint] of defaultProblems(spec, spec.default, matches))
        out.push(
          diagnosticAt(ctx.doc, "input-default", at, message, hint, {
            found: describeValue(spec.default),
          }),
        );
    }
    return out;
  },
};

/** What is wrong with a default, as [message, hint] pairs. */
function defaultProblems(
  spec: InputSpec,
  d: NonNullable<InputSpec["default"]>,
  matches: (d: string) => boolean,
): [string, string][] {
  const out: [string, string][] = [];
  if (spec.type === "enum") {
    if (typeof d !== "string" || !(spec.values ?? []).includes(d))
      out.push([
        `default ${describeValue(d)} is not one of the values (${(spec.values ?? []).join(", ")})`,
        "make the default one of values:",
      ]);
  } else if (spec.type === "number") {
    if (typeof d !== "number")
      out.push([`default ${describeValue(d)} is not a number`, "write a number without quotes"]);
    else if ((spec.min !== undefined && d < spec.min) || (spec.max !== undefined && d > spec.max))
      out.push([`default ${d} is outside min/max`, "make the default fit min and max"]);
  } else if (spec.type === "boolean") {
    if (typeof d !== "boolean")
      out.push([
        `default ${describeValue(d)} is not true or false`,
        "write true or false without quotes",
      ]);
  } else if (spec.type === "object") {
    if (d === null || typeof d !== "object" || Array.isArray(d))
      out.push([
        `default ${describeValue(d)} is not an object`,
        "write a mapping: default: { key: value }",
      ]);
  } else if (spec.type === "list" && Array.isArray(d)) {
    const bad = d.find((item) => typeof item === "string" && !matches(item));
    if (bad !== undefined)
      out.push([
        `item ${describeValue(bad)} of the default does not match the input's pattern`,
        "make every item match pattern:",
      ]);
  } else if (typeof d !== "string") {
    out.push([`default ${describeValue(d)} is not a string`, "quote the default"]);
  } else if (!isTemplated(d)) {
    if (!matches(d))
      out.push([
        `default ${describeValue(d)} does not match the input's pattern`,
        "make the default match pattern:",
      ]);
    if (
      (spec.min !== undefined && d.length < spec.min) ||
      (spec.max !== undefined && d.length > spec.max)
    )
      out.push([
        `default ${describeValue(d)} has a length outside min/max`,
        "make the default's length fit min and max",
      ]);
  }
  return out;
}
