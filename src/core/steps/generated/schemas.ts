// Written by `npm run kinds:write` from ../kinds.ts: do not edit by hand.
import { aiSchema } from "../ai/schema.js";
import { branchSchema } from "../branch/schema.js";
import { checkpointSchema } from "../checkpoint/schema.js";
import { closeSchema } from "../close/schema.js";
import { commentSchema } from "../comment/schema.js";
import { commitSchema } from "../commit/schema.js";
import { decideSchema } from "../decide/schema.js";
import { dispatchSchema } from "../dispatch/schema.js";
import { endSchema } from "../end/schema.js";
import { investigateSchema } from "../investigate/schema.js";
import { issueSchema } from "../issue/schema.js";
import { labelSchema } from "../label/schema.js";
import { parallelSchema } from "../parallel/schema.js";
import { playbookSchema } from "../playbook/schema.js";
import { pullRequestSchema } from "../pull_request/schema.js";
import { scriptSchema } from "../script/schema.js";

/** Every kind's side of the format (its folder's schema.ts), in the `type` enum's order. */
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
