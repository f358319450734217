/** TypeScript shape of format v1; `schema.ts` is the contract these types follow. */
import type {
  ALERT_SOURCES,
  AUTHORITIES,
  INPUT_TYPES,
  PERMISSIONS,
  STEP_KINDS,
  TRANSFORMS,
} from "./schema.js";

// Each step kind's type is written in its folder (src/core/steps/<kind>/step.ts); `Step`, their
// union, is written from src/core/steps/kinds.ts (`npm run kinds:write`).
import type { Step } from "../steps/generated/step.js";
export type { Step };
export type { Branch, ErrorPolicy, Next, StepBase } from "./step-base.js";
export type * from "../steps/generated/step.js";

export type StepKind = (typeof STEP_KINDS)[number];
export type Permission = (typeof PERMISSIONS)[number];
export type Authority = (typeof AUTHORITIES)[number];
export type InputType = (typeof INPUT_TYPES)[number];
export type Transform = (typeof TRANSFORMS)[number];
export type AlertSource = (typeof ALERT_SOURCES)[number];

/** A parallel step's branches hold steps of any kind, parallel steps included. */
export type ParallelStep = Extract<Step, { type: "parallel" }>;

// A kind the schema has and `Step` lacks fails to compile here, naming the kind.
type Untyped = Exclude<StepKind, Step["type"]>;
const everyKindTyped: [Untyped] extends [never] ? true : Untyped = true;
void everyKindTyped;

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
