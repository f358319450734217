import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledBot } from "../../helpers/bundled-bot.js";
import { FakeGitHub } from "../../helpers/fake-github.js";
import { EXAMPLE_REPO, makeClock } from "../app/harness.js";

/**
 * Attacks on the Actions runtime as a runner runs it: the bundled `dist/action/index.js` in a
 * child process, `mode: bot`, against a GitHub API served on loopback (test/helpers/bundled-bot.ts).
 */
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
  const bot = bundledBot(() => fake);

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
      ["wes", "write"],
      ["github-actions[bot]", "write"],
    ])
      fake.permissions.set(who as string, role as string);
    await bot.start();
  });
  afterAll(() => bot.close());
  const { runAction, labeled, commented, opened, statuses } = bot;
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
    expect((await runAction("issues", opened(issue.number, "ada"))).code).toBe(0);
    expect((await runAction("issues", labeled(issue.number, "playbook:hello", "ada"))).code).toBe(
      0,
    );
    expect(fake.statusComments(issue.number)).toHaveLength(1);
  }, 60_000);

  it("a /run whose answer GitHub would refuse as too long does not fail every later workflow run", async () => {
    const issue = fake.openIssue("long", "", "wes");
    // GitHub refuses a comment body past 65,536 characters.
    fake.fault = ({ method, path, body }) =>
      method === "POST" &&
      path.endsWith("/comments") &&
      String((body as { body?: string } | undefined)?.body ?? "").length > 65_536
        ? { status: 422, body: { message: "Validation Failed" } }
        : undefined;
    try {
      const line = `/run hello ${Array.from({ length: 3000 }, (_, i) => `k${i}=v`).join(" ")}`;
      const asked = await comment(issue.number, "wes", line);
      expect(fake.reactions.filter((r) => r.commentId === asked.id).map((r) => r.content)).toEqual([
        "eyes",
        "-1",
      ]);
      // The next workflow run replays nothing left unanswered: a /run starts.
      await comment(issue.number, "tom", "/run hello");
      expect(statuses(issue.number)).toHaveLength(1);
    } finally {
      fake.fault = undefined;
    }
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
