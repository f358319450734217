import nock from "nock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeGitHub } from "../../helpers/fake-github.js";
import { EXAMPLE_REPO, Harness, makeClock } from "./harness.js";

const DEPLOY = `apiVersion: playbook-bot/v1
id: deploy
requires:
  secrets: [DEPLOY_TOKEN]
  tools: [github/repo_info]
steps:
  - { id: say, type: comment, body: Deploying. }
  - { id: done, type: end }
`;

/** A playbook that names the app's own secret, as a probe. */
const PROBE = `apiVersion: playbook-bot/v1
id: probe
requires:
  secrets: [WEBHOOK_SECRET]
steps:
  - { id: done, type: end }
`;

describe("requires: checked before a run starts in the app", () => {
  let fake: FakeGitHub;
  let h: Harness;
  beforeEach(async () => {
    nock.disableNetConnect();
    const clock = makeClock();
    fake = new FakeGitHub({
      ...EXAMPLE_REPO,
      clock,
      files: { ".github/playbooks/deploy.yaml": DEPLOY, ".github/playbooks/probe.yaml": PROBE },
    });
    fake.install();
    fake.permissions.set("alice", "write");
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    fake.uninstall();
  });

  const bodies = (issue: number): string[] =>
    [...fake.comments.values()].filter((c) => c.issue === issue).map((c) => c.body);

  it("does not start a run whose secret the app does not expose, and says how to provide it", async () => {
    vi.stubEnv("DEPLOY_TOKEN", "s3cr3t-value");
    vi.stubEnv("PLAYBOOK_SECRETS", "");
    h = await new Harness(fake, makeClock()).start();
    const issue = fake.openIssue("Deploy", "", "alice");
    await h.comment(issue.number, "alice", "/run deploy");
    await h.drain();
    expect(fake.statusComments(issue.number)).toHaveLength(0);
    const notice = bodies(issue.number).find((b) => b.includes("PB-REQUIREMENT-MISSING"));
    expect(notice).toContain(
      "- deploy requires the secret DEPLOY_TOKEN, which this app does not have: set it in the app's environment and list its name in PLAYBOOK_SECRETS",
    );
    expect(bodies(issue.number).join("\n")).not.toContain("s3cr3t-value");
  });

  it("starts it once the deployment lists and sets the secret", async () => {
    vi.stubEnv("DEPLOY_TOKEN", "s3cr3t-value");
    vi.stubEnv("PLAYBOOK_SECRETS", "DEPLOY_TOKEN, OTHER");
    h = await new Harness(fake, makeClock()).start();
    const issue = fake.openIssue("Deploy", "", "alice");
    await h.comment(issue.number, "alice", "/run deploy");
    await h.drain();
    expect(fake.statusComments(issue.number)).toHaveLength(1);
    expect(bodies(issue.number).join("\n")).not.toContain("PB-REQUIREMENT-MISSING");
  });

  it("never counts a variable the deployment did not list: a playbook cannot probe the app's own", async () => {
    vi.stubEnv("PLAYBOOK_SECRETS", "DEPLOY_TOKEN");
    h = await new Harness(fake, makeClock()).start();
    const issue = fake.openIssue("Probe", "", "alice");
    await h.comment(issue.number, "alice", "/run probe");
    await h.drain();
    expect(fake.statusComments(issue.number)).toHaveLength(0);
    expect(bodies(issue.number).some((b) => b.includes("PB-REQUIREMENT-MISSING"))).toBe(true);
  });
});
