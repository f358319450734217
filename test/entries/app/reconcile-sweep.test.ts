import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeGitHub, requestsDuring, type PendingCommentEvent } from "../../helpers/fake-github.js";
import {
  sweepOptions,
  type ReconcileSweep,
} from "../../../src/adapters/github-app/reconcile-sweep.js";
import { AppMetrics } from "../../../src/adapters/metrics/metrics.js";
import { MemoryCoordination } from "../../../src/adapters/coordination/memory.js";
import { WAITING_LABEL } from "../../../src/runtime/run-service/wake-ups.js";
import { AppConfigError, readAppConfig } from "../../../src/adapters/github-app/config.js";
import {
  EXAMPLE_REPO,
  Harness,
  REPO_ID,
  INSTALLATION_ID,
  makeClock,
  readStatus,
} from "./harness.js";

/**
 * The reconcile sweep on the fake GitHub: work whose delivery was lost (or came late) is done by
 * the next sweep, once; an idle sweep costs only conditional requests answered 304.
 */

const GATED = `apiVersion: playbook-bot/v1
id: gate
name: Gate
description: A maintainer approves, then a comment.
steps:
  - id: gate
    type: checkpoint
    message: Go?
    approvers: { permission: maintain }
  - id: say
    type: comment
    body: Done.
  - id: fin
    type: end
    status: success
`;

let fake: FakeGitHub;
let h: Harness;
let sweep: ReconcileSweep;
let metrics: AppMetrics;
const replays = async (kind: string) =>
  (await metrics.reconcileReplays.get()).values.find((v) => v.labels.kind === kind)?.value ?? 0;

const said = () => [...fake.comments.values()].filter((c) => c.body.startsWith("Done.")).length;
const run = () => {
  const read = readStatus(fake.statusComments(1)[0]);
  if (!read.ok) throw new Error(read.detail);
  return read.run;
};
const reactions = (comment: number, content: string) =>
  fake.reactions.filter((r) => r.commentId === comment && r.content === content).length;

/** A person comments, and GitHub's delivery of it is lost. */
function lostComment(login: string, body: string): { id: number; lost: PendingCommentEvent } {
  const c = fake.postAs(1, login, body);
  const lost = fake.events.pop();
  if (!lost || lost.comment.id !== c.id) throw new Error("no created event");
  return { id: c.id, lost };
}

beforeEach(async () => {
  nock.disableNetConnect();
  const clock = makeClock();
  fake = new FakeGitHub({
    ...EXAMPLE_REPO,
    clock,
    files: { ".github/playbooks/gate.yaml": GATED },
  }).install();
  fake.permissions.set("alice", "write");
  fake.permissions.set("carol", "maintain");
  h = new Harness(fake, clock);
  h.reconcile = {
    onStart: false,
    intervalMs: 3_600_000,
    graceMs: 0,
    onSweep: (s) => (sweep = s),
  };
  metrics = new AppMetrics();
  h.metrics = metrics;
  h.coordination = new MemoryCoordination();
  await h.start();
  fake.openIssue("Issue", "", "alice");
  await h.comment(1, "alice", "/run gate");
  expect(run().stack[0]?.phase).toBe("waiting");
});

afterEach(async () => {
  await h.close();
  fake.uninstall();
});

describe("the reconcile sweep", () => {
  it("does an /approve whose delivery was lost, once, however many sweeps and late deliveries follow", async () => {
    const { id, lost } = lostComment("carol", "/approve");
    const first = await sweep.run();
    expect(first).toMatchObject({ replayed: 1, failed: 0 });
    await h.drain();
    expect(said()).toBe(1);
    expect(run().status).toBe("completed");
    expect(reactions(id, "rocket")).toBe(1);
    expect(await replays("command")).toBe(1);

    // Another sweep finds it answered; GitHub's delivery, late, is the same comment: done.
    expect(await sweep.run()).toMatchObject({ replayed: 0, failed: 0 });
    const comments = fake.comments.size;
    await h.deliver("issue_comment", h.commentPayload(lost));
    await h.drain();
    expect(fake.comments.size).toBe(comments);
    expect(said()).toBe(1);
    expect(reactions(id, "-1")).toBe(0);
  });

  it("carries on a run whose continuation (the edit of its status comment) never came", async () => {
    fake.postAs(1, "carol", "/approve");
    const created = fake.events.shift();
    if (!created) throw new Error("no event");
    await h.deliver("issue_comment", h.commentPayload(created));
    // The approval was saved; the edit that would bring the next step is lost.
    expect(fake.events.length).toBeGreaterThan(0);
    fake.events.length = 0;
    expect(run().stack[0]?.phase).toBe("pending");
    expect(said()).toBe(0);

    const report = await sweep.run();
    expect(report).toMatchObject({ carriedOn: 1, replayed: 0, failed: 0 });
    expect(await replays("carry-on")).toBe(1);
    await h.drain();
    expect(said()).toBe(1);
    expect(run().status).toBe("completed");
  });

  it("after a restart on a fresh in-memory store, finds the /approve nobody answered before it", async () => {
    const { id } = lostComment("carol", "/approve");
    await h.close();
    h.coordination = undefined; // each start: a store of its own, empty
    await h.start();
    expect(await sweep.run()).toMatchObject({ replayed: 1 });
    await h.drain();
    expect(said()).toBe(1);
    expect(reactions(id, "rocket")).toBe(1);
  });

  it("an idle sweep makes only conditional requests, answered 304", async () => {
    // The first sweep reads what there is; nothing has changed by the second.
    expect(await sweep.run()).toMatchObject({ replayed: 0, carriedOn: 0, failed: 0 });
    const idle = await requestsDuring(fake, () => sweep.run());
    expect(idle.requests).toEqual([
      "GET /repos/Codertocat/Hello-World/issues/comments (304)",
      "GET /repos/Codertocat/Hello-World/issues (304)",
    ]);
    // A new comment changes the listing: it is read again (200), then idle again.
    lostComment("alice", "thanks");
    const changed = await requestsDuring(fake, () => sweep.run());
    expect(changed.requests).toContain("GET /repos/Codertocat/Hello-World/issues/comments");
    expect(
      (await requestsDuring(fake, () => sweep.run())).requests.every((r) => r.endsWith("(304)")),
    ).toBe(true);
  });

  it("does not take a comment edited into /approve for an approval", async () => {
    const c = fake.postAs(1, "carol", "will look later");
    await h.drain();
    fake.editAs(c.id, "/approve");
    await h.drain();
    expect(await sweep.run()).toMatchObject({ replayed: 0, carriedOn: 0 });
    await h.drain();
    expect(said()).toBe(0);
    expect(run().stack[0]?.phase).toBe("waiting");
    expect(reactions(c.id, "rocket")).toBe(0);
  });

  it("tries again, by the next sweep, a replay that failed, though the listing is then unchanged (304)", async () => {
    const { id } = lostComment("carol", "/approve");
    let failures = 1;
    fake.fault = ({ method, path }) =>
      method === "GET" && path === "/repos/Codertocat/Hello-World/issues/1" && failures-- > 0
        ? { status: 502 }
        : undefined;
    expect(await sweep.run()).toMatchObject({ replayed: 0, failed: 1 });
    expect(reactions(id, "rocket")).toBe(0);
    const again = await requestsDuring(fake, () => sweep.run());
    expect(again.requests.slice(0, 2)).toEqual([
      "GET /repos/Codertocat/Hello-World/issues/comments (304)",
      "GET /repos/Codertocat/Hello-World/issues (304)",
    ]);
    await h.drain();
    expect(said()).toBe(1);
    expect(reactions(id, "rocket")).toBe(1);
  });

  it("after a restart on a fresh in-memory store, carries on a run whose continuation was lost", async () => {
    fake.postAs(1, "carol", "/approve");
    const created = fake.events.shift();
    if (!created) throw new Error("no event");
    await h.deliver("issue_comment", h.commentPayload(created));
    fake.events.length = 0; // the continuation is lost, and the process restarts
    await h.close();
    h.coordination = undefined;
    await h.start();
    expect(await sweep.run()).toMatchObject({ carriedOn: 1, replayed: 0, failed: 0 });
    await h.drain();
    expect(said()).toBe(1);
    expect(run().status).toBe("completed");
  });

  it("sweeps a repository once at a time: another holder of its lock (a replica) has it", async () => {
    const store = h.coordination as MemoryCoordination;
    lostComment("carol", "/approve");
    const held = await store.acquire(`reconcile:${INSTALLATION_ID}:${REPO_ID}`);
    expect(await sweep.run()).toMatchObject({ repositories: 0, replayed: 0 });
    expect(said()).toBe(0);
    await held.release();
    expect(await sweep.run()).toMatchObject({ repositories: 1, replayed: 1 });
  });

  it("ticks an issue labelled as waiting whose wake-ups the store does not know", async () => {
    // A label no run's wait stands behind (the store that knew its wake-ups is gone).
    fake.labelAs(1, WAITING_LABEL.name, "playbook-bot[bot]");
    expect(await sweep.run()).toMatchObject({ woken: 1, failed: 0 });
    expect(await replays("wake")).toBe(1);
    // The tick found no run waiting for a time: the label is taken off, and not ticked again.
    expect(fake.issues.get(1)?.labels).not.toContain(WAITING_LABEL.name);
    expect(await sweep.run()).toMatchObject({ woken: 0 });
  });
});

describe("RECONCILE_INTERVAL", () => {
  const env = { APP_ID: "1", WEBHOOK_SECRET: "s" };
  it("sets the sweep's interval in seconds; 0 turns it off; unset leaves the default", () => {
    expect(readAppConfig({ ...env, RECONCILE_INTERVAL: "300" }).reconcileIntervalMs).toBe(300_000);
    expect(readAppConfig({ ...env, RECONCILE_INTERVAL: "0" }).reconcileIntervalMs).toBe(0);
    expect(readAppConfig(env).reconcileIntervalMs).toBeUndefined();
  });

  it("is what the app's sweep runs on, unless the app is given options of its own", () => {
    expect(sweepOptions(undefined, 0)).toBe(false);
    expect(sweepOptions(undefined, 300_000)).toEqual({ intervalMs: 300_000 });
    expect(sweepOptions(undefined, undefined)).toEqual({});
    expect(sweepOptions(false, 300_000)).toBe(false);
    expect(sweepOptions({ intervalMs: 5 }, 0)).toEqual({ intervalMs: 5 });
  });

  it("refuses what is not a whole number of seconds", () => {
    for (const bad of ["2m", "-1", "1.5", "999999"])
      expect(() => readAppConfig({ ...env, RECONCILE_INTERVAL: bad })).toThrow(AppConfigError);
  });
});
