import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeGitHub } from "../../helpers/fake-github.js";
import { readStatusComment } from "../../../src/runtime/run-service/status-comment.js";
import { repositoryStateKey } from "../../../src/runtime/state-codec.js";
import { BRANCH, EXAMPLE_REPO, example, makeClock } from "../app/harness.js";

/**
 * Attacks on the Actions runtime as a runner runs it: the bundled `dist/action/index.js` in a
 * child process, `mode: bot`, against a GitHub API served on loopback (as in bot.test.ts).
 */
const BUNDLE = resolve(__dirname, "../../../dist/action/index.js");
const SECRET = "a-repository-secret-of-some-length";

/** Only admins may run it; its branch step fails while GitHub refuses new refs. */
const ROTATE = `apiVersion: playbook-bot/v1
id: rotate
name: Rotate
description: Makes a branch with the rotated credentials.
permissions: { run: admin }
steps:
  - id: branch
    type: branch
    name: playbook/rotate-{{ issue.number }}
  - id: done
    type: end
    status: success
`;

/** Anyone may run it. */
const HELLO = `apiVersion: playbook-bot/v1
id: hello
name: Hello
description: Says hello.
permissions: { run: read }
steps:
  - id: say
    type: comment
    body: Hello.
  - id: done
    type: end
    status: success
`;

describe("mode: bot under attack", () => {
  let fake: FakeGitHub;
  let api: { url: string; close: () => Promise<void> };
  let dir: string;
  let runs = 0;

  beforeAll(async () => {
    fake = new FakeGitHub({
      ...EXAMPLE_REPO,
      appId: 15368,
      appSlug: "github-actions",
      clock: makeClock(new Date(Date.now() - 3_600_000).toISOString()),
      files: {
        ".github/playbooks/rotate.yaml": ROTATE,
        ".github/playbooks/hello.yaml": HELLO,
      },
    });
    for (const [who, role] of [
      ["ada", "admin"],
      ["tom", "triage"],
      ["bob", "read"],
      ["github-actions[bot]", "write"],
    ])
      fake.permissions.set(who as string, role as string);
    api = await fake.serve();
    dir = mkdtempSync(join(tmpdir(), "pb-bot-attacks-"));
  });
  afterAll(async () => {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function runAction(eventName: string, payload: unknown): Promise<{ code: number; out: string }> {
    const eventPath = join(dir, `event-${++runs}.json`);
    writeFileSync(eventPath, JSON.stringify(payload));
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      GITHUB_ACTIONS: "true",
      GITHUB_EVENT_NAME: eventName,
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_API_URL: api.url,
      GITHUB_REPOSITORY: `${fake.owner}/${fake.name}`,
      GITHUB_RUN_ID: String(9000 + runs),
      GITHUB_RUN_ATTEMPT: "1",
      GITHUB_OUTPUT: join(dir, "output"),
      GITHUB_STEP_SUMMARY: join(dir, "summary"),
      PLAYBOOK_THROTTLE: "off",
      INPUT_MODE: "bot",
      INPUT_TOKEN: "ghs_workflowtoken",
      "INPUT_STATE-SECRET": SECRET,
    };
    return new Promise((done, fail) => {
      const child = spawn(process.execPath, [BUNDLE], { env, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout.on("data", (c: Buffer) => (out += c.toString()));
      child.stderr.on("data", (c: Buffer) => (out += c.toString()));
      child.on("error", fail);
      child.on("close", (code) => done({ code: code ?? -1, out }));
    });
  }

  const issuePayload = (n: number) => ({
    ...example("issues", "opened").issue,
    ...fake.restIssue(fake.issues.get(n)!),
  });
  const repository = () => ({ ...example("issues", "labeled").repository, default_branch: BRANCH });
  function labeled(n: number, label: string, by: string) {
    const p = example("issues", "labeled");
    delete p.installation;
    return {
      ...p,
      issue: issuePayload(n),
      label: { ...p.label, name: label },
      sender: fake.user(by),
      repository: repository(),
    };
  }
  function commented(id: number) {
    const p = example("issue_comment", "created");
    delete p.installation;
    const c = fake.comments.get(id)!;
    return {
      ...p,
      issue: issuePayload(c.issue),
      comment: { ...p.comment, ...fake.restComment(c) },
      sender: c.user,
      repository: repository(),
    };
  }
  const statuses = (issue: number) =>
    fake.statusComments(issue).map((c) => {
      const key = repositoryStateKey(SECRET, 0, Number(repository().id));
      const read = readStatusComment(c.body, { key, issue, comment: String(c.id) });
      return read.ok ? read.run : undefined;
    });
  const comment = async (issue: number, who: string, body: string) => {
    const c = fake.postAs(issue, who, body);
    const r = await runAction("issue_comment", commented(c.id));
    expect(r.code).toBe(0);
    return c;
  };

  it("a triage user's /retry of an admin's failed admin-only run is refused; the admin's goes on", async () => {
    const issue = fake.openIssue("rotate", "", "ada");
    fake.fault = ({ method, path }) =>
      method === "POST" && path.includes("/git/refs") ? { status: 404 } : undefined;
    await comment(issue.number, "ada", "/run rotate");
    fake.fault = undefined;
    expect(statuses(issue.number)[0]?.status).toBe("failed");
    const retry = await comment(issue.number, "tom", "/retry");
    expect(fake.branches()).not.toContain(`playbook/rotate-${issue.number}`);
    expect(fake.reactions.filter((r) => r.commentId === retry.id).map((r) => r.content)).toContain(
      "-1",
    );
    await comment(issue.number, "ada", "/retry");
    expect(fake.branches()).toContain(`playbook/rotate-${issue.number}`);
    expect(statuses(issue.number)[0]?.status).toBe("completed");
  }, 60_000);

  it("an outsider's comment of ten /run lines starts one run", async () => {
    const issue = fake.openIssue("hello", "", "bob");
    await comment(issue.number, "bob", Array.from({ length: 10 }, () => "/run hello").join("\n"));
    expect(statuses(issue.number)).toHaveLength(1);
  }, 60_000);

  it("an issue opened with a playbook's label starts it once: the opening's run and the label's run", async () => {
    const issue = fake.openIssue("from a form", "", "ada", ["playbook:hello"]);
    const p = example("issues", "opened");
    delete p.installation;
    const opened = {
      ...p,
      issue: issuePayload(issue.number),
      sender: fake.user("ada"),
      repository: repository(),
    };
    expect((await runAction("issues", opened)).code).toBe(0);
    expect((await runAction("issues", labeled(issue.number, "playbook:hello", "ada"))).code).toBe(
      0,
    );
    expect(fake.statusComments(issue.number)).toHaveLength(1);
  }, 60_000);

  it("a label or a /run written with a workflow's token (github-actions[bot]) starts nothing", async () => {
    const issue = fake.openIssue("by a workflow", "", "tom");
    fake.labelAs(issue.number, "playbook:rotate", "github-actions[bot]");
    const r = await runAction(
      "issues",
      labeled(issue.number, "playbook:rotate", "github-actions[bot]"),
    );
    expect(r.code).toBe(0);
    await comment(issue.number, "github-actions[bot]", "/run hello");
    expect(fake.statusComments(issue.number)).toEqual([]);
    expect(fake.branches()).not.toContain(`playbook/rotate-${issue.number}`);
  }, 60_000);
});
