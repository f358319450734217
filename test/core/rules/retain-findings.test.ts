import { describe, expect, it } from "vitest";
import "../../../src/adapters/local/yaml-library.js";
import { bundledPlaybooks } from "../../../src/adapters/local/library.js";
import { RULE_CODES } from "../../../src/core/rules/catalogue.js";
import { RULE_DOCS } from "../../../src/core/rules/docs.js";
import { validateSet, type SetFile } from "../../../src/core/rules/validate.js";

// `retain: findings` (what `playbook-bot validate` asks for) keeps of each report what is printed
// and of each playbook what the checks across files read: the findings must be the same.
const known = await bundledPlaybooks();

/** Each rule's examples as sets of files, read through functions that count their reads. */
const examples = RULE_CODES.flatMap((code) => {
  const example = RULE_DOCS[code].example;
  if (typeof example === "string") return [];
  return [example.bad, example.good].map((main) => ({
    code,
    texts: { ...example.others, "example.yaml": main } as Record<string, string>,
  }));
});

function counted(texts: Record<string, string>): { files: SetFile[]; reads: Map<string, number> } {
  const reads = new Map<string, number>();
  const files = Object.entries(texts).map(([file, text]) => ({
    file,
    source: () => {
      reads.set(file, (reads.get(file) ?? 0) + 1);
      return text;
    },
  }));
  return { files, reads };
}

describe("validateSet with retain: findings", () => {
  it("finds what a full validation finds, in every rule's examples", () => {
    const setRules = new Set<string>();
    for (const { code, texts } of examples) {
      const options = { known, fileExists: () => false };
      const full = validateSet(
        Object.entries(texts).map(([file, source]) => ({ file, source })),
        options,
      );
      const { files, reads } = counted(texts);
      const lean = validateSet(files, { ...options, retain: "findings" });
      expect(
        lean.map((r) => [r.file, r.diagnostics]),
        code,
      ).toEqual(full.map((r) => [r.file, r.diagnostics]));
      for (const [i, r] of lean.entries()) {
        const whole = full[i]!;
        // No document, no playbook; the id, and the text only where there is something to show.
        expect(r.doc, code).toBeUndefined();
        expect(r.playbook, code).toBeUndefined();
        expect(r.id, code).toBe(whole.playbook?.id);
        expect(r.text, code).toBe(r.diagnostics.length > 0 ? whole.text : "");
        // A file is read once, and again only for a finding of the checks across files (placed in
        // it, or naming it: set-duplicate-id says which file has the id first).
        const across = r.diagnostics.some((d) => d.rule.startsWith("set-"));
        if (across) setRules.add(code);
        if (across) expect(reads.get(r.file), `${code}: ${r.file}`).toBe(2);
        else if (!code.startsWith("set-")) expect(reads.get(r.file), `${code}: ${r.file}`).toBe(1);
      }
    }
    // The examples place findings of the checks across files, so the reloading is exercised.
    expect([...setRules].sort()).toEqual(
      RULE_CODES.filter(
        (c) => c.startsWith("set-") && typeof RULE_DOCS[c].example !== "string",
      ).sort(),
    );
  });

  it("keeps texts given as they are, and the playbooks in the default", () => {
    const text = "apiVersion: playbook-bot/v1\nid: a\nsteps:\n  - id: e\n    type: end\n";
    const [lean] = validateSet([{ file: "a.yaml", source: text }], { retain: "findings" });
    expect(lean?.id).toBe("a");
    const [whole] = validateSet([{ file: "a.yaml", source: () => text }]);
    expect(whole?.playbook?.id).toBe("a");
    expect(whole?.doc?.text).toBe(text);
  });

  it("says so when a file changes between its reading and the placing of a finding", () => {
    const texts = {
      "a.yaml": "apiVersion: playbook-bot/v1\nid: same\nsteps:\n  - id: e\n    type: end\n",
      "b.yaml": "apiVersion: playbook-bot/v1\nid: same\nsteps:\n  - id: e\n    type: end\n",
    };
    let readsOfB = 0;
    const files: SetFile[] = [
      { file: "a.yaml", source: texts["a.yaml"] },
      { file: "b.yaml", source: () => (readsOfB++ === 0 ? texts["b.yaml"] : "id: [") },
    ];
    expect(() => validateSet(files, { retain: "findings" })).toThrow(
      "b.yaml changed while it was validated",
    );
  });
});
