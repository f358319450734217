import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import "../../../src/adapters/local/yaml-library.js";
import { bundledPlaybooks } from "../../../src/adapters/local/library.js";
import {
  ruleFix,
  ruleHelpMarkdown,
  ruleHelpText,
  rulesMarkdown,
  sentence,
} from "../../../src/core/format/report/rule-help.js";
import { RULES, RULE_CODES } from "../../../src/core/rules/catalogue.js";
import { RULE_DOCS } from "../../../src/core/rules/docs.js";
import { validateSet } from "../../../src/core/rules/validate.js";
import { ROOT } from "../../helpers/git-repo.js";

const known = await bundledPlaybooks();

function validateExample(source: string, others: Readonly<Record<string, string>> = {}) {
  const files = [
    ...Object.entries(others).map(([file, text]) => ({ file, source: text })),
    { file: "example.yaml", source },
  ];
  // Examples name no template files: any file they name is missing.
  return validateSet(files, { known, fileExists: () => false });
}

describe("rule documentation", () => {
  for (const code of RULE_CODES) {
    it(`${code}: says why and how to fix it, and its example shows the rule at work`, () => {
      const doc = RULE_DOCS[code];
      expect(doc.why).toMatch(/^[A-Z`].{20,}[.!]$/s);
      // How to fix comes from one place: the module's guidance or the docs, never both.
      expect([RULES[code].guidance, doc.fix].filter((x) => x !== undefined)).toHaveLength(1);
      expect(ruleFix(code)).toMatch(/^[A-Z`].+\.$/s);
      if (typeof doc.example === "string") {
        expect(doc.example.length).toBeGreaterThan(40);
        return;
      }
      const bad = validateExample(doc.example.bad, doc.example.others);
      const own = bad.find((r) => r.file === "example.yaml")?.diagnostics ?? [];
      expect(
        own.map((d) => d.rule),
        JSON.stringify(own, null, 1),
      ).toContain(code);
      const good = validateExample(doc.example.good, doc.example.others);
      expect(good.flatMap((r) => r.diagnostics)).toEqual([]);
    });
  }

  it("covers the unexampled rules with words: those whose input no short text shows", () => {
    expect(RULE_CODES.filter((c) => typeof RULE_DOCS[c].example === "string")).toEqual([
      "yaml-limit",
      "yaml-encoding",
      "file-refused",
    ]);
  });

  it("renders as text for `playbook-bot rules <code>`", () => {
    const text = ruleHelpText("set-inputs", "https://x.test/rules#set-inputs");
    expect(text.split("\n").slice(0, 5)).toEqual([
      "set-inputs (error, set layer)",
      "",
      "A sub-playbook call maps inputs the child does not declare or misses required ones.",
      "",
      `Why: ${RULE_DOCS["set-inputs"].why}`,
    ]);
    expect(text).toContain("Example, reported:\n\n    apiVersion: playbook-bot/v1\n");
    expect(text).toContain("beside deep.yaml:\n\n    apiVersion: playbook-bot/v1\n    id: deep\n");
    expect(text).toContain("Fixed:\n\n");
    expect(text.trimEnd().endsWith("More: https://x.test/rules#set-inputs")).toBe(true);
    expect(ruleHelpText("yaml-limit")).toContain(
      `Example: ${RULE_DOCS["yaml-limit"].example as string}`,
    );
  });

  it("renders as Markdown whose code blocks hold the examples", () => {
    const md = ruleHelpMarkdown("set-inputs");
    expect(md).toContain("**Example.** Reported, beside `deep.yaml`:\n\n```yaml\n");
    expect(md.match(/```yaml\n/g)).toHaveLength(3);
    expect(ruleHelpMarkdown("goto-unresolved")).toContain("**Example.** Reported:\n\n```yaml\n");
    for (const code of RULE_CODES) {
      const doc = RULE_DOCS[code];
      const texts =
        typeof doc.example === "string"
          ? [doc.example]
          : [doc.example.bad, doc.example.good, ...Object.values(doc.example.others ?? {})];
      for (const t of texts) expect(t).not.toContain("```");
    }
  });

  it("makes sentences of summaries, keeping field names as written", () => {
    expect(sentence("a step cannot be reached")).toBe("A step cannot be reached.");
    expect(sentence("apiVersion is missing")).toBe("apiVersion is missing.");
    expect(sentence("needs: names no step")).toBe("needs: names no step.");
    expect(sentence("Done.")).toBe("Done.");
  });

  it("docs/rules.md is what `playbook-bot rules --markdown` prints (npm run rules:write)", () => {
    const page = readFileSync(join(ROOT, "docs/rules.md"), "utf8");
    expect(page).toBe(rulesMarkdown());
    // A heading per rule: GitHub makes its anchor of the code, which each SARIF helpUri names.
    for (const code of RULE_CODES) expect(page).toContain(`\n## ${code}\n`);
    expect(page.match(/^## /gm)).toHaveLength(RULE_CODES.length);
  });
});
