import { proseBranches } from "../../core/steps/investigate/executor.js";
import type { AdvanceResult, Effect, Message, RunEvent } from "../../core/engine/events.js";
import { parseArgs } from "../../core/engine/inputs.js";
import { answerableLine } from "../../core/engine/lanes.js";
import { activeFrame, isFinished, type Actor, type RunState } from "../../core/engine/state.js";
import type { PlaybookBundle } from "../../core/steps/types.js";
import type { EngineEnv } from "../../core/engine/engine.js";
import { stepKind } from "../../core/steps/registry.js";
import type { EffectOutcome } from "../../runtime/effects.js";
import { pickUp, type Stop } from "../../runtime/interpreter.js";
import { RunDriver } from "../../runtime/run-service/driver.js";
import { SleepScheduler } from "../../runtime/time.js";
import type { TraceLog } from "../../runtime/ports.js";
import type { LocalEffects } from "../../adapters/local/effects.js";
import type { FileRunStore, LocalRunRecord } from "../../adapters/local/file-store.js";
import { PlaybookGraph } from "../../core/format/graph.js";
import type { Step } from "../../core/format/types.js";
import { markdownToPlain, spansToPlain } from "./plain-text.js";
import { terminalLines } from "../../core/util/log-line.js";

/** Exit codes of `run`, `resume` and `test`. 4: paused, waiting for a person (resume later). */
export const RUN_EXIT = { completed: 0, invalid: 1, failed: 2, state: 3, paused: 4 } as const;

export interface RunnerIo {
  /** A log line (the runner adds the time). */
  log(line: string): void;
  /** Raw output: messages, the summary. */
  out(text: string): void;
  /** A question on the terminal; null when no terminal is attached (CI, pipes). */
  ask(question: string): Promise<string | null>;
  /** A progress line while a step works; called with null to clear it. */
  progress?(line: string | null): void;
}

export interface RunnerDeps {
  store: FileRunStore;
  effects: LocalEffects;
  bundles: Map<string, PlaybookBundle>;
  /** Why a playbook the run delegates to is not among them: its file's report. */
  invalidPlaybook?: EngineEnv["invalidPlaybook"];
  io: RunnerIo;
  clock: () => Date;
  /** Who answers at the terminal (approves in manual mode). */
  operator: string;
  /** Wait (for a retry's backoff); injectable so tests need not sleep. */
  sleep?: (ms: number) => Promise<void>;
  /** GitHub, when the run's effects go there: asked where an awaited pull request stands. */
  github?: {
    pullRequestState(
      number: number,
    ): Promise<{ state: "open" | "closed"; merged: boolean; url: string }>;
  };
  /** Called after an effect was performed and before its result is saved (fault injection). */
  afterEffect?: (effect: Effect) => void;
  /** Where the run's trace records go (a JSONL file beside its state). */
  trace?: TraceLog;
}

interface StepTiming {
  step: string;
  kind: string;
  playbook: string;
  status: string;
  ms: number;
}

/**
 * The local driver: the interpreter carries the run on (effects, saves after every step, retry
 * backoffs); the runner answers what it waits for, from the terminal or by mode.
 */
export class Runner {
  private seq = 0;
  private readonly timings: StepTiming[] = [];
  private readonly started = new Map<string, number>();
  private readonly driver: RunDriver;
  /** Why the interpreter last stopped. */
  private stopped: Stop = "waiting";

  constructor(
    private record: LocalRunRecord,
    private readonly deps: RunnerDeps,
  ) {
    const clock = { now: deps.clock };
    this.driver = new RunDriver(
      {
        store: { save: (run) => deps.store.save(this.keep(run)) },
        teller: { tell: (messages, result) => this.tell(messages, result) },
        effects: { perform: (effect, run) => this.perform(effect, run) },
        handoff: (handoff) =>
          deps.io.log(`handoff: continue with: playbook-bot run ${handoff.playbook}`),
        ...(deps.trace ? { trace: deps.trace, warn: (line: string) => deps.io.log(line) } : {}),
        clock,
        scheduler: new SleepScheduler({
          clock,
          sleep: deps.sleep,
          waiting: (wake, ms) =>
            deps.io.log(`waiting ${Math.ceil(ms / 1000)} s before retrying ${wake.step}`),
        }),
      },
      {
        env: this.catalogEnv(),
        inProcess: true,
        ids: {
          effectResult: () => this.eventId("effect"),
          continuation: () => this.eventId("continue"),
          timeout: () => this.eventId("timeout"),
        },
        // The engine's own limits (max_steps) end a run; a local run may take as long as it needs.
        maxTransitions: Infinity,
      },
    );
  }

  get run(): RunState {
    return this.record.run;
  }

  private env() {
    return { now: this.deps.clock(), ...this.catalogEnv() };
  }

  private catalogEnv(): Omit<EngineEnv, "now"> {
    const { bundles, invalidPlaybook } = this.deps;
    return { playbooks: (id) => bundles.get(id), ...(invalidPlaybook ? { invalidPlaybook } : {}) };
  }

  private eventId(kind: string): string {
    return `cli-${kind}-${this.run.seq}-${++this.seq}`;
  }

  private step(frame = activeFrame(this.run)): Step | undefined {
    const bundle = this.deps.bundles.get(frame.playbook);
    return bundle
      ? new PlaybookGraph(bundle.playbook).byId.get(frame.current ?? "")?.step
      : undefined;
  }

  private time(): string {
    return this.deps.clock().toISOString().slice(11, 19);
  }

  private keep(run: RunState): LocalRunRecord {
    this.record = { ...this.record, run };
    return this.record;
  }

  /** Say what changed: steps started and finished, the engine's messages, a refusal. */
  private tell(messages: readonly Message[], result: AdvanceResult): void {
    this.reportProgress(result);
    for (const m of messages) this.message(m);
    if (result.reply?.outcome === "refused")
      this.deps.io.log(`refused: ${spansToPlain(result.reply.reason ?? "")}`);
  }

  /** A message for people, as plain text: the terminal is no GitHub thread to render Markdown. */
  private message(m: Message): void {
    const text = terminalLines(markdownToPlain(m.text));
    this.deps.io.out(
      `${m.kind === "failure" ? "✖ " : m.kind === "waiting" || m.kind === "reminder" ? "⏸ " : "  "}${text.split("\n").join("\n  ")}\n`,
    );
  }

  /** Step start and end lines, with durations. */
  private reportProgress(result: AdvanceResult): void {
    for (const done of result.finished) {
      const key = `${done.playbook}/${done.step}`;
      const t0 = this.started.get(key);
      const ms = t0 === undefined ? 0 : Date.now() - t0;
      this.started.delete(key);
      this.timings.push({
        step: done.step,
        kind: done.kind,
        playbook: done.playbook,
        status: done.status,
        ms,
      });
      const error = result.run.stack.find((f) => f.playbook === done.playbook)?.results[done.step]
        ?.error;
      this.deps.io.log(
        `${done.status === "failed" ? "✖" : "✔"} ${done.step} ${done.status}${error ? ` (${error.code})` : ""} in ${ms} ms`,
      );
    }
    const after = result.run;
    const f = activeFrame(after);
    const key = `${f.playbook}/${f.current}`;
    if (!isFinished(after) && f.current && !this.started.has(key) && f.phase !== "pending") {
      this.started.set(key, Date.now());
      this.deps.io.log(
        `▶ ${f.current} (${this.step(f)?.type ?? "?"})${after.stack.length > 1 ? ` in ${f.playbook}` : ""}`,
      );
    }
  }

  /** One outside event, then on as far as the run goes by itself; the event's own result. */
  private async send(event: RunEvent): Promise<AdvanceResult> {
    const first = this.driver.answer(this.run, event);
    await this.drive(first);
    return first;
  }

  private async drive(first: AdvanceResult): Promise<void> {
    const done = await this.driver.carryOn(this.run, first);
    this.keep(done.run);
    this.stopped = done.stop;
  }

  /** Resume a run that was interrupted: an effect whose result was lost is asked for again (same key). */
  async resume(mode: LocalRunRecord["mode"]): Promise<number> {
    this.record = { ...this.record, mode };
    const f = activeFrame(this.run);
    if (f.phase === "effect") {
      const r = this.driver.answer(this.run, {
        type: "command",
        id: this.eventId("retry"),
        command: "retry",
        args: parseArgs(""),
        actor: this.localActor(),
        createdAt: this.deps.clock().toISOString(),
      });
      return this.loop(r);
    }
    return this.loop(pickUp(this.run));
  }

  async start(first: AdvanceResult): Promise<number> {
    return this.loop(first);
  }

  private localActor(): Actor {
    return { login: this.deps.operator, permission: "admin" };
  }

  /** Carry the run on, answering what it waits for, until it ends or pauses. */
  private async loop(first: AdvanceResult): Promise<number> {
    await this.drive(first);
    for (;;) {
      if (isFinished(this.run)) return this.finish();
      // Retries that wait on a clock that does not move.
      if (this.stopped === "idle") return this.pause();
      const next = await this.answer();
      if (!next) return this.pause();
      // Autonomous answers never change: asking again after a refusal would loop forever.
      if (next.reply?.outcome === "refused" && this.record.mode === "autonomous")
        return this.pause();
    }
  }

  /** One effect, with progress on the terminal; the fault hook runs before its result is saved. */
  private async perform(effect: Effect, run: RunState): Promise<EffectOutcome> {
    this.deps.io.progress?.(`${effect.step}: ${effect.kind} …`);
    const outcome = await this.deps.effects.perform(effect, run);
    this.deps.io.progress?.(null);
    this.deps.afterEffect?.(effect);
    return outcome;
  }

  /** Answer what the run waits for, from the terminal or by mode; null to pause. */
  private async answer(): Promise<AdvanceResult | null> {
    // In a frame with lanes (branches, items), the first line that waits for people.
    const active = activeFrame(this.run);
    const bundle = this.deps.bundles.get(active.playbook);
    const f = bundle ? answerableLine(active, new PlaybookGraph(bundle.playbook)) : active;
    const step = this.step(f);
    const now = () => this.deps.clock().toISOString();
    const command = (
      name: "approve" | "reject" | "record" | "choose",
      line: string,
      actor = this.localActor(),
    ): Promise<AdvanceResult> =>
      this.send({
        type: "command",
        id: this.eventId(name),
        command: name,
        args: parseArgs(line),
        actor,
        createdAt: now(),
      });

    if (f.awaiting?.pullRequest !== undefined || f.awaiting?.workflow !== undefined) {
      const printed = this.deps.effects.printsOnly({
        key: "",
        kind: f.awaiting.pullRequest !== undefined ? "pull_request" : "dispatch",
        step: "",
        params: {},
      } as Effect);
      if (!printed) {
        if (f.awaiting.pullRequest === undefined || !this.deps.github) return null;
        const pr = await this.deps.github.pullRequestState(f.awaiting.pullRequest);
        if (pr.state === "open") {
          this.deps.io.log(`pull request #${f.awaiting.pullRequest} is still open: ${pr.url}`);
          return null;
        }
        return this.send({
          type: "pull_request",
          id: this.eventId("pull"),
          number: f.awaiting.pullRequest,
          merged: pr.merged,
          url: pr.url,
        });
      }
      if (f.awaiting.pullRequest !== undefined) {
        this.deps.io.log(`no GitHub: treating pull request as merged to continue the local run`);
        return this.send({
          type: "pull_request",
          id: this.eventId("merged"),
          number: f.awaiting.pullRequest,
          merged: true,
        });
      }
      this.deps.io.log(
        `no GitHub: treating workflow ${f.awaiting.workflow} as successful to continue the local run`,
      );
      return this.send({
        type: "workflow_run",
        id: this.eventId("workflow"),
        workflow: f.awaiting.workflow ?? "",
        conclusion: "success",
      });
    }

    const kind = step ? stepKind(step.type) : undefined;
    const approval = f.phase === "approval" || kind?.answeredWith === "approval";
    if (approval) {
      if (this.record.mode === "autonomous") {
        const approvers = step ? kind?.approvers?.(step) : undefined;
        const actor: Actor = {
          login: approvers?.users?.[0] ?? "autonomous-mode",
          permission: "admin",
          teams: approvers?.teams ?? [],
        };
        this.deps.io.log(`autonomous mode: approving ${f.current}`);
        const r = await command("approve", "", actor);
        if (r.reply?.outcome !== "refused" && (approvers?.count ?? 1) > 1) {
          for (let i = 2; i <= (approvers?.count ?? 1); i++) {
            const more = await command("approve", "", {
              ...actor,
              login: `autonomous-mode-${i}`,
            });
            if (isFinished(this.run) || activeFrame(this.run).current !== f.current) return more;
          }
        }
        return r;
      }
      const a = await this.deps.io.ask(`Approve ${f.current}? [ENTER approves, n rejects] `);
      if (a === null) return null;
      return a.trim().toLowerCase().startsWith("n")
        ? command("reject", "rejected at the terminal")
        : command("approve", "");
    }

    // A delegate whose child has returned waits, like an investigation, for a person to choose.
    if (step?.type === "playbook" && proseBranches(step).length > 0) {
      const labels = proseBranches(step).map((b) => b.label ?? b.goto);
      const line = await this.deps.io.ask(`Choose for ${f.current} (${labels.join(" | ")}): `);
      if (line === null) return null;
      return command("choose", line.trim());
    }

    if (step?.type === "investigate") {
      const branches = proseBranches(step);
      const missing = (step.expected_findings ?? []).filter((k) => !Object.hasOwn(f.findings, k));
      if (missing.length > 0) {
        const line = await this.deps.io.ask(
          `Findings for ${f.current} (${missing.map((m) => `${m}=…`).join(" ")}): `,
        );
        if (line === null) return null;
        if (line.trim() !== "") return command("record", line);
        if (branches.length === 0)
          return command("record", missing.map((m) => `${m}=false`).join(" "));
      }
      if (branches.length > 0) {
        const labels = branches.map((b) => b.label ?? b.goto);
        const line = await this.deps.io.ask(`Choose for ${f.current} (${labels.join(" | ")}): `);
        if (line === null) return null;
        return command("choose", line.trim());
      }
      return command("record", "done=true");
    }
    return null;
  }

  private pause(): number {
    const f = activeFrame(this.run);
    this.deps.io.out(
      `Run ${this.run.id} paused at ${f.current} (${this.run.status}). Resume with: playbook-bot resume ${this.run.id}\n`,
    );
    return RUN_EXIT.paused;
  }

  private finish(): number {
    const file = this.deps.store.archive(this.record);
    this.deps.io.out(this.summary());
    this.deps.io.out(`Run ${this.run.id} ${this.run.status}. State: ${file}\n`);
    return this.run.status === "completed" ? RUN_EXIT.completed : RUN_EXIT.failed;
  }

  summary(): string {
    const rows = this.timings.map((t) => [
      t.playbook === this.run.stack[0]?.playbook ? t.step : `${t.playbook}/${t.step}`,
      t.kind,
      t.status,
      `${t.ms} ms`,
    ]);
    const head = ["step", "kind", "result", "time"];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
    const line = (cells: string[]) =>
      cells
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd();
    return (
      [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n") + "\n"
    );
  }
}
