import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RULE_CODES } from "../../../src/core/rules/catalogue.js";
import { PLAYBOOK_SCHEMA } from "../../../src/core/format/schema.js";
import { HOSTILE, workflowCommands } from "../../helpers/workflow-commands.js";
import { cliIn } from "../../helpers/cli.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

const cli = cliIn;

const VALID = `apiVersion: playbook-bot/v1
id: hello
description: Says hello.
steps:
  - id: greet
    type: comment
    description: Greet the thread.
    body: Hello from {{ run.id }}
  - id: done
    type: end
    description: Finish.
`;

const BROKEN = `apiVersion: playbook-bot/v1
id: broken
steps:
  - id: first
    type: comit
    description: A typo in the kind.
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pb-cli-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(rel: string, text: string): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
}

describe("playbook-bot validate", () => {
  it("accepts the bundled library", async () => {
    const r = await cli(["validate", join(root, "playbooks")], root);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^\d+ playbooks valid\n$/);
  });

  it("reports an invalid playbook with its position, source line and hint, and exits 1", async () => {
    write("playbooks/good.yaml", VALID);
    write("playbooks/bad.yaml", BROKEN);
    const r = await cli(["validate", "playbooks"], dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      "playbooks/bad.yaml:5:11: steps[0].type: unknown step kind 'comit' (expected one of: ai, branch, checkpoint, close, comment, commit, decide, dispatch, end, investigate, issue, label, parallel, playbook, pull_request, script) — did you mean 'commit'? [schema-step-type]",
    );
    expect(r.out).toContain("5 |     type: comit\n  |           ^~~~~\n");
    expect(r.out).toContain("  = hint: write 'commit'\n");
    expect(r.out).toMatch(/1 error and 0 warnings in 2 files \(1 invalid\)\n$/);
  });

  it("finds .github/playbooks and playbooks by default", async () => {
    write(".github/playbooks/hello.yaml", VALID);
    write("playbooks/other.yml", VALID.replace("id: hello", "id: other"));
    const r = await cli(["validate", "--format", "json"], dir);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out) as { files: { file: string; id: string }[] };
    expect(json.files.map((f) => [f.file, f.id])).toEqual([
      [".github/playbooks/hello.yaml", "hello"],
      ["playbooks/other.yml", "other"],
    ]);
  });

  it("expands globs", async () => {
    write("a/one.yaml", VALID);
    write("b/two.yaml", BROKEN);
    const r = await cli(["validate", "a/*.yaml"], dir);
    expect(r.code).toBe(0);
    expect(r.out).toBe("1 playbook valid\n");
  });

  it("prints JSON with every diagnostic", async () => {
    write("bad.yaml", BROKEN);
    const r = await cli(["validate", "bad.yaml", "-f", "json"], dir);
    expect(r.code).toBe(1);
    const json = JSON.parse(r.out) as {
      valid: boolean;
      errors: number;
      files: { valid: boolean; diagnostics: { rule: string; line: number; column: number }[] }[];
    };
    expect(json.valid).toBe(false);
    expect(json.errors).toBe(1);
    expect(json.files[0]?.diagnostics[0]).toMatchObject({
      rule: "schema-step-type",
      line: 5,
      column: 11,
    });
  });

  it("prints GitHub workflow commands", async () => {
    write("bad.yaml", BROKEN);
    const r = await cli(["validate", "bad.yaml", "--format", "github"], dir);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /^::error title=schema-step-type,file=bad\.yaml,line=5,endLine=5,col=11,endColumn=16::steps\[0\]\.type: unknown step kind 'comit'.*%0Awrite 'commit'\n$/,
    );
  });

  it("prints only the annotations it means, whatever a playbook or its name contains", async () => {
    const file = "::add-mask::secret%0A,x.yaml";
    const q = (v: string) => JSON.stringify(v);
    write(
      file,
      `apiVersion: playbook-bot/v1
id: hostile
steps:
  - id: first
    type: ${q(`comit${HOSTILE.warning}`)}
  - id: second
    type: comment
    body: hi
    next: ${q(`nowhere${HOSTILE.cr}`)}
  - id: ${q(`${HOSTILE.mask} ${HOSTILE.v1}`)}
    type: comment
    body: ${q(HOSTILE.escaped)}
`,
    );
    const r = await cli(["validate", file, "--format", "github"], dir);
    expect(r.code).toBe(1);
    const commands = workflowCommands(r.out);
    expect(commands.length).toBeGreaterThanOrEqual(3);
    expect(commands.map((c) => [c.form, c.properties.file])).toEqual(
      commands.map(() => ["::", file]),
    );
    expect(commands.filter((c) => c.name !== "error" && c.name !== "warning")).toEqual([]);
    expect(r.out.split("\n").filter(Boolean)).toHaveLength(commands.length);
    const data = commands.map((c) => c.data).join("\n");
    for (const value of [`comit${HOSTILE.warning}`, `nowhere${HOSTILE.cr}`, HOSTILE.mask])
      expect(data).toContain(value);
  });

  it("prints SARIF 2.1.0", async () => {
    write("bad.yaml", BROKEN);
    const r = await cli(["validate", "bad.yaml", "--format", "sarif"], dir);
    const sarif = JSON.parse(r.out) as {
      version: string;
      runs: {
        tool: { driver: { rules: { id: string }[] } };
        results: { ruleId: string; locations: { physicalLocation: { region: unknown } }[] }[];
      }[];
    };
    expect(sarif.version).toBe("2.1.0");
    // Every rule is described, whether or not this run found it (code scanning expects the same rules each run).
    expect(sarif.runs[0]?.tool.driver.rules.map((x) => x.id)).toEqual(RULE_CODES);
    expect(sarif.runs[0]?.results.map((x) => x.ruleId)).toEqual(["schema-step-type"]);
    expect(sarif.runs[0]?.results[0]?.locations[0]?.physicalLocation.region).toEqual({
      startLine: 5,
      startColumn: 11,
      endLine: 5,
      endColumn: 16,
    });
  });

  it("exits 2 when a named path does not exist", async () => {
    const r = await cli(["validate", "nowhere"], dir);
    expect(r.code).toBe(2);
    expect(r.err).toBe("playbook-bot: nowhere: no such file or folder\n");
  });

  it("exits 2 when there is nothing to validate", async () => {
    const r = await cli(["validate"], dir);
    expect(r.code).toBe(2);
    expect(r.err).toContain("no playbook files found: looked in .github/playbooks and playbooks");
  });

  it("resolves handoff targets against the bundled library unless told not to", async () => {
    write(
      "playbooks/p.yaml",
      VALID.replace("    type: end\n", "    type: end\n    handoff: [storage-investigation]\n"),
    );
    expect((await cli(["validate"], dir)).code).toBe(0);
    const r = await cli(["validate", "--no-library"], dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain("no playbook has id 'storage-investigation' [set-unresolved-playbook]");
  });

  it("applies the config file's rule settings", async () => {
    write("playbooks/p.yaml", VALID.replace("    description: Finish.\n", ""));
    expect((await cli(["validate"], dir)).out).toContain("[step-no-description]");
    write(".playbook-bot.yml", "rules:\n  step-no-description: off\n");
    expect((await cli(["validate"], dir)).out).toBe("1 playbook valid\n");
    write(".playbook-bot.yml", "rules:\n  step-no-description: error\n");
    expect((await cli(["validate"], dir)).code).toBe(1);
  });

  it("rejects a config file with an unknown rule, naming its line", async () => {
    write("playbooks/p.yaml", VALID);
    write("custom.yml", "rules:\n  step-no-descripton: off\n");
    const r = await cli(["validate", "--config", "custom.yml"], dir);
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      "custom.yml:2:3: rules.step-no-descripton: unknown rule 'step-no-descripton' — did you mean 'step-no-description'?",
    );
  });
});

describe("playbook-bot graph, schema, rules", () => {
  it("draws a playbook as a Mermaid flowchart with the current step marked", async () => {
    const r = await cli(["graph", "playbooks/dependency-bump.yaml", "--current", "commit"], root);
    expect(r.code).toBe(0);
    expect(r.out.split("\n")[0]).toBe("flowchart TD");
    expect(r.out).toContain("  s_approve_plan --> s_branch\n");
    expect(r.out).toContain("  class s_commit current\n");
  });

  it("refuses to draw an invalid playbook and shows why", async () => {
    write("bad.yaml", BROKEN);
    const r = await cli(["graph", "bad.yaml"], dir);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toContain("[schema-step-type]");
  });

  it("prints the schema, identical to the committed editor schema", async () => {
    const r = await cli(["schema"], root);
    expect(JSON.parse(r.out)).toEqual(PLAYBOOK_SCHEMA);
    expect(readFileSync(join(root, "schema", "playbook.v1.schema.json"), "utf8")).toBe(r.out);
  });

  it("lists every rule", async () => {
    const r = await cli(["rules"], root);
    expect(
      r.out
        .trim()
        .split("\n")
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(RULE_CODES);
  });

  it("exits 2 on an unknown command", async () => {
    const r = await cli(["valdate"], dir);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown command 'valdate'");
  });
});

describe("the installed command", () => {
  it("runs from bin/ with the exit code of the result", () => {
    const bin = join(root, "bin", "playbook-bot.js");
    expect(
      execFileSync(process.execPath, [bin, "validate", "playbooks"], {
        cwd: root,
        encoding: "utf8",
      }),
    ).toMatch(/playbooks valid/);
    write("bad.yaml", BROKEN);
    const r = spawnSync(process.execPath, [bin, "validate", "bad.yaml"], {
      cwd: dir,
      encoding: "utf8",
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("[schema-step-type]");
  });
});
