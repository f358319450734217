import type { Step, StepKind } from "../../playbook/types.js";
import { aiStep } from "./ai.js";
import { branchStep } from "./branch.js";
import { checkpointStep } from "./checkpoint.js";
import { closeStep } from "./close.js";
import { commentStep } from "./comment.js";
import { commitStep } from "./commit.js";
import { decideStep } from "./decide.js";
import { dispatchStep } from "./dispatch.js";
import { endStep } from "./end.js";
import { investigateStep } from "./investigate.js";
import { issueStep } from "./issue.js";
import { labelStep } from "./label.js";
import { playbookStep } from "./playbook.js";
import { pullRequestStep } from "./pull-request.js";
import type { StepExecutor } from "./types.js";

/** The executors by kind. A new kind is a new module registered here; the engine does not change. */
export class StepRegistry {
  private readonly executors = new Map<string, StepExecutor>();

  register<S extends Step>(executor: StepExecutor<S>): this {
    this.executors.set(executor.kind, executor as unknown as StepExecutor);
    return this;
  }

  get(kind: StepKind | string): StepExecutor | undefined {
    return this.executors.get(kind);
  }
}

export function defaultRegistry(): StepRegistry {
  return new StepRegistry()
    .register(aiStep)
    .register(branchStep)
    .register(checkpointStep)
    .register(closeStep)
    .register(commentStep)
    .register(commitStep)
    .register(decideStep)
    .register(dispatchStep)
    .register(endStep)
    .register(investigateStep)
    .register(issueStep)
    .register(labelStep)
    .register(playbookStep)
    .register(pullRequestStep);
}
