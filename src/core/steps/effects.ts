import { describeAiEffect, type AiOutputs, type AiParams } from "./ai/effect.js";
import { describeBranchEffect, type BranchOutputs, type BranchParams } from "./branch/effect.js";
import { describeCloseEffect, type CloseOutputs, type CloseParams } from "./close/effect.js";
import {
  describeCommentEffect,
  type CommentOutputs,
  type CommentParams,
} from "./comment/effect.js";
import { describeCommitEffect, type CommitOutputs, type CommitParams } from "./commit/effect.js";
import {
  describeDispatchEffect,
  type DispatchOutputs,
  type DispatchParams,
} from "./dispatch/effect.js";
import { describeIssueEffect, type IssueOutputs, type IssueParams } from "./issue/effect.js";
import {
  describeToolCallEffect,
  type ToolCallOutputs,
  type ToolCallParams,
} from "./investigate/effect.js";
import { describeLabelEffect, type LabelOutputs, type LabelParams } from "./label/effect.js";
import {
  describeStartPlaybookEffect,
  type StartPlaybookOutputs,
  type StartPlaybookParams,
} from "./playbook/effect.js";
import {
  describePullRequestEffect,
  type PullRequestOutputs,
  type PullRequestParams,
} from "./pull_request/effect.js";
import { describeScriptEffect, type ScriptOutputs, type ScriptParams } from "./script/effect.js";

/**
 * The effects steps ask adapters for, by kind: the params each takes and the outputs it returns.
 * The engine's `Effect`, the steps' requests and every adapter's handlers are typed from this map,
 * so a kind added here does not compile until every adapter handles it.
 */
export type EffectSpecs = {
  comment: { params: CommentParams; outputs: CommentOutputs };
  branch: { params: BranchParams; outputs: BranchOutputs };
  commit: { params: CommitParams; outputs: CommitOutputs };
  pull_request: { params: PullRequestParams; outputs: PullRequestOutputs };
  issue: { params: IssueParams; outputs: IssueOutputs };
  label: { params: LabelParams; outputs: LabelOutputs };
  close: { params: CloseParams; outputs: CloseOutputs };
  dispatch: { params: DispatchParams; outputs: DispatchOutputs };
  ai: { params: AiParams; outputs: AiOutputs };
  start_playbook: { params: StartPlaybookParams; outputs: StartPlaybookOutputs };
  script: { params: ScriptParams; outputs: ScriptOutputs };
  tool_call: { params: ToolCallParams; outputs: ToolCallOutputs };
};

type Empty = Record<never, never>;

/** The names of an object type's required properties (an index signature names none). */
export type RequiredKeys<T> = Extract<
  {
    [K in keyof T]-?: Empty extends Record<K, unknown>
      ? never
      : Empty extends Pick<T, K>
        ? never
        : K;
  }[keyof T],
  string
>;

/**
 * A list of exactly the members of K, checked when it compiles: a member left out is named in
 * the error (`missing`), one that is not a member is refused.
 */
export function listOfEvery<K extends string>() {
  return <const L extends readonly K[]>(
    list: L & ([K] extends [L[number]] ? unknown : { missing: Exclude<K, L[number]> }),
  ): L => list;
}

/** Every effect kind, for what must go through all of them (handler maps, contract tests). */
export const EFFECT_KINDS = listOfEvery<keyof EffectSpecs>()([
  "comment",
  "branch",
  "commit",
  "pull_request",
  "issue",
  "label",
  "close",
  "dispatch",
  "ai",
  "start_playbook",
  "script",
  "tool_call",
]);

/** The outputs every adapter returns for each kind: the required properties of its outputs type. */
export const EFFECT_OUTPUTS: { [K in keyof EffectSpecs]: readonly string[] } = {
  comment: listOfEvery<RequiredKeys<CommentOutputs>>()(["id", "url"]),
  branch: listOfEvery<RequiredKeys<BranchOutputs>>()(["name", "sha", "url", "created"]),
  commit: listOfEvery<RequiredKeys<CommitOutputs>>()(["sha", "url", "branch"]),
  pull_request: listOfEvery<RequiredKeys<PullRequestOutputs>>()([
    "number",
    "url",
    "head",
    "merged",
  ]),
  issue: listOfEvery<RequiredKeys<IssueOutputs>>()(["number", "url"]),
  label: listOfEvery<RequiredKeys<LabelOutputs>>()(["labels"]),
  close: listOfEvery<RequiredKeys<CloseOutputs>>()(["state"]),
  dispatch: listOfEvery<RequiredKeys<DispatchOutputs>>()(["url"]),
  ai: listOfEvery<RequiredKeys<AiOutputs>>()(["text"]),
  start_playbook: listOfEvery<RequiredKeys<StartPlaybookOutputs>>()([]),
  script: listOfEvery<RequiredKeys<ScriptOutputs>>()(["exit_code", "stdout", "stderr"]),
  tool_call: listOfEvery<RequiredKeys<ToolCallOutputs>>()(["called", "failed", "results"]),
};

/** What each effect does, in words, from its params: a failure's message says what was being done. */
const DOING: { [K in keyof EffectSpecs]: (params: EffectSpecs[K]["params"]) => string } = {
  comment: describeCommentEffect,
  branch: describeBranchEffect,
  commit: describeCommitEffect,
  pull_request: describePullRequestEffect,
  issue: describeIssueEffect,
  label: describeLabelEffect,
  close: describeCloseEffect,
  dispatch: describeDispatchEffect,
  ai: describeAiEffect,
  start_playbook: describeStartPlaybookEffect,
  script: describeScriptEffect,
  tool_call: describeToolCallEffect,
};

/** What an effect was trying to do (`create branch x`, `dispatch deploy.yml`). */
export function describeEffect<K extends keyof EffectSpecs>(effect: {
  kind: K;
  params: EffectSpecs[K]["params"];
}): string {
  return DOING[effect.kind](effect.params);
}
