import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readStatusComment } from "../../../src/runtime/run-service/status-comment.js";
import { readBotSettings, runBot } from "../../../src/entries/action/bot.js";
import { WAITING_LABEL } from "../../../src/runtime/run-service/wake-ups.js";
import { repositoryStateKey } from "../../../src/runtime/state-codec.js";
import { useActionsBot } from "../../helpers/actions-bot.js";
import type { FakeGitHub } from "../../helpers/fake-github.js";
import { DEPLOY_CORRELATED } from "../app/fixtures.js";
import { BRANCH, example } from "../app/harness.js";

/**
 * The Actions runtime in this process (the bundled Action is tested as a runner starts it in
 * bot.test.ts): time passing between workflow runs, the sweeper, labels replayed once.
 */
const SECRET = "another-repository-secret";
const HOUR = 3_600_000;

const WAIT = `apiVersion: playbook-bot/v1
id: wait
name: Wait for a go
description: A maintainer says go within three hours, or the run is cancelled.
steps:
  - id: approve
    type: checkpoint
    message: Go ahead?
    approvers: { permission: maintain }
    timeout: 3h
    on_timeout: cancel
  - id: done
    type: end
`;

/** A playbook of many steps, each a comment: its run hands many events through its state. */
const LONG = `apiVersion: playbook-bot/v1
id: long
name: Many steps
description: Twenty-four comments in a row, then the end.
steps:
${Array.from(
  { length: 24 },
  (_, i) => `  - id: s${i}\n    type: comment\n    body: Step ${i} done.\n`,
).join("")}  - id: done
    type: end
    status: success
`;

describe("mode: bot, in process", () => {
  let now = Date.now();
  const bot = useActionsBot({
    secret: SECRET,
    files: {
      ".github/playbooks/wait.yaml": WAIT,
      ".github/playbooks/deploy.yaml": DEPLOY_CORRELATED,
      ".github/playbooks/long.yaml": LONG,
    },
    roles: { alice: "write", bob: "read" },
    clock: () => new Date(now),
  });
  let fake: FakeGitHub;
  beforeAll(() => {
    fake = bot.fake;
  });
  const { lines, run, repository } = bot;
  const labeled = (issue: number, label: string, by: string) => bot.labeledEvent(issue, label, by);

  const status = (issue: number) => {
    const [c] = fake.statusComments(issue);
    if (!c) return undefined;
    const key = repositoryStateKey(SECRET, 0, Number(repository().id));
    const read = readStatusComment(c.body, { key, issue, comment: String(c.id) });
    return read.ok ? read.run : undefined;
  };

  it("labels a run that waits for a time, and the sweeper ends it when its time is up", async () => {
    const issue = fake.openIssue("Go?", "", "alice");
    fake.labelAs(issue.number, "playbook:wait", "alice");
    expect(await run("issues", labeled(issue.number, "playbook:wait", "alice"))).toBe(0);
    expect(status(issue.number)?.stack[0]?.phase).toBe("waiting");
    expect(fake.issues.get(issue.number)?.labels).toContain(WAITING_LABEL.name);

    // A refused command an hour later changes nothing, and the label stays: this run's store
    // did not see the wait, the state did.
    now += HOUR;
    fake.postAs(issue.number, "bob", "/approve");
    const p = example("issue_comment", "created");
    delete p.installation;
    expect(await run("issue_comment", { ...p, issue: fake.restIssue(issue) })).toBe(0);
    expect(fake.issues.get(issue.number)?.labels).toContain(WAITING_LABEL.name);

    // The schedule's sweep before the timeout: the run still waits.
    expect(await run("schedule", { schedule: "*/15 * * * *" })).toBe(0);
    expect(status(issue.number)?.status).toBe("waiting");
    expect(fake.issues.get(issue.number)?.labels).toContain(WAITING_LABEL.name);

    expect(lines).toContain("swept 1 issue(s) waiting for a time: 0 dispatched, 1 ticked here");

    // After it, the sweep knows its workflow: it dispatches one run per issue (into the issue's
    // concurrency group) rather than ticking beside the issue's own runs.
    now += 3 * HOUR;
    const sweep = {
      GITHUB_WORKFLOW_REF: "Codertocat/Hello-World/.github/workflows/bot.yml@refs/heads/main",
    };
    expect(await run("schedule", { schedule: "*/15 * * * *" }, sweep)).toBe(0);
    expect(fake.dispatches).toEqual([
      { workflow: "bot.yml", ref: BRANCH, inputs: { issue: String(issue.number) } },
    ]);
    expect(status(issue.number)?.status).toBe("waiting");
    // That run ticks its issue: cancelled, and nothing waits any more.
    expect(await run("workflow_dispatch", { inputs: { issue: String(issue.number) } }, sweep)).toBe(
      0,
    );
    expect(status(issue.number)?.status).toBe("cancelled");
    expect(fake.issues.get(issue.number)?.labels).not.toContain(WAITING_LABEL.name);
  });

  it("finds the issue a dispatched workflow's run is awaited on, with no store kept between runs", async () => {
    const issue = fake.openIssue("Deploy", "", "alice");
    fake.labelAs(issue.number, "playbook:deploy", "alice");
    expect(await run("issues", labeled(issue.number, "playbook:deploy", "alice"))).toBe(0);
    const dispatched = fake.workflowRuns.at(-1)!;
    expect(dispatched.workflow).toBe("test.yml");
    expect(status(issue.number)?.status).toBe("waiting");
    expect(fake.issues.get(issue.number)?.labels).toContain(WAITING_LABEL.name);
    const p = example("workflow_run", "completed", 1);
    delete p.installation;
    const completed = fake.completedWorkflowRun(p, dispatched);
    expect(await run("workflow_run", completed)).toBe(0);
    expect(status(issue.number)?.status).toBe("completed");
  });

  it("answers a refused label once, however many runs replay the issue", async () => {
    const issue = fake.openIssue("Not yours", "", "alice");
    fake.labelAs(issue.number, "playbook:wait", "bob");
    const notices = () =>
      [...fake.comments.values()].filter(
        (c) => c.issue === issue.number && c.body.startsWith("Label `playbook:wait` did not start"),
      );
    expect(await run("issues", labeled(issue.number, "playbook:wait", "bob"))).toBe(0);
    expect(notices()).toHaveLength(1);
    fake.postAs(issue.number, "alice", "/help");
    const p = example("issue_comment", "created");
    delete p.installation;
    expect(await run("issue_comment", { ...p, issue: fake.restIssue(issue) })).toBe(0);
    expect(notices()).toHaveLength(1);
    expect(status(issue.number)).toBeUndefined();
  });

  it("never replays the label that started a long run once it has finished, for the whole window", async () => {
    const issue = fake.openIssue("Long", "", "alice");
    fake.labelAs(issue.number, "playbook:long", "alice");
    expect(await run("issues", labeled(issue.number, "playbook:long", "alice"))).toBe(0);
    expect(status(issue.number)?.status).toBe("completed");
    const runs = () => fake.statusComments(issue.number).length;
    expect(runs()).toBe(1);
    // Twenty hours later an outsider comments: the reconcile reads the day's label event again,
    // and the run it started (finished, its own events long past) is still recognised by it.
    now += 20 * HOUR;
    fake.postAs(issue.number, "bob", "Any news?");
    const p = example("issue_comment", "created");
    delete p.installation;
    expect(await run("issue_comment", { ...p, issue: fake.restIssue(issue) })).toBe(0);
    expect(runs()).toBe(1);
  });

  it("leaves pull requests alone: playbooks run on issues", async () => {
    const p = example("issue_comment", "created");
    delete p.installation;
    const mark = fake.requests.length;
    expect(
      await run("issue_comment", { ...p, issue: { ...p.issue, number: 99, pull_request: {} } }),
    ).toBe(0);
    expect(fake.since(mark)).toEqual([]);
    expect(lines.at(-1)).toBe("#99 is a pull request: playbooks run on issues");
  });

  it("ticks an issue itself when the sweep may not dispatch, and fails the job when GitHub fails it", async () => {
    const issue = fake.openIssue("Go again?", "", "alice");
    fake.labelAs(issue.number, "playbook:wait", "alice");
    expect(await run("issues", labeled(issue.number, "playbook:wait", "alice"))).toBe(0);
    const sweep = {
      GITHUB_WORKFLOW_REF: "Codertocat/Hello-World/.github/workflows/bot.yml@refs/heads/main",
    };
    fake.fault = ({ method, path }) =>
      method === "POST" && path.includes("/dispatches")
        ? { status: 403, body: { message: "Resource not accessible by integration" } }
        : undefined;
    now += 4 * HOUR;
    lines.length = 0;
    expect(await run("schedule", { schedule: "*/15 * * * *" }, sweep)).toBe(0);
    expect(
      lines.some((l) => l.startsWith(`could not dispatch the sweep of #${issue.number} (403`)),
    ).toBe(true);
    expect(status(issue.number)?.status).toBe("cancelled");

    // GitHub fails a request the bot needs: the job fails, saying so (the next run replays).
    fake.fault = ({ method, path }) =>
      method === "GET" && path.includes("/events") ? { status: 500 } : undefined;
    const p = example("issue_comment", "created");
    delete p.installation;
    const failed = await run("issue_comment", { ...p, issue: fake.restIssue(issue) });
    fake.fault = undefined;
    expect(failed).toBe(1);
  });

  it("has nothing to do for an event that names no repository", async () => {
    const eventPath = join(bot.dir, "no-repository.json");
    writeFileSync(eventPath, JSON.stringify({ action: "requested" }));
    lines.length = 0;
    expect(
      await runBot({
        env: {
          GITHUB_EVENT_NAME: "merge_group",
          GITHUB_EVENT_PATH: eventPath,
          INPUT_TOKEN: "t",
          "INPUT_STATE-SECRET": SECRET,
        },
        log: (line) => lines.push(line),
      }),
    ).toBe(0);
    expect(lines).toEqual(["mode: bot: a merge_group event names no repository; nothing to do"]);
  });

  it("says what is missing from its settings", () => {
    const env = { GITHUB_EVENT_NAME: "issues", GITHUB_EVENT_PATH: "/e.json" };
    expect(() => readBotSettings({ ...env, "INPUT_STATE-SECRET": SECRET })).toThrow(
      /needs a token/,
    );
    expect(() =>
      readBotSettings({ ...env, INPUT_TOKEN: "t", "INPUT_STATE-SECRET": "short" }),
    ).toThrow(/at least 16 characters/);
    expect(() => readBotSettings({ INPUT_TOKEN: "t", "INPUT_STATE-SECRET": SECRET })).toThrow(
      /GITHUB_EVENT_NAME is not set/,
    );
    const s = readBotSettings({ ...env, INPUT_TOKEN: "t", "INPUT_STATE-SECRET": SECRET });
    expect(s.apiUrl).toBe("https://api.github.com");
  });
});
