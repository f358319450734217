import type { Step, StepKind } from "../format/types.js";
import { STEP_EXECUTORS_IN_FOLDERS } from "./generated/executors.js";
import type { StepExecutor } from "./types.js";

/**
 * How each step kind runs: its folder's executor.ts, listed by `npm run kinds:write` from
 * ./kinds.ts. Only the engine imports this list; validation reads ./registry.ts, which holds no
 * executor, so it never loads what steps render or ask for.
 */
const EXECUTORS = STEP_EXECUTORS_IN_FOLDERS;

// The compiler checks the list against the format: a kind the schema has must have an executor.
type WithoutExecutor = Exclude<StepKind, (typeof EXECUTORS)[number]["kind"]>;
const everyKindRuns: [WithoutExecutor] extends [never] ? true : WithoutExecutor = true;
void everyKindRuns;

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
  const registry = new StepRegistry();
  for (const executor of EXECUTORS as unknown as readonly StepExecutor[])
    registry.register(executor);
  return registry;
}
