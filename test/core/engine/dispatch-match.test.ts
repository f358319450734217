import { describe, expect, it } from "vitest";
import type { RunEvent, WorkflowRunFacts } from "../../../src/core/engine/events.js";
import type { Frame } from "../../../src/core/engine/state.js";
import {
  DISPATCH_CLOCK_SLACK_MS,
  workflowRunMatches,
} from "../../../src/core/steps/dispatch/executor.js";
import { workflowRunFacts } from "../../../src/adapters/github/workflow-runs.js";

type Awaiting = NonNullable<Frame["awaiting"]>;

const AT = "2026-04-01T10:00:00.000Z";

const awaiting: Awaiting = {
  workflow: "deploy.yml",
  dispatched: {
    repository: "o/r",
    ref: "main",
    at: AT,
    actor: "app[bot]",
    correlation: "20260401-1000-abc/deploy/1",
  },
};

const facts = (over: Partial<WorkflowRunFacts> = {}): WorkflowRunFacts => ({
  event: "workflow_dispatch",
  path: ".github/workflows/deploy.yml",
  workflowId: 31,
  headBranch: "main",
  createdAt: "2026-04-01T10:00:01Z",
  actor: "app[bot]",
  triggeringActor: "app[bot]",
  repository: "o/r",
  repositoryId: 5,
  headRepositoryId: 5,
  displayTitle: "Deploy 20260401-1000-abc/deploy/1",
  ...over,
});

const event = (run?: WorkflowRunFacts, over: { runId?: number; workflow?: string } = {}) => {
  const e: Extract<RunEvent, { type: "workflow_run" }> = {
    type: "workflow_run",
    id: "e",
    workflow: over.workflow ?? "deploy.yml",
    conclusion: "success",
  };
  if (over.runId !== undefined) e.runId = over.runId;
  if (run) e.run = run;
  return e;
};

describe("workflowRunMatches", () => {
  it("with the run's id, that id and nothing else", () => {
    const want: Awaiting = { workflow: "deploy.yml", workflowRun: 77 };
    expect(workflowRunMatches(want, event(facts(), { runId: 77 }))).toBe(true);
    expect(workflowRunMatches(want, event(facts(), { runId: 78 }))).toBe(false);
    expect(workflowRunMatches(want, event(undefined, { runId: 76 }))).toBe(false);
  });

  it("without it, every fact of the dispatch", () => {
    expect(workflowRunMatches(awaiting, event(facts()))).toBe(true);
    for (const [what, over] of [
      ["another event", { event: "push" }],
      ["another file", { path: ".github/workflows/other/deploy.yml" }],
      ["a fork's code", { headRepositoryId: 6 }],
      ["no head repository", { headRepositoryId: -2 }],
      ["another repository", { repository: "o/other" }],
      ["another actor", { actor: "mallory" }],
      ["another triggering actor", { triggeringActor: "mallory" }],
      ["another ref", { headBranch: "dev" }],
      ["no ref", { headBranch: null }],
      ["an unreadable time", { createdAt: "yesterday" }],
      ["no key in the title", { displayTitle: "Deploy" }],
      ["a longer key in the title", { displayTitle: "Deploy 20260401-1000-abc/deploy/10" }],
      ["the key inside a word", { displayTitle: "Deploy x20260401-1000-abc/deploy/1" }],
    ] as const)
      expect(workflowRunMatches(awaiting, event(facts(over))), what).toBe(false);
    // Case does not make another repository; the key may stand anywhere in the title.
    expect(workflowRunMatches(awaiting, event(facts({ repository: "O/R" })))).toBe(true);
    expect(
      workflowRunMatches(awaiting, event(facts({ displayTitle: "[20260401-1000-abc/deploy/1]" }))),
    ).toBe(true);
  });

  it("compares creation and dispatch as instants, with GitHub's whole seconds", () => {
    const at = (ms: number) => new Date(Date.parse(AT) + ms).toISOString().replace(".000Z", "Z");
    expect(workflowRunMatches(awaiting, event(facts({ createdAt: at(0) })))).toBe(true);
    expect(
      workflowRunMatches(awaiting, event(facts({ createdAt: at(-DISPATCH_CLOCK_SLACK_MS) }))),
    ).toBe(true);
    expect(
      workflowRunMatches(
        awaiting,
        event(facts({ createdAt: at(-DISPATCH_CLOCK_SLACK_MS - 1000) })),
      ),
    ).toBe(false);
    // Another zone's notation of a later instant (text order would say earlier).
    expect(
      workflowRunMatches(awaiting, event(facts({ createdAt: "2026-04-01T06:00:30-04:00" }))),
    ).toBe(true);
  });

  it("without the app's login or a correlation input, checks the rest", () => {
    const want: Awaiting = {
      workflow: "deploy.yml",
      dispatched: { repository: "o/r", ref: "main", at: AT },
    };
    expect(
      workflowRunMatches(want, event(facts({ actor: "someone", displayTitle: "Deploy" }))),
    ).toBe(true);
    expect(workflowRunMatches(want, event(facts({ headRepositoryId: 6 })))).toBe(false);
  });

  it("names a workflow by its numeric id, never by a display name", () => {
    const byId: Awaiting = { ...awaiting, workflow: "31" };
    expect(workflowRunMatches(byId, event(facts()))).toBe(true);
    expect(workflowRunMatches(byId, event(facts({ workflowId: 32 })))).toBe(false);
    expect(workflowRunMatches(awaiting, event(facts({ path: "deploy.yml" })))).toBe(false);
  });

  it("a wait saved before the dispatch's facts were kept gets the checks that need none", () => {
    const legacy: Awaiting = { workflow: "deploy.yml" };
    expect(workflowRunMatches(legacy, event(facts()))).toBe(true);
    expect(workflowRunMatches(legacy, event(facts({ headRepositoryId: 6 })))).toBe(false);
    expect(workflowRunMatches(legacy, event(facts({ event: "pull_request" })))).toBe(false);
  });

  it("a report without GitHub's facts counts only for a wait that dispatched nothing on GitHub", () => {
    expect(workflowRunMatches({ workflow: "deploy.yml" }, event())).toBe(true);
    expect(
      workflowRunMatches({ workflow: "deploy.yml" }, event(undefined, { workflow: "x" })),
    ).toBe(false);
    expect(workflowRunMatches(awaiting, event())).toBe(false);
  });

  it("reads the facts of GitHub's payload; missing ones match nothing", () => {
    const f = workflowRunFacts({ id: 1 });
    expect(f).toMatchObject({ event: "", path: "", headBranch: null, repositoryId: -1 });
    expect(workflowRunMatches({ workflow: "deploy.yml" }, event(f))).toBe(false);
  });
});
