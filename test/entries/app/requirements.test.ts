import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeGitHub } from "../../helpers/fake-github.js";
import { example, Harness, installedRepository, makeClock } from "./harness.js";

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
    fake = installedRepository(
      { ".github/playbooks/deploy.yaml": DEPLOY, ".github/playbooks/probe.yaml": PROBE },
      { alice: "write" },
    );
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

const SLOW_REQUESTS = `apiVersion: playbook-bot/v1
id: slow-requests
on:
  issues:
    context_types: [request_id]
    signals:
      positive: [{ pattern: slow, weight: 2 }, { pattern: "time(d)? ?out", weight: 1, regex: true }]
    min_score: 2
inputs:
  title: { type: string, from: issue.title }
steps:
  - { id: say, type: comment, body: "Looking at {{ inputs.title }}." }
  - { id: done, type: end }
`;

describe("on.issues: a new issue whose text fits a playbook starts it", () => {
  let fake: FakeGitHub;
  let h: Harness;
  beforeEach(async () => {
    const clock = makeClock();
    fake = installedRepository(
      { ".github/playbooks/slow-requests.yaml": SLOW_REQUESTS },
      { alice: "write" },
      clock,
    );
    h = await new Harness(fake, clock).start();
  });
  afterEach(() => fake.uninstall());

  async function open(title: string, body: string, author: string, association: string) {
    const issue = fake.openIssue(title, body, author);
    const p = example("issues", "opened");
    p.issue = { ...h.issuePayload(issue.number), author_association: association };
    p.sender = fake.user(author);
    await h.deliver("issues", p);
    await h.drain();
    return issue.number;
  }

  it("starts the best fit for a collaborator's issue", async () => {
    const n = await open(
      "Checkout is slow",
      "request_id: abc-123 timed out",
      "alice",
      "COLLABORATOR",
    );
    const [status] = fake.statusComments(n);
    expect(status?.body).toContain("slow-requests");
    expect(
      [...fake.comments.values()].some((c) => c.body.includes("Looking at Checkout is slow.")),
    ).toBe(true);
  });

  it("starts nothing for an issue that does not fit, or one opened by an outsider", async () => {
    const plain = await open("Typo in the docs", "There is a typo.", "alice", "COLLABORATOR");
    expect(fake.statusComments(plain)).toHaveLength(0);
    const before = fake.requests.length;
    const outsider = await open("Checkout is slow", "request_id: x timed out", "mallory", "NONE");
    expect(fake.statusComments(outsider)).toHaveLength(0);
    // Nothing was asked of GitHub for it.
    expect(fake.requests.length).toBe(before);
  });
});
