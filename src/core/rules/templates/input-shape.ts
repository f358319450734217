import type { PathSegment } from "../../format/source.js";
import type { InputSpec } from "../../format/types.js";
import { diagnosticAt } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

const INPUT_SOURCES =
  /^(labels|annotations|issue\.form|alert)\.[^\s]+$|^issue\.(title|body|number|author)$/;

type Report = (at: PathSegment[], message: string, hint: string) => void;

/** An input's constraints fit its type and each other; an alert selector's weights have their sign. */
export const inputShape: FileRule<"input-shape"> = {
  code: "input-shape",
  layer: "templates",
  severity: "error",
  summary: "an input's constraints contradict each other or its type",
  check({ doc, playbook }) {
    const out: Finding<"input-shape">[] = [];
    const report: Report = (at, message, hint) =>
      out.push(diagnosticAt(doc, "input-shape", at, message, hint));
    for (const [name, spec] of Object.entries(playbook.inputs ?? {}))
      checkInput(spec, ["inputs", name], report);
    const signals = playbook.on?.alerts?.signals;
    signals?.positive?.forEach((sig, i) => {
      if (sig.weight <= 0)
        report(
          ["on", "alerts", "signals", "positive", i, "weight"],
          `a positive signal needs a weight above 0, not ${sig.weight}`,
          "use a positive weight, or move it to negative:",
        );
    });
    signals?.negative?.forEach((sig, i) => {
      if (sig.weight >= 0)
        report(
          ["on", "alerts", "signals", "negative", i, "weight"],
          `a negative signal needs a weight below 0, not ${sig.weight}`,
          "use a negative weight, or move it to positive:",
        );
    });
    return out;
  },
};

function checkInput(spec: InputSpec, at: PathSegment[], report: Report): void {
  if (spec.type === "enum" && !spec.values)
    report(at, "an enum input needs values:", "add values: [a, b, c]");
  if (spec.type !== "enum" && spec.values)
    report(
      [...at, "values"],
      `values: only applies to enum inputs, not ${spec.type}`,
      "set type: enum, or remove values:",
    );
  if (spec.type !== "string" && spec.pattern !== undefined)
    report(
      [...at, "pattern"],
      `pattern: only applies to string inputs, not ${spec.type}`,
      "remove pattern:",
    );
  if (spec.type !== "string" && spec.transform !== undefined)
    report(
      [...at, "transform"],
      `transform: only applies to string inputs, not ${spec.type}`,
      "remove transform:",
    );
  if (
    (spec.type === "boolean" || spec.type === "enum") &&
    (spec.min !== undefined || spec.max !== undefined)
  ) {
    report(at, `min/max do not apply to ${spec.type} inputs`, "remove min and max");
  }
  if (spec.min !== undefined && spec.max !== undefined && spec.min > spec.max)
    report([...at, "min"], `min ${spec.min} is greater than max ${spec.max}`, "swap them");
  if (spec.required === true && spec.default !== undefined)
    report(
      [...at, "required"],
      "a required input with a default is never missing",
      "remove required: true or the default",
    );
  if (spec.from !== undefined && !INPUT_SOURCES.test(spec.from)) {
    report(
      [...at, "from"],
      `from: '${spec.from}' is not a known source`,
      "use labels.<name>, annotations.<name>, issue.form.<heading>, alert.<field>, issue.title or issue.body",
    );
  }
}
