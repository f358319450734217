import type { Step, StepKind } from "../format/types.js";
import { aiStep } from "./ai/executor.js";
import { branchStep } from "./branch/executor.js";
import { checkpointStep } from "./checkpoint/executor.js";
import { closeStep } from "./close/executor.js";
import { commentStep } from "./comment/executor.js";
import { commitStep } from "./commit/executor.js";
import { decideStep } from "./decide/executor.js";
import { dispatchStep } from "./dispatch/executor.js";
import { endStep } from "./end/executor.js";
import { investigateStep } from "./investigate/executor.js";
import { issueStep } from "./issue/executor.js";
import { labelStep } from "./label/executor.js";
import { parallelStep } from "./parallel/executor.js";
import { playbookStep } from "./playbook/executor.js";
import { pullRequestStep } from "./pull_request/executor.js";
import { scriptStep } from "./script/executor.js";
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
    .register(parallelStep)
    .register(playbookStep)
    .register(pullRequestStep)
    .register(scriptStep);
}
