import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { catalyst } from "../../../src/core/dialects/catalyst/dialect.js";
import { dialectOf } from "../../../src/core/dialects/index.js";
import { DEFAULT_LIMITS } from "../../../src/core/format/source.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import { main } from "../../../src/entries/cli/main.js";
import { FIXED_NOW } from "../../helpers/git-repo.js";

const ROOT = join(import.meta.dirname, "../../..");
const FIXTURES = join(ROOT, "test/fixtures/dialects/catalyst");

function playbookFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return playbookFiles(path);
    return /\.(ya?ml|md)$/.test(name) && name !== "SOURCES.md" ? [path] : [];
  });
}

const FILES = playbookFiles(FIXTURES).map((path) => ({
  file: relative(ROOT, path),
  source: readFileSync(path, "utf8"),
}));
const fixture = (end: string) =>
  FILES.find((f) => f.file.endsWith(end)) ?? { file: end, source: "" };
const errors = (file: string, source: string) =>
  validateSource(file, source).diagnostics.filter((d) => d.severity === "error");

const PLAYBOOK = `name: ship-change
description: Ships a change
owner: Engineer
inputs:
  - string: mode
    allowed: [pull-request, none]
    default: pull-request
  - string: slug
    validation:
      - regex: "^[a-z-]+$"
        code: BadSlug
steps:
  - name: write
    ai-prompt: Write the change for {{slug}}
    outputs: ["docs/{{slug}}.md"]
  - if: \${{ get('mode') == 'pull-request' }}
    then:
      - name: work
        git-branch: xe/{{slug}}
      - git-commit: Ship {{slug}}
        push: true
      - name: pr
        github-pr-create: Ship {{slug}}
  - name: repo
    github-repo-info: ~
  - return:
      code: Shipped
      message: Shipped {{write}}
`;

describe("Catalyst playbooks load as written", () => {
  it("recognises Catalyst's files and no other system's", () => {
    expect(FILES.length).toBeGreaterThanOrEqual(9);
    for (const f of FILES) expect(dialectOf(f.file, f.source)?.id, f.file).toBe("catalyst");
    expect(dialectOf("pb.yaml", "entrypoint: a\nnodes: {}\nsymptom: x\n")?.id).toBe("triagent");
    // A Markdown playbook is known by its title, not its folder.
    expect(dialectOf("notes/readme.md", "# Playbook: x\n")?.id).toBe("catalyst");
    expect(dialectOf("notes/readme.md", "# Read me\n\nAbout playbooks.\n")).toBeUndefined();
    expect(
      dialectOf("pb.yaml", "apiVersion: playbook-bot/v1\nid: x\nowner: a\nsteps: []\n"),
    ).toBeUndefined();
  });

  it("a Markdown playbook is one AI task whose text is the prompt, with its front matter", () => {
    for (const end of [
      "2025-11-c9109d8/src/playbooks/start-rollout.md",
      "head/src/resources/playbooks/start-rollout.md",
    ]) {
      const { file, source } = fixture(end);
      expect(errors(file, source), file).toEqual([]);
      const r = validateSource(file, source);
      expect(r.playbook).toMatchObject({ id: "start-rollout", owner: /Product Manager|Architect/ });
      const step = r.playbook?.steps?.[0] as { type: string; prompt: string };
      expect(step.type).toBe("ai");
      expect(step.prompt).toContain("# Playbook: Start Rollout");
    }
  });

  it("converts each action to the v1 step that does the same, with bare names as inputs and step outputs", () => {
    const r = validateSource("ship.yaml", PLAYBOOK);
    expect(r.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(r.playbook?.inputs?.mode).toMatchObject({
      type: "enum",
      values: ["pull-request", "none"],
    });
    expect(r.playbook?.inputs?.slug).toMatchObject({ pattern: "^[a-z-]+$" });
    const steps = r.playbook?.steps as unknown as Record<string, unknown>[];
    expect(steps.map((s) => s.type)).toEqual([
      "ai",
      "branch",
      "commit",
      "pull_request",
      "investigate",
      "end",
    ]);
    expect(steps[0]).toMatchObject({
      prompt: "Write the change for {{ inputs.slug }}",
      expect_files: ["docs/{{ inputs.slug }}.md"],
    });
    expect(steps[1]).toMatchObject({
      if: '${{ (inputs.mode == "pull-request") }}',
      name: "xe/{{ inputs.slug }}",
    });
    expect(steps[3]).toMatchObject({ head: "{{ steps.work.outputs.name }}" });
    expect(steps[4]).toMatchObject({
      suggested_calls: [{ tool: "github/repo_info", run: "auto" }],
    });
    expect(steps[5]).toMatchObject({
      conclusion: "Shipped",
      advice: "Shipped {{ steps.write.outputs.text }}",
    });
    // The rule's own error code cannot be kept: said where it stands.
    const drift = r.diagnostics.find(
      (d) => d.rule === "dialect-drift" && d.message.includes("error code"),
    );
    expect(drift).toMatchObject({ line: 10, column: 9 });
  });

  it("loads a file naming an action no engine has, with a warning at its line, and a run stops there saying why", async () => {
    const { file, source } = fixture("head/tests/fixtures/playbooks/valid-minimal.yaml");
    expect(errors(file, source)).toEqual([]);
    const r = validateSource(file, source);
    const d = r.diagnostics.find((x) => x.message.includes("'custom-action'"));
    expect(d).toMatchObject({ rule: "dialect-drift", severity: "warning", line: 5, column: 5 });
    expect(r.playbook?.steps?.[0]).toMatchObject({
      type: "end",
      status: "failure",
      conclusion: "ActionNotFound",
    });
    let out = "";
    const cwd = mkdtempSync(join(tmpdir(), "pb-catalyst-missing-"));
    const code = await main(["run", join(ROOT, file), "--mode", "autonomous", "--dry-run"], {
      out: (t) => void (out += t),
      err: (t) => void (out += t),
      cwd,
    });
    rmSync(cwd, { recursive: true, force: true });
    expect(code, out).not.toBe(0);
    expect(out).toContain("ended with a failure");
    expect(out).toContain("names an action that neither Catalyst's engine nor this bot has");
  });

  it("loads Catalyst's test fixtures that its own loader accepts, and refuses its invalid one", () => {
    for (const name of ["valid-minimal", "valid-complete", "edge-cases"]) {
      const { file, source } = fixture(`head/tests/fixtures/playbooks/${name}.yaml`);
      expect(errors(file, source), name).toEqual([]);
    }
    const { file, source } = fixture("head/tests/fixtures/playbooks/invalid-schema.yaml");
    expect(errors(file, source).map((e) => e.rule)).toContain("dialect-invalid");
  });

  it("refuses conditions that call out of the expression subset, at the call, never evaluating them", () => {
    const { file, source } = fixture("2025-12-6ceab93/src/playbooks/start-blueprint.yaml");
    // Its xe:// conditions are file reads the bot makes itself: nothing is refused.
    expect(errors(file, source)).toEqual([]);
    const code = errors(
      "x.yaml",
      PLAYBOOK.replace("get('mode') == 'pull-request'", "process.exit(1)"),
    );
    const refused = code.find((d) => d.rule === "dialect-unmapped");
    expect(refused?.message).toContain("the method 'exit'");
    expect(refused?.message).toContain("outside the expression subset");
    expect(refused?.hint).toContain("includes, startsWith");
    const text = PLAYBOOK.replace("get('mode') == 'pull-request'", "process.exit(1)");
    const line = text.split("\n")[(refused?.line ?? 0) - 1];
    expect(line?.slice((refused?.column ?? 0) - 1)).toMatch(/^exit\(1\)/);
  });

  it("runs Catalyst's own structure checks at their place", () => {
    const { file, source } = fixture("head/tests/fixtures/playbooks/invalid-schema.yaml");
    expect(errors(file, source).find((d) => d.rule === "dialect-invalid")).toMatchObject({
      line: 4,
      column: 8,
      message: expect.stringContaining("at least one step"),
    });
    const noOwner = errors(
      "x.yaml",
      PLAYBOOK.replace("owner: Engineer\n", "").replace("name: ship", "owner: \nname: ship"),
    );
    expect(noOwner.some((d) => d.rule === "dialect-invalid" && d.message.includes('"owner"'))).toBe(
      true,
    );
  });

  it("refuses hostile files cleanly", () => {
    const deep = `name: deep\ndescription: d\nowner: o\nsteps:\n${"  ".repeat(0)}- if: x\n    then:\n`;
    let nested = deep;
    for (let i = 0; i < 40; i++)
      nested += `${"  ".repeat(2 * i + 3)}- if: x\n${"  ".repeat(2 * i + 4)}then:\n`;
    expect(() => validateSource("deep.yaml", nested)).not.toThrow();
    const wrong = "name: 5\ndescription: [1]\nowner: {}\nsteps: nope\ninputs: 3\n";
    const rules = errors("wrong.yaml", wrong).map((d) => d.rule);
    expect(rules).toContain("dialect-invalid");
    const huge = `name: huge\ndescription: d\nowner: o\nsteps:\n${"  - bash: echo\n".repeat(200_000)}`;
    expect(() => validateSource("huge.yaml", huge)).not.toThrow();
  });
});

describe("Catalyst's control flow and error policies", () => {
  const FLOW = `name: flow
description: Flow
owner: Engineer
inputs:
  - boolean: fast
steps:
  - if: \${{ fast }}
    then:
      - bash: make quick
        errorPolicy: continue
    else:
      - name: slow
        ai-prompt:
          prompt: Do it slowly
          verify: no-such-check
          cache: true
        errorPolicy:
          default: { action: Stop, retryCount: 2 }
`;
  it("flattens then/else into conditional steps and maps errorPolicy to on_error", () => {
    const r = validateSource("flow.yaml", FLOW);
    const steps = r.playbook?.steps as unknown as Record<string, unknown>[];
    expect(steps[0]).toMatchObject({
      type: "script",
      shell: "bash",
      run: "make quick",
      if: "${{ inputs.fast }}",
      on_error: "continue",
    });
    // The check is not registered: the error stands at the author's `verify:` value.
    expect(r.diagnostics.find((d) => d.rule === "verify-unknown")).toMatchObject({
      line: 15,
      column: 19,
    });
    expect(steps[1]).toMatchObject({
      type: "ai",
      if: '${{ (!(inputs.fast) || ["", "false", "null", "undefined"].includes((inputs.fast).trim().toLowerCase())) }}',
      cache: true,
      verify: "no-such-check",
      on_error: { default: "retry:2" },
    });
  });
});

describe("Catalyst playbooks run", () => {
  it("simulate runs the Markdown playbook start-rollout to its end", async () => {
    let out = "";
    let err = "";
    const events = join(
      ROOT,
      "test/fixtures/dialect-simulations/catalyst-start-rollout.events.yaml",
    );
    const code = await main(
      [
        "simulate",
        fixture("head/src/resources/playbooks/start-rollout.md").file,
        "--events",
        events,
      ],
      {
        out: (t) => void (out += t),
        err: (t) => void (err += t),
        cwd: ROOT,
        clock: () => new Date(FIXED_NOW),
      },
    );
    expect(code, out + err).toBe(0);
    expect(out).toContain("- [x] `run-playbook`");
    expect(out).toMatch(/Run \S+ completed\./);
  });
});

describe("Catalyst playbooks: each malformed part reported where it stands", () => {
  const pb = (body: string) =>
    validateSource("playbooks/t.yaml", `name: t\ndescription: Test.\nowner: Engineer\n${body}`);
  const messages = (r: ReturnType<typeof pb>) =>
    r.diagnostics.map((d) => `${d.rule}: ${d.message}`);

  it.each([
    ["steps: []\n", 'dialect-invalid: Playbook must have at least one step in "steps" array'],
    [
      "inputs: x\nsteps:\n  - checkpoint: Go?\n",
      "dialect-invalid: inputs must be a list of parameters",
    ],
    ["inputs: [3]\nsteps:\n  - checkpoint: Go?\n", "dialect-invalid: an input is a mapping"],
    [
      "inputs:\n  - required: true\nsteps:\n  - checkpoint: Go?\n",
      "dialect-invalid: Input parameter missing type (string, number, or boolean)",
    ],
    [
      "inputs:\n  - string: 3\nsteps:\n  - checkpoint: Go?\n",
      "dialect-invalid: an input's name is a string",
    ],
    [
      "inputs:\n  - string: who\n    validation: x\nsteps:\n  - checkpoint: Go?\n",
      "dialect-invalid: validation is a list of rules",
    ],
    [
      "inputs:\n  - string: who\n    validation: [3]\nsteps:\n  - checkpoint: Go?\n",
      "dialect-invalid: a validation rule is a mapping",
    ],
    ["steps:\n  - 3\n", "dialect-invalid: a step is a mapping with an action key"],
    [
      "steps:\n  - checkpoint: Go?\ncatch: 3\n",
      'dialect-invalid: Playbook "catch" must be an array of catch blocks',
    ],
    [
      "steps:\n  - checkpoint: Go?\ncatch:\n  - steps: []\n",
      'dialect-invalid: Catch block at index 0 is missing required "code" property',
    ],
    [
      "steps:\n  - checkpoint: Go?\ncatch:\n  - code: Oops\n",
      'dialect-invalid: Catch block "Oops" is missing required "steps" array',
    ],
    [
      "steps:\n  - checkpoint: Go?\ncatch:\n  - code: 'no way'\n    steps: []\n",
      "dialect-invalid: 'no way' is not an error code (letters and digits)",
    ],
    ["steps:\n  - checkpoint: Go?\nfinally: 3\n", 'dialect-invalid: "finally" is a list of steps'],
    [
      "triggers:\n  - event: issues\nsteps:\n  - checkpoint: Go?\n",
      "dialect-drift: the trigger 'issues' does not start this playbook: Catalyst's engine does not act on triggers, and the bot starts runs from issue labels and `/run`",
    ],
    [
      "triggers: 3\nsteps:\n  - checkpoint: Go?\n",
      "dialect-invalid: triggers is a list of {event, action}",
    ],
    [
      "triggers: [3]\nsteps:\n  - checkpoint: Go?\n",
      "dialect-invalid: a trigger is {event, action, args?}",
    ],
    [
      "resources: {paths: [a]}\nsteps:\n  - checkpoint: Go?\n",
      "dialect-unmapped: 'resources' (locks on paths and branches) has no v1 equivalent; Catalyst's YAML loader drops it too",
    ],
    [
      "steps:\n  - for-each: x\n    in: '{{a}} and {{b}}'\n    steps: [{checkpoint: Go?}]\n",
      "dialect-unmapped: for-each `in:` is one {{reference}} to a list in v1",
    ],
    [
      "inputs:\n  - string: a\nsteps:\n  - for-each: x\n    in: '{{a}}'\n",
      "dialect-invalid: for-each needs steps: [...]",
    ],
    [
      "inputs:\n  - string: a\nsteps:\n  - for-each: x\n    in: '{{a}}'\n    steps:\n      - for-each: y\n        in: '{{a}}'\n        steps: [{checkpoint: Go?}]\n",
      "dialect-unmapped: a for-each inside a for-each: v1 repeats a step over one list at a time",
    ],
    [
      "inputs:\n  - string: a\nsteps:\n  - for-each: x\n    in: '{{a}}'\n    steps:\n      - return: {code: Done}\n",
      "dialect-unmapped: a return inside a for-each: v1 ends a run from the main line only",
    ],
    [
      "inputs:\n  - string: a\nsteps:\n  - for-each: x\n    in: '{{a}}'\n    steps:\n      - playbook: child\n",
      "dialect-unmapped: a playbook started once per item of a for-each: v1 delegates to a playbook from the main line only",
    ],
    ["steps:\n  - var: 3\n  - checkpoint: Go?\n", "dialect-invalid: a variable's name is a name"],
    [
      "steps:\n  - var: a\n    value: 1\n  - var: a\n    value: 2\n  - checkpoint: Go?\n",
      "dialect-unmapped: 'a' is set again: v1 names each value once",
    ],
    [
      "steps:\n  - var: a\n    value: plain text\n  - if: ${{ get('a') == 'x' }}\n    then: [{checkpoint: Go?}]\n",
      "dialect-unmapped: 'a' is read as a value here, and 'a' is text ('plain text')",
    ],
    [
      "steps:\n  - checkpoint: 'Hi {{nobody}}'\n",
      `dialect-invalid: 'nobody' is not an input, a named step before this one, or a variable (Catalyst fails with "Variable 'nobody' is undefined")`,
    ],
    ["steps:\n  - bash: [1]\n", "dialect-invalid: a script's code is text"],
    ["steps:\n  - script: [1]\n", "dialect-invalid: a script's code is text"],
    [
      "outputs:\n  result: string\nsteps:\n  - checkpoint: Go?\n",
      "dialect-drift: output 'result' is declared with a type only; no `return` sets it, so the converted playbook has no value for it",
    ],
    [
      "steps:\n  - if: 3\n    then:\n      - checkpoint: Go?\n",
      "dialect-invalid: a condition is a string or a boolean",
    ],
  ])("%j", (body, message) => {
    expect(messages(pb(body))).toContain(message);
  });

  it("requires a name, a description and an owner", () => {
    const r = validateSource(
      "playbooks/t.yaml",
      'name: ""\ndescription: ""\nowner: x\nsteps:\n  - checkpoint: Go?\n',
    );
    expect(r.diagnostics.map((d) => d.message)).toEqual(
      expect.arrayContaining([
        'Playbook must have a non-empty "name" field',
        'Playbook must have a non-empty "description" field',
      ]),
    );
  });
});

describe("Catalyst's two generations of one playbook in one folder", () => {
  const yamlText = readFileSync(
    join(
      ROOT,
      "test/fixtures/seed-repos/catalyst/src/resources/playbooks/update-pull-request.yaml",
    ),
    "utf8",
  );
  const mdText = readFileSync(
    join(ROOT, "test/fixtures/seed-repos/catalyst/src/resources/playbooks/update-pull-request.md"),
    "utf8",
  );
  const beside = (files: Record<string, string>) => ({ read: (name: string) => files[name] });

  it("runs the YAML, as Catalyst's engine resolves <id>.yaml, and reads the Markdown with it", () => {
    expect(
      catalyst.isPart?.(
        "p/update-pull-request.md",
        beside({ "update-pull-request.yaml": yamlText }),
      ),
    ).toBe(true);
    expect(
      catalyst.isPart?.(
        "p/update-pull-request.md",
        beside({ "update-pull-request.yml": yamlText }),
      ),
    ).toBe(true);
    expect(catalyst.isPart?.("p/update-pull-request.md", beside({}))).toBe(false);
    expect(
      catalyst.isPart?.(
        "p/update-pull-request.md",
        beside({ "update-pull-request.yaml": "a: 1\n" }),
      ),
    ).toBe(false);
    expect(
      catalyst.isPart?.(
        "p/update-pull-request.yaml",
        beside({ "update-pull-request.yaml": yamlText }),
      ),
    ).toBe(false);
    const limits = DEFAULT_LIMITS;
    const loaded = catalyst.load(
      "p/update-pull-request.yaml",
      yamlText,
      beside({ "update-pull-request.md": mdText }),
      limits,
    );
    expect(
      loaded.ok &&
        loaded.problems.find((p) => p.message.includes("'update-pull-request.md' beside")),
    ).toMatchObject({
      rule: "dialect-drift",
    });
    const alone = catalyst.load(
      "p/update-pull-request.yaml",
      yamlText,
      beside({ "update-pull-request.md": "# Notes\n" }),
      limits,
    );
    expect(alone.ok && alone.problems.some((p) => p.message.includes("beside this file"))).toBe(
      false,
    );
  });
});

describe("Catalyst conditions: every form of the subset, converted to the run's references", () => {
  const withIf = (condition: string) =>
    [
      "name: forms",
      "description: d",
      "owner: o",
      "inputs:",
      "  - string: mode",
      "  - string: tags",
      "steps:",
      `  - if: ${condition}`,
      "    then:",
      "      - checkpoint: Go?",
      "",
    ].join("\n");
  const ifOf = (condition: string) =>
    (validateSource("forms.yaml", withIf(condition)).playbook?.steps?.[0] as { if?: string })?.if;

  it("keeps lists, ternaries, fields, methods and negation, each name as its reference", () => {
    expect(
      ifOf(
        `"\${{ ['a', get('mode')].includes(get('tags').split(',')[0]) ? !get('mode') : -get('tags')['x'] }}"`,
      ),
    ).toBe(
      '${{ (["a", inputs.mode].includes(inputs.tags.split(",")[0]) ? !(inputs.mode) : -(inputs.tags.x)) }}',
    );
  });

  it.each([
    "['a', get('nobody')].length",
    "get('mode')[get('nobody')]",
    "get('mode').includes(get('nobody'))",
    "!get('nobody')",
    "get('nobody') == 1",
    "get('nobody') ? 1 : 2",
  ])("refuses %s, whose name is nothing the playbook has", (condition) => {
    const r = validateSource("forms.yaml", withIf(`"\${{ ${condition} }}"`));
    expect(
      r.diagnostics.some((d) => d.severity === "error" && d.message.includes("'nobody'")),
    ).toBe(true);
  });

  it("locates a refusal at the value when the condition spans lines", () => {
    const text = withIf(">-\n      ${{ get('mode') +\n      1 }}");
    const d = validateSource("forms.yaml", text).diagnostics.find(
      (x) => x.rule === "dialect-unmapped",
    );
    expect(d?.message).toContain("the operator '+'");
    expect(d?.line).toBe(9);
  });
});

describe("Catalyst loops: a step reads an earlier step of the same loop for its item", () => {
  const loop = (read: string) =>
    [
      "name: loop-reads",
      "description: d",
      "owner: o",
      "inputs:",
      "  - string: list",
      "steps:",
      "  - for-each: x",
      '    in: "{{list}}"',
      "    steps:",
      "      - name: probe",
      "        bash: echo hi",
      read,
      "",
    ].join("\n");

  it("in a condition, with the fields of the item's entry", () => {
    const r = validateSource(
      "l.yaml",
      loop(
        `      - if: \${{ get('probe').stdout.trim() == 'hi' }}\n        then:\n          - checkpoint: Go?`,
      ),
    );
    expect(r.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const steps = r.playbook?.steps as unknown as { if?: string }[];
    expect(steps[1]?.if).toBe('${{ (steps.probe.outputs.stdout[item_index].trim() == "hi") }}');
  });

  it("in a template, as a whole entry only: a field of it is refused at its line", () => {
    const whole = validateSource("l.yaml", loop("      - checkpoint: 'Saw {{probe}}'"));
    expect(whole.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const field = validateSource(
      "l.yaml",
      loop("      - checkpoint: 'Saw {{probe.stdout.first}}'"),
    );
    expect(field.diagnostics.find((d) => d.rule === "dialect-unmapped")?.message).toContain(
      "reads a field of step 'probe' for the same item",
    );
  });
});
