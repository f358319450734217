/**
 * Mindscape's own cases, run here: a spec (JSON, with its SOP when given) read by our loader,
 * then run by our engine with the runtime's tool-call effect, the tools answered by a fake that
 * records what each call was given.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { Siblings } from "../../../src/core/dialects/index.js";
import type { Scalar, Value } from "../../../src/core/engine/state.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import { performToolCalls, type ToolRunner } from "../../../src/runtime/tool-calls.js";
import { ROOT } from "../../helpers/git-repo.js";
import { Driver } from "../../core/engine/helpers.js";

/** Mindscape's real files, at their upstream paths. */
export const MINDSCAPE = join(ROOT, "test/fixtures/seed-repos/mindscape");

/** A real file of Mindscape's repository (a path under it). */
export const real = (path: string) => readFileSync(join(MINDSCAPE, path), "utf8");

/** A spec as Mindscape keeps it (`backend/playbooks/specs/<code>.json`), with the files beside. */
export function loadSpec(
  spec: unknown,
  files: Record<string, string> = {},
  file = "backend/playbooks/specs/case.json",
): PlaybookBundle {
  const text = typeof spec === "string" ? spec : JSON.stringify(spec, null, 2);
  const siblings: Siblings = { read: (rel) => files[rel] };
  const report = validateSource(file, text, { siblings });
  const errors = report.diagnostics
    .filter((d) => d.severity === "error")
    .map((d) => `${d.rule} ${d.line}: ${d.message}`);
  expect(errors).toEqual([]);
  expect(report.playbook).toBeDefined();
  return { playbook: report.playbook!, hash: "hash-1" };
}

/** One call a tool was given: its name (`server/tool`) and arguments. */
export interface Call {
  tool: string;
  args: Record<string, unknown>;
}

/** A tool's answer to a call; a thrown error is a failed call. */
export type Tools = Record<string, (args: Record<string, unknown>) => unknown>;

/**
 * The run of a playbook to where it stops (its end, a failure or a wait), each tool call made
 * by the runtime's own tool-call effect against `tools`; an AI step is answered `ai`.
 */
export async function runWith(
  bundle: PlaybookBundle,
  inputs: Record<string, Scalar>,
  tools: Tools,
  ai = "done",
  others: PlaybookBundle[] = [],
): Promise<{ driver: Driver; calls: Call[] }> {
  const calls: Call[] = [];
  const runner: ToolRunner = {
    call: async (tool, args) => {
      calls.push({ tool, args });
      const answer = tools[tool];
      if (!answer) return { ok: false, code: "TOOL-UNKNOWN", message: `no tool ${tool}` };
      try {
        return { ok: true, result: answer(args) };
      } catch (err) {
        return { ok: false, code: "TOOL-FAILED", message: (err as Error).message };
      }
    },
  };
  const d = new Driver(bundle, others);
  d.start(inputs);
  d.drive();
  for (let round = 0; d.last.effects.length > 0; round++) {
    if (round > 100) throw new Error("runWith: no end in sight");
    for (const effect of d.last.effects) {
      if (effect.kind === "tool_call") {
        const outputs = await performToolCalls(runner, effect.params);
        d.answer(outputs as Record<string, Value>, effect.key);
      } else if (effect.kind === "ai") d.answer({ text: ai }, effect.key);
      else throw new Error(`runWith: no answer for the effect ${effect.kind}`);
    }
    d.drive();
  }
  return { driver: d, calls };
}
