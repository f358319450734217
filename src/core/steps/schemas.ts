import { aiSchema } from "./ai/schema.js";
import { branchSchema } from "./branch/schema.js";
import { checkpointSchema } from "./checkpoint/schema.js";
import { closeSchema } from "./close/schema.js";
import { commentSchema } from "./comment/schema.js";
import { commitSchema } from "./commit/schema.js";
import { decideSchema } from "./decide/schema.js";
import { dispatchSchema } from "./dispatch/schema.js";
import { endSchema } from "./end/schema.js";
import { investigateSchema } from "./investigate/schema.js";
import { issueSchema } from "./issue/schema.js";
import { labelSchema } from "./label/schema.js";
import { parallelSchema } from "./parallel/schema.js";
import { playbookSchema } from "./playbook/schema.js";
import { pullRequestSchema } from "./pull_request/schema.js";
import { scriptSchema } from "./script/schema.js";
import type { StepKindSchema } from "./kind-schema.js";

/**
 * Every step kind's side of the format (./<kind>/schema.ts), in the order of the schema's `type`
 * enum. Data only: the format builds its schema and graph from this list without importing an
 * executor (./registry.ts lists those). A new kind is a line here and one in ./registry.ts; the
 * compiler fails until both are written.
 */
export const STEP_KIND_SCHEMAS = [
  aiSchema,
  branchSchema,
  checkpointSchema,
  closeSchema,
  commentSchema,
  commitSchema,
  decideSchema,
  dispatchSchema,
  endSchema,
  investigateSchema,
  issueSchema,
  labelSchema,
  parallelSchema,
  playbookSchema,
  pullRequestSchema,
  scriptSchema,
] as const;

/** The name of a step kind, as a step's `type` gives it. */
export type StepKindName = (typeof STEP_KIND_SCHEMAS)[number]["kind"];

const byKind = new Map<string, StepKindSchema>(
  STEP_KIND_SCHEMAS.map((s) => [s.kind, s as StepKindSchema]),
);

/** The kind's side of the format, or undefined for a name that is not a step kind. */
export function stepKindSchemaOf(kind: string): StepKindSchema | undefined {
  return byKind.get(kind);
}
