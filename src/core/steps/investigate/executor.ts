import { atLeast } from "../../engine/policy.js";
import { soleValue } from "../../engine/sole-value.js";
import { capValue, type Scalar, type Value } from "../../engine/state.js";
import type { RunEvent } from "../../engine/events.js";
import type { Branch, InvestigateStep, Step, SuggestedCall } from "../../format/types.js";
import type { PlaybookError } from "../../engine/errors.js";
import type { ToolCallRequest } from "./effect.js";
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

/** Render the string values of a call's arguments, at any depth (bounded), for the tool. */
function renderArgs(
  ctx: StepContext,
  value: unknown,
  depth = 0,
): { ok: true; value: unknown } | { ok: false; error: PlaybookError } {
  if (typeof value === "string") {
    // An argument that is one name passes its value (a list, an object), not its text.
    const inputs = ctx.bundle.playbook.inputs ?? {};
    const sole = soleValue(value, ctx.resolve, (name) => inputs[name]?.type === "list");
    if (sole !== undefined) return { ok: true, value: sole };
    const r = ctx.render(value, "value");
    return r.ok ? { ok: true, value: r.value } : r;
  }
  if (depth > 8 || value === null || typeof value !== "object") return { ok: true, value };
  const entries = Array.isArray(value)
    ? value.map((v, i) => [i, v] as const)
    : Object.entries(value);
  const out: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
  for (const [k, v] of entries) {
    const r = renderArgs(ctx, v, depth + 1);
    if (!r.ok) return r;
    (out as Record<string, unknown>)[k] = r.value;
  }
  return { ok: true, value: out };
}

/** The tool_call effect for some of a step's suggested calls (by their numbers, from 1). */
function callEffect(ctx: StepContext<InvestigateStep>, numbers: readonly number[]): Outcome {
  const calls: ToolCallRequest[] = [];
  for (const number of numbers) {
    const call = (ctx.step.suggested_calls ?? [])[number - 1] as SuggestedCall;
    const args = renderArgs(ctx, call.args ?? {});
    if (!args.ok) return { type: "fail", error: args.error };
    calls.push({
      number,
      tool: call.tool,
      args: args.value as Record<string, unknown>,
      required: call.required === true,
      ...(call.outputs ? { outputs: call.outputs } : {}),
      ...(call.findings ? { findings: call.findings } : {}),
    });
  }
  const authority = ctx.step.authority;
  return {
    type: "effect",
    kind: "tool_call",
    params: authority ? { calls, authority } : { calls },
  };
}

/** The step's message while it waits for people: what to look at, record and choose. */
function waitingFor(ctx: StepContext<InvestigateStep>, results?: string): Outcome {
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
    return [
      call.run === "auto" ? "called: " : "suggested call: ",
      code(call.tool),
      rendered.ok ? rendered.value : args,
      call.purpose ? ` — ${call.purpose}` : "",
    ];
  });
  // Numbered as /call <n> names them.
  if (calls.length) body.push(list(calls, true));
  if (results) body.push(lines(["Results:"], ...results.split("\n").map((l) => [l])));
  const asks: InlineLike[][] = [];
  if ((step.suggested_calls ?? []).some((c) => c.run !== "auto"))
    asks.push(["Have the bot make a suggested call: ", code("/call <n>")]);
  if (step.expected_findings?.length)
    asks.push([
      "Record findings: ",
      step.expected_findings.map((f, i) => [i ? ", " : "", code(`/record ${f}=…`)]),
    ]);
  const choose = choicePrompt(step);
  if (choose) asks.push(choose);
  if (asks.length) body.push(lines(...asks));
  return { type: "wait", messages: [{ kind: "waiting", text: renderMarkdown(...body) }] };
}

/** `/call <n>`: the bot makes suggested call n of the waiting step (triage access or more). */
function callCommand(ctx: StepContext<InvestigateStep>, event: RunEvent): Outcome | undefined {
  if (event.type !== "command" || event.command !== "call") return undefined;
  if (event.actor.bot || !atLeast(event.actor, "triage"))
    return {
      type: "ignored",
      reply: {
        outcome: "refused",
        reason: `@${event.actor.login} may not have the bot make calls here; that needs triage access or more`,
      },
    };
  const count = ctx.step.suggested_calls?.length ?? 0;
  const n = Number(event.args.positional[0]);
  if (!Number.isInteger(n) || n < 1 || n > count)
    return {
      type: "ignored",
      reply: {
        outcome: "refused",
        reason: count
          ? `name a suggested call by its number, 1 to ${count}: /call 1`
          : `'${ctx.step.id}' suggests no calls`,
      },
    };

  return callEffect(ctx, [n]);
}

/**
 * Work for a person, an agent or the bot's tools: calls marked `run: auto` are made when the step
 * starts, and any suggested call when a person asks (`/call <n>`); their results become
 * findings. Findings also come with /record key=value; where branches are prose conditions,
 * /choose <label> picks one. The walker never guesses.
 */
export const investigateStep: StepExecutor<InvestigateStep> = {
  kind: "investigate",
  retryable: true,
  enter(ctx): Outcome {
    const auto = (ctx.step.suggested_calls ?? []).flatMap((c, i) =>
      c.run === "auto" ? [i + 1] : [],
    );
    return auto.length > 0 ? callEffect(ctx, auto) : waitingFor(ctx);
  },
  onEffect(ctx, outputs): Outcome {
    const findings: Record<string, Scalar> = {};
    for (const [k, v] of Object.entries(outputs))
      if (k.startsWith("finding.") && !Array.isArray(v)) findings[k.slice("finding.".length)] = v;
    const recorded = { ...ctx.frame.findings, ...findings };
    const expected = ctx.step.expected_findings ?? [];
    const results = typeof outputs.results === "string" ? outputs.results : "";
    const taken: Record<string, Value> = { results };
    for (const [k, v] of Object.entries(outputs))
      if (k.startsWith("output.")) taken[k.slice("output.".length)] = v;
    // Done when the calls gave every expected finding and no person has to choose a branch.
    if (proseBranches(ctx.step).length === 0 && expected.every((f) => Object.hasOwn(recorded, f)))
      return { type: "done", findings, outputs: taken };
    const waiting = waitingFor(ctx, results);
    return waiting.type === "wait" ? { ...waiting, findings } : waiting;
  },
  onEvent(ctx, event): Outcome {
    return callCommand(ctx, event) ?? recordOrChoose(ctx, event, ctx.step.expected_findings);
  },
};
