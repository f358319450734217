import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseArgs } from "../../../src/core/engine/inputs.js";
import { main } from "../../../src/entries/cli/main.js";
import { localRunContext, parseAlertFile } from "../../../src/entries/cli/local-context.js";
import {
  FIXED_ID,
  FIXED_NOW,
  FIXED_TOKEN,
  branches,
  cleanup,
  git,
  makeRepo,
  runIn,
  write,
} from "../../helpers/git-repo.js";

afterEach(cleanup);
beforeEach(() => void vi.stubEnv("GITHUB_TOKEN", ""));
afterEach(() => void vi.unstubAllEnvs());

async function cli(cwd: string, argv: string[]) {
  let out = "";
  let err = "";
  const code = await main(argv, {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    cwd,
    clock: () => new Date(FIXED_NOW),
    runToken: () => FIXED_TOKEN,
  });
  return { code, out, err };
}

/** Ends with advice that shows every context value a local run can have. */
const CONTEXT = `apiVersion: playbook-bot/v1
id: context
steps:
  - id: done
    type: end
    advice: "{{ repo.full_name }} on {{ repo.default_branch }}, #{{ issue.number }} at {{ issue.url }}, run {{ run.id }} by {{ run.initiator }} ({{ run.url }})"
`;

const PAGE = `apiVersion: playbook-bot/v1
id: page
inputs:
  service: { type: string, required: true, from: labels.service }
steps:
  - id: note
    type: comment
    body: "{{ alert.title }} ({{ alert.severity }}) on {{ inputs.service }}"
  - id: done
    type: end
`;

describe("what a local run provides", () => {
  it("the repository from git, and with --issue the issue (and its URL where origin is on GitHub)", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/context.yaml", CONTEXT);
    git(repo, "remote", "add", "origin", "git@github.com:octo/shop.git");
    const r = await cli(repo, ["run", "context", "--issue", "42", "--mode", "autonomous"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      `octo/shop on main, #42 at https://github.com/octo/shop/issues/42, run ${FIXED_ID} by local-cli (https://github.com/octo/shop/issues/42)`,
    );
  });

  it("refuses context it does not have, each place at file:line:column, before any step", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/context.yaml", CONTEXT);
    const r = await cli(repo, ["run", "context", "--mode", "autonomous"]);
    expect(r.code).toBe(1);
    const line = CONTEXT.split("\n")[5] as string;
    // each reference underlined where it is written
    for (const ref of ["repo.full_name", "issue.number", "issue.url", "run.url"]) {
      const column = line.indexOf(`{{ ${ref} }}`) + 1;
      expect(r.err).toContain(
        `.github/playbooks/context.yaml:6:${column}: steps[0].advice: '{{ ${ref} }}' has no value in a local run`,
      );
    }
    expect(r.err).not.toContain("repo.default_branch }}' has no value");
    expect(r.err).toContain("repo.owner and repo.full_name need an origin on GitHub");
    expect(r.err).toContain("4 errors and 0 warnings in 1 file");
    expect(r.out).toBe("");
    expect(existsSync(join(repo, ".playbook-runs"))).toBe(false);
  });

  it("takes an alert from --alert: its fields for alert.*, its labels for inputs from: labels.*", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/page.yaml", PAGE);
    write(repo, "alert.yaml", "title: Disk full\nseverity: warning\nlabels: { service: db }\n");
    const r = await cli(repo, ["run", "page", "--alert", "alert.yaml", "--mode", "autonomous"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    // severities are read onto one scale, as the app reads an alert's
    expect(r.out).toContain("Disk full (medium) on db");
  });

  it("says where an --alert file is wrong, and that a missing one is missing", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/page.yaml", PAGE);
    write(repo, "bad.yaml", "title: Disk full\nlabels:\n  service: 3\n");
    const bad = await cli(repo, ["run", "page", "--alert", "bad.yaml"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^playbook-bot: bad\.yaml:3:12: labels\.service: must be string/);
    const missing = await cli(repo, ["run", "page", "--alert", "nope.yaml"]);
    expect(missing.code).toBe(1);
    expect(missing.err).toBe("playbook-bot: --alert nope.yaml: no such file\n");
    expect(() => parseAlertFile("a.yaml", "title: x\ncolour: red\n")).toThrow(
      /^a\.yaml:1:1: \(document\): must NOT have additional properties \('colour'\)/,
    );
    expect(branches(repo)).toEqual(["main"]);
  });

  it("--issue takes a whole number from 1", async () => {
    const repo = makeRepo();
    for (const bad of ["0", "-3", "7a", "1.5"]) {
      const r = await cli(repo, ["run", "hello-world", `--issue=${bad}`]);
      expect(r.code, bad).toBe(2);
      expect(r.err).toContain(`--issue ${bad}: an issue number is a whole number from 1`);
    }
  });

  it("makes nothing up: no issue, alert, owner or URL unless there is one", () => {
    const repo = makeRepo();
    git(repo, "checkout", "-q", "--detach");
    const { context, sources } = localRunContext({ repo });
    expect(context).toEqual({ repo: { name: repo.split("/").pop() } });
    expect(sources).toEqual({});
  });
});

describe("inputs on the command line", () => {
  it("takes each argument whole: a quoted value keeps its spaces", async () => {
    const repo = makeRepo();
    const r = await runIn(repo, "hello-world", ["name=Ada Lovelace"], { mode: "autonomous" });
    expect(r.code).toBe(0);
    expect(r.out).toContain("Write a greeting for ada-lovelace on a new branch?");
    expect(branches(repo)).toContain(`playbook/hello-ada-lovelace-${FIXED_ID}`);
  });

  it("keeps quotes and '=' inside a value as typed", async () => {
    const repo = makeRepo();
    write(
      repo,
      ".github/playbooks/echo.yaml",
      `apiVersion: playbook-bot/v1
id: echo
inputs:
  a: { type: string, required: true }
steps:
  - id: done
    type: end
    advice: "[{{ inputs.a }}]"
`,
    );
    const r = await runIn(repo, "echo", [`a=My "Big" Feature=yes`], { mode: "autonomous" });
    expect(r.code).toBe(0);
    expect(r.out).toContain(`[My "Big" Feature=yes]`);
  });

  it("refuses a word that is not key=value instead of dropping it", async () => {
    const repo = makeRepo();
    const r = await runIn(repo, "hello-world", ["name=Ada", "Lovelace"], { mode: "autonomous" });
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      "playbook-bot: 'Lovelace' is not an input: write key=value (quote a value with spaces: 'title=My Feature')\n",
    );
    expect(branches(repo)).toEqual(["main"]);
  });

  it("leaves /run in comments to its own quoting: double or single quotes group words", () => {
    expect(parseArgs(`hello name="Ada Lovelace" note='a b'`)).toEqual({
      positional: ["hello"],
      values: { name: "Ada Lovelace", note: "a b" },
      text: `hello name="Ada Lovelace" note='a b'`,
    });
    expect(parseArgs("hello name=Ada Lovelace")).toEqual({
      positional: ["hello", "Lovelace"],
      values: { name: "Ada" },
      text: "hello name=Ada Lovelace",
    });
  });
});
