import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { issueMarker } from "../../../src/runtime/effects.js";
import type { Effect } from "../../../src/core/engine/events.js";
import type { RunState } from "../../../src/core/engine/state.js";
import { pullRequestMarker } from "../../../src/adapters/github/octokit-port.js";
import { FakeGitHub, requestsDuring } from "../../helpers/fake-github.js";
import { shipApp } from "./fixtures.js";
import { Harness, OWNER, readStatus, REPO, testPort, EXAMPLE_REPO } from "./harness.js";

const FOLLOW_UP = `apiVersion: playbook-bot/v1
id: follow-up
name: Follow up
description: Opens a follow-up issue.
steps:
  - id: open
    type: issue
    title: "Follow up on #{{ issue.number }}"
    body: Check again next week.
  - id: done
    type: end
    status: success
`;

/** Every reading in one minute: runs started "at the same time". */
const sameMinute = () => new Date("2026-03-01T09:00:30Z");

let fake: FakeGitHub;
let h: Harness;

beforeEach(async () => {
  nock.disableNetConnect();
  fake = new FakeGitHub({
    ...EXAMPLE_REPO,
    clock: sameMinute,
    files: { ".github/playbooks/follow-up.yaml": FOLLOW_UP },
  }).install();
  fake.permissions.set("alice", "write");
  h = await new Harness(fake, sameMinute).start();
});
afterEach(() => fake.uninstall());

const runOn = (issue: number): RunState => {
  const read = readStatus(fake.statusComments(issue)[0]);
  if (!read.ok) throw new Error(read.detail);
  return read.run;
};
const followUps = () => [...fake.issues.values()].filter((i) => i.title.startsWith("Follow up"));

describe("run ids and effect keys", () => {
  it("gives two issues that start one playbook in the same minute two follow-up issues", async () => {
    const a = fake.openIssue("Disk full on db-1", "", "alice");
    const b = fake.openIssue("Disk full on db-2", "", "alice");
    await h.label(a.number, "playbook:follow-up", "alice");
    await h.label(b.number, "playbook:follow-up", "alice");
    await h.drain();

    expect(followUps().map((i) => i.title)).toEqual([
      `Follow up on #${a.number}`,
      `Follow up on #${b.number}`,
    ]);
    const [runA, runB] = [runOn(a.number), runOn(b.number)];
    expect(runA.status).toBe("completed");
    expect(runB.status).toBe("completed");
    // Readable date and time, then what makes the id unique in the repository.
    expect(runA.id).toMatch(new RegExp(`^20260301-0900-${a.number}-[a-z0-9]{5}$`));
    expect(runB.id).toMatch(new RegExp(`^20260301-0900-${b.number}-[a-z0-9]{5}$`));
    expect(runA.stack[0]?.results.open?.outputs?.number).not.toBe(
      runB.stack[0]?.results.open?.outputs?.number,
    );
  });

  it("gives two runs of one playbook on one issue in the same minute different ids", async () => {
    const a = fake.openIssue("Flaky test", "", "alice");
    await h.label(a.number, "playbook:follow-up", "alice");
    await h.drain();
    await h.comment(a.number, "alice", "/run follow-up");
    const ids = fake
      .statusComments(a.number)
      .map((c) => readStatus(c))
      .map((r) => (r.ok ? r.run.id : r.detail));
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    expect(followUps()).toHaveLength(2);
  });
});

describe("markers are accepted only on what the app authored", () => {
  const run = { context: { issue: { number: 1 } } } as unknown as RunState;
  const effect = (kind: Effect["kind"], params: Record<string, unknown>, key: string): Effect =>
    ({ key, kind, step: "s", params }) as Effect;
  const port = testPort;

  it("does not adopt an outsider's decoy issue that carries the predicted marker", async () => {
    fake.openIssue("Ship it", "", "alice");
    const key = "20260301-0900-001/open/1";
    const decoy = fake.openIssue("Follow up", `see ${issueMarker(key)}`, "mallory");
    const made = await port().perform(effect("issue", { title: "Follow up" }, key), run);
    expect(made).toMatchObject({ ok: true, outputs: { created: true } });
    expect(made.ok && made.outputs.number).not.toBe(decoy.number);
    // The app's own issue is found again on a retry (by its app id, or by its login).
    for (const p of [port(), port({ botLogin: fake.botLogin })]) {
      const again = await p.perform(effect("issue", { title: "Follow up" }, key), run);
      expect(again).toMatchObject({ ok: true, outputs: { created: false } });
      expect(again.ok && again.outputs.number).toBe(made.ok && made.outputs.number);
    }
  });

  it("locally, with a person's token, adopts only what that person opened", async () => {
    fake.openIssue("Ship it", "", "alice");
    const key = "20260301-0900-k3f9qz/open/1";
    const local = port({ appId: 0 });
    const decoy = fake.openIssue("Follow up", issueMarker(key), "mallory");
    const mine = fake.openIssue("Follow up", issueMarker(key), fake.tokenUser);
    const r = await local.perform(effect("issue", { title: "Follow up" }, key), run);
    expect(r).toMatchObject({ ok: true, outputs: { number: mine.number, created: false } });
    expect(r.ok && r.outputs.number).not.toBe(decoy.number);
  });

  it("does not adopt someone else's open pull request for the head", async () => {
    fake.openIssue("Ship it", "", "alice");
    fake.pushAs("fix/x", "a fix");
    const key = "20260301-0900-1-abcde/pr/1";
    const other = fake.openPullAs("mallory", "fix/x", "Mine", pullRequestMarker(1, key));
    for (const p of [port(), port({ botLogin: fake.botLogin })]) {
      const r = await p.perform(effect("pull_request", { head: "fix/x", title: "Fix" }, key), run);
      expect(r).toMatchObject({ ok: false, error: { code: "GH-CONFLICT" } });
      if (!r.ok) expect(r.error.message).toContain(`#${other.number}`);
    }
    expect(fake.pulls.size).toBe(1);
  });

  it("routes a closed pull request to its issue only when the app opened it", async () => {
    const issue = fake.openIssue("Ship it", "", "alice");
    await h.label(issue.number, "playbook:follow-up", "alice");
    await h.drain();
    fake.pushAs("fix/y", "a change");
    const decoy = fake.openPullAs(
      "mallory",
      "fix/y",
      "Decoy",
      pullRequestMarker(issue.number, `${runOn(issue.number).id}/pr/1`),
    );
    const r = await requestsDuring(fake, () => h.closePull(decoy.number, true));
    // A person's pull request: not even a request.
    expect(r.requests).toEqual([]);
    // Another app's (a bot, but not this app): one look at who opened it, nothing else.
    const bot = fake.openPullAs("other-app[bot]", "fix/y", "Decoy", decoy.body);
    const r2 = await requestsDuring(fake, () => h.closePull(bot.number, true));
    expect(r2.requests).toEqual([`GET /repos/${OWNER}/${REPO}/issues/${bot.number}`]);
  });

  it("routes the merge of the app's own pull request to the run that waits for it", async () => {
    fake.uninstall();
    ({ fake, h } = await shipApp());
    const issue = fake.openIssue("Ship it", "", "alice");
    await h.label(issue.number, "playbook:ship", "alice");
    await h.drain();
    await h.comment(issue.number, "carol", "/approve");
    await h.drain();
    const [pr] = [...fake.pulls.values()];
    expect(pr?.user.login).toBe(fake.botLogin);
    await h.closePull(pr!.number, true);
    await h.drain();
    expect(runOn(issue.number).status).toBe("completed");
    expect(fake.issues.get(issue.number)?.state).toBe("closed");
  });
});
