import { playbookError } from "../../engine/errors.js";
import type { CommandArgs, Message, RunEvent } from "../../engine/events.js";
import { approvalRefusal, describeApprovers, durationMs, tally } from "../../engine/policy.js";
import {
  capValue,
  type ApprovalFact,
  type Frame,
  type RunState,
  type Scalar,
  type Value,
} from "../../engine/state.js";
import type { Approvers, CheckpointStep } from "../../format/types.js";
import { stepTitle } from "../../format/graph.js";
import { code, lines, paragraph, renderMarkdown, strong } from "../../markdown/comment.js";
import { spans } from "../../markdown/replies.js";
import { compileResponseSchema } from "../../format/response-schema.js";
import type { Outcome, StepContext, StepExecutor } from "../types.js";
import { checkpointWakeTimes } from "./deadlines.js";

export interface VoteContext {
  run: RunState;
  frame: Frame;
  stepId: string;
  now: string;
}

/**
 * A vote's words for the step `stepId`: a first word is the step's name only when it names that
 * step (the one waiting); otherwise it belongs to the note (`/approve looks good`) or the reason
 * (`/reject too risky`). k=v words are response values, never part of the note.
 */
export function voteText(args: CommandArgs, stepId: string): { note: string; reason: string } {
  const named = args.positional[0] === stepId;
  const note = (named ? args.positional.slice(1) : args.positional).join(" ");
  const text = args.text.trim();
  const reason =
    named && text.startsWith(stepId) && /^(\s|$)/.test(text.slice(stepId.length))
      ? text.slice(stepId.length).trim()
      : text;
  return { note, reason };
}

/**
 * A vote on a waiting approval (a checkpoint, or an ask-first gate): checks who votes and the
 * values carried, records the person's latest vote, and says whether the approval is complete.
 * With `event.voters`, earlier approvals whose authors the policy no longer admits are dropped
 * first (`dropped` says why), so they cannot complete the count.
 */
export function castVote(
  ctx: VoteContext,
  approvers: Approvers,
  event: Extract<RunEvent, { type: "command" }>,
  responseSchema?: Record<string, unknown>,
):
  | { outcome: "refused"; reason: string }
  | {
      outcome: "approved";
      outputs: Record<string, Value>;
      facts: ApprovalFact[];
      dropped: string[];
    }
  | { outcome: "rejected"; reason: string }
  | { outcome: "pending"; have: number; need: number; dropped: string[] } {
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
  const dropped = event.command === "approve" ? dropStaleApprovals(ctx, approvers, event) : [];
  const vote: Frame["votes"][number] = {
    user: event.actor.login,
    decision: event.command === "approve" ? "approve" : "reject",
    at: ctx.now,
  };
  if (event.commentId !== undefined) vote.commentId = event.commentId;
  if (Object.keys(values).length > 0) vote.values = values;
  const words = voteText(event.args, ctx.stepId);
  const note = event.command === "reject" ? words.reason : words.note;
  if (note) vote.note = capValue(note) as string;
  ctx.frame.votes.push(vote);
  const t = tally(ctx.frame.votes);
  if (t.rejection)
    return {
      outcome: "rejected",
      reason: `rejected by @${t.rejection.user}${t.rejection.note ? `: ${t.rejection.note}` : ""}`,
    };
  const need = approvers.count ?? 1;
  if (t.approvals.length < need)
    return { outcome: "pending", have: t.approvals.length, need, dropped };
  const outputs: Record<string, Value> = { approved_by: t.approvals.map((v) => v.user) };
  const notes = t.approvals.map((v) => v.note).filter((n): n is string => Boolean(n));
  outputs.note = notes.join("; ");
  for (const v of t.approvals) Object.assign(outputs, v.values ?? {});
  if (t.approvals.some((v) => v.user.toLowerCase() === ctx.run.initiator.toLowerCase())) {
    ctx.run.selfApproved = [...(ctx.run.selfApproved ?? []), ctx.stepId];
  }
  return { outcome: "approved", outputs, facts: approvalFacts(ctx.frame, t.approvals), dropped };
}

/**
 * The approvals as facts: each approver with the comment they approved in, and the comment that
 * asked (the wait's prompt, when it was posted for this wait). A vote without a comment (none
 * comes from a person's comment without one) gives no fact: the guard cannot check it.
 */
function approvalFacts(frame: Frame, approvals: readonly Frame["votes"][number][]): ApprovalFact[] {
  const prompt = frame.prompt?.since === frame.since ? frame.prompt.comment : undefined;
  return approvals.flatMap((v) =>
    v.commentId === undefined
      ? []
      : [{ user: v.user, comment: v.commentId, ...(prompt ? { prompt } : {}) }],
  );
}

/**
 * Remove the votes of earlier approvers whom the policy no longer admits, judged as the adapter
 * found them now (`event.voters`); without that list, earlier votes stand as they were judged.
 */
function dropStaleApprovals(
  ctx: VoteContext,
  approvers: Approvers,
  event: Extract<RunEvent, { type: "command" }>,
): string[] {
  if (!event.voters) return [];
  const now = new Map(event.voters.map((a) => [a.login.toLowerCase(), a]));
  const self = event.actor.login.toLowerCase();
  const stale = new Map<string, string>();
  for (const v of ctx.frame.votes) {
    const who = v.user.toLowerCase();
    if (v.decision !== "approve" || who === self || stale.has(who)) continue;
    const actor = now.get(who);
    const why = actor
      ? approvalRefusal(actor, approvers, ctx.run.initiator)
      : `@${v.user} could not be looked up again`;
    if (why) stale.set(who, why);
  }
  if (stale.size > 0)
    ctx.frame.votes = ctx.frame.votes.filter((v) => !stale.has(v.user.toLowerCase()));
  return [...stale.values()];
}

/** The request for approval; `text` is plain text (the step's message), shown inert. */
export function waitingMessage(title: string, text: string, approvers: Approvers): Message {
  const msg: Message = {
    kind: "waiting",
    text: renderMarkdown(
      lines(
        // The author's `code` and **bold** marks stay; everything else in the message is text.
        [strong(title), " waits for approval: ", ...spans(text)],
        [
          "Reply ",
          code("/approve"),
          " or ",
          code("/reject <reason>"),
          `. Approval is for ${describeApprovers(approvers)}${(approvers.count ?? 1) > 1 ? ` (${approvers.count} people)` : ""}.`,
        ],
      ),
    ),
  };
  if (approvers.users?.length) msg.to = [...approvers.users];
  return msg;
}

/** A timer tick while the checkpoint waits: time out, remind once, or keep waiting. */
function onTick(ctx: StepContext<CheckpointStep>): Outcome {
  const step = ctx.step;
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
        error: playbookError("PB-TIMEOUT", `no approval for '${step.id}' within ${step.timeout}`),
      };
    return { type: "done", goto: action, outputs: { approved_by: [], note: "timed out" } };
  }
  if (step.reminder !== undefined && !ctx.frame.reminded && waited >= durationMs(step.reminder)) {
    ctx.frame.reminded = true;
    const reminder: Message = {
      kind: "reminder",
      text: renderMarkdown(
        paragraph("Reminder: ", strong(stepTitle(step)), " still waits for approval."),
      ),
    };
    if (step.approvers?.users?.length) reminder.to = [...step.approvers.users];
    return { type: "wait", messages: [reminder] };
  }
  return { type: "ignored" };
}

/** Waits for /approve from enough allowed people; /reject fails the run or follows on_reject. */
export const checkpointStep: StepExecutor<CheckpointStep> = {
  kind: "checkpoint",
  retryable: true,
  wakeTimes: checkpointWakeTimes,
  enter(ctx): Outcome {
    const text = ctx.render(ctx.step.message, "plain");
    if (!text.ok) return { type: "fail", error: text.error };
    return {
      type: "wait",
      messages: [waitingMessage(stepTitle(ctx.step), text.value, ctx.step.approvers ?? {})],
    };
  },
  onEvent(ctx, event): Outcome {
    const step = ctx.step;
    if (event.type === "timeout") return onTick(ctx);
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
      case "pending": {
        const counted = `${result.have} of ${result.need} approvals`;
        const outcome: Extract<Outcome, { type: "wait" }> = {
          type: "wait",
          reply: { outcome: "accepted", reason: counted },
        };
        // Those waiting on the count learn why it went down.
        if (result.dropped.length > 0) {
          const one = result.dropped.length === 1;
          const msg: Message = {
            kind: "reminder",
            text: renderMarkdown(
              paragraph(
                one ? "An earlier approval of " : "Earlier approvals of ",
                strong(stepTitle(step)),
                ` no longer ${one ? "counts" : "count"}: ${result.dropped.join("; ")}. ${counted}.`,
              ),
            ),
          };
          if (step.approvers?.users?.length) msg.to = [...step.approvers.users];
          outcome.messages = [msg];
        }
        return outcome;
      }
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
        return {
          type: "done",
          outputs: result.outputs,
          approvals: result.facts,
          reply: { outcome: "accepted" },
        };
    }
  },
};
