import { createRequire } from "node:module";
import nock from "nock";
import { Probot, ProbotOctokit } from "probot";
import { afterEach, describe, expect, it } from "vitest";
import { createPlaybookBot } from "../../../src/adapters/github-app/app.js";
import { FakeGitHub } from "../../helpers/fake-github.js";

type Definition = { name: string; examples: Record<string, unknown>[] };
const examples = createRequire(import.meta.url)(
  "@octokit/webhooks-examples/api.github.com/index.json",
) as Definition[];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function dependabotCreated(): Record<string, any> {
  const found = examples
    .find((d) => d.name === "dependabot_alert")
    ?.examples.find((e) => e.action === "created");
  return { ...structuredClone(found), installation: { id: 2 } } as Record<string, unknown>;
}

afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

describe("the app: GitHub's own alerts", () => {
  it("dependabot_alert.created opens one triage issue; the same delivery again is a no-op", async () => {
    nock.disableNetConnect();
    const payload = dependabotCreated();
    const [owner, repo] = String(payload.repository.full_name).split("/") as [string, string];
    const fake = new FakeGitHub({
      owner,
      repo,
      defaultBranch: String(payload.repository.default_branch),
      appId: 1,
    }).install();
    const probot = new Probot({
      appId: 1,
      githubToken: "test",
      Octokit: ProbotOctokit.defaults((o: Record<string, unknown>) => ({
        ...o,
        retry: { enabled: false },
        throttle: { enabled: false },
      })),
      logLevel: "fatal",
    });
    await probot.load(
      createPlaybookBot({
        config: { appId: 1, webhookSecret: "s", stateSecret: "x" },
        wakeUps: false,
        reconcile: false,
      }),
    );
    await probot.receive({ id: "d-1", name: "dependabot_alert", payload } as never);
    const alertIssues = [...fake.issues.values()].filter((i) => i.labels.includes("alert"));
    expect(alertIssues).toHaveLength(1);
    expect(alertIssues[0]?.labels).toEqual(["alert", "source:github", "severity:medium"]);
    expect(alertIssues[0]?.title).toBe(
      `[medium] Dependabot: ${payload.alert.security_advisory.summary} (semver)`,
    );
    // The chosen (default triage) playbook started on the triage issue.
    const comments = [...fake.comments.values()].filter((c) => c.issue === alertIssues[0]?.number);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toMatch(/^### .* Triage an alert · run /);
    expect(comments[0]?.body).toContain("started by @\u200balert-github");
    const mark = fake.requests.length;
    await probot.receive({ id: "d-1", name: "dependabot_alert", payload } as never);
    expect(fake.since(mark)).toEqual([]);
    expect([...fake.issues.values()].filter((i) => i.labels.includes("alert"))).toHaveLength(1);
    fake.uninstall();
  });
});
