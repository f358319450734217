import type { DiagnosticInput } from "../../format/diagnostics.js";
import { describeValue } from "../../format/diagnostics.js";
import type { PathSegment } from "../../format/source.js";
import { isTemplated } from "../../format/template.js";
import type { InputSpec } from "../../format/types.js";
import { compileLinear } from "../../util/regex.js";
import { compileResponseSchema } from "../../format/response-schema.js";
import { diagnosticAt, type GateContext } from "./context.js";

const INPUT_SOURCES =
  /^(labels|annotations|issue\.form|alert)\.[^\s]+$|^issue\.(title|body|number|author)$/;

/** Inputs, regular expressions and response schemas: everything that must compile or type-check. */
export function inputsGate(ctx: GateContext): DiagnosticInput[] {
  const { doc, playbook, graph } = ctx;
  const out: DiagnosticInput[] = [];
  const push = (
    rule: DiagnosticInput["rule"],
    at: PathSegment[],
    message: string,
    hint: string,
    found?: string,
  ): void => {
    out.push(diagnosticAt(doc, rule, at, message, hint, found === undefined ? {} : { found }));
  };
  const regex = (pattern: string, at: PathSegment[]): ReturnType<typeof compileLinear> => {
    const r = compileLinear(pattern);
    if (!r.ok) {
      push(
        "regex-invalid",
        at,
        `pattern ${describeValue(pattern)} does not compile: ${r.error}`,
        "write an RE2 expression: no backreferences or lookarounds",
        describeValue(pattern),
      );
    }
    return r;
  };

  for (const [name, spec] of Object.entries(playbook.inputs ?? {})) {
    const at: PathSegment[] = ["inputs", name];
    checkInputShape(spec, at, push);
    const compiled =
      spec.pattern !== undefined ? regex(spec.pattern, [...at, "pattern"]) : undefined;
    const d = spec.default;
    if (d === undefined) continue;
    const dp: PathSegment[] = [...at, "default"];
    const templated = typeof d === "string" && isTemplated(d);
    if (spec.type === "enum") {
      if (typeof d !== "string" || !(spec.values ?? []).includes(d)) {
        push(
          "input-default",
          dp,
          `default ${describeValue(d)} is not one of the values (${(spec.values ?? []).join(", ")})`,
          "make the default one of values:",
          describeValue(d),
        );
      }
    } else if (spec.type === "number") {
      if (typeof d !== "number")
        push(
          "input-default",
          dp,
          `default ${describeValue(d)} is not a number`,
          "write a number without quotes",
          describeValue(d),
        );
      else if (
        (spec.min !== undefined && d < spec.min) ||
        (spec.max !== undefined && d > spec.max)
      ) {
        push(
          "input-default",
          dp,
          `default ${d} is outside min/max`,
          "make the default fit min and max",
          String(d),
        );
      }
    } else if (spec.type === "boolean") {
      if (typeof d !== "boolean")
        push(
          "input-default",
          dp,
          `default ${describeValue(d)} is not true or false`,
          "write true or false without quotes",
          describeValue(d),
        );
    } else if (typeof d !== "string") {
      push(
        "input-default",
        dp,
        `default ${describeValue(d)} is not a string`,
        "quote the default",
        describeValue(d),
      );
    } else if (!templated) {
      if (compiled?.ok && !compiled.regex.test(d)) {
        push(
          "input-default",
          dp,
          `default ${describeValue(d)} does not match the input's pattern`,
          "make the default match pattern:",
          describeValue(d),
        );
      }
      if (
        (spec.min !== undefined && d.length < spec.min) ||
        (spec.max !== undefined && d.length > spec.max)
      ) {
        push(
          "input-default",
          dp,
          `default ${describeValue(d)} has a length outside min/max`,
          "make the default's length fit min and max",
          describeValue(d),
        );
      }
    }
  }

  const selector = playbook.on?.alerts;
  selector?.signals?.positive?.forEach((sig, i) => {
    if (sig.regex) regex(sig.pattern, ["on", "alerts", "signals", "positive", i, "pattern"]);
    if (sig.weight <= 0)
      push(
        "input-shape",
        ["on", "alerts", "signals", "positive", i, "weight"],
        `a positive signal needs a weight above 0, not ${sig.weight}`,
        "use a positive weight, or move it to negative:",
      );
  });
  selector?.signals?.negative?.forEach((sig, i) => {
    if (sig.regex) regex(sig.pattern, ["on", "alerts", "signals", "negative", i, "pattern"]);
    if (sig.weight >= 0)
      push(
        "input-shape",
        ["on", "alerts", "signals", "negative", i, "weight"],
        `a negative signal needs a weight below 0, not ${sig.weight}`,
        "use a negative weight, or move it to positive:",
      );
  });
  for (const [label, matcher] of Object.entries(selector?.match ?? {})) {
    if (matcher.startsWith("=~") || matcher.startsWith("!~"))
      regex(matcher.slice(2), ["on", "alerts", "match", label]);
  }

  for (const s of graph.steps) {
    if (s.step.type !== "checkpoint" || s.step.response_schema === undefined) continue;
    const at: PathSegment[] = [...s.path, "response_schema"];
    const schema = s.step.response_schema;
    if (schema.type !== undefined && schema.type !== "object") {
      push(
        "response-schema",
        at,
        "a response_schema describes the k=v values of /approve, so its type must be object",
        "write type: object with properties:",
      );
      continue;
    }
    const compiled = compileResponseSchema(schema);
    if (!compiled.ok) {
      push(
        "response-schema",
        at,
        `not a valid JSON Schema: ${compiled.error}`,
        "fix the schema (draft 2020-12)",
      );
    }
  }
  return out;
}

function checkInputShape(
  spec: InputSpec,
  at: PathSegment[],
  push: (rule: "input-shape", at: PathSegment[], message: string, hint: string) => void,
): void {
  if (spec.type === "enum" && !spec.values)
    push("input-shape", at, "an enum input needs values:", "add values: [a, b, c]");
  if (spec.type !== "enum" && spec.values)
    push(
      "input-shape",
      [...at, "values"],
      `values: only applies to enum inputs, not ${spec.type}`,
      "set type: enum, or remove values:",
    );
  if (spec.type !== "string" && spec.pattern !== undefined)
    push(
      "input-shape",
      [...at, "pattern"],
      `pattern: only applies to string inputs, not ${spec.type}`,
      "remove pattern:",
    );
  if (spec.type !== "string" && spec.transform !== undefined)
    push(
      "input-shape",
      [...at, "transform"],
      `transform: only applies to string inputs, not ${spec.type}`,
      "remove transform:",
    );
  if (
    (spec.type === "boolean" || spec.type === "enum") &&
    (spec.min !== undefined || spec.max !== undefined)
  ) {
    push("input-shape", at, `min/max do not apply to ${spec.type} inputs`, "remove min and max");
  }
  if (spec.min !== undefined && spec.max !== undefined && spec.min > spec.max)
    push(
      "input-shape",
      [...at, "min"],
      `min ${spec.min} is greater than max ${spec.max}`,
      "swap them",
    );
  if (spec.required === true && spec.default !== undefined)
    push(
      "input-shape",
      [...at, "required"],
      "a required input with a default is never missing",
      "remove required: true or the default",
    );
  if (spec.from !== undefined && !INPUT_SOURCES.test(spec.from)) {
    push(
      "input-shape",
      [...at, "from"],
      `from: '${spec.from}' is not a known source`,
      "use labels.<name>, annotations.<name>, issue.form.<heading>, alert.<field>, issue.title or issue.body",
    );
  }
}
