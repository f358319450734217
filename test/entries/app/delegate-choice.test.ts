import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeGitHub } from "../../helpers/fake-github.js";
import { Harness, installedRepository, makeClock, readStatus } from "./harness.js";

/** Delegates to `changes`, then people pick the branch with /choose (the Triagent contract). */
const TRIAGE = `apiVersion: playbook-bot/v1
id: triage
name: Triage
description: Gathers recent changes in a delegate, then a person picks the branch.
entrypoint: sub
nodes:
  sub:
    type: playbook
    description: Gather recent changes first.
    playbook: changes
    mode: delegate
    with: { ns: shop }
    next:
      - { condition: a deploy broke it, label: rollback, goto: roll }
      - { condition: nothing changed, label: dig, goto: deeper }
  roll:
    type: end
    status: success
    advice: Roll back the deploy.
  deeper:
    type: end
    status: neutral
    advice: Dig deeper.
`;

const CHANGES = `apiVersion: playbook-bot/v1
id: changes
name: Recent changes
description: Asks for recent deploys.
inputs:
  ns: { type: string, required: true }
steps:
  - id: deploys
    type: investigate
    description: List the deploys.
    expected_findings: [recent_deploy]
  - id: done
    type: end
    conclusion: gathered
`;

let fake: FakeGitHub;
let h: Harness;

beforeEach(async () => {
  const clock = makeClock();
  fake = installedRepository(
    { ".github/playbooks/triage.yaml": TRIAGE, ".github/playbooks/changes.yaml": CHANGES },
    { alice: "write", erin: "triage" },
    clock,
  );
  h = await new Harness(fake, clock).start();
  fake.openIssue("checkout is down", "", "alice");
});
afterEach(() => fake.uninstall());

describe("a delegate with prose branches, through the app", () => {
  it("waits for /choose when the child returns, with the choices in the thread and the status", async () => {
    await h.comment(1, "alice", "/run triage");
    expect(readStatus(fake.statusComments(1)[0])).toMatchObject({
      ok: true,
      run: { stack: [{ current: "sub" }, { playbook: "changes", current: "deploys" }] },
    });
    await h.comment(1, "erin", "/record recent_deploy=true");

    const status = fake.statusComments(1)[0];
    const read = readStatus(status);
    expect(read.ok && read.run.status).toBe("waiting");
    expect(read.ok && read.run.stack).toHaveLength(1);
    expect(read.ok && read.run.stack[0]).toMatchObject({ current: "sub", phase: "waiting" });
    expect(status?.body).not.toContain("PB-NO-BRANCH");
    expect(status?.body).toContain(
      "**Waiting for:** findings (/record key=value) and a choice (/choose \\<branch>) from people with triage access",
    );
    const prompt = [...fake.comments.values()].at(-1)?.body ?? "";
    expect(prompt).toContain("**sub**: playbook **changes** returned (conclusion: gathered)");
    expect(prompt).toContain(
      "`/choose rollback` (a deploy broke it), `/choose dig` (nothing changed)",
    );

    const choice = await h.comment(1, "erin", "/choose rollback");
    expect(fake.reactions.filter((x) => x.commentId === choice).map((x) => x.content)).toEqual([
      "eyes",
      "rocket",
    ]);
    const done = readStatus(fake.statusComments(1)[0]);
    expect(done.ok && done.run.status).toBe("completed");
    expect(done.ok && done.run.end?.advice).toBe("Roll back the deploy.");
    expect(done.ok && done.run.stack[0]?.results.sub?.outputs).toEqual({
      conclusion: "gathered",
      chosen: "rollback",
    });
  });

  it("refuses a branch that does not exist, naming the choices", async () => {
    await h.comment(1, "alice", "/run triage");
    await h.comment(1, "erin", "/record recent_deploy=false");
    await h.comment(1, "erin", "/choose rolback");
    expect([...fake.comments.values()].at(-1)?.body).toBe(
      "> /choose rolback\n\n👎 choose one of: rollback, dig — did you mean 'rollback'?",
    );
    const read = readStatus(fake.statusComments(1)[0]);
    expect(read.ok && read.run.stack[0]?.current).toBe("sub");
  });
});
