import { STEP_KIND_SCHEMAS } from "./generated/schemas.js";
import type { StepKindSchema } from "./kind-schema.js";

/**
 * Every step kind's side of the format (./<kind>/schema.ts), in the order of the schema's `type`
 * enum. Data only: the format builds its schema and graph from this list without importing an
 * executor. Written from ./kinds.ts (`npm run kinds:write`).
 */
export { STEP_KIND_SCHEMAS };

/** The name of a step kind, as a step's `type` gives it. */
export type StepKindName = (typeof STEP_KIND_SCHEMAS)[number]["kind"];

const byKind = new Map<string, StepKindSchema>(
  STEP_KIND_SCHEMAS.map((s) => [s.kind, s as StepKindSchema]),
);

/** The kind's side of the format, or undefined for a name that is not a step kind. */
export function stepKindSchemaOf(kind: string): StepKindSchema | undefined {
  return byKind.get(kind);
}
