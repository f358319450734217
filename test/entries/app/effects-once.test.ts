import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { answerLost, FakeGitHub } from "../../helpers/fake-github.js";
import { ALERT_TOKEN, ALERTS_CONFIG, notification } from "./alert-scenario.js";
import { EXAMPLE_REPO, Harness, makeClock, readStatus } from "./harness.js";
import { ServedHarness } from "./served.js";

/**
 * GitHub made what the app asked for and answered 502 (a proxy lost the answer): with Octokit's
 * retry plugin on, as in production, the app still makes each comment and issue once, and the run
 * goes on.
 */

const NOTIFY = `apiVersion: playbook-bot/v1
id: notify
name: Notify
description: Comments, then opens a follow-up issue.
steps:
  - id: note
    type: comment
    body: Looking into it.
  - id: open
    type: issue
    title: "Follow up on #{{ issue.number }}"
    body: Check again next week.
  - id: done
    type: end
    status: success
`;

/** Starts CI and goes on without waiting for its run. */
const START_CI = `apiVersion: playbook-bot/v1
id: start-ci
name: Start CI
description: Dispatches the CI workflow once.
steps:
  - id: ci
    type: dispatch
    workflow: ci.yml
    wait: false
  - id: done
    type: end
    status: success
`;

let fake: FakeGitHub;
let h: Harness;

beforeEach(async () => {
  nock.disableNetConnect();
  const clock = makeClock();
  fake = new FakeGitHub({
    ...EXAMPLE_REPO,
    clock,
    files: {
      ".github/playbooks/notify.yaml": NOTIFY,
      ".github/playbooks/start-ci.yaml": START_CI,
    },
  }).install();
  fake.permissions.set("alice", "write");
  h = new Harness(fake, clock);
  h.octokitRetries = true;
  await h.start();
});
afterEach(async () => {
  await h.close();
  fake.uninstall();
});

/** The first comment the app posts whose body passes `test` takes effect and answers 502. */
const commentLost = (test: (body: string) => boolean) =>
  answerLost(
    (r) =>
      r.method === "POST" &&
      /\/issues\/[0-9]+\/comments$/.test(r.path) &&
      test(String((r.body as { body?: unknown }).body)),
  );

/** Runs the playbook on a new issue; its comments (first lines) and the run's status. */
async function runNotify(): Promise<{ thread: string[]; status: string | undefined }> {
  const issue = fake.openIssue("Disk full on db-1", "", "alice");
  await h.label(issue.number, "playbook:notify", "alice");
  await h.drain();
  const thread = [...fake.comments.values()]
    .filter((c) => c.issue === issue.number)
    .map((c) => c.body.split("\n")[0] ?? "");
  const read = readStatus(fake.statusComments(issue.number)[0]);
  return { thread, status: read.ok ? read.run.status : undefined };
}

const followUps = () => [...fake.issues.values()].filter((i) => i.title.startsWith("Follow up"));

const withoutRunIds = (lines: string[]) =>
  lines.map((l) => l.replace(/[0-9]{8}-[0-9]{4}-[0-9]+-[a-z0-9]{5}/, "<id>"));

describe("each creating request answered 502 after it took effect", () => {
  const clean = ["### ✅ Notify · run `<id>`", "Looking into it.", "Run <id> completed."];

  it("posts a comment step's comment once, and the run goes on", async () => {
    fake.fault = commentLost((b) => b.startsWith("Looking into it."));
    const { thread, status } = await runNotify();
    expect(withoutRunIds(thread)).toEqual(clean);
    expect(status).toBe("completed");
    expect(followUps()).toHaveLength(1);
  });

  it('posts the "Run … completed" comment once', async () => {
    fake.fault = commentLost((b) => /^Run \S+ completed\./.test(b));
    const { thread, status } = await runNotify();
    expect(withoutRunIds(thread)).toEqual(clean);
    expect(status).toBe("completed");
  });

  it("posts the status comment once, and the run's state is saved into it", async () => {
    fake.fault = commentLost((b) => b.startsWith("⏳ Starting"));
    const { thread, status } = await runNotify();
    expect(withoutRunIds(thread)).toEqual(clean);
    expect(status).toBe("completed");
  });

  it("opens an issue step's issue once", async () => {
    fake.fault = answerLost((r) => r.method === "POST" && /\/issues$/.test(r.path));
    const { status } = await runNotify();
    expect(status).toBe("completed");
    expect(followUps()).toHaveLength(1);
    // The POST went out once: the app found the issue instead of Octokit sending it again.
    const opens = fake.requests.filter((r) => r.method === "POST" && /\/issues$/.test(r.path));
    expect(opens.map((r) => r.status)).toEqual([502]);
  });
});

describe("an alert's triage issue answered 502 after it was opened", () => {
  it("opens one issue for the alert, and starts its playbook on it", async () => {
    const clock = makeClock();
    const served = new ServedHarness(fake, clock);
    served.alerts = ALERTS_CONFIG;
    served.octokitRetries = true;
    await served.start();
    try {
      fake.fault = answerLost((r) => r.method === "POST" && /\/issues$/.test(r.path));
      const res = await served.postAlert("alertmanager", notification(["00000000000000a1"]), {
        authorization: `Bearer ${ALERT_TOKEN}`,
      });
      expect(res.status).toBe(200);
      await served.drain();
      const issues = [...fake.issues.values()].filter((i) => i.labels.includes("alert"));
      expect(issues).toHaveLength(1);
      const opens = fake.requests.filter((r) => r.method === "POST" && /\/issues$/.test(r.path));
      expect(opens.map((r) => r.status)).toEqual([502]);
      // The run starts on the issue that was adopted.
      expect(fake.statusComments(issues[0]?.number ?? 0)).toHaveLength(1);
    } finally {
      await served.stop();
      await served.close();
    }
  });
});

describe("a dispatch answered 502 after GitHub started the workflow", () => {
  it("looks at the workflow's recent runs before dispatching again, and adopts the run it started", async () => {
    let started = 0;
    fake.fault = (r) => {
      if (r.method !== "POST" || !/\/actions\/workflows\/ci\.yml\/dispatches$/.test(r.path)) return;
      if (started++ > 0) return;
      // GitHub starts the run (listed from now on), then a proxy loses the answer.
      fake.listedRuns.push({
        id: 7000 + fake.workflowRuns.length,
        event: "workflow_dispatch",
        path: ".github/workflows/ci.yml",
        head_branch: fake.repo.defaultBranch,
        created_at: fake.now().toISOString(),
        status: "queued",
        conclusion: null,
        actor: { login: fake.botLogin },
        triggering_actor: { login: fake.botLogin },
        repository: { id: fake.repositoryId, full_name: `${fake.owner}/${fake.name}` },
        head_repository: { id: fake.repositoryId, full_name: `${fake.owner}/${fake.name}` },
        html_url: "https://github.com/o/r/actions/runs/7000",
      });
      return { status: 502, body: { message: "Bad Gateway" }, applied: true };
    };
    const issue = fake.openIssue("Run CI", "", "alice");
    await h.label(issue.number, "playbook:start-ci", "alice");
    await h.drain();
    const read = readStatus(fake.statusComments(issue.number)[0]);
    expect(read.ok && read.run.status).toBe("completed");
    // One dispatch went out, answered 502; then the listing, and no second dispatch.
    expect(fake.dispatches).toHaveLength(1);
    const sent = fake.requests.filter((r) => /\/dispatches$/.test(r.path));
    expect(sent.map((r) => r.status)).toEqual([502]);
    const looked = fake.requests.filter((r) => /\/actions\/workflows\/ci\.yml\/runs/.test(r.path));
    expect(looked.length).toBeGreaterThan(0);
    expect(looked[0]!.path).toMatch(/event=workflow_dispatch/);
  });

  it("dispatches again when the listing shows no run it started (the 502 made nothing)", async () => {
    let sent = 0;
    fake.fault = (r) =>
      r.method === "POST" && /\/dispatches$/.test(r.path) && sent++ === 0
        ? { status: 502, body: { message: "Bad Gateway" } }
        : undefined;
    const issue = fake.openIssue("Run CI again", "", "alice");
    await h.label(issue.number, "playbook:start-ci", "alice");
    await h.drain();
    const read = readStatus(fake.statusComments(issue.number)[0]);
    expect(read.ok && read.run.status).toBe("completed");
    expect(fake.dispatches).toHaveLength(1);
    expect(fake.requests.filter((r) => /\/dispatches$/.test(r.path)).map((r) => r.status)).toEqual([
      502, 200,
    ]);
  });
});
