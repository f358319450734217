import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cortex } from "../../../src/core/dialects/cortex/dialect.js";
import { dialectOf, isDialectPart } from "../../../src/core/dialects/index.js";
import { validateSource } from "../../../src/core/rules/validate.js";

const ROOT = join(import.meta.dirname, "../../..");
const PACKAGES = "test/fixtures/dialects/cortex/playbooks";

/** Validate a package's playbook.md from the fixtures, its siblings read from its folder. */
function fixture(name: string) {
  const file = `${PACKAGES}/${name}/playbook.md`;
  const read = (rel: string) => {
    const path = join(ROOT, PACKAGES, name, rel);
    return existsSync(path) ? readFileSync(path, "utf8") : undefined;
  };
  return validateSource(file, readFileSync(join(ROOT, file), "utf8"), { siblings: { read } });
}

/** Validate a package held in memory: `playbook.md` and the files beside it. */
function pkg(files: Record<string, string>) {
  const file = "playbooks/demo/playbook.md";
  const read = (rel: string) => files[rel];
  return validateSource(file, files["playbook.md"] as string, { siblings: { read } });
}

const errors = (r: ReturnType<typeof validateSource>) =>
  r.diagnostics.filter((d) => d.severity === "error");

const SKILL = `# ask
## Metadata
- **skill-id**: ask
- **executor**: llm

## Prompt
Say what happened.
`;

const playbook = (steps: string, extra = "") => `# demo

## Metadata
- **name**: Demo
- **trigger**: command demo
${extra}
## Steps
${steps}`;

describe("Cortex packages load as written", () => {
  it("the incident-triage package validates with no error, read as Cortex", () => {
    const r = fixture("incident-triage");
    expect(r.dialect).toBe("cortex");
    expect(errors(r), JSON.stringify(r.diagnostics, null, 1)).toEqual([]);
    const p = r.playbook as unknown as Record<string, unknown> & {
      steps: Record<string, unknown>[];
    };
    expect(p).toMatchObject({
      id: "incident-triage",
      name: "Incident triage",
      on: { command: "triage" },
      authority: { default: "show-me" },
      requires: {
        secrets: ["PAGER_TOKEN"],
        tools: ["github/search_issues", "metrics/query_range"],
      },
    });
    expect(p.steps.map((s) => [s.id, s.type, s.authority])).toEqual([
      ["classify", "ai", "just-do-it"],
      ["gather", "investigate", undefined],
      ["assess", "ai", undefined],
      ["assess-choice", "investigate", undefined],
      ["page", "ai", "ask-first"],
      ["summarise", "ai", undefined],
    ]);
    expect(p.steps[0]?.prompt).toMatch(/^Read the incident described in the issue\./);
    expect(p.steps[0]?.output_schema).toMatchObject({ type: "object" });
    expect(p.steps[1]).toMatchObject({
      suggested_calls: [{ tool: "github/search_issues" }, { tool: "metrics/query_range" }],
      on_error: "retry:2",
    });
    expect(p.steps[2]?.on_error).toBe("retry:1");
    expect(p.steps[3]?.next).toEqual([
      { condition: "the incident is severe and customers are affected", goto: "page" },
      { condition: "the incident is minor", goto: "summarise" },
    ]);
    // Branches make the walk one step at a time: its drift is said once, at ## Steps.
    const drift = r.diagnostics.find((d) => /one at a time/.test(d.message));
    expect(drift).toMatchObject({ rule: "dialect-drift", line: 13, column: 1 });
  });

  it("a DAG without branches keeps its depends-on as needs", () => {
    const r = pkg({
      "playbook.md": playbook(
        "1. first\n   - **skill**: ask\n2. second\n   - **skill**: ask\n   - **depends-on**: first\n",
      ),
      "skills/ask.md": SKILL,
    });
    expect(errors(r)).toEqual([]);
    const steps = (r.playbook as unknown as { steps: Record<string, unknown>[] }).steps;
    expect(steps[1]?.needs).toEqual(["first"]);
  });

  it("the broken-triage package's mistakes are errors at the author's lines", () => {
    const r = fixture("broken-triage");
    const file = `${PACKAGES}/broken-triage/playbook.md`;
    const at = (code: string, pattern: RegExp) =>
      r.diagnostics.find((d) => d.rule === code && pattern.test(d.message));
    expect(at("dialect-invalid", /contract 'verdict' does not exist/)).toMatchObject({
      file,
      line: 10,
      column: 27,
    });
    expect(
      at("dialect-invalid", /skill 'fetch-everything'.*no skills\/fetch-everything\.md/),
    ).toMatchObject({
      file,
      line: 12,
      column: 17,
    });
    expect(at("needs-cycle", /gather → report → gather/)).toMatchObject({ file, line: 13 });
    expect(at("dialect-unmapped", /trigger 'schedule/)).toMatchObject({
      file,
      line: 5,
      column: 16,
    });
    expect(at("dialect-unmapped", /'escalate to the duty manager'/)).toMatchObject({
      file,
      line: 18,
    });
    expect(at("dialect-unmapped", /section 'message flow'/)).toMatchObject({ file, line: 20 });
    expect(at("dialect-invalid", /not a JSON Schema/)).toMatchObject({
      file: `${PACKAGES}/broken-triage/contracts/shape.schema.json`,
      line: 1,
    });
  });

  it("a cycle among branching steps is a located error of its own", () => {
    const r = pkg({
      "playbook.md": playbook(
        "1. a\n   - **skill**: ask\n   - **depends-on**: b\n   - **branch**: done -> b\n2. b\n   - **skill**: ask\n   - **depends-on**: a\n",
      ),
      "skills/ask.md": SKILL,
    });
    expect(errors(r).find((d) => d.rule === "dialect-invalid")).toMatchObject({
      line: 10,
      message: expect.stringMatching(/circle \(a → b → a\)/),
    });
  });
});

describe("diagnostics on converted values point at the author's files", () => {
  it("an invalid contract schema is reported in the contract file", () => {
    const r = pkg({
      "playbook.md": playbook("1. first\n   - **skill**: ask\n   - **input-contract**: bad\n"),
      "skills/ask.md": SKILL,
      "contracts/bad.schema.json":
        '{\n  "type": "object",\n  "properties": { "x": { "type": 5 } }\n}\n',
    });
    const d = errors(r).find((e) => e.rule === "contract-schema");
    expect(d?.file).toBe("playbooks/demo/contracts/bad.schema.json");
    expect(d?.line).toBe(1);
  });

  it("a contract that is not JSON is refused at its own line", () => {
    const r = pkg({
      "playbook.md": playbook("1. first\n   - **skill**: ask\n   - **output-contract**: bad\n"),
      "skills/ask.md": SKILL,
      "contracts/bad.schema.json": '{\n  "type": "object",\n  "properties": {\n}\n',
    });
    const d = errors(r).find((e) => e.rule === "dialect-invalid");
    expect(d?.file).toBe("playbooks/demo/contracts/bad.schema.json");
    expect(d?.message).toMatch(/is not valid JSON/);
  });

  it("a branch to a step that does not exist is a graph error at its goto", () => {
    const r = pkg({
      "playbook.md": playbook(
        "1. first\n   - **skill**: ask\n   - **branch**: always -> nowhere\n",
      ),
      "skills/ask.md": SKILL,
    });
    const d = errors(r).find((e) => /nowhere/.test(e.message));
    expect(d).toMatchObject({ line: 10, column: 28 });
  });

  it("a skill's mistakes are reported in the skill file", () => {
    const r = pkg({
      "playbook.md": playbook("1. first\n   - **skill**: ask\n"),
      "skills/ask.md": SKILL.replace("- **executor**: llm", "- **executor**: python"),
    });
    expect(errors(r)).toEqual([
      expect.objectContaining({
        rule: "dialect-unmapped",
        file: "playbooks/demo/skills/ask.md",
        line: 4,
        column: 17,
      }),
    ]);
  });

  it("requirements are located in requirements.md; what cannot be checked is unmapped there", () => {
    const r = pkg({
      "playbook.md": playbook("1. first\n   - **skill**: ask\n"),
      "skills/ask.md": SKILL,
      "requirements.md":
        "# Requirements\n\n## Secrets\n- [ ] lower_case\n- API_KEY\n\n## Runtimes\n- python 3.12\n",
    });
    const file = "playbooks/demo/requirements.md";
    expect(errors(r)).toEqual([
      expect.objectContaining({ rule: "dialect-invalid", file, line: 4, column: 3 }),
      expect.objectContaining({ rule: "dialect-unmapped", file, line: 8, column: 3 }),
    ]);
    expect(r.playbook?.requires).toEqual({ secrets: ["API_KEY"] });
  });
});

describe("what has no equivalent, and what is refused", () => {
  it("an unknown step field is unmapped at its key", () => {
    const r = pkg({
      "playbook.md": playbook("1. first\n   - **skill**: ask\n   - **agent**: triager\n"),
      "skills/ask.md": SKILL,
    });
    expect(errors(r)).toEqual([
      expect.objectContaining({ rule: "dialect-unmapped", line: 10, column: 6 }),
    ]);
  });

  it("an unknown authority tier and a step without a skill are the package's own errors", () => {
    const r = pkg({
      "playbook.md": playbook(
        "1. first\n   - **skill**: ask\n   - **authority**: Whenever\n2. second\n   - **description**: no skill\n",
      ),
      "skills/ask.md": SKILL,
    });
    const messages = errors(r).map((d) => `${d.line}: ${d.message}`);
    expect(messages).toContain("10: 'Whenever' is not an authority tier");
    expect(messages.some((m) => /^11: step 'second' names no skill/.test(m))).toBe(true);
  });

  it("a huge file is refused cleanly", () => {
    const r = pkg({ "playbook.md": playbook("1. a\n   - **skill**: ask\n") + "x\n".repeat(6000) });
    expect(r.playbook).toBeUndefined();
    expect(errors(r)[0]?.message).toMatch(/larger than a definition file may be/);
  });

  it("too many steps, a deep contract and a hostile skill name are refused with positions", () => {
    const steps = Array.from({ length: 60 }, (_, i) => `${i + 1}. s${i}\n   - **skill**: ask\n`);
    const many = pkg({ "playbook.md": playbook(steps.join("")), "skills/ask.md": SKILL });
    expect(errors(many).map((d) => d.message)).toContain(
      "the playbook has 60 steps, more than the 50 one playbook may have",
    );
    const deep = pkg({
      "playbook.md": playbook("1. a\n   - **skill**: ask\n   - **input-contract**: deep\n"),
      "skills/ask.md": SKILL,
      "contracts/deep.schema.json": "[".repeat(200) + "]".repeat(200),
    });
    expect(errors(deep)[0]).toMatchObject({
      rule: "dialect-invalid",
      file: "playbooks/demo/contracts/deep.schema.json",
    });
    const hostile = pkg({ "playbook.md": playbook("1. a\n   - **skill**: ../../etc/passwd\n") });
    expect(errors(hostile)[0]?.message).toMatch(/no skills\/\.\.\/\.\.\/etc\/passwd\.md/);
  });
});

describe("recognising a Cortex package", () => {
  const main = playbook("1. first\n   - **skill**: ask\n");

  it("claims playbook.md with a ## Steps list of skills, and nothing else", () => {
    expect(dialectOf("playbooks/demo/playbook.md", main)?.id).toBe("cortex");
    expect(dialectOf("playbooks/demo/README.md", main)).toBeUndefined();
    // A Mindscape SOP and a Catalyst markdown playbook start with front matter.
    expect(cortex.recognise("playbook.md", `---\nplaybook_code: demo\n---\n${main}`)).toBe(false);
    expect(cortex.recognise("playbook.md", "# Playbook: Demo\n\n## Steps\n1. Do it\n")).toBe(false);
    expect(cortex.recognise("playbook.md", "apiVersion: playbook-bot/v1\nid: x\n")).toBe(false);
  });

  it("skills, contracts and requirements load with their playbook, never alone", () => {
    for (const part of [
      "playbooks/demo/skills/ask.md",
      "playbooks/demo/contracts/x.schema.json",
      "playbooks/demo/requirements.md",
    ])
      expect(isDialectPart(part), part).toBe(true);
    expect(isDialectPart("playbooks/demo/playbook.md")).toBe(false);
  });
});

describe("Cortex packages: each mistake where it stands", () => {
  const one = (fields: string) => `1. **ask**\n   - **skill**: ask\n${fields}`;
  const messages = (r: ReturnType<typeof validateSource>) => r.diagnostics.map((d) => d.message);

  it.each([
    [one("   - **authority**: Whenever\n"), "'Whenever' is not an authority tier"],
    [
      one("   - **retries**: 2\n   - **on-error**: continue\n"),
      "step 'ask' has both retries and on-error",
    ],
    [one("   - **color**: blue\n"), "the step field 'color' has no equivalent here"],
    [
      one("   - **depends-on**: nothing\n"),
      "step 'ask' depends on 'nothing', which is not a step of this playbook",
    ],
    [
      one("   - **input-contract**: missing\n"),
      "the contract 'missing' does not exist: the package has no contracts/missing.schema.json",
    ],
    [
      one("   - **on-error**: escalate to lead\n"),
      "the failure behaviour 'escalate to lead' has no equivalent here (escalation to someone is not a step's failure policy)",
    ],
  ])("%#", (steps, message) => {
    const r = pkg({ "playbook.md": playbook(steps), "skills/ask.md": SKILL });
    expect(messages(r)).toContain(message);
  });

  it("refuses a skill that runs package code, and one without a prompt", () => {
    const code = SKILL.replace("- **executor**: llm", "- **executor**: python");
    expect(messages(pkg({ "playbook.md": playbook(one("")), "skills/ask.md": code }))).toContain(
      "the executor 'python' runs the skill's code file; playbooks here run no package code",
    );
    const bare = "# ask\n## Metadata\n- **skill-id**: ask\n- **executor**: llm\n";
    expect(messages(pkg({ "playbook.md": playbook(one("")), "skills/ask.md": bare }))).toContain(
      "the skill skills/ask.md has neither a '## Prompt' nor a '## Description' to give the model",
    );
  });
});
