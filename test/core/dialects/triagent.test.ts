import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { dialectOf } from "../../../src/core/dialects/index.js";
import { renderTemplate } from "../../../src/core/engine/render.js";
import { validateSet, validateSource } from "../../../src/core/rules/validate.js";
import { resolveTiers } from "../../../src/runtime/tiers.js";

const ROOT = join(import.meta.dirname, "../../..");
const FIXTURES = join(ROOT, "test/fixtures/dialects/triagent");

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return name.endsWith(".yaml") ? [path] : [];
  });
}

const FILES = yamlFiles(FIXTURES).map((path) => ({
  file: relative(ROOT, path),
  source: readFileSync(path, "utf8"),
}));

const nodeOf = (source: string, id: string) => {
  const r = validateSource("pb.yaml", source);
  return (r.playbook as unknown as { nodes: Record<string, Record<string, unknown>> }).nodes[id];
};

describe("Triagent playbooks load as written", () => {
  it("every real playbook validates with no error, read as Triagent", () => {
    expect(FILES.length).toBeGreaterThanOrEqual(7);
    for (const r of validateSet(FILES)) {
      expect(r.dialect, r.file).toBe("triagent");
      expect(
        r.diagnostics.filter((d) => d.severity === "error"),
        `${r.file}: ${JSON.stringify(r.diagnostics, null, 1)}`,
      ).toEqual([]);
      expect(r.playbook?.apiVersion).toBe("playbook-bot/v1");
    }
  });

  it("a diagnostic on a converted value points at the author's own line and column", () => {
    const [investigation] = validateSet(
      FILES.filter((f) => f.file.endsWith("system/investigation.yaml")),
    );
    const d = investigation?.diagnostics.find(
      (x) => x.rule === "set-unresolved-playbook" && x.message.includes("'wiki_recall'"),
    );
    const text = FILES.find((f) => f.file.endsWith("system/investigation.yaml"))?.source ?? "";
    const line = text.split("\n").findIndex((l) => l.includes("delegate_to: wiki_recall")) + 1;
    expect(d).toMatchObject({ line, column: 18, severity: "warning" });
    // Triagent offers a playbook that is not installed: a warning here, not an error.
    expect(d?.hint).toContain("only a warning here");
  });

  it("converts each node to the step that does what Triagent's walker does with it", () => {
    const source = FILES.find((f) => f.file.endsWith("system/investigation.yaml"))?.source ?? "";
    // A delegate node runs the other playbook and resumes on its own branches.
    expect(nodeOf(source, "walk_wiki_recall")).toMatchObject({
      type: "playbook",
      mode: "delegate",
      playbook: "wiki_recall",
    });
    // A terminal that also has branches: stop here, or go on.
    const novel = nodeOf(source, "terminal_novel_case");
    expect(novel?.type).toBe("investigate");
    expect(novel?.next).toContainEqual({
      condition: "stop here",
      label: "stop",
      goto: "terminal_novel_case-end",
    });
    expect(nodeOf(source, "terminal_novel_case-end")).toMatchObject({
      type: "end",
      handoff: ["capture_offer"],
    });
  });

  it("turns ${cluster_id} and ${namespace} into optional inputs", () => {
    const source = FILES.find((f) => f.file.endsWith("cluster_health.yaml"))?.source ?? "";
    const r = validateSource("cluster_health.yaml", source);
    expect(r.playbook?.inputs?.cluster_id).toMatchObject({ type: "string", required: false });
  });

  it("bounds a walk that can loop, and says so where the loop starts", () => {
    const source = FILES.find((f) => f.file.endsWith("pr_proposal.yaml"))?.source ?? "";
    const r = validateSource("pr_proposal.yaml", source);
    expect(r.playbook?.limits?.max_steps).toBe(100);
    const d = r.diagnostics.find((x) => x.rule === "dialect-drift" && x.message.includes("loop"));
    expect(d?.severity).toBe("warning");
    expect(source.split("\n")[(d?.line ?? 0) - 1]).toMatch(/^ {2}search_for_duplicates:/);
  });

  it("runs Triagent's own gates, each at its place", () => {
    const r = validateSource(
      "bad.yaml",
      [
        "id: bad",
        "symptom: s",
        "version: one",
        "entrypoint: a",
        "nodes:",
        "  a:",
        "    description: look",
        "    next:",
        "      - { condition: again, goto: a }",
        "      - { condition: '', goto: b }",
        "  b:",
        "    description: hand over",
        "    delegate_to: other",
        "    terminal_advice: done",
        "    next:",
        "      - { condition: back, goto: a }",
        "",
      ].join("\n"),
    );
    const found = r.diagnostics
      .filter((d) => d.rule === "dialect-invalid")
      .map((d) => `${d.line}:${d.column} ${d.message}`);
    expect(found).toEqual([
      "3:10 version 'one' is not of the form v<number>",
      "9:35 node 'a' next[0] points at itself",
      "10:9 node 'a' next[1] has an empty condition: every branch says when it applies",
      "14:22 node 'b' has delegate_to and terminal_advice: a delegate node returns to this playbook; it cannot also end it",
    ]);
  });

  it("is never a v1 playbook's reading, nor any YAML's", () => {
    expect(
      dialectOf(
        "x.yaml",
        "apiVersion: playbook-bot/v1\nid: x\nentrypoint: a\nnodes: {}\nsymptom: s\n",
      ),
    ).toBeUndefined();
    expect(dialectOf("x.yaml", "name: ci\non: push\n")).toBeUndefined();
    expect(dialectOf("x.json", "entrypoint: a\nnodes: {}\nsymptom: s\n")).toBeUndefined();
  });

  it("refuses a hostile file cleanly, with the YAML loader's limits", () => {
    const deep = `id: x\nsymptom: s\nentrypoint: a\nnodes:\n  a: ${"[".repeat(200)}${"]".repeat(200)}\n`;
    const r = validateSource("deep.yaml", deep);
    expect(r.diagnostics.map((d) => d.rule)).toEqual(["yaml-limit"]);
    const wrong = validateSource("wrong.yaml", "id: 3\nsymptom: [1]\nentrypoint: a\nnodes: 7\n");
    expect(wrong.diagnostics.some((d) => d.rule === "dialect-invalid")).toBe(true);
    expect(wrong.playbook).toBeUndefined();
  });
});

describe("Triagent's dispatch: subagent", () => {
  const PB = `id: pod_crash
symptom: A pod keeps restarting
description: |
  Find why a pod restarts.
dispatch: subagent
entrypoint: look
nodes:
  look:
    description: Read the pod's events.
    suggested_calls:
      - tool: triagent-k8s/get_events
        args: { namespace: "\${namespace}" }
    expected_findings: [oom_killed]
    next:
      - condition: the pod was OOM-killed
        goto: oom
      - condition: anything else
        goto: other
  oom:
    description: Memory is short.
    terminal_advice: Raise the memory limit.
  other:
    description: Not memory.
    terminal_advice: Look at the logs.
`;

  it("becomes one AI step that walks every node, with the nodes' tools and findings", () => {
    const r = validateSource("investigation/pod_crash.yaml", PB);
    expect(r.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const nodes = (r.playbook as unknown as { nodes: Record<string, Record<string, unknown>> })
      .nodes;
    expect(Object.keys(nodes)).toEqual(["walk", "done"]);
    expect(r.playbook?.entrypoint).toBe("walk");
    const walk = nodes.walk as Record<string, unknown>;
    expect(walk).toMatchObject({
      type: "ai",
      tools: ["triagent-k8s/get_events"],
      expected_findings: ["oom_killed"],
      next: "done",
    });
    const prompt = String(walk.prompt);
    expect(prompt).toContain('Walk the playbook "A pod keeps restarting" from node `look`');
    expect(prompt).toContain('- call `triagent-k8s/get_events` with {"namespace":"${namespace}"}');
    expect(prompt).toContain(
      "- when the pod was OOM-killed: stop here and advise: Raise the memory limit.",
    );
    expect(prompt).toContain("- when anything else: stop here and advise: Look at the logs.");
    const drift = r.diagnostics.find(
      (d) => d.rule === "dialect-drift" && d.message.includes("subagent"),
    );
    expect(drift).toMatchObject({ line: 5, column: 1, severity: "warning" });
  });

  it("the walk's own gates still apply: a broken node is reported where it stands", () => {
    const broken = PB.replace("goto: other", "goto: nowhere");
    const r = validateSource("investigation/pod_crash.yaml", broken);
    const errs = r.diagnostics.filter((d) => d.severity === "error");
    expect(errs.map((d) => [d.line, d.column, d.message])).toEqual([
      [18, 15, "node 'look' next[1] goto 'nowhere' does not resolve"],
      [22, 3, "node 'other' is unreachable from entrypoint 'look'"],
    ]);
  });
});

describe("Triagent's prose is text, not a template", () => {
  // As in sourcehawk/triagent system/playbook_proposal.yaml: the prose names the placeholders.
  const PB = `id: drafting
symptom: Draft a playbook
dispatch: subagent
entrypoint: draft
nodes:
  draft:
    description: Use \${cluster_id} / \${namespace} in suggested_calls.args, never {{ x }}.
    next:
      - condition: the draft names \${slug}
        goto: done
  done:
    description: Drafted.
    terminal_advice: Link {repo}#{number}; keep \${slug} and {% raw %} as written.
`;
  const rendered = (t: unknown) => renderTemplate(String(t), () => undefined, "plain");

  it("a subagent's walk names ${…}, {{ and {% in its prose as written", () => {
    const r = validateSource("system/drafting.yaml", PB);
    expect(r.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    // Only the two Triagent fills, which every Triagent playbook takes.
    expect(Object.keys(r.playbook?.inputs ?? {})).toEqual(["cluster_id", "namespace"]);
    const prompt = rendered(nodeOf(PB, "walk")?.prompt);
    expect(prompt.ok && prompt.value).toContain(
      "Use ${cluster_id} / ${namespace} in suggested_calls.args, never {{ x }}.",
    );
    expect(prompt.ok && prompt.value).toContain("- when the draft names ${slug}: stop here");
    expect(prompt.ok && prompt.value).toContain("keep ${slug} and {% raw %} as written.");
  });

  it("a terminal's advice shows ${…} and {% as written, on a step-by-step walk", () => {
    const stepwise = PB.replace("dispatch: subagent\n", "");
    const r = validateSource("system/drafting.yaml", stepwise);
    expect(r.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(rendered(nodeOf(stepwise, "done")?.advice)).toEqual({
      ok: true,
      value: "Link {repo}#{number}; keep ${slug} and {% raw %} as written.",
    });
  });
});

describe("Triagent's proposals: drafts of a new version, kept apart from the playbooks", () => {
  const E2E = join(
    ROOT,
    "test/fixtures/seed-repos/triagent/e2e/fixtures/playbooks/with-pending-proposal",
  );
  const live = {
    file: "investigation/payments_latency.yaml",
    source: readFileSync(join(E2E, "investigation/payments_latency.yaml"), "utf8"),
  };
  const proposal = {
    file: "proposals/investigation/payments_latency__abc123def456.yaml",
    source: readFileSync(
      join(E2E, "proposals/investigation/payments_latency__abc123def456.yaml"),
      "utf8",
    ),
  };

  it("a proposal is checked alone and shares its playbook's id without a duplicate", () => {
    const [a, b] = validateSet([proposal, live]);
    expect(b?.draft).toBeUndefined();
    expect(a?.draft).toBe(true);
    expect(a?.playbook?.id).toBe("payments_latency");
    expect(
      [...(a?.diagnostics ?? []), ...(b?.diagnostics ?? [])].filter((d) => d.severity === "error"),
    ).toEqual([]);
  });

  it("is no playbook of the catalogue: the id runs the live file", () => {
    const tiered = resolveTiers([{ files: [proposal, live], read: () => undefined }]);
    expect(tiered.bundles.get("payments_latency")?.file).toBe(live.file);
  });

  it("a file named <id>__<token> that writes another id is no proposal", () => {
    const [r] = validateSet([{ ...live, file: "x/other__abc.yaml" }]);
    expect(r?.draft).toBeUndefined();
  });
});

describe("Triagent's cluster_id and namespace", () => {
  it("are inputs of every playbook, never reported unused", () => {
    const text = readFileSync(
      join(
        ROOT,
        "test/fixtures/seed-repos/triagent/pkg/mcp/strategies/testdata/playbooks/general/example_general.yaml",
      ),
      "utf8",
    );
    const r = validateSource("general/example_general.yaml", text);
    expect(Object.keys(r.playbook?.inputs ?? {})).toEqual(["cluster_id", "namespace"]);
    expect(r.diagnostics.filter((d) => d.rule === "input-unused")).toEqual([]);
  });
});
