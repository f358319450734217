import type { Step, StepKind } from "../format/types.js";
import { STEP_KINDS_IN_FOLDERS } from "./generated/plugins.js";
import type {
  PlaybookCall,
  ShapeProblem,
  StepExpression,
  StepFileReference,
  StepKindPlugin,
  StepRepoPath,
} from "./kind.js";
import { stepKindSchemaOf } from "./schemas.js";

/**
 * Every step kind: each lives in its folder (./<kind>/index.ts says what the rest of the code needs
 * of it besides how it runs), listed once in ./kinds.ts, from which `npm run kinds:write` writes
 * this list. Its executors are in ./executors.ts: validation asks this module and runs no step.
 */
const KINDS = STEP_KINDS_IN_FOLDERS;

// The compiler checks the list against the format: a kind the schema has must be registered.
type Unregistered = Exclude<StepKind, (typeof KINDS)[number]["kind"]>;
const everyKindRegistered: [Unregistered] extends [never] ? true : Unregistered = true;
void everyKindRegistered;

export const STEP_KIND_PLUGINS = KINDS as unknown as readonly StepKindPlugin[];

const byName = new Map(STEP_KIND_PLUGINS.map((p) => [p.kind as string, p]));

/** The kind's plugin, or undefined for a name that is not a step kind. */
export function stepKind(kind: StepKind | string): StepKindPlugin | undefined {
  return byName.get(kind);
}

/** The outputs a step produces, or null when they depend on what it runs (a child playbook). */
export function outputsOfStep(step: Step): readonly string[] | null {
  const plugin = stepKind(step.type);
  const own = plugin?.outputsOf?.(step);
  if (!plugin || (plugin.outputs === null && own === undefined)) return null;
  return [...(plugin.outputs ?? []), ...(own ?? [])];
}

/** Whether a step's effects change the repository or the thread (authority applies to it). */
export function hasSideEffects(step: Step): boolean {
  return stepKind(step.type)?.sideEffect === true;
}

/** The tool a trace names for a step's act, known from its definition (undefined: none). */
export function toolOfStep(step: Step): string | undefined {
  return stepKind(step.type)?.tool?.(step);
}

/** The files next to the playbook a step reads, with the path to each field from the step. */
export function filesOfStep(step: Step): StepFileReference[] {
  return stepKind(step.type)?.files?.(step) ?? [];
}

/** The finding keys a step expects to establish. */
export function expectedFindingsOf(step: Step): readonly string[] {
  return stepKind(step.type)?.expectedFindings?.(step) ?? [];
}

/** The expressions a step holds besides `if`, with the path to each from the step. */
export function expressionsOf(step: Step): StepExpression[] {
  return stepKind(step.type)?.expressions?.(step) ?? [];
}

/** Whether a step may record findings of keys nobody wrote down (tools the bot calls itself). */
export function findsUnforeseen(step: Step): boolean {
  return stepKind(step.type)?.findsUnforeseen?.(step) === true;
}

/** The playbooks a step delegates or hands off to, each with where the step names it. */
export function callsOf(step: Step): PlaybookCall[] {
  return stepKind(step.type)?.calls?.(step) ?? [];
}

/** The playbooks a run may go on to from a step (delegated to or handed off to). */
export function playbooksOf(step: Step): readonly string[] {
  return callsOf(step).map((c) => c.target);
}

/** Whether a step ends its playbook (an end, a hand-off): nothing follows it. */
export function endsPlaybook(step: Step): boolean {
  return stepKindSchemaOf(step.type)?.graph?.terminal?.(step) === true;
}

/** What does not fit together in a step's fields, by its kind's own account. */
export function shapeProblemsOf(step: Step): ShapeProblem[] {
  return stepKind(step.type)?.shapeProblems?.(step) ?? [];
}

/** Whether a step can stop its run until something happens (its kind says; else its timeout). */
export function canStopTheRun(step: Step): boolean {
  const canWait = stepKind(step.type)?.canWait;
  return canWait ? canWait(step) : step.timeout !== undefined;
}

/** The paths in the repository a step writes or expects. */
export function repoPathsOf(step: Step): StepRepoPath[] {
  return stepKind(step.type)?.repoPaths?.(step) ?? [];
}

/** Whether people answer a step with an approval (`/approve`, `/reject`) while it waits. */
export function answeredWithApproval(step: Step | undefined): boolean {
  return step !== undefined && stepKind(step.type)?.answeredWith === "approval";
}

/** Whether a step may act only after a person approved (a model with write tools). */
export function actsAfterApproval(step: Step): boolean {
  return stepKind(step.type)?.actsAfterApproval?.(step) === true;
}
