/**
 * Two replicas of the app, each with its own Redis connection to one real redis-server, in front
 * of one stateful fake GitHub. Every delivery reaches both at the same moment (as when a load
 * balancer retries, or GitHub's redelivery races the first copy): everything is done once.
 */
import { randomUUID } from "node:crypto";
import nock from "nock";
import { Probot, ProbotOctokit } from "probot";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createPlaybookBot } from "../../../src/adapters/github-app/app.js";
import { AppConfigError, readAppConfig } from "../../../src/adapters/github-app/config.js";
import { openCoordination } from "../../../src/adapters/coordination/index.js";
import { RedisCoordination } from "../../../src/adapters/coordination/redis.js";
import { FakeGitHub, requestsDuring } from "../../helpers/fake-github.js";
import { startRedis, type RedisServer } from "../../helpers/redis.js";
import { SHIP } from "./fixtures.js";
import {
  APP_ID,
  EXAMPLE_REPO,
  Harness,
  makeClock,
  makeProbot,
  readStatus,
  type Payload,
} from "./harness.js";

const QUICK = `apiVersion: playbook-bot/v1
id: quick
name: Quick change
description: A branch, a commit and a pull request, with no questions asked.
steps:
  - id: branch
    type: branch
    name: playbook/quick-{{ issue.number }}
  - id: commit
    type: commit
    branch: "{{ steps.branch.outputs.name }}"
    message: "docs: quick"
    files:
      - path: docs/quick.md
        content: "Quick for #{{ issue.number }}\\n"
  - id: pr
    type: pull_request
    head: "{{ steps.branch.outputs.name }}"
    title: Quick
    body: "Closes #{{ issue.number }}"
  - id: done
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

interface Delivery {
  id: string;
  name: string;
  payload: Payload;
}

/** The fake, two replicas sharing one Redis prefix, and deliveries to all of them at once. */
class Replicas {
  readonly h: Harness;
  readonly probots: Probot[] = [];
  readonly stores: RedisCoordination[] = [];
  readonly sent: Delivery[] = [];
  private next = 0;

  constructor(
    readonly fake: FakeGitHub,
    clock: () => Date,
    readonly prefix = `replicas-${randomUUID().slice(0, 8)}:`,
  ) {
    this.h = new Harness(fake, clock);
  }

  async start(
    count = 2,
    store: Partial<ConstructorParameters<typeof RedisCoordination>[0]> = {},
    lockLeaseMs?: number,
  ): Promise<this> {
    for (let i = 0; i < count; i++) {
      const coordination = new RedisCoordination({
        url: server.url,
        prefix: this.prefix,
        ...store,
      });
      this.stores.push(coordination);
      const options = {
        clock: this.h.clock,
        coordination,
        ...(lockLeaseMs ? { lockLeaseMs } : {}),
      };
      this.probots.push((await makeProbot(options)).probot);
    }
    return this;
  }

  /** One delivery to the given replicas (all by default), at the same moment. */
  async deliver(
    name: string,
    payload: Payload,
    id = `delivery-${++this.next}-${randomUUID().slice(0, 6)}`,
    to: Probot[] = this.probots,
  ): Promise<string> {
    this.sent.push({ id, name, payload });
    await Promise.all(
      to.map((p) => p.receive({ id, name, payload: structuredClone(payload) } as never)),
    );
    return id;
  }

  /** The comment events the app's own requests caused, each to every replica, until none is left. */
  async drain(): Promise<void> {
    for (let n = 0, ev = this.fake.events.shift(); ev; ev = this.fake.events.shift()) {
      if (++n > 200) throw new Error("too many events: a loop?");
      await this.deliver("issue_comment", this.h.commentPayload(ev));
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.stores.map((s) => s.close()));
  }
}

/** What GitHub holds, to compare before and after. */
function snapshot(fake: FakeGitHub) {
  return JSON.stringify({
    comments: [...fake.comments.values()].map((c) => [c.id, c.body]),
    refs: [...fake.repo.refs.entries()],
    pulls: [...fake.pulls.values()],
    issues: [...fake.issues.values()].map((i) => [i.number, i.state, i.labels]),
    reactions: fake.reactions,
  });
}

describe("two replicas on one Redis", () => {
  let r: Replicas | undefined;
  afterEach(async () => {
    r?.fake.uninstall();
    await r?.close();
    r = undefined;
  });

  function repo(files: Record<string, string>): { fake: FakeGitHub; clock: () => Date } {
    nock.disableNetConnect();
    const clock = makeClock();
    const fake = new FakeGitHub({ ...EXAMPLE_REPO, clock, files }).install();
    for (const [who, role] of [
      ["alice", "write"],
      ["carol", "maintain"],
      ["dave", "maintain"],
    ] as const)
      fake.permissions.set(who, role);
    return { fake, clock };
  }

  it("a labelled issue ends with one status comment, one branch, one commit and one pull request; redelivery changes nothing", async () => {
    const { fake, clock } = repo({ ".github/playbooks/quick.yaml": QUICK });
    r = await new Replicas(fake, clock).start();
    const issue = fake.openIssue("Quick", "Please.", "alice", ["playbook:quick"]);
    await r.deliver("issues", r.h.labeledPayload(issue.number, "playbook:quick", "alice"));
    await r.drain();

    const statuses = fake.statusComments(issue.number);
    expect(statuses).toHaveLength(1);
    const read = readStatus(statuses[0]);
    expect(read.ok && read.run.status).toBe("completed");
    expect(fake.branches().sort()).toEqual(["master", "playbook/quick-1"]);
    expect(fake.commitsWith(/^docs: quick$/)).toHaveLength(1);
    expect(fake.pulls.size).toBe(1);
    // Only one replica did each piece of work: one request creates each thing.
    const writes = fake.requests.map((q) => `${q.method} ${q.path.split("?")[0]}`);
    expect(writes.filter((w) => w === "POST /repos/Codertocat/Hello-World/git/refs")).toHaveLength(
      1,
    );
    expect(writes.filter((w) => w === "POST /repos/Codertocat/Hello-World/pulls")).toHaveLength(1);
    expect(
      writes.filter((w) => w === "POST /repos/Codertocat/Hello-World/issues/1/comments"),
    ).toHaveLength(fake.statusComments(1).length + /* the pull request's notice */ 1);

    // GitHub redelivers everything, to both replicas at once: no request at all, nothing changes.
    const before = snapshot(fake);
    const again = await requestsDuring(fake, async () => {
      for (const d of [...(r as Replicas).sent]) await r?.deliver(d.name, d.payload, d.id);
    });
    expect(again.requests).toEqual([]);
    expect(snapshot(fake)).toBe(before);
  });

  it("/reject on one replica and /approve on the other at the same moment: exactly one takes effect, the other is refused with a reply", async () => {
    const { fake, clock } = repo({ ".github/playbooks/ship.yaml": SHIP });
    r = await new Replicas(fake, clock).start();
    const [first, second] = r.probots as [Probot, Probot];
    const issue = fake.openIssue("Ship it", "Please ship.", "alice", ["playbook:ship"]);
    await r.deliver("issues", r.h.labeledPayload(issue.number, "playbook:ship", "alice"));
    await r.drain();
    const status = fake.statusComments(issue.number)[0];
    const waiting = readStatus(status);
    expect(waiting.ok && waiting.run.status).toBe("waiting");

    const reject = fake.postAs(issue.number, "dave", "/reject too risky");
    const approve = fake.postAs(issue.number, "carol", "/approve");
    const [rejected, approved] = [fake.events.shift(), fake.events.shift()];
    await Promise.all([
      r.deliver("issue_comment", r.h.commentPayload(rejected!), undefined, [first]),
      r.deliver("issue_comment", r.h.commentPayload(approved!), undefined, [second]),
    ]);
    await r.drain();

    const reactions = (id: number) =>
      fake.reactions.filter((x) => x.commentId === id).map((x) => x.content);
    const verdicts = [reactions(reject.id), reactions(approve.id)];
    // One command accepted (🚀), the other refused (👎); both were seen (👀).
    expect(verdicts.filter((v) => v.includes("rocket"))).toHaveLength(1);
    expect(verdicts.filter((v) => v.includes("-1"))).toHaveLength(1);
    expect(verdicts.every((v) => v.includes("eyes"))).toBe(true);
    const rejectWon = reactions(reject.id).includes("rocket");
    const refused = rejectWon ? "/approve" : "/reject too risky";
    const word = rejectWon ? "approve" : "reject";
    const replies = [...fake.comments.values()].filter(
      (c) => c.performed_via_github_app && c.body.includes(`> ${refused}`),
    );
    expect(replies).toHaveLength(1);
    expect(replies[0]?.body).toContain(`nothing on this issue waits for /${word}`);

    // The status comment agrees with the thread.
    const final = readStatus(fake.statusComments(issue.number)[0]);
    if (!final.ok) throw new Error(final.detail);
    expect(fake.statusComments(issue.number)).toHaveLength(1);
    if (rejectWon) {
      expect(final.run.status).toBe("failed");
      expect(final.run.error?.code).toBe("PB-REJECTED");
      expect(fake.pulls.size).toBe(0);
      expect(fake.branches()).toEqual(["master"]);
    } else {
      expect(final.run.status).toBe("waiting");
      expect(final.run.stack[0]?.current).toBe("pr");
      expect(final.run.stack[0]?.results.approve?.outputs?.approved_by).toEqual(["carol"]);
      expect(fake.pulls.size).toBe(1);
    }
  });

  it("a Redis outage: the delivery fails with a clear log line and is not marked done; its redelivery does the work once", async () => {
    const { fake, clock } = repo({ ".github/playbooks/quick.yaml": QUICK });
    r = await new Replicas(fake, clock).start(2, { commandTimeoutMs: 300 }, 1_000);
    const [first, second] = r.probots as [Probot, Probot];
    const admin = new RedisCoordination({ url: server.url, prefix: r.prefix });
    try {
      await admin.isDone("connect-first");
      const errors = vi.spyOn(first.log, "error");
      let paused = false;
      // Redis stops answering right after the status comment is created, before the state is
      // recorded and the delivery marked done.
      fake.fault = (req) => {
        if (!paused && req.method === "POST" && /\/issues\/1\/comments$/.test(req.path)) {
          paused = true;
          void admin.client.call("CLIENT", "PAUSE", "1500", "ALL");
        }
        return undefined;
      };
      const issue = fake.openIssue("Quick", "Please.", "alice", ["playbook:quick"]);
      const payload = r.h.labeledPayload(issue.number, "playbook:quick", "alice");
      const id = "delivery-outage";
      await expect(r.deliver("issues", payload, id, [first])).rejects.toThrow(
        /Redis at redis:\/\/127\.0\.0\.1:\d+ could not/,
      );
      expect(paused).toBe(true);
      const logged = errors.mock.calls.map((c) => String(c[0]));
      expect(logged).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^delivery ${id} \\(issues\\) failed: Redis at redis://127\\.0\\.0\\.1:\\d+ could not .*It is not marked done: its retry does the work\\.$`,
          ),
        ),
      );
      // Answered once the pause ends: not done.
      expect(await admin.isDone(id)).toBe(false);

      // GitHub redelivers it, to the other replica: it waits for the stale lock's lease, then
      // finds the run the first attempt started (no second status comment) and goes on with it.
      await r.deliver("issues", payload, id, [second]);
      expect(await admin.isDone(id)).toBe(true);
      await r.drain();
      expect(fake.statusComments(issue.number)).toHaveLength(1);
      const read = readStatus(fake.statusComments(issue.number)[0]);
      expect(read.ok && read.run.status).toBe("completed");
      expect(fake.pulls.size).toBe(1);
      expect(fake.commitsWith(/^docs: quick$/)).toHaveLength(1);
    } finally {
      await admin.close();
    }
  });
});

describe("choosing the coordination store", () => {
  const env = { WEBHOOK_SECRET: "secret", APP_ID: String(APP_ID) };

  /** A Probot whose logger exists (it is made when Probot first loads an app). */
  async function probot(): Promise<Probot> {
    const p = new Probot({
      appId: APP_ID,
      githubToken: "test",
      Octokit: ProbotOctokit,
      logLevel: "fatal",
    });
    await p.load(() => undefined);
    return p;
  }

  it("without REDIS_URL the app coordinates in this process's memory (one replica)", async () => {
    const config = readAppConfig(env);
    expect(config.redis).toBeUndefined();
    expect(openCoordination({}).kind).toBe("memory");
    const p = await probot();
    const info = vi.spyOn(p.log, "info");
    await p.load(createPlaybookBot({ config, wakeUps: false, reconcile: false }));
    expect(info).toHaveBeenCalledWith(
      "coordination: in this process's memory; run one replica only (set REDIS_URL to run several)",
    );
  });

  it("with REDIS_URL it coordinates through Redis, and names it without the password", async () => {
    const url = server.url.replace("redis://", "redis://app:s3cret@");
    const config = readAppConfig({ ...env, REDIS_URL: url, REDIS_PREFIX: "pb-test:" });
    expect(config.redis).toEqual({ url, prefix: "pb-test:" });
    expect(readAppConfig({ ...env, REDIS_URL: server.url }).redis?.prefix).toBe("playbook-bot:");
    const store = openCoordination({ redis: { url: server.url, prefix: "pb-test:" } });
    try {
      expect(store.kind).toBe("redis");
      await store.put("k", 1, 10_000);
      expect(await store.get("k")).toBe(1);
    } finally {
      await store.close();
    }
    const p = await probot();
    const info = vi.spyOn(p.log, "info");
    await p.load(createPlaybookBot({ config, wakeUps: false, reconcile: false }));
    const line = String(info.mock.calls.find((c) => /coordination/.test(String(c[0])))?.[0]);
    expect(line).toBe(
      `coordination: Redis at ${server.url}; replicas share locks, delivery dedupe and run bookkeeping`,
    );
    expect(line).not.toContain("s3cret");
  });

  it("refuses a REDIS_URL or REDIS_PREFIX it cannot use, saying how to write it", () => {
    expect(() => readAppConfig({ ...env, REDIS_URL: "localhost:6379" })).toThrow(AppConfigError);
    expect(() => readAppConfig({ ...env, REDIS_URL: "not a url" })).toThrow(
      /REDIS_URL is not a URL: write it as redis:\/\//,
    );
    expect(() => readAppConfig({ ...env, REDIS_URL: "http://cache:6379" })).toThrow(
      /REDIS_URL must start with redis:\/\/ or rediss:\/\/, not http:/,
    );
    expect(() =>
      readAppConfig({ ...env, REDIS_URL: "redis://cache", REDIS_PREFIX: "has space" }),
    ).toThrow(/REDIS_PREFIX may have 1 to 64 letters/);
    expect(readAppConfig({ ...env, REDIS_URL: "  " }).redis).toBeUndefined();
  });
});
