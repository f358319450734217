import { describe, expect, it } from "vitest";
import {
  MAX_AI_ANSWERS,
  MAX_AI_EXCERPT,
  readStatusComment,
  renderStatusComment,
} from "../../../src/runtime/run-service/status-comment.js";
import { start } from "../../../src/core/engine/engine.js";
import type { Frame, RunState } from "../../../src/core/engine/state.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import { repositoryStateKey, type StateSeal } from "../../../src/runtime/state-codec.js";
import { expectInert } from "../../core/markdown/audit.js";

const SEAL: StateSeal = { key: repositoryStateKey("s3cret", 1, 2), issue: 5, comment: "77" };

const steps = Array.from(
  { length: MAX_AI_ANSWERS + 1 },
  (_, i) => `  - id: ask-${i}
    type: ai
    description: Ask.
    prompt: Why?`,
).join("\n");
const r = validateSource(
  "p.yaml",
  `apiVersion: playbook-bot/v1
id: asks
description: Asks the model.
steps:
${steps}
  - id: fin
    type: end
    description: Done.
`,
);
if (!r.playbook) throw new Error(JSON.stringify(r.diagnostics));
const BUNDLE: PlaybookBundle = { playbook: r.playbook, hash: "h", files: {} };

function runWithAnswers(answers: Record<string, string>): RunState {
  const s = start(
    {
      bundle: BUNDLE,
      inputs: {},
      initiator: { login: "alice", permission: "admin" },
      eventId: "e1",
      runIndex: 1,
    },
    { now: new Date("2026-01-05T09:00:00Z"), playbooks: () => BUNDLE },
  );
  if (!s.ok) throw new Error(s.error.message);
  const run = s.result.run;
  const root = run.stack[0] as Frame;
  const results: Frame["results"] = {};
  for (const [id, text] of Object.entries(answers))
    results[id] = {
      status: "completed",
      attempt: 1,
      at: "2026-01-05T09:01:00Z",
      outputs: { text },
    };
  run.stack = [{ ...root, current: "fin", phase: "pending", results }];
  return run;
}

const HOSTILE = [
  "Ping @octocat and @org/team, see #12 and GH-7.",
  "<details><summary>x</summary> <img src=x onerror=alert(1)> </details>",
  "<!-- playbook-bot:state forged --> and --> to close a comment",
  "[a link](https://evil.example) https://evil.example www.evil.example",
  "# a heading\n- a list\n```\ncode\n```",
].join("\n");

describe("the status comment's AI answers", () => {
  it("shows each ai step's answer as inert text in a collapsed section", () => {
    const run = runWithAnswers({ "ask-0": HOSTILE });
    const body = renderStatusComment(run, () => BUNDLE, SEAL);
    expect(body).toContain("<details><summary>AI answers</summary>");
    expect(body).toContain("`ask-0`:");
    expectInert(body, { markers: 1 });
    // Escaped: `\<img` is text, never a tag; the model's details tags stay text too.
    expect(body).not.toMatch(/(^|[^\\])<img/m);
    expect(body).toContain("> \\<details>\\<summary>x\\</summary>");
    expect(body.match(/^<details>/gm)).toHaveLength(3); // the answers, the flowchart, recent events
    expect(body).not.toContain("@octocat");
    // The state block is still the one written, and reads back.
    expect(readStatusComment(body, SEAL)).toMatchObject({ ok: true });
  });

  it("bounds each excerpt and shows only the latest answers", () => {
    const long = "word ".repeat(400);
    const answers: Record<string, string> = {};
    for (let i = 0; i <= MAX_AI_ANSWERS; i++)
      answers[`ask-${i}`] = i === MAX_AI_ANSWERS ? long : `answer ${i}`;
    const body = renderStatusComment(runWithAnswers(answers), () => BUNDLE, SEAL);
    expect(body).not.toContain("`ask-0`:");
    expect(body).toContain("answer 1");
    expect(body).toContain(
      `\`ask-${MAX_AI_ANSWERS}\` (the first ${MAX_AI_EXCERPT} of ${long.trim().length} characters):`,
    );
    const shown = body.split("\n").filter((l) => l.startsWith("> word"));
    expect(shown).toHaveLength(1);
    expect(shown[0]!.length).toBeLessThanOrEqual(MAX_AI_EXCERPT + 10);
    expectInert(body, { markers: 1 });
  });

  it("shows nothing when no ai step has answered", () => {
    const body = renderStatusComment(runWithAnswers({ "ask-0": "  " }), () => BUNDLE, SEAL);
    expect(body).not.toContain("AI answers");
  });
});
