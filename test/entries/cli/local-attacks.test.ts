import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, cleanup, makeDir } from "../../helpers/git-repo.js";
import { ACTION_BUNDLE, pushRunnerEnv, spawned } from "../../helpers/spawned.js";
import { workflowCommands } from "../../helpers/workflow-commands.js";

/**
 * Attacks on the local hosts through their built entries: a playbook's input names that are
 * also names of every JavaScript object's prototype, a playbook's id carrying terminal
 * sequences into the annotations of `validate --format github` and the bundled Action, and a
 * link planted where a report is written.
 */

afterEach(cleanup);

/** The built CLI or the bundled Action, with no token. */
const run = (args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) =>
  spawned(args, cwd, { GITHUB_TOKEN: "", ...env }, 20_000);

const INHERITED = `apiVersion: playbook-bot/v1
id: inherited
description: Inputs named as an object's own methods.
inputs:
  constructor:
    type: string
    default: plain
    description: A default, not Object.
  toString:
    type: string
    default: "{{ inputs.constructor }}"
    description: Another input's value.
steps:
  - id: say
    type: comment
    description: Say them.
    body: "c=[{{ inputs.constructor }}] t=[{{ inputs.toString }}]"
  - id: done
    type: end
    description: Done.
`;

describe("`playbook-bot run` takes only the inputs given", () => {
  it("an input named constructor or toString inherits nothing, and __proto__= is an unknown input", async () => {
    const dir = makeDir("pb-inherited-");
    writeFileSync(join(dir, "inherited.yaml"), INHERITED);
    const ok = await run([BIN, "run", "inherited.yaml", "--scratch", "--mode", "autonomous"], dir);
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toContain("c=[plain] t=[plain]");
    expect(ok.out).not.toContain("native code");

    const proto = await run(
      [BIN, "run", "inherited.yaml", "--scratch", "--mode", "autonomous", "__proto__=x"],
      dir,
    );
    expect(proto.code, proto.out).toBe(1);
    expect(proto.out).toContain("unknown input '__proto__'");
  }, 45_000);
});

const ESCAPES = `apiVersion: playbook-bot/v1
id: "evil\\e[2J\\e]52;c;cHduZWQ=\\a"
description: An id with terminal sequences.
steps:
  - id: done
    type: end
    description: Nothing.
    next: "nowhere\\e[31m\\n::error::injected"
`;

describe("annotations carry no terminal sequence", () => {
  it("validate --format github and the bundled Action show control characters as escapes", async () => {
    const repo = makeDir("pb-escapes-");
    mkdirSync(join(repo, ".github", "playbooks"), { recursive: true });
    writeFileSync(join(repo, ".github", "playbooks", "evil.yaml"), ESCAPES);

    const cli = await run([BIN, "validate", "--format", "github"], repo);
    expect(cli.code, cli.out).toBe(1);

    const action = await run([ACTION_BUNDLE], repo, pushRunnerEnv(repo));
    expect(action.code, action.out).toBe(1);

    for (const out of [cli.out, action.out]) {
      expect(out).not.toContain("\u001b");
      expect(out).not.toContain("\u0007");
      const commands = workflowCommands(out);
      const ids = commands.filter((c) => c.properties.title === "id-format");
      expect(ids.map((c) => c.data.split("\n")[0])).toEqual([
        "id: 'evil\\u001b[2J\\u001b]52;c;cHduZWQ=\\u0007' is not a valid id",
        "steps[0].next: 'nowhere\\u001b[31m",
      ]);
      expect(commands.filter((c) => c.data.startsWith("injected"))).toEqual([]);
    }
  }, 45_000);
});

describe("a report is never written through a link planted at its name", () => {
  it("validate -o, test -o and the bundled Action's sarif-file refuse the link and leave its target alone", async () => {
    const outside = makeDir("pb-outside-");
    const victim = join(outside, "later-step.sh");
    writeFileSync(victim, "echo the script a later step runs\n");
    const repo = makeDir("pb-planted-");
    mkdirSync(join(repo, ".github", "playbooks"), { recursive: true });
    writeFileSync(join(repo, ".github", "playbooks", "evil.yaml"), ESCAPES);
    // As a fork's checkout brings them: a link at the report's name, and a folder linked out.
    symlinkSync(victim, join(repo, "results.sarif"));
    symlinkSync(outside, join(repo, "reports"));

    const sarif = await run([BIN, "validate", "-f", "sarif", "-o", "results.sarif"], repo);
    expect(sarif.code, sarif.out).toBe(2);
    expect(sarif.out).toContain("results.sarif is a symbolic link");
    const junit = await run(
      [BIN, "test", ".github/playbooks", "--format", "junit", "-o", "results.sarif"],
      repo,
    );
    expect(junit.out).toContain("results.sarif is a symbolic link");

    const output = join(repo, "..", "output");
    writeFileSync(output, "");
    const env = {
      GITHUB_ACTIONS: "true",
      GITHUB_EVENT_NAME: "workflow_dispatch",
      GITHUB_WORKSPACE: repo,
      GITHUB_OUTPUT: output,
      GITHUB_REPOSITORY: "octo/playbooks",
      INPUT_TOKEN: "",
    };
    const linked = await run([ACTION_BUNDLE], repo, {
      ...env,
      "INPUT_SARIF-FILE": "results.sarif",
    });
    expect(linked.out).toContain("results.sarif is a symbolic link");
    const outFolder = await run([ACTION_BUNDLE], repo, {
      ...env,
      "INPUT_SARIF-FILE": "reports/x.sarif",
    });
    expect(outFolder.out).toContain("its folder resolves outside");

    expect(readFileSync(victim, "utf8")).toBe("echo the script a later step runs\n");
    expect(lstatSync(join(outside, "x.sarif"), { throwIfNoEntry: false })).toBeUndefined();
    // Named plainly, the report is written.
    const plain = await run([BIN, "validate", "-f", "sarif", "-o", "out/results.sarif"], repo);
    expect(plain.code, plain.out).toBe(1);
    expect(JSON.parse(readFileSync(join(repo, "out", "results.sarif"), "utf8"))).toMatchObject({
      version: "2.1.0",
    });
  }, 60_000);
});
