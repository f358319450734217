import { playbookError } from "../../engine/errors.js";
import type { RunEvent } from "../../engine/events.js";
import type { DispatchedRun, Frame, Value } from "../../engine/state.js";
import type { DispatchStep } from "../../format/types.js";
import { paragraph, renderMarkdown } from "../../markdown/comment.js";
import { effectOrFail, type Outcome, type StepExecutor } from "../types.js";

/** The longest fact kept to know a dispatched run by (a ref, a login, a repository, a key). */
export const MAX_FACT_LENGTH = 256;

/**
 * GitHub's `date` header and a run's `created_at` are whole seconds, and a run may be created
 * while GitHub is still answering the dispatch request: a run created up to this long before the
 * request's `date` still counts as created after the dispatch.
 */
export const DISPATCH_CLOCK_SLACK_MS = 5_000;

type Awaiting = NonNullable<Frame["awaiting"]>;
type WorkflowRunEvent = Extract<RunEvent, { type: "workflow_run" }>;

const fact = (v: Value | undefined): string | undefined =>
  typeof v === "string" && v !== "" ? v.slice(0, MAX_FACT_LENGTH) : undefined;

/**
 * What the dispatch effect reported to know its run by when GitHub gave no run id: the
 * repository, the ref, GitHub's time of the request, the app's login and the correlation value.
 */
function dispatchedRun(outputs: Record<string, Value>, now: string): DispatchedRun | undefined {
  const repository = fact(outputs.repository);
  const ref = fact(outputs.ref);
  if (repository === undefined || ref === undefined) return undefined;
  const at = fact(outputs.dispatched_at);
  const d: DispatchedRun = {
    repository,
    ref,
    at: new Date(
      at !== undefined && !Number.isNaN(Date.parse(at)) ? Date.parse(at) : Date.parse(now),
    ).toISOString(),
  };
  const actor = fact(outputs.actor);
  if (actor !== undefined) d.actor = actor;
  const correlation = fact(outputs.correlation);
  if (correlation !== undefined) d.correlation = correlation;
  return d;
}

/** Whether `value` appears in `text` as a whole word (not inside a longer key: `…/1` in `…/10`). */
function containsToken(text: string, value: string): boolean {
  const word = /[A-Za-z0-9._/~-]/;
  for (let i = text.indexOf(value); i >= 0; i = text.indexOf(value, i + 1)) {
    const before = text[i - 1];
    const after = text[i + value.length];
    if ((before === undefined || !word.test(before)) && (after === undefined || !word.test(after)))
      return true;
  }
  return false;
}

/**
 * Whether a finished workflow run is the one this step dispatched. With the run's id (GitHub
 * returns it for the dispatch request), only that id. Otherwise every fact must hold: started by
 * `workflow_dispatch`; the workflow's own file, `.github/workflows/<file>` exactly (or its numeric
 * id), never its display name; run in this repository on its own code (a fork's run has another
 * head repository); the app's bot as actor and triggering actor when the app knows its login; the
 * dispatched ref; created no earlier than the dispatch by GitHub's clock, compared as instants;
 * and the correlation value in the run's title when the step names a `correlation_input`.
 * A report without GitHub's facts counts only for a wait that dispatched nothing on GitHub (a
 * local run); a wait saved before the facts were kept gets the checks that need none of them.
 */
export function workflowRunMatches(want: Awaiting, event: WorkflowRunEvent): boolean {
  if (want.workflow === undefined) return false;
  if (want.workflowRun !== undefined) return event.runId === want.workflowRun;
  const run = event.run;
  if (!run) return want.dispatched === undefined && event.workflow === want.workflow;
  if (run.event !== "workflow_dispatch") return false;
  const sameWorkflow = /^[0-9]+$/.test(want.workflow)
    ? run.workflowId === Number(want.workflow)
    : run.path === `.github/workflows/${want.workflow}`;
  if (!sameWorkflow) return false;
  if (run.headRepositoryId !== undefined && run.headRepositoryId !== run.repositoryId) return false;
  const d = want.dispatched;
  if (!d) return true;
  if (run.repository.toLowerCase() !== d.repository.toLowerCase()) return false;
  if (
    d.actor !== undefined &&
    (run.actor !== d.actor ||
      (run.triggeringActor !== undefined && run.triggeringActor !== d.actor))
  )
    return false;
  if (run.headBranch !== d.ref) return false;
  if (!(Date.parse(run.createdAt) >= Date.parse(d.at) - DISPATCH_CLOCK_SLACK_MS)) return false;
  if (d.correlation !== undefined && !containsToken(run.displayTitle ?? "", d.correlation))
    return false;
  return true;
}

/** Starts a workflow with workflow_dispatch and, by default, waits for its run's conclusion. */
export const dispatchStep: StepExecutor<DispatchStep> = {
  kind: "dispatch",
  retryable: true,
  enter: (ctx) =>
    effectOrFail(ctx, "dispatch", (render) => {
      // Inputs first: when several fields fail, theirs is the failure reported.
      const inputs = render.values(ctx.step.inputs);
      return {
        workflow: render(ctx.step.workflow),
        ref: render.optional(ctx.step.ref, "branch"),
        inputs,
        correlation_input: ctx.step.correlation_input || undefined,
      };
    }),
  onEffect(ctx, outputs): Outcome {
    if (ctx.step.wait === false) {
      const done: Record<string, Value> = {};
      if (outputs.run_id !== undefined) done.run_id = outputs.run_id;
      if (outputs.url !== undefined) done.url = outputs.url;
      return { type: "done", outputs: done };
    }
    const rendered = ctx.render(ctx.step.workflow);
    const awaiting: Awaiting = {
      workflow: (rendered.ok ? rendered.value : ctx.step.workflow).slice(0, MAX_FACT_LENGTH),
    };
    if (typeof outputs.run_id === "number") awaiting.workflowRun = outputs.run_id;
    else {
      const dispatched = dispatchedRun(outputs, ctx.now);
      if (dispatched) awaiting.dispatched = dispatched;
    }
    return {
      type: "wait",
      awaiting,
      messages: [
        {
          kind: "waiting",
          text: renderMarkdown(paragraph(`Waiting for workflow ${ctx.step.workflow} to finish.`)),
        },
      ],
    };
  },
  onEvent(ctx, event): Outcome {
    if (event.type !== "workflow_run") return { type: "ignored" };
    const want = ctx.frame.awaiting;
    if (!want || !workflowRunMatches(want, event)) return { type: "ignored" };
    const outputs: Record<string, Value> = { conclusion: event.conclusion };
    if (event.runId !== undefined) outputs.run_id = event.runId;
    if (event.url) outputs.url = event.url;
    if (event.conclusion !== "success") {
      return {
        type: "fail",
        error: playbookError(
          "PB-WORKFLOW-FAILED",
          `workflow ${ctx.step.workflow} ended with '${event.conclusion}'`,
        ),
      };
    }
    return { type: "done", outputs };
  },
};
