// The engine: time per `advance` call on a 50-step and a 1,000-step playbook, and the size of the
// run state at the end (targets: well under 1 ms per call; the state bounded whatever the number of
// steps). Effects are answered as GitHub would: 40-hex SHAs, full URLs, comment ids.
import { advance, start } from "../dist/core/engine/engine.js";
import { encodeSigned } from "../dist/runtime/state-codec.js";
import { validateSource } from "../dist/core/rules/validate.js";
import { fmt, fmtSize, median, now, percentile, progress, table } from "./lib/common.mjs";

import { createHash } from "node:crypto";

function playbookText(count) {
  const steps = [];
  for (let i = 0; i < count - 1; i++) {
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
  return `apiVersion: playbook-bot/v1\nid: bench\ndescription: ${count} steps.\ninputs:\n  name: { type: string, default: bench }\nlimits: { max_steps: ${count * 2} }\nsteps:\n${steps.join("\n")}\n`;
}

function bundleOf(count) {
  const report = validateSource("bench.yaml", playbookText(count));
  if (!report.playbook || report.diagnostics.some((d) => d.severity === "error")) {
    console.error(report.diagnostics);
    process.exit(1);
  }
  return { playbook: report.playbook, hash: "bench", files: {} };
}

const sha = (n) => createHash("sha1").update(String(n)).digest("hex");
const REPO = "https://github.com/octo-org/payments-service";

/** What GitHub's answer to each effect gives the step, as the app's adapter returns it. */
function outputsOf(effect, n) {
  switch (effect.kind) {
    case "branch":
      return {
        name: String(effect.params.name),
        sha: sha(n),
        url: `${REPO}/tree/${String(effect.params.name)}`,
        created: true,
      };
    case "commit":
      return { sha: sha(n), url: `${REPO}/commit/${sha(n)}`, branch: String(effect.params.branch) };
    case "comment":
      return {
        id: 2_000_000_000 + n,
        url: `${REPO}/issues/4242#issuecomment-${2_000_000_000 + n}`,
      };
    case "label":
      return { labels: ["incident", "sev-2", `part-${n % 50}`] };
    default:
      return {};
  }
}

let bundle;
const env = (t) => ({ now: new Date(t), playbooks: (id) => (id === "bench" ? bundle : undefined) });

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
      const outputs = outputsOf(e, n);
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

const SEAL = { key: new Uint8Array(32).fill(7), issue: 42, comment: "1234567890" };
const rows = [];
for (const [count, warm, timed] of [
  [50, 20, 50],
  [1000, 2, 3],
]) {
  bundle = bundleOf(count);
  progress(`engine: ${count} steps, warm-up`);
  for (let i = 0; i < warm; i++) runOnce();
  const timings = [];
  let last;
  progress(`engine: ${count} steps, timed runs`);
  for (let i = 0; i < timed; i++) last = runOnce(timings);
  const root = last.run.stack[0];
  rows.push([
    `${count} steps`,
    String(timed),
    String(last.events),
    `${fmt(median(timings))} ms`,
    `${fmt(percentile(timings, 99))} ms`,
    `${fmt(Math.max(...timings))} ms`,
    fmtSize(JSON.stringify(last.run).length),
    fmtSize(encodeSigned(last.run, SEAL).length),
    `${Object.keys(root.results).length} kept, ${(root.folded ?? "").replace(/-/g, "").length} folded`,
  ]);
}

console.log("## Engine: `advance`, and the run state it leaves\n");
console.log(
  "Playbooks of 50 and 1,000 steps (checkpoint, branch, commit, investigate, decide, comment, label, end, in turn), driven to completion after warm-up runs, every call timed. Each effect is answered as GitHub would (40-hex SHAs, full URLs, comment ids), and each result and continuation is delivered twice, as webhooks are.\n",
);
console.log(
  table(
    [
      "playbook",
      "runs timed",
      "events per run",
      "median per call",
      "p99 per call",
      "max per call",
      "state (JSON)",
      "signed state block",
      "step results",
    ],
    rows,
  ),
);
console.log(
  "\nTargets: well under 1 ms per call; the state bounded whatever the number of steps (a frame keeps 64 results one by one and folds older ones it cannot need again to one character each).",
);
