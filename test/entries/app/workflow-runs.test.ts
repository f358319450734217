import nock from "nock";
import { ProbotOctokit } from "probot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MockAiAdapter } from "../../../src/runtime/ai.js";
import { OctokitPort, type Octokit } from "../../../src/adapters/github/octokit-port.js";
import { FakeGitHub, type FakeWorkflowRun } from "../../helpers/fake-github.js";
import { DEPLOY_CORRELATED } from "./fixtures.js";
import {
  BRANCH,
  CONFIG,
  example,
  Harness,
  makeClock,
  makeProbot,
  OWNER,
  readStatus,
  REPO,
  type Payload,
  EXAMPLE_REPO,
} from "./harness.js";

let fake: FakeGitHub;
let h: Harness;

async function start(botLogin?: string): Promise<void> {
  nock.disableNetConnect();
  const clock = makeClock();
  fake = new FakeGitHub({
    ...EXAMPLE_REPO,
    clock,
    files: { ".github/playbooks/deploy.yaml": DEPLOY_CORRELATED },
  });
  fake.permissions.set("alice", "write");
  fake.install();
  h = new Harness(fake, clock);
  h.probot = (
    await makeProbot({ clock, config: botLogin ? { ...CONFIG, botLogin } : CONFIG })
  ).probot;
}

afterEach(() => fake?.uninstall());

const status = () => {
  const read = readStatus(fake.statusComments(1)[0]);
  if (!read.ok) throw new Error(read.detail);
  return read.run;
};

/** GitHub's example `workflow_run.completed`, made the run the dispatch started. */
function dispatched(run: FakeWorkflowRun): Payload {
  const p = example("workflow_run", "completed", 1);
  p.repository = example("issues", "labeled").repository;
  return fake.completedWorkflowRun(p, run);
}

/** Runs that must not end the wait, each a real payload with one fact changed. */
function decoys(run: FakeWorkflowRun): [string, Payload][] {
  const fork = dispatched(run);
  fork.workflow_run.id = run.id + 1;
  fork.workflow_run.head_repository = {
    ...fork.workflow_run.head_repository,
    id: 4242424,
    full_name: "mallory/Hello-World",
  };
  const otherEvent = dispatched(run);
  otherEvent.workflow_run.id = run.id + 2;
  otherEvent.workflow_run.event = "push";
  const before = dispatched(run);
  before.workflow_run.id = run.id + 3;
  before.workflow_run.created_at = new Date(Date.parse(run.createdAt) - 60_000)
    .toISOString()
    .replace(".000Z", "Z");
  // Another workflow that only calls itself by the awaited file's name.
  const named = dispatched(run);
  named.workflow_run.id = run.id + 4;
  named.workflow_run.path = ".github/workflows/rollback.yml";
  named.workflow_run.name = "test.yml";
  return [
    ["a fork's run of a workflow with the same file name", fork],
    ["a run of another event", otherEvent],
    ["a run created before the dispatch", before],
    ["a run of another workflow named like it", named],
  ];
}

async function expectStillWaiting(label: string, p: Payload): Promise<void> {
  await h.deliver("workflow_run", p);
  await h.drain();
  expect(status().status, label).toBe("waiting");
}

describe("a dispatch whose run id GitHub returns", () => {
  beforeEach(() => start());

  it("waits for that run id only", async () => {
    fake.openIssue("Deploy", "", "alice");
    await h.comment(1, "alice", "/run deploy");
    const run = fake.workflowRuns[0] as FakeWorkflowRun;
    expect(status().stack[0]?.awaiting).toEqual({ workflow: "test.yml", workflowRun: run.id });
    for (const [label, p] of decoys(run)) await expectStillWaiting(label, p);
    // Every fact the same, but another run.
    const other = dispatched(run);
    other.workflow_run.id = run.id + 10;
    await expectStillWaiting("a run with another id", other);
    await h.deliver("workflow_run", dispatched(run));
    await h.drain();
    expect(status().status).toBe("completed");
    expect(status().stack[0]?.results["run-tests"]?.outputs).toMatchObject({
      conclusion: "success",
      run_id: run.id,
      url: `https://github.com/${OWNER}/${REPO}/actions/runs/${run.id}`,
    });
  });
});

describe("a dispatch answered with 204 and no run id", () => {
  beforeEach(async () => {
    await start("playbook-bot[bot]");
    fake.runDetails = false;
  });

  it("waits for the run with the dispatch's facts: event, file, repository, actor, ref, time, key", async () => {
    fake.openIssue("Deploy", "", "alice");
    await h.comment(1, "alice", "/run deploy");
    const run = fake.workflowRuns[0] as FakeWorkflowRun;
    // The correlation input carries the dispatch's key, and the wait keeps what tells its run.
    const key = run.inputs.pb_key as string;
    expect(key).toMatch(/^[0-9]{8}-[0-9]{4}-[a-z0-9-]+\/run-tests\/1$/);
    expect(run.inputs.issue).toBe("1");
    expect(status().stack[0]?.awaiting).toEqual({
      workflow: "test.yml",
      dispatched: {
        repository: `${OWNER}/${REPO}`,
        ref: BRANCH,
        at: new Date(Date.parse(run.createdAt)).toISOString(),
        actor: "playbook-bot[bot]",
        correlation: key,
      },
    });
    const titled = (p: Payload, title: string) => {
      p.workflow_run.display_title = title;
      return p;
    };
    for (const [label, p] of decoys(run))
      await expectStillWaiting(label, titled(p, `Tests ${key}`));
    const byPerson = titled(dispatched(run), `Tests ${key}`);
    byPerson.workflow_run.actor = { ...byPerson.workflow_run.actor, login: "mallory" };
    await expectStillWaiting("a run by someone else", byPerson);
    const otherRef = titled(dispatched(run), `Tests ${key}`);
    otherRef.workflow_run.head_branch = "mallory-branch";
    await expectStillWaiting("a run on another ref", otherRef);
    await expectStillWaiting("a run without the key", titled(dispatched(run), "Tests"));
    await expectStillWaiting(
      "a run of the next attempt's key",
      titled(dispatched(run), `Tests ${key}0`),
    );
    const done = titled(dispatched(run), `Tests ${key}`);
    done.workflow_run.conclusion = "failure";
    await h.deliver("workflow_run", done);
    await h.drain();
    expect(status().status).toBe("failed");
    expect(status().error?.code).toBe("PB-WORKFLOW-FAILED");
  });
});

describe("/status when the workflow_run webhook was lost", () => {
  it("asks GitHub for the dispatched run by its id, and takes no other", async () => {
    await start();
    fake.openIssue("Deploy", "", "alice");
    await h.comment(1, "alice", "/run deploy");
    const run = fake.workflowRuns[0] as FakeWorkflowRun;
    fake.listedRuns = decoys(run).map(([, p]) => p.workflow_run);
    await h.comment(1, "alice", "/status");
    expect(status().status).toBe("waiting");
    fake.listedRuns.push(dispatched(run).workflow_run);
    await h.comment(1, "alice", "/status");
    expect(status().status).toBe("completed");
  });

  it("without the id, takes only the run with the dispatch's facts, as the webhook would", async () => {
    await start("playbook-bot[bot]");
    fake.runDetails = false;
    fake.openIssue("Deploy", "", "alice");
    await h.comment(1, "alice", "/run deploy");
    const run = fake.workflowRuns[0] as FakeWorkflowRun;
    const key = run.inputs.pb_key as string;
    fake.listedRuns = decoys(run).map(([, p]) => ({
      ...p.workflow_run,
      display_title: `Tests ${key}`,
    }));
    fake.listedRuns.push({ ...dispatched(run).workflow_run, id: run.id + 20, display_title: "x" });
    await h.comment(1, "alice", "/status");
    expect(status().status).toBe("waiting");
    fake.listedRuns.push({ ...dispatched(run).workflow_run, display_title: `Tests ${key}` });
    await h.comment(1, "alice", "/status");
    expect(status().status).toBe("completed");
  });
});

describe("OctokitPort's dispatch", () => {
  const route = "/repos/o/r/actions/workflows/deploy.yml/dispatches";
  const port = (botLogin?: string) =>
    new OctokitPort({
      octokit: new ProbotOctokit({
        auth: { token: "t" },
        retry: { enabled: false },
        throttle: { enabled: false },
      }) as unknown as Octokit,
      owner: "o",
      repo: "r",
      defaultBranch: "main",
      appId: 1,
      ...(botLogin ? { botLogin } : {}),
      ai: new MockAiAdapter(),
    });
  const effect = {
    key: "20260401-1000-abc/deploy/1",
    kind: "dispatch" as const,
    step: "deploy",
    params: {
      workflow: "deploy.yml",
      ref: "refs/heads/rel",
      inputs: { n: 1 },
      correlation_input: "pb_key",
    },
  };
  const run = { context: {} } as never;
  const bodies: unknown[] = [];
  beforeEach(() => {
    nock.disableNetConnect();
    bodies.length = 0;
  });
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it("asks for the run's details and awaits the id GitHub returns", async () => {
    nock("https://api.github.com")
      .post(route, (b) => bodies.push(b) > 0)
      .reply(200, {
        workflow_run_id: 321,
        run_url: "https://api.github.com/repos/o/r/actions/runs/321",
        html_url: "https://github.com/o/r/actions/runs/321",
      });
    expect(await port().perform(effect, run)).toEqual({
      ok: true,
      outputs: { run_id: 321, url: "https://github.com/o/r/actions/runs/321" },
    });
    expect(bodies).toEqual([
      {
        ref: "refs/heads/rel",
        inputs: { n: "1", pb_key: "20260401-1000-abc/deploy/1" },
        return_run_details: true,
      },
    ]);
  });

  it("keeps the dispatch's facts, by GitHub's clock, when the answer is 204 without a body", async () => {
    nock("https://api.github.com")
      .post(route)
      .reply(204, "", { date: "Wed, 01 Apr 2026 10:00:07 GMT" });
    expect(await port("app[bot]").perform(effect, run)).toEqual({
      ok: true,
      outputs: {
        url: "https://github.com/o/r/actions/workflows/deploy.yml",
        repository: "o/r",
        ref: "rel",
        dispatched_at: "2026-04-01T10:00:07.000Z",
        actor: "app[bot]",
        correlation: "20260401-1000-abc/deploy/1",
      },
    });
  });

  it("dispatches again without the option where the server refuses it, and fails on other refusals", async () => {
    nock("https://api.github.com")
      .post(route)
      .reply(422, { message: "Invalid request. return_run_details is not a permitted key." })
      .post(route, (b) => bodies.push(b) > 0)
      .reply(204, "", { date: "Wed, 01 Apr 2026 10:00:07 GMT" });
    const r = await port().perform(effect, run);
    expect(r).toMatchObject({ ok: true, outputs: { ref: "rel" } });
    expect(r.ok && r.outputs.actor).toBeUndefined();
    expect(bodies).toEqual([
      { ref: "refs/heads/rel", inputs: { n: "1", pb_key: "20260401-1000-abc/deploy/1" } },
    ]);
    nock("https://api.github.com")
      .post(route)
      .reply(422, { message: "Workflow does not have 'workflow_dispatch' trigger" });
    expect(await port().perform(effect, run)).toMatchObject({ ok: false });
    expect(nock.isDone()).toBe(true);
  });
});
