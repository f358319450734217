/** TypeScript shape of format v1; `schema.ts` is the contract these types follow. */
import type {
  ALERT_SOURCES,
  AUTHORITIES,
  INPUT_TYPES,
  PERMISSIONS,
  STEP_KINDS,
  TRANSFORMS,
} from "./schema.js";
// The step types below are still written here (ARCHITECTURE.md says why); their enums are the kinds'.
import type { BRANCH_FAILURE_POLICIES } from "../steps/parallel/schema.js";
import type { SCRIPT_SHELLS } from "../steps/script/schema.js";

export type StepKind = (typeof STEP_KINDS)[number];
export type Permission = (typeof PERMISSIONS)[number];
export type Authority = (typeof AUTHORITIES)[number];
export type InputType = (typeof INPUT_TYPES)[number];
export type Transform = (typeof TRANSFORMS)[number];
export type AlertSource = (typeof ALERT_SOURCES)[number];
export type ScriptShell = (typeof SCRIPT_SHELLS)[number];

export type ErrorPolicy = string;

export interface Branch {
  when?: string;
  condition?: string;
  label?: string;
  goto?: string;
  default?: string;
}

export type Next = string | Branch[];

export interface StepBase {
  id: string;
  type: StepKind;
  name?: string;
  description?: string;
  if?: string;
  next?: Next;
  on_error?: ErrorPolicy | Record<string, ErrorPolicy>;
  authority?: Authority;
  timeout?: string;
  idempotency_key?: string;
  /** Steps of the same list that must be completed or skipped first: the list runs as a graph. */
  needs?: string[];
  /** A template naming a list: the step runs once per item (`{{ item }}`, `{{ item_index }}`). */
  for_each?: string;
  /** JSON Schemas of the data entering and leaving the step (contracts between steps). */
  input_schema?: Record<string, unknown>;
  output_schema?: Record<string, unknown>;
}

export interface Conclusion {
  conclusion: string;
  confidence?: number;
  root_cause?: string;
  alternatives?: string[];
  next_actions?: string[];
  goto?: string;
}

export interface DecisionRule extends Conclusion {
  id: string;
  all?: string[];
  any?: string[];
  none?: string[];
}

export interface CommentStep extends StepBase {
  type: "comment";
  body: string;
  /** Another issue or pull request of the repository (default: the run's issue). */
  issue?: string;
  /** A review comment of the pull request `issue`: the comment is a reply in its thread. */
  reply_to?: string;
}
export interface EndStep extends StepBase {
  type: "end";
  advice?: string;
  conclusion?: string;
  status?: "success" | "failure" | "neutral";
  handoff?: string[];
}
export interface Approvers {
  permission?: Permission;
  users?: string[];
  teams?: string[];
  count?: number;
  allow_initiator?: boolean;
}
export interface CheckpointStep extends StepBase {
  type: "checkpoint";
  message: string;
  approvers?: Approvers;
  response_schema?: Record<string, unknown>;
  on_reject?: string;
  reminder?: string;
  on_timeout?: string;
}
export interface SuggestedCall {
  tool: string;
  args?: Record<string, unknown>;
  purpose?: string;
  /** A failed call is recorded as a `step_error` finding. */
  required?: boolean;
  /** `suggest` (default): offered to people (`/call <n>`); `auto`: run by the bot. */
  run?: "suggest" | "auto";
  /** Step outputs from the result: name → dotted path in it. */
  outputs?: Record<string, string>;
}
export interface InvestigateStep extends StepBase {
  type: "investigate";
  suggested_calls?: SuggestedCall[];
  expected_findings?: string[];
}
export interface DecideStep extends StepBase {
  type: "decide";
  rules: DecisionRule[];
  fallback?: Conclusion;
  /** A sentence per finding present; one without a finding is always reported. */
  confirmed_facts?: { finding?: string; text: string }[];
  /** Every conclusion must rest on findings (rules name some; the result lists those used). */
  require_evidence?: boolean;
}
export interface BranchStep extends StepBase {
  type: "branch";
  name: string;
  from?: string;
  /** The older spelling of `if_exists: fail`. */
  require_new?: boolean;
  /**
   * When the branch exists: reuse it only if it holds just this run's commits (default), fail,
   * or pick `<name>-2`, `-3`, …
   */
  if_exists?: "reuse" | "fail" | "new-name";
}
export interface CommitFile {
  path: string;
  content?: string;
  template?: string;
}
export interface CommitStep extends StepBase {
  type: "commit";
  branch: string;
  message: string;
  files?: CommitFile[];
  paths?: string[];
  push?: boolean;
  pull?: boolean;
}
export interface PullRequestStep extends StepBase {
  type: "pull_request";
  head: string;
  base?: string;
  title: string;
  body?: string;
  draft?: boolean;
  labels?: string[];
  reviewers?: string[];
  team_reviewers?: string[];
  wait?: "merged";
  /** End the body with `Closes #<n>` when the run has an issue (a local run may have none). */
  closes_issue?: boolean;
}
export interface IssueStep extends StepBase {
  type: "issue";
  title: string;
  body?: string;
  labels?: string[];
  assignees?: string[];
}
export interface LabelStep extends StepBase {
  type: "label";
  add?: string[];
  remove?: string[];
  issue?: string;
}
export interface CloseStep extends StepBase {
  type: "close";
  reason?: "completed" | "not_planned";
  comment?: string;
  issue?: string;
}
export interface DispatchStep extends StepBase {
  type: "dispatch";
  workflow: string;
  ref?: string;
  inputs?: Record<string, string | number | boolean>;
  wait?: boolean;
  /**
   * A workflow input the bot sets to this dispatch's key; the workflow's `run-name` shows it, so
   * the bot knows its run where GitHub does not return the run's id.
   */
  correlation_input?: string;
}
export interface AiStep extends StepBase {
  type: "ai";
  prompt?: string;
  prompt_file?: string;
  tools?: string[];
  scope?: "read-only" | "write";
  expected_findings?: string[];
  expect_files?: string[];
  /** Reuse an earlier result for the same prompt and inputs. */
  cache?: boolean;
  /** A check registered in code by this name must pass on the result. */
  verify?: string;
}
/** What a `parallel` step waits for: every branch, any one, or a number of them. */
export type Join = "all" | "any" | { count: number };
export type BranchFailurePolicy = (typeof BRANCH_FAILURE_POLICIES)[number];

export interface ParallelStep extends StepBase {
  type: "parallel";
  /** Branch name → steps run in order; step ids are unique across the whole playbook. */
  branches: Record<string, Step[]>;
  join?: Join;
  on_branch_failure?: BranchFailurePolicy;
}

export interface PlaybookStep extends StepBase {
  type: "playbook";
  playbook: string;
  mode: "delegate" | "handoff";
  with?: Record<string, string | number | boolean>;
}

export interface ScriptStep extends StepBase {
  type: "script";
  shell: ScriptShell;
  /** Script text, never templated; values reach it through `env`. */
  run: string;
  env?: Record<string, string | number | boolean>;
}

export type Step =
  | CommentStep
  | EndStep
  | CheckpointStep
  | InvestigateStep
  | DecideStep
  | BranchStep
  | CommitStep
  | PullRequestStep
  | IssueStep
  | LabelStep
  | CloseStep
  | DispatchStep
  | AiStep
  | ParallelStep
  | PlaybookStep
  | ScriptStep;

export interface InputSpec {
  type: InputType;
  description?: string;
  required?: boolean;
  default?: string | number | boolean | Record<string, unknown> | unknown[];
  pattern?: string;
  min?: number;
  max?: number;
  values?: string[];
  transform?: Transform;
  from?: string;
}

export interface Signal {
  pattern: string;
  weight: number;
  regex?: boolean;
}

export interface AlertSelector {
  sources?: AlertSource[];
  match?: Record<string, string>;
  context_types?: string[];
  signals?: { positive?: Signal[]; negative?: Signal[] };
  priority?: number;
  min_score?: number;
  resolve?: "comment" | "close";
}

/** Which newly opened issues start a playbook: scored on their title and body. */
export interface IssueSelector {
  context_types?: string[];
  signals?: { positive?: Signal[]; negative?: Signal[] };
  priority?: number;
  min_score?: number;
}

/** A playbook exactly as written (after schema validation). */
export interface PlaybookDocument {
  apiVersion: "playbook-bot/v1";
  id: string;
  name?: string;
  description?: string;
  owner?: string;
  reviewers?: { required?: string[]; optional?: string[] };
  active?: boolean;
  tags?: { services?: string[]; errors?: string[]; symptoms?: string[] };
  kind?: "user_workflow" | "system_tool";
  interaction_mode?: ("silent" | "needs_review" | "conversational")[];
  requires?: { secrets?: string[]; tools?: string[] };
  on?: { labels?: string[]; command?: string; alerts?: AlertSelector; issues?: IssueSelector };
  permissions?: { run?: Permission; cancel?: Permission };
  authority?: { default?: Authority; ask_first_below?: Permission };
  inputs?: Record<string, InputSpec>;
  limits?: {
    max_steps?: number;
    max_depth?: number;
    timeout?: string;
    max_parallel?: number;
    max_items?: number;
    max_tool_calls?: number;
  };
  steps?: Step[];
  entrypoint?: string;
  nodes?: Record<string, Omit<Step, "id"> & { id?: string }>;
  outputs?: Record<string, string>;
  tests?: TestCase[];
}

export interface TestActor {
  by?: string;
  permission?: Permission;
  teams?: string[];
  step?: string;
  values?: Record<string, string | number | boolean>;
  reason?: string;
  findings?: Record<string, string | number | boolean>;
  branch?: string;
}

export type TestEvent =
  | { approve: TestActor }
  | { reject: TestActor }
  | { record: TestActor }
  | { choose: TestActor }
  | { retry: TestActor }
  | { cancel: TestActor }
  | { merge: boolean }
  | { close_pr: boolean }
  | { workflow: "success" | "failure" | "cancelled" }
  | { fail_effect: { step: string; code: string; times?: number } }
  | { wait: string };

export interface TestCase {
  name: string;
  inputs?: Record<string, string | number | boolean>;
  initiator?: TestActor;
  alert?: {
    title?: string;
    summary?: string;
    severity?: string;
    status?: "firing" | "resolved";
    source?: AlertSource;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  events?: TestEvent[];
  expect: {
    path?: string[];
    status?: "completed" | "failed" | "cancelled" | "waiting" | "running";
    conclusion?: string;
    error?: string;
    outputs?: Record<string, string | number | boolean>;
  };
}
