import { atLeast } from "../../engine/policy.js";
import { capValue, type Scalar } from "../../engine/state.js";
import type { RunEvent } from "../../engine/events.js";
import type { Branch, InvestigateStep, Step } from "../../format/types.js";
import { stepTitle } from "../../format/graph.js";
import { didYouMean } from "../../util/suggest.js";
import {
  code,
  lines,
  list,
  renderMarkdown,
  strong,
  type Block,
  type InlineLike,
} from "../../markdown/comment.js";
import type { Outcome, StepContext, StepExecutor } from "../types.js";

/** The branches a person picks with /choose: prose conditions the walker never evaluates. */
export function proseBranches(step: Step): Branch[] {
  return Array.isArray(step.next) ? step.next.filter((b) => b.condition !== undefined) : [];
}

/** `Then choose: /choose a (condition), …` for a step with prose branches; undefined without. */
export function choicePrompt(step: Step): InlineLike[] | undefined {
  const branches = proseBranches(step);
  if (branches.length === 0) return undefined;
  return [
    "Then choose: ",
    branches.map((b, i) => [
      i ? ", " : "",
      code(`/choose ${b.label ?? b.goto}`),
      ` (${b.condition ?? ""})`,
    ]),
  ];
}

/** Numbers recorded as text stay numbers, so `when: findings.failing_pods > 0` compares right. */
function parseFinding(v: string): Scalar {
  if (/^-?[0-9]+(\.[0-9]+)?$/.test(v)) return Number(v);
  if (v === "true" || v === "false") return v === "true";
  return capValue(v);
}

/**
 * /record and /choose on a step that waits for people: findings are kept, a /choose names one of
 * the step's prose branches (the walker never guesses). The step is done when a branch is chosen,
 * or, without branches, once every expected finding is recorded.
 */
export function recordOrChoose(
  ctx: StepContext,
  event: RunEvent,
  expected: readonly string[] = [],
): Outcome {
  if (event.type !== "command" || (event.command !== "record" && event.command !== "choose"))
    return { type: "ignored" };
  if (event.actor.bot || !atLeast(event.actor, "triage")) {
    return {
      type: "ignored",
      reply: {
        outcome: "refused",
        reason: `@${event.actor.login} may not record findings here; that needs triage access or more`,
      },
    };
  }
  const step = ctx.step;
  const findings: Record<string, Scalar> = {};
  for (const [k, v] of Object.entries(event.args.values)) findings[k] = parseFinding(v);
  const branches = proseBranches(step);
  if (event.command === "choose") {
    const label = event.args.positional[0];
    const labels = branches.map((b) => b.label ?? (b.goto as string));
    const chosen = branches.find((b) => (b.label ?? b.goto) === label);
    if (!chosen || chosen.goto === undefined) {
      const guess = label ? didYouMean(label, labels) : undefined;
      return {
        type: "ignored",
        reply: {
          outcome: "refused",
          reason: labels.length
            ? `choose one of: ${labels.join(", ")}${guess ? ` — did you mean '${guess}'?` : ""}`
            : `'${step.id}' has no branches to choose; record findings with /record`,
        },
      };
    }
    return {
      type: "done",
      goto: chosen.goto,
      findings,
      outputs: { chosen: label as string },
      reply: { outcome: "accepted" },
    };
  }
  if (Object.keys(findings).length === 0) {
    return {
      type: "ignored",
      reply: { outcome: "refused", reason: "write findings as /record key=value" },
    };
  }
  const recorded = { ...ctx.frame.findings, ...findings };
  const complete = branches.length === 0 && expected.every((f) => Object.hasOwn(recorded, f));
  if (complete) return { type: "done", findings, reply: { outcome: "accepted" } };
  return { type: "wait", findings, reply: { outcome: "accepted" } };
}

/**
 * Work for a person or an agent on the thread: the walker never guesses. Findings come with
 * /record key=value; where branches are prose conditions, /choose <label> picks one.
 */
export const investigateStep: StepExecutor<InvestigateStep> = {
  kind: "investigate",
  retryable: true,
  enter(ctx): Outcome {
    const step = ctx.step;
    const head: InlineLike[][] = [[strong(stepTitle(step))]];
    if (step.description) {
      const d = ctx.render(step.description, "plain");
      if (!d.ok) return { type: "fail", error: d.error };
      head.push([d.value]);
    }
    const body: Block[] = [lines(...head)];
    const calls = (step.suggested_calls ?? []).map((call): InlineLike[] => {
      const args = call.args ? ` ${JSON.stringify(call.args)}` : "";
      const rendered = ctx.render(args, "plain");
      return ["suggested call: ", code(call.tool), rendered.ok ? rendered.value : args];
    });
    if (calls.length) body.push(list(calls));
    const asks: InlineLike[][] = [];
    if (step.expected_findings?.length)
      asks.push([
        "Record findings: ",
        step.expected_findings.map((f, i) => [i ? ", " : "", code(`/record ${f}=…`)]),
      ]);
    const choose = choicePrompt(step);
    if (choose) asks.push(choose);
    if (asks.length) body.push(lines(...asks));
    return { type: "wait", messages: [{ kind: "waiting", text: renderMarkdown(...body) }] };
  },
  onEvent(ctx, event): Outcome {
    return recordOrChoose(ctx, event, ctx.step.expected_findings);
  },
};
