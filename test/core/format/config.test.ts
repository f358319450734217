import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseConfig } from "../../../src/adapters/local/rule-config.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import { yaml } from "./helpers.js";

function errorOf(text: string): string {
  try {
    parseConfig(".playbook-bot.yml", text);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("parsed");
}

describe("parseConfig", () => {
  it("reads rule settings", () => {
    const c = parseConfig(
      "c.yml",
      "rules:\n  step-no-description: off\n  input-unused: error\n  unreachable: warning\n",
    );
    expect(c).toEqual({
      file: "c.yml",
      rules: { "step-no-description": "off", "input-unused": "error", unreachable: "warning" },
    });
    expect(parseConfig("c.yml", "")).toEqual({ file: "c.yml", rules: {} });
  });

  it("names an unknown rule with file:line:col and a suggestion", () => {
    expect(errorOf("rules:\n  step-no-descripton: off\n")).toBe(
      ".playbook-bot.yml:2:3: rules.step-no-descripton: unknown rule 'step-no-descripton' — did you mean 'step-no-description'? (see `playbook-bot rules`)",
    );
    expect(errorOf("rules:\n  zzz: off\n")).toBe(
      ".playbook-bot.yml:2:3: rules.zzz: unknown rule 'zzz' (see `playbook-bot rules`)",
    );
  });

  it("refuses a bad setting, an unknown field and wrong shapes", () => {
    expect(errorOf("rules:\n  unreachable: maybe\n")).toBe(
      ".playbook-bot.yml:2:3: rules.unreachable: 'maybe' is not a setting (expected off, warning or error)",
    );
    expect(errorOf("rules: {}\nextends: x\n")).toBe(
      ".playbook-bot.yml:2:1: extends: unknown field 'extends' (expected: rules)",
    );
    expect(errorOf("rules: [a]\n")).toBe(
      ".playbook-bot.yml:1:1: rules: rules: is a mapping of rule code to off, warning or error",
    );
    expect(errorOf("- rules\n")).toBe(
      ".playbook-bot.yml:1:1: (document): the config is a mapping with a rules: field",
    );
  });

  it("reports YAML problems with their position", () => {
    expect(errorOf("rules:\n  a: 1\n  a: 2\n")).toBe(
      ".playbook-bot.yml:3:3: key 'a' appears twice in this mapping (first at line 2, column 3)",
    );
  });
});

describe("loadConfig", () => {
  const dir = mkdtempSync(join(tmpdir(), "pbcfg-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("finds .playbook-bot.yml in a folder, or returns no rules", () => {
    expect(loadConfig(dir)).toEqual({ rules: {} });
    writeFileSync(join(dir, ".playbook-bot.yaml"), "rules: { input-unused: off }\n");
    expect(loadConfig(dir)).toEqual({
      file: join(dir, ".playbook-bot.yaml"),
      rules: { "input-unused": "off" },
    });
  });

  it("fails for an explicit file that does not exist", () => {
    expect(() => loadConfig(dir, join(dir, "nope.yml"))).toThrow(
      /^config file .*nope\.yml does not exist$/,
    );
  });
});

describe("rule settings in validation", () => {
  const text = yaml`
    apiVersion: playbook-bot/v1
    id: t
    inputs:
      unused: { type: string }
    steps:
      - id: e
        type: end
  `;

  it("reports the defaults without settings", () => {
    const ds = validateSource("pb.yaml", text).diagnostics;
    expect(ds.map((d) => [d.rule, d.severity])).toEqual([
      ["input-unused", "warning"],
      ["step-no-description", "warning"],
    ]);
  });

  it("turns rules off and raises or lowers their severity", () => {
    const ds = validateSource("pb.yaml", text, {
      rules: { "step-no-description": "off", "input-unused": "error" },
    }).diagnostics;
    expect(ds.map((d) => [d.rule, d.severity])).toEqual([["input-unused", "error"]]);
  });

  it("applies a config file's rules", () => {
    const { rules } = parseConfig(
      "c.yml",
      "rules:\n  input-unused: off\n  step-no-description: error\n",
    );
    const ds = validateSource("pb.yaml", text, { rules }).diagnostics;
    expect(ds.map((d) => [d.rule, d.severity, d.line, d.column])).toEqual([
      ["step-no-description", "error", 6, 9],
    ]);
  });

  it("applies settings to syntax problems too", () => {
    const ds = validateSource("pb.yaml", "a: 1\na: 2\n", {
      rules: { "yaml-duplicate-key": "warning" },
    }).diagnostics;
    expect(ds.map((d) => [d.rule, d.severity])).toEqual([["yaml-duplicate-key", "warning"]]);
  });

  it("checks references in the same run as the graph's errors", () => {
    const src = yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - { id: a, type: comment, name: A, body: "{{ inputs.nope }}" }
        - { id: b, type: comment, name: B, body: x, next: a }
    `;
    expect(
      validateSource("pb.yaml", src)
        .diagnostics.map((d) => d.rule)
        .sort(),
    ).toEqual(["cycle-without-limit", "template-unresolved", "terminal-missing"]);
    const fixed = src.replace(", next: a }", " }\n  - { id: e, type: end, name: E }");
    expect(validateSource("pb.yaml", fixed).diagnostics.map((d) => d.rule)).toEqual([
      "template-unresolved",
    ]);
  });
});
