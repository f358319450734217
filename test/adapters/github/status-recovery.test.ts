import { MemoryCoordination } from "../../../src/adapters/coordination/memory.js";
import { repositoryStateKey } from "../../../src/runtime/state-codec.js";
import nock from "nock";
import { ProbotOctokit } from "probot";
import { describe, expect, it } from "vitest";
import { MockAiAdapter } from "../../../src/runtime/ai.js";
import { IssueController } from "../../../src/runtime/run-service/controller.js";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import { MemoryGitHub } from "../../../src/adapters/memory/github.js";
import { OctokitPort, type Octokit } from "../../../src/adapters/github/octokit-port.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import { example, type Payload } from "../../entries/app/harness.js";

function bundle(text: string): PlaybookBundle {
  const r = validateSource("p.yaml", text);
  if (!r.playbook) throw new Error(JSON.stringify(r.diagnostics));
  return { playbook: r.playbook, hash: `h-${r.playbook.id}`, files: {} };
}

const SHIP = bundle(`apiVersion: playbook-bot/v1
id: ship
description: Branch, pull request, wait for the merge, then a workflow.
steps:
  - id: branch
    type: branch
    description: Branch.
    name: ship-it
  - id: pr
    type: pull_request
    description: Open it.
    head: ship-it
    title: Ship
    wait: merged
  - id: deploy
    type: dispatch
    description: Deploy.
    workflow: deploy.yml
  - id: done
    type: end
    description: Done.
`);

describe("/status resumes runs whose webhook never came", () => {
  it("asks where the awaited pull request and workflow run stand", async () => {
    let now = Date.parse("2026-04-01T10:00:00Z");
    const gh = new MemoryGitHub("app[bot]", () => new Date((now += 1000)));
    gh.permissions.set("ann", "write");
    const issue = gh.openIssue("Ship", "", "ann");
    const controller = new IssueController({
      memory: new MemoryCoordination(),
      port: gh,
      catalog: { get: (id) => (id === "ship" ? SHIP : undefined), all: () => [SHIP] },
      stateKey: repositoryStateKey("s", 0, 0),
      clock: () => new Date(now),
      issue: { number: issue.number, title: "Ship", url: "u", author: "ann" },
      repo: { owner: "o", name: "r", default_branch: "main" },
      inProcess: true,
    });
    await controller.onComment(gh.postAs(issue.number, "ann", "/run ship"), "d1");
    const pr = [...gh.pulls.values()][0];
    expect(pr).toBeDefined();
    // Merged on GitHub, but the pull_request webhook is lost.
    gh.closePull(pr?.number ?? 0, true);
    await controller.onComment(gh.postAs(issue.number, "ann", "/status"), "d2");
    let [run] = await controller.runs();
    expect(run?.run.stack[0]?.current).toBe("deploy");
    expect(run?.run.status).toBe("waiting");
    // The workflow ran; its workflow_run webhook is lost too.
    await controller.onComment(gh.postAs(issue.number, "ann", "/status"), "d3");
    expect((await controller.runs())[0]?.run.status).toBe("waiting");
    gh.finishWorkflow(gh.dispatched[0]?.runId ?? 0, "success");
    await controller.onComment(gh.postAs(issue.number, "ann", "/status"), "d4");
    [run] = await controller.runs();
    expect(run?.run.status).toBe("completed");
  });
});

describe("OctokitPort.completedWorkflowRun", () => {
  const port = () =>
    new OctokitPort({
      octokit: new ProbotOctokit({ auth: { token: "t" } }) as unknown as Octokit,
      owner: "o",
      repo: "r",
      defaultBranch: "main",
      appId: 1,
      botLogin: "app[bot]",
      ai: new MockAiAdapter(),
    });
  /** GitHub's example run, as the REST API lists it, made a dispatch of deploy.yml by the app. */
  const apiRun = (id: number, over: (r: Payload["workflow_run"]) => void = () => undefined) => {
    const r = example("workflow_run", "completed", 1).workflow_run as Payload["workflow_run"];
    const repository = { ...r.repository, id: 5, full_name: "o/r" };
    Object.assign(r, {
      id,
      event: "workflow_dispatch",
      path: ".github/workflows/deploy.yml",
      head_branch: "main",
      created_at: "2026-04-01T10:00:01Z",
      status: "completed",
      conclusion: "success",
      actor: { ...r.actor, login: "app[bot]" },
      triggering_actor: { ...r.actor, login: "app[bot]" },
      repository,
      head_repository: repository,
      display_title: "Deploy k/deploy/1",
    });
    over(r);
    return r;
  };

  it("asks for the run by its id when the dispatch returned one", async () => {
    nock.disableNetConnect();
    const scope = nock("https://api.github.com")
      .get("/repos/o/r/actions/runs/8")
      .reply(
        200,
        apiRun(8, (r) => Object.assign(r, { status: "in_progress", conclusion: null })),
      )
      .get("/repos/o/r/actions/runs/8")
      .reply(
        200,
        apiRun(8, (r) => Object.assign(r, { conclusion: "failure", event: "push" })),
      );
    const awaiting = { workflow: "deploy.yml", workflowRun: 8 };
    expect(await port().completedWorkflowRun(awaiting, "2026-04-01T10:00:00.000Z")).toBeUndefined();
    expect(await port().completedWorkflowRun(awaiting, "2026-04-01T10:00:00.000Z")).toMatchObject({
      id: 8,
      conclusion: "failure",
      run: { event: "push" },
    });
    expect(scope.isDone()).toBe(true);
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it("without the id, finds the run with the dispatch's facts as the webhook would", async () => {
    nock.disableNetConnect();
    const fork = apiRun(11, (r) => {
      r.head_repository = { ...r.head_repository, id: 99, full_name: "mallory/r" };
    });
    const before = apiRun(12, (r) => {
      r.created_at = "2026-04-01T09:59:00Z";
    });
    const untitled = apiRun(13, (r) => {
      r.display_title = "Deploy";
    });
    const person = apiRun(14, (r) => {
      r.triggering_actor = { ...r.triggering_actor, login: "mallory" };
    });
    const scope = nock("https://api.github.com")
      .get("/repos/o/r/actions/workflows/deploy.yml/runs")
      .query({
        event: "workflow_dispatch",
        status: "completed",
        branch: "main",
        actor: "app[bot]",
        created: ">=2026-04-01T09:59:55Z",
        per_page: "20",
      })
      .reply(200, { total_count: 5, workflow_runs: [fork, before, untitled, person, apiRun(10)] })
      .get("/repos/o/r/actions/workflows/deploy.yml/runs")
      .query(true)
      .reply(200, { total_count: 4, workflow_runs: [fork, before, untitled, person] });
    const awaiting = {
      workflow: "deploy.yml",
      dispatched: {
        repository: "o/r",
        ref: "main",
        at: "2026-04-01T10:00:00.000Z",
        actor: "app[bot]",
        correlation: "k/deploy/1",
      },
    };
    expect(await port().completedWorkflowRun(awaiting, "x")).toMatchObject({
      id: 10,
      conclusion: "success",
      run: { event: "workflow_dispatch", repository: "o/r" },
    });
    expect(await port().completedWorkflowRun(awaiting, "x")).toBeUndefined();
    expect(scope.isDone()).toBe(true);
    nock.cleanAll();
    nock.enableNetConnect();
  });
});
