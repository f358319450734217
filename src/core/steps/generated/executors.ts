// Written by `npm run kinds:write` from ../kinds.ts: do not edit by hand.
import { aiStep } from "../ai/executor.js";
import { branchStep } from "../branch/executor.js";
import { checkpointStep } from "../checkpoint/executor.js";
import { closeStep } from "../close/executor.js";
import { commentStep } from "../comment/executor.js";
import { commitStep } from "../commit/executor.js";
import { decideStep } from "../decide/executor.js";
import { dispatchStep } from "../dispatch/executor.js";
import { endStep } from "../end/executor.js";
import { investigateStep } from "../investigate/executor.js";
import { issueStep } from "../issue/executor.js";
import { labelStep } from "../label/executor.js";
import { parallelStep } from "../parallel/executor.js";
import { playbookStep } from "../playbook/executor.js";
import { pullRequestStep } from "../pull_request/executor.js";
import { scriptStep } from "../script/executor.js";

/** Every kind's executor (its folder's executor.ts): how its steps run. */
export const STEP_EXECUTORS_IN_FOLDERS = [
  aiStep,
  branchStep,
  checkpointStep,
  closeStep,
  commentStep,
  commitStep,
  decideStep,
  dispatchStep,
  endStep,
  investigateStep,
  issueStep,
  labelStep,
  parallelStep,
  playbookStep,
  pullRequestStep,
  scriptStep,
] as const;
