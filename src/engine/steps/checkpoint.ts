import { playbookError } from "../errors.js";
import type { Message, RunEvent } from "../events.js";
import { approvalRefusal, describeApprovers, durationMs, tally } from "../policy.js";
import { capValue, type Frame, type RunState, type Scalar, type Value } from "../state.js";
import type { Approvers, CheckpointStep } from "../../playbook/types.js";
import { stepTitle } from "../../playbook/graph.js";
import { compileResponseSchema } from "../../playbook/response-schema.js";
import type { Outcome, StepExecutor } from "./types.js";

export interface VoteContext {
  run: RunState;
  frame: Frame;
  stepId: string;
  now: string;
}

/**
 * A vote on a waiting approval (a checkpoint, or an ask-first gate): checks who votes and the
 * values carried, records the person's latest vote, and says whether the approval is complete.
 */
export function castVote(
  ctx: VoteContext,
  approvers: Approvers,
  event: Extract<RunEvent, { type: "command" }>,
  responseSchema?: Record<string, unknown>,
):
  | { outcome: "refused"; reason: string }
  | { outcome: "approved"; outputs: Record<string, Value> }
  | { outcome: "rejected"; reason: string }
  | { outcome: "pending"; have: number; need: number } {
  const named = event.args.positional[0];
  if (event.command === "approve" && named !== undefined && named !== ctx.stepId) {
    return {
      outcome: "refused",
      reason: `'${named}' is not waiting for approval; '${ctx.stepId}' is`,
    };
  }
  const refusal = approvalRefusal(event.actor, approvers, ctx.run.initiator);
  if (refusal) return { outcome: "refused", reason: refusal };
  const values: Record<string, Scalar> = {};
  if (event.command === "approve" && responseSchema) {
    const data: Record<string, unknown> = { ...event.args.values };
    const compiled = compileResponseSchema(responseSchema);
    if (!compiled.ok)
      return {
        outcome: "refused",
        reason: `the step's response_schema is invalid: ${compiled.error}`,
      };
    const validate = compiled.validate;
    if (!validate(data)) {
      const problems = (validate.errors ?? []).map(
        (e) => `${e.instancePath.slice(1) || "values"} ${e.message ?? "is invalid"}`,
      );
      return {
        outcome: "refused",
        reason: `the approval's values do not fit: ${problems.join("; ")}`,
      };
    }
    for (const [k, v] of Object.entries(data))
      if (v === null || ["string", "number", "boolean"].includes(typeof v))
        values[k] = capValue(v as Scalar);
  }
  const vote: Frame["votes"][number] = {
    user: event.actor.login,
    decision: event.command === "approve" ? "approve" : "reject",
    at: ctx.now,
  };
  if (event.commentId !== undefined) vote.commentId = event.commentId;
  if (Object.keys(values).length > 0) vote.values = values;
  const note =
    event.command === "reject"
      ? event.args.text
      : event.args.positional.filter((w) => w !== ctx.stepId).join(" ");
  if (note) vote.note = capValue(note) as string;
  ctx.frame.votes.push(vote);
  const t = tally(ctx.frame.votes);
  if (t.rejection)
    return {
      outcome: "rejected",
      reason: `rejected by @${t.rejection.user}${t.rejection.note ? `: ${t.rejection.note}` : ""}`,
    };
  const need = approvers.count ?? 1;
  if (t.approvals.length < need) return { outcome: "pending", have: t.approvals.length, need };
  const outputs: Record<string, Value> = { approved_by: t.approvals.map((v) => v.user) };
  const notes = t.approvals.map((v) => v.note).filter((n): n is string => Boolean(n));
  outputs.note = notes.join("; ");
  for (const v of t.approvals) Object.assign(outputs, v.values ?? {});
  if (t.approvals.some((v) => v.user.toLowerCase() === ctx.run.initiator.toLowerCase())) {
    ctx.run.selfApproved = [...(ctx.run.selfApproved ?? []), ctx.stepId];
  }
  return { outcome: "approved", outputs };
}

export function waitingMessage(title: string, text: string, approvers: Approvers): Message {
  const msg: Message = {
    kind: "waiting",
    text: `**${title}** waits for approval: ${text}\nReply \`/approve\` or \`/reject <reason>\`. Approval is for ${describeApprovers(approvers)}${(approvers.count ?? 1) > 1 ? ` (${approvers.count} people)` : ""}.`,
  };
  if (approvers.users?.length) msg.to = [...approvers.users];
  return msg;
}

/** Waits for /approve from enough allowed people; /reject fails the run or follows on_reject. */
export const checkpointStep: StepExecutor<CheckpointStep> = {
  kind: "checkpoint",
  retryable: true,
  enter(ctx): Outcome {
    const text = ctx.render(ctx.step.message);
    if (!text.ok) return { type: "fail", error: text.error };
    return {
      type: "wait",
      messages: [waitingMessage(stepTitle(ctx.step), text.value, ctx.step.approvers ?? {})],
    };
  },
  onEvent(ctx, event): Outcome {
    const step = ctx.step;
    if (event.type === "timeout") {
      const waited = Date.parse(ctx.now) - Date.parse(ctx.frame.since);
      if (step.timeout !== undefined && waited >= durationMs(step.timeout)) {
        const action = step.on_timeout ?? "fail";
        if (action === "cancel")
          return {
            type: "cancel",
            message: `No approval for '${step.id}' within ${step.timeout}; the run is cancelled.`,
          };
        if (action === "fail")
          return {
            type: "fail",
            error: playbookError(
              "PB-TIMEOUT",
              `no approval for '${step.id}' within ${step.timeout}`,
            ),
          };
        return { type: "done", goto: action, outputs: { approved_by: [], note: "timed out" } };
      }
      if (
        step.reminder !== undefined &&
        !ctx.frame.reminded &&
        waited >= durationMs(step.reminder)
      ) {
        ctx.frame.reminded = true;
        const reminder: Message = {
          kind: "reminder",
          text: `Reminder: **${stepTitle(step)}** still waits for approval.`,
        };
        if (step.approvers?.users?.length) reminder.to = [...step.approvers.users];
        return { type: "wait", messages: [reminder] };
      }
      return { type: "ignored" };
    }
    if (event.type !== "command" || (event.command !== "approve" && event.command !== "reject"))
      return { type: "ignored" };
    const result = castVote(
      { run: ctx.run, frame: ctx.frame, stepId: step.id, now: ctx.now },
      step.approvers ?? {},
      event,
      step.response_schema,
    );
    switch (result.outcome) {
      case "refused":
        return { type: "ignored", reply: { outcome: "refused", reason: result.reason } };
      case "pending":
        return {
          type: "wait",
          reply: { outcome: "accepted", reason: `${result.have} of ${result.need} approvals` },
        };
      case "rejected":
        if (step.on_reject !== undefined)
          return {
            type: "done",
            goto: step.on_reject,
            outputs: { approved_by: [], note: result.reason },
            reply: { outcome: "accepted" },
          };
        return {
          type: "fail",
          error: playbookError("PB-REJECTED", `'${step.id}' was ${result.reason}`),
          reply: { outcome: "accepted" },
        };
      case "approved":
        return { type: "done", outputs: result.outputs, reply: { outcome: "accepted" } };
    }
  },
};
