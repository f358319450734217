import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeGitHub } from "../../helpers/fake-github.js";
import { Harness, installedRepository, makeClock, readStatus } from "./harness.js";

/** Two checkpoints that wait side by side, in two branches. */
const GATES = `apiVersion: playbook-bot/v1
id: gates
steps:
  - id: both
    type: parallel
    branches:
      security:
        - { id: security-ok, type: checkpoint, message: "Security?", approvers: { permission: maintain } }
      product:
        - { id: product-ok, type: checkpoint, message: "Product?", approvers: { permission: maintain } }
  - { id: done, type: end, advice: "Both approved." }
`;

/** A branch that waits for a pull request's merge while another comments. */
const MERGE_BESIDE = `apiVersion: playbook-bot/v1
id: merge-beside
steps:
  - id: work
    type: parallel
    branches:
      change:
        - { id: make-branch, type: branch, name: "playbook/beside-{{ issue.number }}" }
        - id: make-commit
          type: commit
          branch: "{{ steps.make-branch.outputs.name }}"
          message: "docs: beside"
          files: [{ path: docs/beside.md, content: "beside\\n" }]
        - id: open-pr
          type: pull_request
          head: "{{ steps.make-branch.outputs.name }}"
          title: Beside
          wait: merged
      note:
        - { id: say, type: comment, body: "Working beside the pull request." }
  - { id: done, type: end }
`;

/** The bundled parallel playbooks, run by the app on a fake repository. */
describe("parallel steps in the app", () => {
  let fake: FakeGitHub;
  let h: Harness;
  beforeEach(async () => {
    const clock = makeClock();
    fake = installedRepository(
      {
        "README.md": "# hello\n",
        ".github/playbooks/gates.yaml": GATES,
        ".github/playbooks/merge-beside.yaml": MERGE_BESIDE,
      },
      { alice: "write", carol: "maintain" },
      clock,
    );
    h = await new Harness(fake, clock).start();
  });
  afterEach(() => {
    fake.uninstall();
  });

  const bodies = (issue: number): string[] =>
    [...fake.comments.values()].filter((c) => c.issue === issue).map((c) => c.body);

  it("parallel-checks: every branch, then one comment per service, to the end", async () => {
    const issue = fake.openIssue("Checks", "Run the checks.", "alice");
    await h.label(issue.number, "playbook:parallel-checks", "alice");
    await h.drain();
    const read = readStatus(fake.statusComments(issue.number)[0]);
    expect(read.ok && read.run.status).toBe("completed");
    if (!read.ok) return;
    const frame = read.run.stack[0];
    expect(frame?.lanes).toBeUndefined();
    expect(frame?.results.checks?.outputs).toMatchObject({
      completed: ["lint", "docs", "report"],
      failed: [],
    });
    expect(frame?.results["per-service"]?.outputs?.url).toHaveLength(3);
    const all = bodies(issue.number);
    expect(all.some((b) => b.includes("Lint started for api, web, worker."))).toBe(true);
    expect(all.some((b) => b.includes("Docs check started."))).toBe(true);
    for (const [i, service] of ["api", "web", "worker"].entries())
      expect(all.some((b) => b.includes(`Service ${service} (#${i})`))).toBe(true);
    expect([...fake.repo.refs.keys()].some((r) => r.startsWith("heads/playbook/checks-"))).toBe(
      true,
    );
  });

  it("release-dag: the steps run as their needs are met, to the end", async () => {
    const issue = fake.openIssue("Release", "Release 3.2.1.", "alice");
    await h.comment(issue.number, "alice", "/run release-dag version=3.2.1");
    await h.drain();
    const read = readStatus(fake.statusComments(issue.number)[0]);
    expect(read.ok && read.run.status).toBe("completed");
    if (!read.ok) return;
    expect(read.run.outputs?.branch).toMatch(/^release\/3\.2\.1-/);
    const announce = bodies(issue.number).find((b) => b.includes("Release 3.2.1 is ready on"));
    expect(announce).toContain(String(read.run.outputs?.commit));
    const notes = bodies(issue.number).findIndex((b) => b.includes("Release notes for 3.2.1"));
    expect(notes).toBeGreaterThanOrEqual(0);
  });

  it("routes /approve to a checkpoint in a branch: the named one, then the first that waits", async () => {
    const issue = fake.openIssue("Gates", "Two approvals.", "alice");
    await h.label(issue.number, "playbook:gates", "alice");
    await h.drain();
    const waiting = readStatus(fake.statusComments(issue.number)[0]);
    expect(waiting.ok && waiting.run.status).toBe("waiting");
    const body = fake.statusComments(issue.number)[0]?.body ?? "";
    expect(body).toContain("`security` — waiting for /approve");
    await h.comment(issue.number, "carol", "/approve product-ok fine by product");
    let read = readStatus(fake.statusComments(issue.number)[0]);
    expect(read.ok && read.run.stack[0]?.results["product-ok"]?.status).toBe("completed");
    expect(read.ok && read.run.stack[0]?.results["security-ok"]).toBeUndefined();
    await h.comment(issue.number, "carol", "/approve");
    read = readStatus(fake.statusComments(issue.number)[0]);
    expect(read.ok && read.run.status).toBe("completed");
  });

  it("ends a branch's wait for a merge with the pull request event, and the run completes", async () => {
    const issue = fake.openIssue("Beside", "A change and a note.", "alice");
    await h.label(issue.number, "playbook:merge-beside", "alice");
    await h.drain();
    let read = readStatus(fake.statusComments(issue.number)[0]);
    expect(read.ok && read.run.status).toBe("waiting");
    const pr = [...fake.pulls.values()][0];
    expect(pr?.title).toBe("Beside");
    await h.closePull(pr?.number ?? 0, true);
    await h.drain();
    read = readStatus(fake.statusComments(issue.number)[0]);
    expect(read.ok && read.run.status).toBe("completed");
    expect(read.ok && read.run.stack[0]?.results["open-pr"]?.outputs?.merged).toBe(true);
  });
});
