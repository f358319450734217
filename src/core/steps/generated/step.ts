// Written by `npm run kinds:write` from ../kinds.ts: do not edit by hand.
import type { AiStep } from "../ai/step.js";
import type { BranchStep } from "../branch/step.js";
import type { CheckpointStep } from "../checkpoint/step.js";
import type { CloseStep } from "../close/step.js";
import type { CommentStep } from "../comment/step.js";
import type { CommitStep } from "../commit/step.js";
import type { DecideStep } from "../decide/step.js";
import type { DispatchStep } from "../dispatch/step.js";
import type { EndStep } from "../end/step.js";
import type { InvestigateStep } from "../investigate/step.js";
import type { IssueStep } from "../issue/step.js";
import type { LabelStep } from "../label/step.js";
import type { ParallelStepOf } from "../parallel/step.js";
import type { PlaybookStep } from "../playbook/step.js";
import type { PullRequestStep } from "../pull_request/step.js";
import type { ScriptStep } from "../script/step.js";

// Each kind's step type and the types it names, for the format to export.
export type * from "../ai/step.js";
export type * from "../branch/step.js";
export type * from "../checkpoint/step.js";
export type * from "../close/step.js";
export type * from "../comment/step.js";
export type * from "../commit/step.js";
export type * from "../decide/step.js";
export type * from "../dispatch/step.js";
export type * from "../end/step.js";
export type * from "../investigate/step.js";
export type * from "../issue/step.js";
export type * from "../label/step.js";
export type * from "../parallel/step.js";
export type * from "../playbook/step.js";
export type * from "../pull_request/step.js";
export type * from "../script/step.js";

/** A step of any kind (a kind that holds steps holds steps of any kind). */
export type Step =
  | AiStep
  | BranchStep
  | CheckpointStep
  | CloseStep
  | CommentStep
  | CommitStep
  | DecideStep
  | DispatchStep
  | EndStep
  | InvestigateStep
  | IssueStep
  | LabelStep
  | ParallelStepOf<Step>
  | PlaybookStep
  | PullRequestStep
  | ScriptStep;
