import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { isPlaybookFile } from "../../../src/core/dialects/files.js";
import { NO_SIBLINGS, dialectOf } from "../../../src/core/dialects/index.js";
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
