/**
 * Catalyst's own engine tests (Xerilium/catalyst at 297103f: the template engine's expression
 * cases, the if action's cases, the loop e2e cases), each turned into a Catalyst playbook and run
 * through our loader and engine. Inputs and expected outcomes are theirs; where we differ, the
 * case says so and docs/dialects/conformance-catalyst.md says why.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Scalar } from "../../../src/core/engine/state.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import { Driver, bundle } from "../../core/engine/helpers.js";

/** A Catalyst playbook whose `if` shows which branch ran, with string inputs. */
function branchPlaybook(condition: string, inputs: string[], withElse = true): string {
  return [
    "name: conformance-case",
    "description: One case of Catalyst's engine tests",
    "owner: Engineer",
    ...(inputs.length ? ["inputs:", ...inputs.map((i) => `  - string: ${i}`)] : []),
    "steps:",
    `  - if: ${condition}`,
    "    then:",
    '      - display: "then"',
    ...(withElse ? ["    else:", '      - display: "else"'] : []),
    '  - display: "after"',
    "",
  ].join("\n");
}

/** Runs a playbook to its end, answering each comment; the bodies, in order, and the status. */
function run(
  text: string,
  inputs: Record<string, Scalar> = {},
): { said: string[]; status: string } {
  const d = new Driver(bundle(text));
  d.start(inputs);
  const said: string[] = [];
  for (let i = 0; i < 50 && d.run.status === "running"; i++) {
    const r = d.last.continue ? d.cont() : d.last;
    if (r.effects.length === 0 && !r.continue) break;
    for (const e of r.effects) {
      said.push(String((e.params as { body?: string }).body ?? e.kind));
      d.answer({ id: `c${i}`, url: `u${i}` }, e.key);
    }
  }
  return { said, status: d.run.status };
}

const errorsOf = (text: string) =>
  validateSource("case.yaml", text)
    .diagnostics.filter((d) => d.severity === "error")
    .map((d) => `${d.rule}: ${d.message}`);

describe("Catalyst's template engine: ${{ }} expressions", () => {
  it("a comparison of a value (value 15 > 10 is true)", () => {
    const r = run(branchPlaybook(`\${{ get('value') > 10 }}`, ["value"]), { value: "15" });
    expect(r.said).toEqual(["then", "after"]);
  });

  it("a statement instead of an expression is refused (Catalyst throws; here, at load)", () => {
    expect(errorsOf(branchPlaybook("${{ var x = 5; x }}", []))).toEqual([
      expect.stringContaining("outside the expression subset"),
    ]);
  });

  // Differences: arithmetic, concatenation and module functions are outside the subset.
  it.each([
    ["${{ get('x') + get('y') }}", "the operator '+'"],
    ["${{ get('first') + ' ' + get('last') }}", "the operator '+'"],
    ["${{ get('a') * get('b') }}", "the operator '*'"],
    ["${{ double(get('value')) }}", "a call of the function 'double'"],
    ["${{ logs().length }}", "a call of the function 'logs'"],
  ])("differs: %s is refused where Catalyst evaluates it", (condition, what) => {
    const inputs = ["x", "y", "first", "last", "a", "b", "value"];
    const errors = errorsOf(branchPlaybook(condition, inputs));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(what);
  });
});

describe("Catalyst's if action", () => {
  it.each([
    ["'true'", ["then", "after"]],
    ["'false'", ["else", "after"]],
    ["'some value'", ["then", "after"]],
    ["'0'", ["then", "after"]],
    ["'FALSE'", ["else", "after"]],
    ["'null'", ["else", "after"]],
  ])("the condition %s runs %j", (condition, said) => {
    expect(run(branchPlaybook(condition, [])).said).toEqual(said);
  });

  it.each([
    ["false", ["else", "after"]],
    [" FALSE ", ["else", "after"]],
    ["undefined", ["else", "after"]],
    ["yes", ["then", "after"]],
  ])("a ${{ get('flag') }} whose value is the text %j runs %j", (flag, said) => {
    const text = branchPlaybook("${{ get('flag') }}", ["flag"]);
    expect(run(text, { flag }).said).toEqual(said);
  });

  it("an if inside an else, when the outer value is the text 'false'", () => {
    const text = branchPlaybook("${{ get('flag') }}", ["flag"]).replace(
      '      - display: "else"\n',
      '      - display: "else"\n      - if: ${{ get(\'flag\') }}\n        then:\n          - display: "never"\n        else:\n          - display: "inner else"\n',
    );
    expect(run(text, { flag: "false" }).said).toEqual(["else", "inner else", "after"]);
  });

  it("an empty condition is refused (Catalyst: the condition is required)", () => {
    expect(errorsOf(branchPlaybook("''", []))).toEqual([
      expect.stringContaining("a condition is not empty"),
    ]);
  });

  it("a false condition without else runs neither branch and goes on", () => {
    expect(run(branchPlaybook("'false'", [], false)).said).toEqual(["after"]);
  });

  it("an if inside a then branch runs when both are true", () => {
    const text = branchPlaybook("'true'", []).replace(
      '      - display: "then"\n',
      '      - display: "then"\n      - if: \'true\'\n        then:\n          - display: "inner"\n',
    );
    expect(run(text).said).toEqual(["then", "inner", "after"]);
  });
});

describe("Catalyst's loop e2e cases (for-each with its item in templates and conditions)", () => {
  const loop = (body: string[]) =>
    [
      "name: loop-case",
      "description: A loop of Catalyst's e2e tests",
      "owner: test",
      "inputs:",
      "  - string: list",
      "steps:",
      "  - for-each: value",
      '    in: "{{list}}"',
      "    index: idx",
      "    steps:",
      ...body,
      "  - return:",
      "      done: true",
      "",
    ].join("\n");

  it("reads the item and its index in a message", () => {
    const text = loop(['      - display: "Fruit at {{idx}}: {{value}}"']);
    expect(run(text, { list: "apple, banana" }).said).toEqual([
      "Fruit at 0: apple",
      "Fruit at 1: banana",
    ]);
  });

  it("tests each item in a condition: only the matching item says so", () => {
    const text = loop([
      `      - if: '\${{ get("value") === "match" }}'`,
      "        then:",
      '          - display: "Found: {{value}}"',
    ]);
    const r = run(text, { list: "skip, match, skip" });
    expect(r.said).toEqual(["Found: match"]);
    expect(r.status).toBe("completed");
  });
});

describe("Catalyst's real test fixtures, run to the terminal its engine reaches", () => {
  const FIXTURES = join(
    import.meta.dirname,
    "../../fixtures/seed-repos/catalyst/tests/fixtures/playbooks",
  );

  // Catalyst's loader accepts them; its engine stops at the first step, whose action it does
  // not have (ActionNotFound). So does a run here, saying why, with nothing done before.
  it.each(["valid-minimal.yaml", "edge-cases.yaml"])(
    "%s stops failed at its first step",
    (name) => {
      const d = new Driver(bundle(readFileSync(join(FIXTURES, name), "utf8")));
      d.start();
      for (let i = 0; i < 5 && d.run.status === "running" && d.last.continue; i++) d.cont();
      expect(d.run.status).toBe("failed");
      const first = Object.entries(d.frame.results);
      expect(first).toHaveLength(1);
      expect(first[0]?.[1]?.status).toBe("completed");
      expect(JSON.stringify(d.run)).toContain("ActionNotFound");
    },
  );
});
