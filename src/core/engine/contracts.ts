import { playbookError, type PlaybookError } from "./errors.js";
import { compileContractSchema, schemaProblems } from "../format/response-schema.js";
import type { Step } from "../format/types.js";

/**
 * A step's contracts: what enters it (its rendered fields, the params of its effect) must match
 * `input_schema`; what leaves it (its outputs and the findings it recorded, as one object) must
 * match `output_schema`. A mismatch fails the step where it happens, not a later one.
 */
export function contractBreach(
  step: Step,
  side: "input" | "output",
  data: Record<string, unknown>,
): PlaybookError | undefined {
  const schema = side === "input" ? step.input_schema : step.output_schema;
  if (schema === undefined) return undefined;
  const code = side === "input" ? "PB-CONTRACT-INPUT" : "PB-CONTRACT-OUTPUT";
  const compiled = compileContractSchema(schema);
  if (!compiled.ok)
    return playbookError(code, `step ${step.id}: its ${side}_schema is invalid: ${compiled.error}`);
  if (compiled.validate(data)) return undefined;
  return playbookError(
    code,
    `step ${step.id}: the ${side === "input" ? "data entering it" : "data it produced"} does not match its ${side}_schema: ${schemaProblems(compiled.validate)}`,
  );
}
