import { expect } from "vitest";
import {
  advance,
  start,
  type EngineEnv,
  type StartRequest,
} from "../../../src/core/engine/engine.js";
import type {
  AdvanceResult,
  CommandArgs,
  CommandName,
  Effect,
  RunEvent,
} from "../../../src/core/engine/events.js";
import { parseArgs } from "../../../src/core/engine/inputs.js";
import {
  activeFrame,
  type Actor,
  type RunState,
  type Scalar,
  type Value,
} from "../../../src/core/engine/state.js";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import type { RuleCode } from "../../../src/core/rules/catalogue.js";
import type { PlaybookDocument } from "../../../src/core/format/types.js";
import { validateSource, type FileReport } from "../../../src/core/rules/validate.js";
import { Interpreter } from "../../../src/runtime/interpreter.js";

/** Inline YAML: the first newline and the common indentation are removed. */
export function yaml(strings: TemplateStringsArray, ...values: unknown[]): string {
  const raw = String.raw({ raw: strings.raw }, ...values);
  const lines = raw
    .replace(/^\n/, "")
    .replace(/\n[ ]*$/, "\n")
    .split("\n");
  const indents = lines.filter((l) => l.trim() !== "").map((l) => /^ */.exec(l)?.[0].length ?? 0);
  const cut = Math.min(...indents);
  return lines.map((l) => l.slice(cut)).join("\n");
}

/**
 * A playbook that passes validation. `allow` names validator errors a test means to get past
 * (the engine must defend itself at run time against what the validator would refuse).
 */
export function load(text: string, allow: RuleCode[] = []): PlaybookDocument {
  const report = validateSource("pb.yaml", text);
  const errors = report.diagnostics
    .filter((d) => d.severity === "error" && !allow.includes(d.rule as RuleCode))
    .map((d) => `${d.rule} ${d.line}:${d.column} ${d.message}`);
  expect(errors).toEqual([]);
  expect(report.playbook).toBeDefined();
  return report.playbook as PlaybookDocument;
}

export function bundle(
  text: string,
  opts: { hash?: string; files?: Record<string, string>; allow?: RuleCode[] } = {},
): PlaybookBundle {
  const b: PlaybookBundle = { playbook: load(text, opts.allow), hash: opts.hash ?? "hash-1" };
  if (opts.files) b.files = opts.files;
  return b;
}

export const T0 = new Date("2026-03-01T10:00:00.000Z");

export const INITIATOR: Actor = { login: "alice", permission: "admin" };
export const MAINTAINER: Actor = { login: "bob", permission: "maintain" };
export const MAINTAINER2: Actor = { login: "carol", permission: "maintain" };
export const WRITER: Actor = { login: "dave", permission: "write" };
export const READER: Actor = { login: "erin", permission: "read" };
export const TRIAGER: Actor = { login: "frank", permission: "triage" };
export const BOT: Actor = { login: "helper[bot]", permission: "admin", bot: true };

/** Drives one run the way an adapter would, with a clock it can move. */
export class Driver {
  now: Date;
  run!: RunState;
  last!: AdvanceResult;
  readonly all: AdvanceResult[] = [];
  private n = 0;
  readonly bundles = new Map<string, PlaybookBundle>();
  /** Playbooks whose files did not load, by id: their validation reports. */
  readonly invalid = new Map<string, FileReport>();

  constructor(
    readonly root: PlaybookBundle,
    others: PlaybookBundle[] = [],
    now: Date = T0,
  ) {
    this.now = new Date(now);
    this.bundles.set(root.playbook.id, root);
    for (const b of others) this.bundles.set(b.playbook.id, b);
  }

  get env(): EngineEnv {
    return {
      now: this.now,
      playbooks: (id) => this.bundles.get(id),
      invalidPlaybook: (id) => this.invalid.get(id),
    };
  }

  get frame() {
    return activeFrame(this.run);
  }

  nextId(prefix = "ev"): string {
    return `${prefix}-${++this.n}`;
  }

  start(inputs: Record<string, Scalar> = {}, extra: Partial<StartRequest> = {}): AdvanceResult {
    const r = start(
      { bundle: this.root, inputs, initiator: INITIATOR, eventId: this.nextId("start"), ...extra },
      this.env,
    );
    if (!r.ok) throw new Error(`start failed: ${r.error.message}`);
    this.run = r.result.run;
    this.last = r.result;
    this.all.push(r.result);
    return r.result;
  }

  send(event: RunEvent): AdvanceResult {
    return this.keep(advance(this.run, event, this.env));
  }

  private keep(r: AdvanceResult): AdvanceResult {
    this.run = r.run;
    this.last = r;
    this.all.push(r);
    return r;
  }

  cont(seq = this.run.seq): AdvanceResult {
    return this.send({ type: "continue", id: this.nextId("c"), seq });
  }

  /**
   * Continue while the engine says it can, with the interpreter every entry point uses; stops at
   * effects (left to the test), waits and the end.
   */
  drive(): AdvanceResult {
    const interpreter = new Interpreter(
      {
        // The driver keeps every result, changed or not, as it is told.
        store: { save: () => undefined },
        teller: {
          tell: (_messages, r) => {
            if (r !== this.last) this.keep(r);
          },
        },
        clock: { now: () => this.now },
      },
      {
        env: {
          playbooks: (id) => this.bundles.get(id),
          invalidPlaybook: (id) => this.invalid.get(id),
        },
        inProcess: true,
        ids: { continuation: () => this.nextId("c") },
        maxTransitions: 200,
      },
    );
    if (interpreter.interpretNow(this.run, this.last).stop === "limit")
      throw new Error("drive: no end in sight");
    return this.last;
  }

  /** The one effect the last result requested. */
  effect(): Effect & { params: Record<string, unknown> } {
    expect(this.last.effects).toHaveLength(1);
    return this.last.effects[0] as Effect & { params: Record<string, unknown> };
  }

  answer(outputs: Record<string, Value> = {}, key = this.frame.effectKey ?? ""): AdvanceResult {
    return this.send({ type: "effect_result", id: this.nextId("fx"), key, ok: true, outputs });
  }

  failEffect(
    code: "GH-RATE-LIMITED" | "GH-ERROR" | "PB-EFFECT-FAILED" | "GH-CONFLICT" = "GH-ERROR",
    key = this.frame.effectKey ?? "",
  ): AdvanceResult {
    return this.send({
      type: "effect_result",
      id: this.nextId("fx"),
      key,
      ok: false,
      error: { code, message: "boom", guidance: "try again" },
    });
  }

  command(
    command: CommandName,
    actor: Actor,
    args: string | CommandArgs = "",
    opts: { commentId?: string; createdAt?: string; id?: string } = {},
  ): AdvanceResult {
    return this.send({
      type: "command",
      id: opts.id ?? this.nextId("cmd"),
      command,
      args: typeof args === "string" ? parseArgs(args) : args,
      actor,
      createdAt: opts.createdAt ?? this.now.toISOString(),
      ...(opts.commentId !== undefined ? { commentId: opts.commentId } : {}),
    });
  }

  tick(ms: number): void {
    this.now = new Date(this.now.getTime() + ms);
  }

  timeout(): AdvanceResult {
    return this.send({ type: "timeout", id: this.nextId("t") });
  }
}

export const SEC = 1000;
export const MIN = 60 * SEC;
export const HOUR = 60 * MIN;
export const DAY = 24 * HOUR;
