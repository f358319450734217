/**
 * The reconcile sweep of two replicas sharing one real redis-server: a repository is swept by one
 * of them at a time, what one did the other does not do again, and the record of what was seen
 * (the listing's ETag among it) is shared, so the other's idle sweep is answered 304 too.
 */
import { randomUUID } from "node:crypto";
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import type { Probot } from "probot";
import { RedisCoordination } from "../../../src/adapters/coordination/redis.js";
import type { ReconcileSweep } from "../../../src/adapters/github-app/reconcile-sweep.js";
import { FakeGitHub, requestsDuring } from "../../helpers/fake-github.js";
import { startRedis, type RedisServer } from "../../helpers/redis.js";
import { EXAMPLE_REPO, Harness, makeClock, makeProbot } from "./harness.js";

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

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});

let fake: FakeGitHub;
let h: Harness;
const replicas: { probot: Probot; sweep: ReconcileSweep; close: () => Promise<void> }[] = [];
const stores: RedisCoordination[] = [];

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
  const prefix = `reconcile-${randomUUID().slice(0, 8)}:`;
  for (let i = 0; i < 2; i++) {
    const coordination = new RedisCoordination({ url: server.url, prefix });
    stores.push(coordination);
    let sweep: ReconcileSweep | undefined;
    const started = await makeProbot({
      clock,
      coordination,
      reconcile: { onStart: false, intervalMs: 3_600_000, graceMs: 0, onSweep: (s) => (sweep = s) },
    });
    if (!sweep) throw new Error("no sweep");
    replicas.push({ probot: started.probot, sweep, close: started.close });
  }
  h.probot = replicas[0]?.probot as Probot;
  fake.openIssue("Issue", "", "alice");
  await h.comment(1, "alice", "/run gate");
});

afterEach(async () => {
  for (const r of replicas.splice(0)) await r.close();
  await Promise.all(stores.splice(0).map((s) => s.close()));
  fake.uninstall();
});

it("two replicas sweeping at once do a lost /approve once, and share what they saw", async () => {
  const c = fake.postAs(1, "carol", "/approve");
  fake.events.pop(); // GitHub's delivery of it is lost
  const [a, b] = await Promise.all(replicas.map((r) => r.sweep.run()));
  expect((a?.replayed ?? 0) + (b?.replayed ?? 0)).toBe(1);
  expect((a?.failed ?? 0) + (b?.failed ?? 0)).toBe(0);
  await h.drain();
  expect([...fake.comments.values()].filter((x) => x.body.startsWith("Done."))).toHaveLength(1);
  expect(fake.reactions.filter((r) => r.commentId === c.id && r.content === "rocket")).toHaveLength(
    1,
  );

  // One replica reads what changed; the other's sweep then finds nothing new, at no cost.
  await replicas[0]?.sweep.run();
  const idle = await requestsDuring(fake, () => replicas[1]?.sweep.run() as Promise<unknown>);
  expect(idle.requests.filter((r) => r.startsWith("GET /repos/"))).toEqual([
    "GET /repos/Codertocat/Hello-World/issues/comments (304)",
    "GET /repos/Codertocat/Hello-World/issues (304)",
  ]);
});
