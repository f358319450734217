import { start } from "../../../src/core/engine/engine.js";
import type { RunState } from "../../../src/core/engine/state.js";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import { validateSource } from "../../../src/core/rules/validate.js";

export const TINY = `apiVersion: playbook-bot/v1
id: tiny
description: One comment, then the end.
steps:
  - id: greet
    type: comment
    description: Greet.
    body: Hello
  - id: done
    type: end
    description: Finish.
`;

export function tinyBundle(): PlaybookBundle {
  const report = validateSource("tiny.yaml", TINY);
  if (!report.playbook) throw new Error("tiny playbook does not validate");
  return { playbook: report.playbook, hash: "h", files: {} };
}

/** A fresh, valid run state (started, not advanced). */
export function sampleRun(now = new Date("2024-03-05T10:20:30Z"), index = 1): RunState {
  const r = start(
    {
      bundle: tinyBundle(),
      inputs: {},
      initiator: { login: "alice", permission: "admin" },
      eventId: "e1",
      runIndex: index,
    },
    { now, playbooks: () => undefined },
  );
  if (!r.ok) throw new Error("start failed");
  return r.result.run;
}
