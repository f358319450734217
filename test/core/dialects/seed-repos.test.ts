import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { isPlaybookFile } from "../../../src/core/dialects/files.js";
import { NO_SIBLINGS, dialectOf } from "../../../src/core/dialects/index.js";
import { renderTemplate } from "../../../src/core/engine/render.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import { SEED_REPOS, seedFiles } from "../../helpers/seed-repos.js";

const read = (file: string) => readFileSync(file, "utf8");

describe("Catalyst's Markdown playbooks are recognised by their text, wherever they lie", () => {
  const markdown = seedFiles("catalyst").filter((f) => f.endsWith(".md"));

  it.each(["flat/", ".github/playbooks/", "docs/", ""])("under '%s'", (folder) => {
    expect(markdown).toHaveLength(9);
    for (const file of markdown)
      expect(dialectOf(`${folder}${basename(file)}`, read(file))?.id, file).toBe("catalyst");
  });

  it("a Markdown file whose first title is not 'Playbook: …' is not Catalyst's", () => {
    const notes = "# Notes\n\nSee the playbook.\n\n# Playbook: later\n";
    expect(dialectOf("src/resources/playbooks/notes.md", notes)).toBeUndefined();
    const action = read(join(SEED_REPOS, "catalyst/src/resources/playbooks/start-rollout.md"));
    expect(dialectOf("x.md", action.replace("# Playbook:", "## Playbook:"))).toBeUndefined();
  });
});

describe("Mindscape's spec and SOP kept in one folder are one playbook", () => {
  const specs = join(SEED_REPOS, "mindscape/backend/playbooks/specs");
  const sops = join(SEED_REPOS, "mindscape/backend/i18n/playbooks/en");
  const spec = read(join(specs, "grant_scout.json"));
  const beside = { read: (rel: string) => (rel === "grant_scout.json" ? spec : undefined) };

  it("the SOP beside its spec is a part, loaded with the spec; alone it is a playbook", () => {
    expect(
      isPlaybookFile("flat/grant_scout.md", () => read(join(sops, "grant_scout.md")), beside),
    ).toBe(false);
    expect(isPlaybookFile("flat/grant_scout.md", () => read(join(sops, "grant_scout.md")))).toBe(
      true,
    );
    expect(isPlaybookFile("flat/grant_scout.json", () => spec, NO_SIBLINGS)).toBe(true);
  });

  it("a spec missing keys Mindscape requires is still Mindscape's, refused as its loader would", () => {
    const value = JSON.parse(spec) as Record<string, unknown>;
    delete value.steps;
    const text = JSON.stringify(value, null, 2);
    expect(dialectOf("specs/grant_scout.json", text)?.id).toBe("mindscape");
    const report = validateSource("specs/grant_scout.json", text);
    expect(report.dialect).toBe("mindscape");
    expect(report.diagnostics.some((d) => d.severity === "error")).toBe(true);
  });
});

describe("Mindscape's SOPs in its own layout (i18n/playbooks/<locale>/)", () => {
  const sops = join(SEED_REPOS, "mindscape/backend/i18n/playbooks/en");
  const layout = (rel: string) => (rel.startsWith("../../../playbooks/specs/") ? "{}" : undefined);

  it("one with its spec in playbooks/specs/ is a part; one without is a playbook of its own", () => {
    const text = () => read(join(sops, "grant_scout.md"));
    expect(isPlaybookFile("backend/i18n/playbooks/en/grant_scout.md", text, { read: layout })).toBe(
      false,
    );
    expect(isPlaybookFile("backend/i18n/playbooks/en/grant_scout.md", text, NO_SIBLINGS)).toBe(
      true,
    );
  });

  it("an SOP without a spec gives the model its procedure as written: its {{ }} are words", () => {
    const text = read(join(sops, "threejs_hero_landing.md"));
    const report = validateSource("backend/i18n/playbooks/en/threejs_hero_landing.md", text);
    expect(report.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const step = report.playbook?.steps?.[0] as { type: string; prompt: string };
    expect(step.type).toBe("ai");
    const prompt = renderTemplate(step.prompt, () => undefined, "plain");
    expect(prompt.ok && prompt.value).toBe(text.slice(text.indexOf("# Three.js")).trim());
    expect(prompt.ok && prompt.value).toContain("artifacts/threejs_hero_landing/{{execution_id}}/");
  });
});

describe("Triagent: two conditions that lead to one node", () => {
  // The shape of sourcehawk/triagent system/git_inspect.yaml (check_consumer_handler): two
  // branches to the same terminal. Triagent's agent moves by naming the target node.
  const text = [
    "id: consumer_check",
    "schema_version: 1",
    'symptom: "a consumer may not handle a change"',
    "entrypoint: check",
    "nodes:",
    "  check:",
    '    description: "Search the consumer for the handler."',
    "    next:",
    '      - condition: "consumer never updated"',
    "        goto: handler_missing",
    '      - condition: "consumer updated after current_version"',
    "        goto: handler_missing",
    '      - condition: "consumer handles it"',
    "        goto: unrelated",
    "  handler_missing:",
    '    description: "Terminal: the handler is missing."',
    '    terminal_advice: "Fix the consumer."',
    "  unrelated:",
    '    description: "Terminal: unrelated."',
    '    terminal_advice: "Keep looking."',
    "",
  ].join("\n");

  it("are one choice that holds when either condition does, not a duplicate label", () => {
    const report = validateSource("investigation/consumer_check.yaml", text);
    expect(report.dialect).toBe("triagent");
    expect(report.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const nodes = (report.playbook as { nodes?: Record<string, unknown> } | undefined)?.nodes;
    const check = nodes?.check as { next?: { condition?: string; goto?: string }[] } | undefined;
    expect(check?.next).toHaveLength(2);
    expect(check?.next?.[0]?.condition).toBe(
      "consumer never updated; or: consumer updated after current_version",
    );
  });
});

describe("Triagent: call arguments read as Triagent's walker reads them", () => {
  const file = join(SEED_REPOS, "triagent/system/strategic_log_extraction.yaml");
  const text = read(file);
  type Call = { tool: string; args?: Record<string, unknown> };
  const callsOf = (report: ReturnType<typeof validateSource>, node: string): Call[] => {
    const nodes = (report.playbook as { nodes?: Record<string, { suggested_calls?: Call[] }> })
      .nodes;
    return nodes?.[node]?.suggested_calls ?? [];
  };

  it("`args:` holding only comments is a call without arguments, not a type error", () => {
    const report = validateSource("system/strategic_log_extraction.yaml", text);
    expect(report.dialect).toBe("triagent");
    expect(report.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const [search] = callsOf(report, "filtered_search");
    expect(search).toEqual({ tool: "triagent-k8s/search_log_stream" });
    // ${namespace} is one Triagent fills: an optional input.
    expect(callsOf(report, "stream_capture")[0]?.args).toEqual({ namespace: "${namespace}" });
    expect(report.playbook?.inputs?.namespace).toMatchObject({ required: false });
  });

  it("a `${…}` Triagent does not fill stays literal text, with a warning at its line", () => {
    const other = text.replace("namespace: ${namespace}", "namespace: ${pod_namespace}");
    const report = validateSource("system/strategic_log_extraction.yaml", other);
    expect(report.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const line = other.split("\n").findIndex((l) => l.includes("${pod_namespace}")) + 1;
    const drift = report.diagnostics.find(
      (d) => d.rule === "dialect-drift" && d.message.includes("${pod_namespace}"),
    );
    expect(drift).toMatchObject({ line, severity: "warning" });
    expect(report.playbook?.inputs?.pod_namespace).toBeUndefined();
    const arg = callsOf(report, "stream_capture")[0]?.args?.namespace as string;
    const rendered = renderTemplate(arg, () => undefined, "plain");
    expect(rendered).toEqual({ ok: true, value: "${pod_namespace}" });
  });
});

describe("Mindscape: a key written twice in an SOP's front matter", () => {
  const sops = join(SEED_REPOS, "mindscape/backend/i18n/playbooks/en");
  const sop = read(join(sops, "threejs_hero_adjustment.md"));
  // The same front matter with its name written a second time, further down.
  const twice = sop.replace(/\n---\n/, "\nname: Hero Adjustment (renamed)\n---\n");

  it("keeps the last value, as Mindscape's loader does, with a dialect-drift warning at the line", () => {
    expect(twice).not.toBe(sop);
    const report = validateSource("en/threejs_hero_adjustment.md", twice);
    expect(report.dialect).toBe("mindscape");
    expect(report.diagnostics.filter((d) => d.rule === "yaml-duplicate-key")).toEqual([]);
    expect(report.playbook?.name).toBe("Hero Adjustment (renamed)");
    const line = twice.split("\n").indexOf("name: Hero Adjustment (renamed)") + 1;
    expect(
      report.diagnostics.find((d) => d.rule === "dialect-drift" && d.line === line),
    ).toMatchObject({ severity: "warning" });
    expect(report.diagnostics.filter((d) => d.severity === "error")).toEqual(
      validateSource("en/threejs_hero_adjustment.md", sop).diagnostics.filter(
        (d) => d.severity === "error",
      ),
    );
  });

  it("in the SOP beside its spec, the warning names the SOP's file", () => {
    const spec = read(join(SEED_REPOS, "mindscape/backend/playbooks/specs/grant_scout.json"));
    const grant = read(join(sops, "grant_scout.md"));
    const doubled = grant.replace(/\n---\n/, "\nname: Grant Finder\n---\n");
    const siblings = { read: (rel: string) => (rel === "grant_scout.md" ? doubled : undefined) };
    const report = validateSource("specs/grant_scout.json", spec, { siblings });
    expect(report.playbook?.name).toBe("Grant Finder");
    const drift = report.diagnostics.find(
      (d) => d.rule === "dialect-drift" && d.message.includes("'name'"),
    );
    expect(drift).toMatchObject({ file: "specs/grant_scout.md", severity: "warning" });
  });
});
