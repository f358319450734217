// Written by `npm run kinds:write` from ../kinds.ts: do not edit by hand.
import { aiKind } from "../ai/index.js";
import { branchKind } from "../branch/index.js";
import { checkpointKind } from "../checkpoint/index.js";
import { closeKind } from "../close/index.js";
import { commentKind } from "../comment/index.js";
import { commitKind } from "../commit/index.js";
import { decideKind } from "../decide/index.js";
import { dispatchKind } from "../dispatch/index.js";
import { endKind } from "../end/index.js";
import { investigateKind } from "../investigate/index.js";
import { issueKind } from "../issue/index.js";
import { labelKind } from "../label/index.js";
import { parallelKind } from "../parallel/index.js";
import { playbookKind } from "../playbook/index.js";
import { pullRequestKind } from "../pull_request/index.js";
import { scriptKind } from "../script/index.js";

/** Every kind's hooks (its folder's index.ts): what validation and the engine ask of it. */
export const STEP_KINDS_IN_FOLDERS = [
  aiKind,
  branchKind,
  checkpointKind,
  closeKind,
  commentKind,
  commitKind,
  decideKind,
  dispatchKind,
  endKind,
  investigateKind,
  issueKind,
  labelKind,
  parallelKind,
  playbookKind,
  pullRequestKind,
  scriptKind,
] as const;
