import nock from "nock";
import { ProbotOctokit } from "probot";
import { describe, expect, it } from "vitest";
import { MockAiAdapter } from "../../src/ai/adapter.js";
import { IssueController } from "../../src/app/controller.js";
import type { PlaybookBundle } from "../../src/engine/steps/types.js";
import { MemoryGitHub } from "../../src/github/memory.js";
import { OctokitPort, type Octokit } from "../../src/github/octokit-port.js";
import { validateSource } from "../../src/playbook/validate.js";

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
      port: gh,
      catalog: { get: (id) => (id === "ship" ? SHIP : undefined), all: () => [SHIP] },
      secret: "s",
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
  it("finds the newest completed dispatch run since the step began", async () => {
    nock.disableNetConnect();
    const scope = nock("https://api.github.com")
      .get("/repos/o/r/actions/workflows/deploy.yml/runs")
      .query({ event: "workflow_dispatch", created: ">=2026-04-01T10:00:00Z", per_page: "5" })
      .reply(200, {
        total_count: 2,
        workflow_runs: [
          { id: 9, status: "in_progress", conclusion: null },
          { id: 8, status: "completed", conclusion: "failure" },
        ],
      })
      .get("/repos/o/r/actions/workflows/deploy.yml/runs")
      .query(true)
      .reply(200, { total_count: 0, workflow_runs: [] });
    const port = new OctokitPort({
      octokit: new ProbotOctokit({ auth: { token: "t" } }) as unknown as Octokit,
      owner: "o",
      repo: "r",
      defaultBranch: "main",
      appId: 1,
      ai: new MockAiAdapter(),
    });
    expect(await port.completedWorkflowRun("deploy.yml", "2026-04-01T10:00:00.000Z")).toEqual({
      id: 8,
      conclusion: "failure",
    });
    expect(
      await port.completedWorkflowRun("deploy.yml", "2026-04-01T10:00:00.000Z"),
    ).toBeUndefined();
    expect(scope.isDone()).toBe(true);
    nock.cleanAll();
    nock.enableNetConnect();
  });
});
