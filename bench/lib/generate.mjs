// Deterministic generator of realistic, valid playbooks (format v1, steps list) for benchmarks.
//
// Every playbook has exactly `steps` steps: an approval checkpoint and a branch first, then a
// mix of blocks (investigations with prose branches, commits with file content, comments that
// use earlier outputs, pull requests, delegations to other generated playbooks), then a decide
// step over the findings and an end step. Templates only name inputs that exist and outputs of
// steps that lie on every path to the step that uses them, so the whole set validates clean.

/** mulberry32: small, fast, deterministic. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SERVICES = [
  "checkout",
  "payments",
  "search",
  "catalog",
  "auth",
  "billing",
  "gateway",
  "inbox",
];
const NOUNS = ["latency", "errors", "saturation", "restarts", "queue depth", "cache misses"];
const TOOLS = [
  "k8s/list_resources",
  "k8s/get_logs",
  "k8s/list_events",
  "deploy/list_releases",
  "metrics/query_range",
  "traces/search",
  "db/slow_queries",
];
const FINDINGS = [
  "oom_killed",
  "image_pull_error",
  "crash_loop",
  "volume_mount_error",
  "recent_deploy",
  "config_drift",
  "slow_queries",
  "cert_expired",
  "dns_failure",
  "rate_limited",
  "disk_pressure",
  "node_not_ready",
];

/** Number of leaf playbooks (no delegation); later playbooks may delegate to one of them. */
export const LEAVES = 50;

export function playbookId(i) {
  return `gen-${String(i).padStart(4, "0")}`;
}

const q = (s) => JSON.stringify(s); // a double-quoted YAML scalar

/**
 * One playbook as YAML text.
 * @param {number} index
 * @param {{ steps?: number }} [options]
 */
export function generatePlaybook(index, options = {}) {
  const total = options.steps ?? 30;
  const r = rng(0x9e3779b1 ^ (index * 2654435761));
  const pick = (arr) => arr[Math.floor(r() * arr.length)];
  const service = SERVICES[index % SERVICES.length];
  const id = playbookId(index);
  const out = [];
  const line = (s) => out.push(s);

  line(`# Generated playbook ${index} for benchmarks.`);
  line("apiVersion: playbook-bot/v1");
  line(`id: ${id}`);
  line(`name: Investigate ${pick(NOUNS)} in ${service} (${index})`);
  line(
    `description: Generated procedure ${index}; walks the ${service} service, records findings and opens a pull request.`,
  );
  line(`owner: ${pick(["sre", "platform", "payments-team", "oncall"])}`);
  line(`tags: { services: [${service}], symptoms: [${pick(["slow", "failing", "flapping"])}] }`);
  line("on:");
  line(`  labels: [incident, ${service}]`);
  line(`  command: run-${index}`);
  line("inputs:");
  line("  service:");
  line("    type: string");
  line("    required: true");
  line(`    pattern: "^[a-z][a-z0-9-]{1,40}$"`);
  line("    from: labels.service");
  line("    description: Service to investigate.");
  line("  level:");
  line("    type: enum");
  line("    values: [low, medium, high]");
  line(`    default: ${pick(["low", "medium", "high"])}`);
  line("    description: How deep to look.");
  line("  window:");
  line("    type: number");
  line("    min: 1");
  line("    max: 72");
  line(`    default: ${1 + Math.floor(r() * 24)}`);
  line("    description: Hours of history to consider.");
  line("  slug:");
  line("    type: string");
  line(`    default: "{{ inputs.service }}-${index}"`);
  line("    transform: kebab-case");
  line(`    pattern: "^[a-z0-9-]+$"`);
  line("    description: Branch-safe name.");
  line(`limits: { max_steps: ${total * 2}, timeout: 7d }`);
  line("steps:");

  let n = 0; // steps written
  const findings = []; // expected findings so far
  let lastCommit = null; // id of the latest commit step (always on the main path)
  let prDone = false;
  const delegateTarget = index >= LEAVES && index % 3 === 0 ? playbookId(index % LEAVES) : null;
  let delegated = false;

  const step = (lines) => {
    for (const [k, l] of lines.entries()) line(`${k === 0 ? "  - " : "    "}${l}`);
    n++;
  };

  step([
    "id: approve",
    "type: checkpoint",
    "name: Approve the run",
    `message: Investigate {{ inputs.service }} over {{ inputs.window }}h at level {{ inputs.level }}? Reply /approve.`,
    `approvers: { permission: ${pick(["write", "maintain"])}, count: 1, allow_initiator: ${r() < 0.5} }`,
    "timeout: 2d",
    "reminder: 1d",
    "on_timeout: cancel",
  ]);
  step([
    "id: work",
    "type: branch",
    `name: playbook/${service}/{{ inputs.slug }}-${index}`,
    "description: Branch for the notes of this run.",
  ]);

  const tail = 2; // decide + end
  let k = 0;
  while (n < total - tail) {
    const room = total - tail - n;
    k++;
    const choice = r();
    if (room >= 3 && (choice < 0.35 || findings.length === 0)) {
      // Investigation with prose branches: one path goes deeper, the other skips ahead.
      const fa = FINDINGS[(k * 2 + index) % FINDINGS.length];
      const fb = FINDINGS[(k * 2 + index + 1) % FINDINGS.length];
      const tool = pick(TOOLS);
      step([
        `id: look-${k}`,
        "type: investigate",
        `description: Check ${pick(NOUNS)} of \${service} in the last \${window} hours.`,
        "suggested_calls:",
        `  - { tool: ${tool}, args: { namespace: "\${service}", since: ${q(`${1 + (k % 12)}h`)} } }`,
        `  - { tool: ${pick(TOOLS)}, args: { service: "{{ inputs.service }}" } }`,
        `expected_findings: [${fa}_${k}, ${fb}_${k}]`,
        "next:",
        `  - { condition: ${fa.replace(/_/g, " ")} was recorded, label: deeper, goto: deep-${k} }`,
        `  - { condition: nothing unusual, label: skip, goto: note-${k} }`,
      ]);
      step([
        `id: deep-${k}`,
        "type: investigate",
        `description: Dig into ${fa.replace(/_/g, " ")} for \${service}.`,
        "suggested_calls:",
        `  - { tool: ${pick(TOOLS)}, args: { service: "{{ inputs.service }}", level: "{{ inputs.level }}" } }`,
        `expected_findings: [${fa}_${k}_cause]`,
      ]);
      step([
        `id: note-${k}`,
        "type: comment",
        "description: Summarise what was found so far.",
        `body: |-`,
        `  ### Step ${k} for {{ inputs.service }}`,
        `  Looked at ${pick(NOUNS)} over {{ inputs.window }} hours on branch {{ steps.work.outputs.name }}.`,
        `  Run {{ run.id }} on issue #{{ issue.number }}.`,
      ]);
      findings.push(`${fa}_${k}`, `${fb}_${k}`, `${fa}_${k}_cause`);
    } else if (choice < 0.6) {
      step([
        `id: commit-${k}`,
        "type: commit",
        `name: Record notes ${k}`,
        'branch: "{{ steps.work.outputs.name }}"',
        `message: ${q(`docs(${service}): notes ${k} for {{ inputs.service }}`)}`,
        "files:",
        `  - path: docs/runs/{{ inputs.slug }}/notes-${k}.md`,
        "    content: |",
        `      # ${service} notes ${k}`,
        "",
        `      - service: {{ inputs.service }}`,
        `      - window: {{ inputs.window }}h`,
        `      - level: {{ inputs.level }}`,
        `      - branch: {{ steps.work.outputs.name }}`,
        `  - path: docs/runs/{{ inputs.slug }}/status-${k}.txt`,
        `    content: ${q(`status ${k} recorded by run {{ run.id }}`)}`,
        `on_error: { GH-RATE-LIMITED: ${q(`retry:${1 + (k % 5)}`)}, default: fail }`,
      ]);
      lastCommit = `commit-${k}`;
    } else if (choice < 0.75 && lastCommit) {
      step([
        `id: comment-${k}`,
        "type: comment",
        "name: Link the commit",
        `body: ${q(`Committed {{ steps.${lastCommit}.outputs.sha }} to {{ steps.${lastCommit}.outputs.branch }} ({{ steps.${lastCommit}.outputs.url }}).`)}`,
      ]);
    } else if (choice < 0.85 && lastCommit && !prDone) {
      step([
        `id: pr-${k}`,
        "type: pull_request",
        "name: Open the pull request",
        'head: "{{ steps.work.outputs.name }}"',
        `title: ${q(`docs(${service}): investigation notes for {{ inputs.service }}`)}`,
        `body: ${q(`Notes from run {{ run.id }}; last commit {{ steps.${lastCommit}.outputs.sha }}. Closes #{{ issue.number }}.`)}`,
        `labels: [docs, ${service}]`,
        `draft: ${r() < 0.3}`,
      ]);
      prDone = true;
    } else if (delegateTarget && !delegated) {
      step([
        `id: delegate-${k}`,
        "type: playbook",
        `description: Run ${delegateTarget} for the same service and come back.`,
        `playbook: ${delegateTarget}`,
        "mode: delegate",
        `with: { service: "{{ inputs.service }}", level: "{{ inputs.level }}" }`,
      ]);
      delegated = true;
    } else {
      step([
        `id: label-${k}`,
        "type: label",
        "description: Mark the issue as in progress.",
        `add: [investigating, ${service}-${k % 4}]`,
      ]);
    }
  }

  // Decide over findings from disjoint pairs, so no rule shadows another.
  const rules = [];
  for (let j = 0; j + 1 < findings.length && rules.length < 4; j += 2) {
    const [a, b] = [findings[j], findings[j + 1]];
    rules.push(
      `- id: rule-${rules.length + 1}`,
      `  all: [${a}, ${b}]`,
      `  conclusion: ${a}_confirmed`,
      `  confidence: ${(0.5 + r() * 0.45).toFixed(2)}`,
      `  root_cause: ${q(`${a.replace(/_/g, " ")} together with ${b.replace(/_/g, " ")}.`)}`,
      `  next_actions: [${q(`Follow up on ${a}`)}, Check the dashboards]`,
    );
  }
  step([
    "id: conclude",
    "type: decide",
    "description: Conclude from the recorded findings.",
    "rules:",
    ...rules,
    "fallback: { conclusion: inconclusive, confidence: 0.3, root_cause: The evidence does not single out one cause. }",
    "confirmed_facts:",
    ...findings.slice(0, 3).map((f) => `  - { finding: ${f}, text: ${q(`${f} was recorded.`)} }`),
  ]);
  step([
    "id: done",
    "type: end",
    "status: success",
    "description: Report the conclusion.",
    `advice: ${q("{{ steps.conclude.outputs.conclusion }}: {{ steps.conclude.outputs.root_cause }}")}`,
  ]);
  line("outputs:");
  line(`  conclusion: "{{ steps.conclude.outputs.conclusion }}"`);
  line(`  branch: "{{ steps.work.outputs.name }}"`);
  if (n !== total) throw new Error(`generator wrote ${n} steps, expected ${total}`);
  return { file: `playbooks/${id}.yaml`, text: out.join("\n") + "\n" };
}

/** `count` playbooks: the first LEAVES never delegate, later ones may delegate to a leaf. */
export function generatePlaybooks(count, options = {}) {
  return Array.from({ length: count }, (_, i) => generatePlaybook(i, options));
}
