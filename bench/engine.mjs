// The engine: time per `advance` call on a 50-step playbook, and the size of the run state after
// 50 steps and at least 200 events (target: well under 1 ms per call; state under 16 KB).
import { advance, start } from "../dist/core/engine/engine.js";
import { encodeSigned } from "../dist/runtime/state-codec.js";
import { validateSource } from "../dist/core/rules/validate.js";
import { fmt, fmtSize, median, now, percentile, progress, table } from "./lib/common.mjs";

const STEPS = 50;

function playbookText() {
  const steps = [];
  for (let i = 0; i < STEPS - 1; i++) {
    const id = `s${i}`;
    switch (i % 7) {
      case 0:
        steps.push(
          `  - id: ${id}\n    type: checkpoint\n    description: Approve part ${i}.\n    message: Go on with part ${i} of {{ inputs.name }}?\n    approvers: { permission: maintain }`,
        );
        break;
      case 1:
        steps.push(
          `  - id: ${id}\n    type: branch\n    description: Branch ${i}.\n    name: playbook/{{ inputs.name }}-${i}`,
        );
        break;
      case 2:
        steps.push(
          `  - id: ${id}\n    type: commit\n    description: Commit ${i}.\n    branch: '{{ steps.s${i - 1}.outputs.name }}'\n    message: part ${i}\n    files: [{ path: parts/${i}.md, content: 'Part ${i} of {{ inputs.name }}' }]`,
        );
        break;
      case 3:
        steps.push(
          `  - id: ${id}\n    type: investigate\n    description: Look at part ${i}.\n    expected_findings: [f${i}]`,
        );
        break;
      case 4:
        steps.push(
          `  - id: ${id}\n    type: decide\n    description: Decide ${i}.\n    rules:\n      - { id: r${i}, all: [f${i - 1}], conclusion: seen_${i} }\n    fallback: { conclusion: unseen_${i} }`,
        );
        break;
      case 5:
        steps.push(
          `  - id: ${id}\n    type: comment\n    description: Report ${i}.\n    body: 'Part ${i}: {{ steps.s${i - 1}.outputs.conclusion }}'`,
        );
        break;
      default:
        steps.push(
          `  - id: ${id}\n    type: label\n    description: Label ${i}.\n    add: [part-${i}]`,
        );
    }
  }
  steps.push(`  - id: done\n    type: end\n    description: Done.`);
  return `apiVersion: playbook-bot/v1\nid: fifty\ndescription: Fifty steps.\ninputs:\n  name: { type: string, default: bench }\nlimits: { max_steps: 100 }\nsteps:\n${steps.join("\n")}\n`;
}

const report = validateSource("fifty.yaml", playbookText());
if (!report.playbook || report.diagnostics.some((d) => d.severity === "error")) {
  console.error(report.diagnostics);
  process.exit(1);
}
const bundle = { playbook: report.playbook, hash: "bench", files: {} };
const env = (t) => ({ now: new Date(t), playbooks: (id) => (id === "fifty" ? bundle : undefined) });

function runOnce(timings) {
  let t = Date.parse("2026-03-01T10:00:00Z");
  const s = start(
    { bundle, inputs: {}, initiator: { login: "alice", permission: "write" }, eventId: "start" },
    env(t),
  );
  let run = s.result.run;
  let res = s.result;
  let events = 1;
  let n = 0;
  const step = (event) => {
    t += 1000;
    const t0 = now();
    const r = advance(run, event, env(t));
    timings?.push(now() - t0);
    events++;
    run = r.run;
    return r;
  };
  for (
    let guard = 0;
    guard < 5000 && run.status !== "completed" && run.status !== "failed";
    guard++
  ) {
    // Webhooks are redelivered: each result and continuation also arrives a second time.
    if (res.effects.length) {
      const e = res.effects[0];
      const outputs =
        e.kind === "branch" ? { name: String(e.params.name), sha: "abc" } : { sha: "def", id: "1" };
      const event = { type: "effect_result", id: `e${++n}`, key: e.key, ok: true, outputs };
      res = step(event);
      step(event);
      continue;
    }
    if (res.continue) {
      const event = { type: "continue", id: `c${++n}`, seq: run.seq };
      res = step(event);
      step(event);
      continue;
    }
    const f = run.stack[run.stack.length - 1];
    const createdAt = new Date(t + 500).toISOString();
    if (f.current?.startsWith("s") && Number(f.current.slice(1)) % 7 === 0) {
      // A clock tick, refused votes, a duplicate delivery and then the approval: a busy thread.
      step({ type: "timeout", id: `tick${++n}` });
      step({
        type: "command",
        id: `k${++n}`,
        command: "approve",
        args: { positional: [], values: {}, text: "" },
        actor: { login: "alice", permission: "admin" },
        createdAt,
      });
      step({
        type: "command",
        id: `k${++n}`,
        command: "approve",
        args: { positional: [], values: {}, text: "" },
        actor: { login: "reader", permission: "read" },
        createdAt,
      });
      step({
        type: "command",
        id: `k${n}`,
        command: "approve",
        args: { positional: [], values: {}, text: "" },
        actor: { login: "reader", permission: "read" },
        createdAt,
      });
      res = step({
        type: "command",
        id: `k${++n}`,
        command: "approve",
        args: { positional: [], values: {}, text: "" },
        actor: { login: "lead", permission: "maintain" },
        createdAt,
      });
    } else {
      const record = {
        type: "command",
        id: `k${++n}`,
        command: "record",
        args: {
          positional: [],
          values: { [`f${f.current?.slice(1)}`]: "true", note: "x".repeat(40) },
          text: "",
        },
        actor: { login: "sre", permission: "triage" },
        createdAt,
      };
      res = step(record);
      step(record);
    }
  }
  return { run, events };
}

progress("engine: warm-up");
for (let i = 0; i < 20; i++) runOnce();
const timings = [];
let last;
progress("engine: timed runs");
for (let i = 0; i < 50; i++) last = runOnce(timings);
const json = JSON.stringify(last.run);
const signed = encodeSigned(last.run, {
  key: new Uint8Array(32).fill(7),
  issue: 42,
  comment: "1234567890",
});

console.log("## Engine: `advance` on a 50-step playbook\n");
console.log(
  `${STEPS} steps (checkpoint, branch, commit, investigate, decide, comment, label, end), driven to completion 50 times after 20 warm-up runs; every call timed.\n`,
);
console.log(
  table(
    ["measure", "value"],
    [
      ["calls timed", String(timings.length)],
      ["events per run", String(last.events)],
      ["median per call", `${fmt(median(timings))} ms`],
      ["p99 per call", `${fmt(percentile(timings, 99))} ms`],
      ["max per call", `${fmt(Math.max(...timings))} ms`],
      ["run state (JSON) after the run", fmtSize(json.length)],
      ["signed state block (base64url + HMAC)", fmtSize(signed.length)],
      [
        "steps recorded / trace entries kept",
        `${Object.keys(last.run.stack[0].results).length} / ${last.run.trace.length} (+${last.run.traceDropped} dropped)`,
      ],
    ],
  ),
);
console.log(
  `\nTargets: well under 1 ms per call (p99 ${fmt(percentile(timings, 99))} ms); state under 16 KB (${fmtSize(json.length)}, block ${fmtSize(signed.length)}).`,
);
