import { MockAiAdapter, runAiEffect } from "../../runtime/ai.js";
import type { StartRequest } from "../../core/engine/engine.js";
import { collectInputs } from "../../core/engine/inputs.js";
import { isErrorCode, playbookError } from "../../core/engine/errors.js";
import type { CommandName, Effect, RunEvent } from "../../core/engine/events.js";
import { durationMs } from "../../core/engine/policy.js";
import {
  activeFrame,
  isFinished,
  type Actor,
  type RunContext,
  type RunState,
  type Scalar,
  type Value,
} from "../../core/engine/state.js";
import type { PlaybookBundle } from "../../core/steps/types.js";
import { printedOutputs } from "./effects.js";
import type { EffectOutcome, EffectPerformer } from "../../runtime/effects.js";
import { pickUp } from "../../runtime/interpreter.js";
import { RunDriver, beginRun } from "../../runtime/run-service/driver.js";
import { ManualClock, ManualScheduler } from "../../runtime/time.js";
import type { TestActor, TestCase, TestEvent } from "../../core/format/types.js";

export interface CaseResult {
  playbook: string;
  name: string;
  ok: boolean;
  problems: string[];
  path: string[];
  status: RunState["status"];
}

/** Outputs a golden case's effects produce: numbered like GitHub's, and deterministic. */
class TestEffects implements EffectPerformer {
  /** Effects performed so far: numbers outputs and result ids. */
  counter = 0;
  private readonly failures = new Map<string, { code: string; times: number }>();
  private readonly ai = new MockAiAdapter();

  failNext(step: string, code: string, times = 1): void {
    this.failures.set(step, { code, times });
  }

  async perform(effect: Effect): Promise<EffectOutcome> {
    ++this.counter;
    const failure = this.failures.get(effect.step);
    if (failure && failure.times > 0) {
      failure.times--;
      const code = isErrorCode(failure.code) ? failure.code : "PB-EFFECT-FAILED";
      return { ok: false, error: playbookError(code, `simulated failure (${failure.code})`) };
    }
    const n = this.counter;
    let outputs: Record<string, Value> = printedOutputs(effect);
    switch (effect.kind) {
      case "branch":
        outputs = { name: String(effect.params.name), sha: `sha-${n}`, created: true };
        break;
      case "commit":
        outputs = { sha: `sha-${n}`, branch: String(effect.params.branch) };
        break;
      case "pull_request":
        outputs = {
          number: n,
          url: `https://github.test/pulls/${n}`,
          head: String(effect.params.head),
          merged: false,
        };
        break;
      case "issue":
        outputs = { number: n, url: `https://github.test/issues/${n}` };
        break;
      case "dispatch":
        outputs = { run_id: n, url: `https://github.test/actions/runs/${n}` };
        break;
      case "comment":
        outputs = { id: String(n), url: `https://github.test/comments/${n}` };
        break;
      case "ai":
        outputs = await runAiEffect(this.ai, effect.params);
        break;
      default:
        break;
    }
    return { ok: true, outputs };
  }
}

/** The issue and repository a golden case runs against. */
function testContext(author: string): RunContext {
  return {
    issue: { number: 1, title: "Test issue", url: "https://github.test/issues/1", author },
    repo: { owner: "octo", name: "repo", full_name: "octo/repo", default_branch: "main" },
    url: "https://github.test/issues/1",
  };
}

function actorOf(
  a: TestActor | undefined,
  fallback: string,
  permission: Actor["permission"],
): Actor {
  const actor: Actor = { login: a?.by ?? fallback, permission: a?.permission ?? permission };
  if (a?.teams) actor.teams = a.teams;
  return actor;
}

/**
 * Run one golden case with every effect simulated: inputs and events in, the path of steps, the
 * status, the conclusion and the outputs checked against what the author expects.
 */
export async function runCase(
  bundle: PlaybookBundle,
  playbooks: (id: string) => PlaybookBundle | undefined,
  tc: TestCase,
): Promise<CaseResult> {
  const clock = Date.parse("2026-01-05T09:00:00Z");
  const problems: string[] = [];
  const path: string[] = [];
  const initiator = actorOf(tc.initiator, "test-initiator", "write");
  const alert = tc.alert;
  const raw: Record<string, Scalar> = {
    ...collectInputs(
      bundle.playbook.inputs,
      alert ? { alert: { labels: alert.labels ?? {}, annotations: alert.annotations ?? {} } } : {},
    ),
    ...(tc.inputs ?? {}),
  };
  const request: StartRequest = {
    bundle,
    inputs: raw,
    initiator,
    eventId: "test-start",
    context: testContext(initiator.login),
  };
  if (alert)
    (request.context as RunContext).alert = {
      source: "generic",
      status: "firing",
      severity: "unknown",
      summary: "",
      ...alert,
    } as NonNullable<RunContext["alert"]>;
  const started = beginRun(request, { now: new Date(clock), playbooks });
  const result: CaseResult = {
    playbook: bundle.playbook.id,
    name: tc.name,
    ok: false,
    problems,
    path,
    status: "failed",
  };
  if (!started.ok) {
    // A run that never starts is a failed one with PB-INPUT-INVALID, checked like any other.
    const want = tc.expect;
    if (want.status !== undefined && want.status !== "failed")
      problems.push(
        `status: expected ${want.status}, but the run did not start: ${started.error.message}`,
      );
    if (want.error !== undefined && want.error !== started.error.code)
      problems.push(
        `error: expected ${want.error}, got ${started.error.code} (${started.error.message})`,
      );
    if (want.path?.length)
      problems.push(`path: expected [${want.path.join(", ")}], but the run did not start`);
    result.ok = problems.length === 0;
    return result;
  }
  const effects = new TestEffects();
  const queue = [...(tc.events ?? [])];
  let n = 0;
  let lastConclusion: string | undefined;
  // Each transition takes a second, so every step has its own time.
  const time = new ManualClock(clock);
  const stepping = { now: () => time.advance(1000) };
  const driver = new RunDriver(
    {
      store: { save: () => undefined },
      teller: {
        tell: (_messages, r) => {
          for (const done of r.finished) {
            if (done.status === "skipped") continue;
            path.push(done.depth === 0 ? done.step : `${done.playbook}/${done.step}`);
            const c = done.outputs?.conclusion;
            if (done.kind === "decide" && typeof c === "string") lastConclusion = c;
          }
        },
      },
      effects,
      clock: stepping,
      scheduler: new ManualScheduler(time),
    },
    {
      env: { playbooks },
      inProcess: true,
      ids: {
        effectResult: (effect) => `effect-${effect.key}-${effects.counter}`,
        continuation: () => `c${++n}`,
      },
      maxTransitions: 10_000,
    },
  );
  // A failing effect is armed before the run reaches the step, wherever it is listed.
  const arm = () => {
    while (queue[0] && "fail_effect" in queue[0]) {
      const { fail_effect } = queue.shift() as {
        fail_effect: { step: string; code: string; times?: number };
      };
      effects.failNext(fail_effect.step, fail_effect.code, fail_effect.times ?? 1);
    }
  };
  arm();
  let run = (await driver.carryOn(started.result.run, started.result)).run;
  for (;;) {
    // A failed run takes a /retry; otherwise an ended run takes no more events.
    const retryNext = run.status === "failed" && queue[0] !== undefined && "retry" in queue[0];
    if (isFinished(run) && !retryNext) break;
    const next = queue.shift();
    if (!next) break;
    const f = activeFrame(run);
    const event = toRunEvent(
      next,
      ++n,
      new Date(time.now().getTime() + 1000).toISOString(),
      f.awaiting,
      effects,
      (ms) => time.advance(ms),
    );
    const first = event ? driver.answer(run, event) : pickUp(run);
    arm();
    run = (await driver.carryOn(run, first)).run;
  }
  result.status = run.status;
  if (queue.length > 0)
    problems.push(
      `${queue.length} event(s) were not used: the run was ${run.status} at '${activeFrame(run).current}'`,
    );
  const want = tc.expect;
  if (want.path && JSON.stringify(want.path) !== JSON.stringify(path)) {
    problems.push(`path: expected [${want.path.join(", ")}], got [${path.join(", ")}]`);
  }
  if (want.status && want.status !== run.status)
    problems.push(
      `status: expected ${want.status}, got ${run.status}${run.error ? ` (${run.error.code}: ${run.error.message})` : ""}`,
    );
  const conclusion = lastConclusion ?? run.end?.conclusion;
  if (want.conclusion !== undefined && want.conclusion !== conclusion)
    problems.push(`conclusion: expected ${want.conclusion}, got ${conclusion ?? "none"}`);
  if (want.error !== undefined && want.error !== run.error?.code)
    problems.push(`error: expected ${want.error}, got ${run.error?.code ?? "none"}`);
  for (const [k, v] of Object.entries(want.outputs ?? {})) {
    const got = run.outputs?.[k];
    if (String(got) !== String(v))
      problems.push(`outputs.${k}: expected ${JSON.stringify(v)}, got ${JSON.stringify(got)}`);
  }
  result.ok = problems.length === 0;
  return result;
}

function toRunEvent(
  e: TestEvent,
  n: number,
  createdAt: string,
  awaiting: ReturnType<typeof activeFrame>["awaiting"],
  effects: TestEffects,
  advanceClock: (ms: number) => void,
): RunEvent | undefined {
  const id = `t${n}`;
  const command = (
    name: CommandName,
    a: TestActor,
    positional: string[],
    values: Record<string, string>,
    text = "",
  ): RunEvent => ({
    type: "command",
    id,
    command: name,
    args: { positional, values, text },
    actor: actorOf(
      a,
      name === "record" || name === "choose" ? "test-investigator" : "test-approver",
      name === "record" || name === "choose" ? "triage" : "admin",
    ),
    commentId: id,
    createdAt,
  });
  const stringify = (
    o: Record<string, string | number | boolean> | undefined,
  ): Record<string, string> =>
    Object.fromEntries(Object.entries(o ?? {}).map(([k, v]) => [k, String(v)]));
  if ("approve" in e)
    return command(
      "approve",
      e.approve,
      e.approve.step ? [e.approve.step] : [],
      stringify(e.approve.values),
    );
  if ("reject" in e) return command("reject", e.reject, [], {}, e.reject.reason ?? "rejected");
  if ("record" in e) return command("record", e.record, [], stringify(e.record.findings));
  if ("choose" in e)
    return command("choose", e.choose, e.choose.branch ? [e.choose.branch] : [], {});
  if ("retry" in e) return command("retry", e.retry, [], {});
  if ("cancel" in e) return command("cancel", e.cancel, [], {});
  if ("merge" in e || "close_pr" in e) {
    return {
      type: "pull_request",
      id,
      number: awaiting?.pullRequest ?? 0,
      merged: "merge" in e && e.merge,
    };
  }
  if ("workflow" in e) {
    const w: RunEvent = {
      type: "workflow_run",
      id,
      workflow: awaiting?.workflow ?? "",
      conclusion: e.workflow,
    };
    if (awaiting?.workflowRun !== undefined) w.runId = awaiting.workflowRun;
    return w;
  }
  if ("fail_effect" in e) {
    effects.failNext(e.fail_effect.step, e.fail_effect.code, e.fail_effect.times ?? 1);
    return undefined;
  }
  advanceClock(durationMs(e.wait));
  return { type: "timeout", id };
}
