/** A workflow_dispatch of `workflow` on `ref` (default: the default branch). */
export type DispatchParams = {
  workflow: string;
  ref?: string;
  inputs?: Record<string, string | number | boolean>;
  /** The workflow input that receives this dispatch's correlation value. */
  correlation_input?: string;
};

/**
 * What the dispatch returns: the run's id when GitHub gives it; otherwise the facts the step
 * knows its run by (the repository, the ref, GitHub's time of the request, the app's login and
 * the correlation value). The step's `conclusion` comes later, with the workflow_run event.
 */
export type DispatchOutputs = {
  /** The run, or the workflow's runs when the run is not known yet. */
  url: string;
  run_id?: number;
  repository?: string;
  ref?: string;
  dispatched_at?: string;
  actor?: string;
  correlation?: string;
};

/** What the effect does, in words (a failure says what was being done). */
export const describeDispatchEffect = (p: DispatchParams): string => `dispatch ${p.workflow}`;
