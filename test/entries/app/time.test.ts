import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryCoordination } from "../../../src/adapters/coordination/memory.js";
import { RedisCoordination } from "../../../src/adapters/coordination/redis.js";
import { WAITING_LABEL, type WakeUpTimer } from "../../../src/runtime/run-service/wake-ups.js";
import { FakeGitHub } from "../../helpers/fake-github.js";
import { startRedis, type RedisServer } from "../../helpers/redis.js";
import { EXAMPLE_REPO, Harness, readStatus } from "./harness.js";

/**
 * Time passes in the app: reminders, timeouts, `limits.timeout` and retry backoffs fire with
 * nobody commenting — through the app's timer, its wake-ups in the coordination store, and the
 * waiting label that finds them again after a restart.
 */

const DAY = 24 * 3_600_000;

const WAIT = `apiVersion: playbook-bot/v1
id: wait
name: Wait for a go
description: A maintainer says go within three days, or the run is cancelled.
steps:
  - id: approve
    type: checkpoint
    message: Go ahead?
    approvers: { permission: maintain }
    reminder: 1d
    timeout: 3d
    on_timeout: cancel
  - id: done
    type: end
`;

const LIMITED = `apiVersion: playbook-bot/v1
id: limited
name: Limited
description: The whole run may take two hours.
limits: { timeout: 2h }
steps:
  - id: approve
    type: checkpoint
    message: Go ahead?
    approvers: { permission: maintain }
  - id: done
    type: end
`;

const RETRY = `apiVersion: playbook-bot/v1
id: retry
name: Retry
description: A branch that GitHub rate-limits at first.
steps:
  - id: branch
    type: branch
    name: work/retry
    on_error: { GH-RATE-LIMITED: retry:2, default: fail }
  - id: done
    type: end
`;

/** A clock the test moves: ten milliseconds per reading, and `later` for the rest. */
function testClock(start = "2026-03-02T09:00:00Z") {
  let t = Date.parse(start);
  const clock = () => new Date((t += 10));
  return Object.assign(clock, { later: (ms: number) => void (t += ms) });
}

let fake: FakeGitHub;
let installed: FakeGitHub | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  installed?.uninstall();
  installed = undefined;
});

/** The app with its timer (driven by the test), on a fresh fake repository with these playbooks. */
async function appWith(
  playbooks: Record<string, string>,
  clock = testClock(),
  coordination?: MemoryCoordination | RedisCoordination,
) {
  nock.disableNetConnect();
  fake = new FakeGitHub({
    ...EXAMPLE_REPO,
    clock,
    files: Object.fromEntries(
      Object.entries(playbooks).map(([id, yaml]) => [`.github/playbooks/${id}.yaml`, yaml]),
    ),
  }).install();
  installed = fake;
  fake.permissions.set("alice", "write");
  fake.permissions.set("carol", "maintain");
  return replica(clock, coordination);
}

async function replica(
  clock: ReturnType<typeof testClock>,
  coordination?: MemoryCoordination | RedisCoordination,
) {
  let timer: WakeUpTimer | undefined;
  const h = new Harness(fake, clock);
  // The test moves the clock and delivers what is due; no timer of the machine's own.
  h.wakeUps = {
    scanOnStart: false,
    precise: false,
    pollMs: 3_600_000,
    onTimer: (t) => (timer = t),
  };
  if (coordination) h.coordination = coordination;
  await h.start();
  if (!timer) throw new Error("the app started no timer");
  const t = timer;
  cleanups.push(() => t.stop());
  /** Time passes: the due wake-ups are delivered, then the events they cause. */
  const pass = async (ms: number) => {
    clock.later(ms);
    const n = await t.runDue();
    await h.drain();
    return n;
  };
  return { h, timer: t, clock, pass };
}

/** GitHub rate-limits the first branch creation, once. */
function rateLimitFirstBranch(): void {
  let limited = 1;
  fake.fault = (r) =>
    r.method === "POST" && r.path.endsWith("/git/refs") && limited-- > 0
      ? {
          status: 403,
          body: { message: "API rate limit exceeded" },
          headers: { "x-ratelimit-remaining": "0", "retry-after": "1" },
        }
      : undefined;
}

const status = (issue = 1) => readStatus(fake.statusComments(issue).at(-1));
const bodies = (issue = 1) =>
  [...fake.comments.values()].filter((c) => c.issue === issue).map((c) => c.body);

describe("time passes in the app", () => {
  it("a checkpoint reminds after a day and is cancelled after three, with nobody commenting", async () => {
    const { h, pass } = await appWith({ wait: WAIT });
    fake.openIssue("Go?", "", "alice");
    await h.label(1, "playbook:wait", "alice");
    await h.drain();
    let s = status();
    expect(s.ok && s.run.status).toBe("waiting");
    // While the run waits for a time, the issue carries the label (created with its colour).
    expect(fake.issues.get(1)?.labels).toContain(WAITING_LABEL.name);
    expect(fake.repoLabels.get(WAITING_LABEL.name)?.color).toBe(WAITING_LABEL.color);
    // An hour later nothing is due: a tick (if any) changes nothing and posts nothing.
    const before = fake.comments.size;
    await pass(3_600_000);
    expect(fake.comments.size).toBe(before);
    // A day later: the reminder.
    expect(await pass(DAY)).toBe(1);
    expect(bodies().some((b) => /remind/i.test(b))).toBe(true);
    s = status();
    expect(s.ok && s.run.status).toBe("waiting");
    // Three days in: the step times out and the run is cancelled; the label goes.
    await pass(2 * DAY);
    s = status();
    expect(s.ok && s.run.status).toBe("cancelled");
    expect(fake.issues.get(1)?.labels).not.toContain(WAITING_LABEL.name);
    // Nothing is left to wake up.
    expect(await pass(10 * DAY)).toBe(0);
  });

  it("limits.timeout fails the run when its time is up", async () => {
    const { h, pass } = await appWith({ limited: LIMITED });
    fake.openIssue("Limited", "", "alice");
    await h.label(1, "playbook:limited", "alice");
    await h.drain();
    expect(await pass(3_600_000)).toBe(0);
    await pass(3_600_000);
    const s = status();
    expect(s.ok && s.run.status).toBe("failed");
    expect(s.ok && s.run.error?.code).toBe("PB-TIMEOUT");
  });

  it("a step rate-limited by GitHub is retried after its backoff by itself", async () => {
    const { h, pass } = await appWith({ retry: RETRY });
    fake.openIssue("Retry", "", "alice");
    rateLimitFirstBranch();
    await h.label(1, "playbook:retry", "alice");
    await h.drain();
    let s = status();
    expect(s.ok && s.run.stack[0]?.phase).toBe("pending");
    expect(fake.branches()).not.toContain("work/retry");
    await pass(60_000);
    s = status();
    expect(s.ok && s.run.status).toBe("completed");
    expect(fake.branches()).toContain("work/retry");
  });

  it("a wake-up for a run that finished meanwhile does nothing", async () => {
    const { h, pass } = await appWith({ wait: WAIT });
    fake.openIssue("Go?", "", "alice");
    await h.label(1, "playbook:wait", "alice");
    await h.drain();
    await h.comment(1, "carol", "/approve");
    const s = status();
    expect(s.ok && s.run.status).toBe("completed");
    expect(fake.issues.get(1)?.labels).not.toContain(WAITING_LABEL.name);
    const requests = fake.requests.length;
    expect(await pass(5 * DAY)).toBe(0);
    expect(fake.requests.length).toBe(requests);
  });

  it("after a restart (the in-memory store is gone) the labelled issue is found and its timeout fires", async () => {
    const clock = testClock();
    const first = await appWith({ wait: WAIT }, clock);
    fake.openIssue("Go?", "", "alice");
    await first.h.label(1, "playbook:wait", "alice");
    await first.h.drain();
    await first.timer.stop();
    // A new process: no wake-ups; the start-up scan lists the issues with the label.
    let timer: WakeUpTimer | undefined;
    const h = new Harness(fake, clock);
    h.wakeUps = { precise: false, pollMs: 3_600_000, onTimer: (t) => (timer = t) };
    await h.start();
    cleanups.push(() => timer?.stop());
    clock.later(4 * DAY);
    // The scan runs as the app starts; its ticks are due at once.
    await expect.poll(async () => (await timer?.runDue()) ?? 0, { timeout: 5000 }).toBe(1);
    await h.drain();
    const s = status();
    expect(s.ok && s.run.status).toBe("cancelled");
    expect(fake.requests.some((r) => r.path.startsWith("/app/installations"))).toBe(true);
    // One list request per repository page, by the label, closed issues too.
    const listed = fake.requests.filter(
      (r) => r.method === "GET" && /\/issues\?/.test(r.path) && r.path.includes("labels="),
    );
    expect(listed).toHaveLength(1);
    expect(listed[0]?.path).toContain(`labels=${WAITING_LABEL.name}`);
    expect(listed[0]?.path).toContain("state=all");
  });

  it("a checkpoint's timeout survives a restart whose scan ticks the run early: it fires at its deadline, once", async () => {
    const clock = testClock();
    const first = await appWith({ wait: WAIT }, clock);
    fake.openIssue("Go?", "", "alice");
    await first.h.label(1, "playbook:wait", "alice");
    await first.h.drain();
    await first.timer.stop();
    // Two hours in, a new process on a fresh memory store: its scan ticks the issue at once,
    // long before the reminder (1 d) and the timeout (3 d).
    clock.later(2 * 3_600_000);
    let timer: WakeUpTimer | undefined;
    const h = new Harness(fake, clock);
    h.wakeUps = { precise: false, pollMs: 3_600_000, onTimer: (t) => (timer = t) };
    await h.start();
    cleanups.push(() => timer?.stop());
    await expect.poll(async () => (await timer?.runDue()) ?? 0, { timeout: 5000 }).toBe(1);
    await h.drain();
    const pass = async (ms: number) => {
      clock.later(ms);
      const n = (await timer?.runDue()) ?? 0;
      await h.drain();
      return n;
    };
    // The early tick set the next wake-up again: nothing before it, the reminder at a day.
    expect(await pass(12 * 3_600_000)).toBe(0);
    expect(await pass(10 * 3_600_000)).toBe(1);
    expect(bodies().filter((b) => /^Reminder/.test(b))).toHaveLength(1);
    // And the timeout at three days, once.
    expect(await pass(2 * DAY)).toBe(1);
    const s = status();
    expect(s.ok && s.run.status).toBe("cancelled");
    // One comment says so (the status comment shows it too).
    expect(
      bodies().filter((b) => b.startsWith("No approval for 'approve' within 3d")),
    ).toHaveLength(1);
    expect(await pass(10 * DAY)).toBe(0);
  });

  it("the timer wakes up by itself at the nearest time it set (a retry's backoff)", async () => {
    // The machine's own time, and the app's own timer: nobody calls runDue.
    const clock = Object.assign(() => new Date(), { later: () => undefined });
    nock.disableNetConnect();
    fake = new FakeGitHub({
      ...EXAMPLE_REPO,
      clock,
      files: { ".github/playbooks/retry.yaml": RETRY },
    }).install();
    installed = fake;
    fake.permissions.set("alice", "write");
    const h = new Harness(fake, clock);
    h.wakeUps = { scanOnStart: false, pollMs: 3_600_000 };
    await h.start();
    cleanups.push(() => h.close());
    fake.openIssue("Retry", "", "alice");
    rateLimitFirstBranch();
    await h.label(1, "playbook:retry", "alice");
    await h.drain();
    expect(fake.branches()).not.toContain("work/retry");
    await expect
      .poll(() => fake.branches(), { timeout: 10_000, interval: 100 })
      .toContain("work/retry");
    await h.drain();
    const s = status();
    expect(s.ok && s.run.status).toBe("completed");
  });

  it("close stops the timer: a wake-up due afterwards is not delivered by this process", async () => {
    const { h, timer, clock } = await appWith({ wait: WAIT });
    fake.openIssue("Go?", "", "alice");
    await h.label(1, "playbook:wait", "alice");
    await h.drain();
    await h.close();
    clock.later(2 * DAY);
    const comments = fake.comments.size;
    expect(await timer.runDue()).toBe(0);
    expect(fake.comments.size).toBe(comments);
  });
});

describe("two replicas on one Redis", () => {
  let redis: RedisServer | undefined;
  afterEach(async () => {
    await redis?.stop();
    redis = undefined;
  });

  it("fire each wake-up exactly once: one reminder, not two", async () => {
    redis = await startRedis();
    const clock = testClock();
    const one = new RedisCoordination({ url: redis.url, prefix: "time-test:" });
    const two = new RedisCoordination({ url: redis.url, prefix: "time-test:" });
    cleanups.push(
      () => one.close(),
      () => two.close(),
    );
    const a = await appWith({ wait: WAIT }, clock, one);
    const b = await replica(clock, two);
    fake.openIssue("Go?", "", "alice");
    await a.h.label(1, "playbook:wait", "alice");
    await a.h.drain();
    clock.later(DAY + 60_000);
    const fired = await Promise.all([a.timer.runDue(), b.timer.runDue()]);
    expect(fired.reduce((n, x) => n + x, 0)).toBe(1);
    await a.h.drain();
    expect(bodies().filter((x) => /remind/i.test(x))).toHaveLength(1);
  });

  /** Two replicas on a fresh Redis, the run of issue 1 waiting for its reminder. */
  async function twoReplicas() {
    redis = await startRedis();
    const clock = testClock();
    const one = new RedisCoordination({ url: redis.url, prefix: "time-test:" });
    const two = new RedisCoordination({ url: redis.url, prefix: "time-test:" });
    cleanups.push(
      () => one.close(),
      () => two.close(),
    );
    const a = await appWith({ wait: WAIT }, clock, one);
    const b = await replica(clock, two);
    fake.openIssue("Go?", "", "alice");
    await a.h.label(1, "playbook:wait", "alice");
    await a.h.drain();
    return { a, b, one, clock };
  }

  const reminders = () => bodies().filter((x) => /^Reminder/.test(x));

  it("a replica that dies mid-tick never completes its claim: the other fires the wake-up once the lease ran out", async () => {
    const { a, b, one, clock } = await twoReplicas();
    // The first replica's tick hangs on GitHub's token, then the process is gone (and with it
    // its connection to Redis): its claim is neither renewed nor completed.
    let gone: ((err: Error) => void) | undefined;
    Object.assign(a.h.probot, {
      auth: () => new Promise((_, reject) => (gone = reject)),
    });
    clock.later(DAY + 60_000);
    const dying = a.timer.runDue();
    await expect.poll(() => gone !== undefined, { timeout: 5000 }).toBe(true);
    one.client.disconnect();
    // While its lease lasts, nobody else takes the wake-up.
    expect(await b.timer.runDue()).toBe(0);
    expect(reminders()).toHaveLength(0);
    // Once the lease (60 s) ran out, the other replica fires it: one reminder.
    clock.later(60_000);
    expect(await b.timer.runDue()).toBe(1);
    await b.h.drain();
    expect(reminders()).toHaveLength(1);
    gone?.(new Error("the process is gone"));
    expect(await dying).toBe(0);
    expect(await b.pass(2 * DAY)).toBe(1);
    const s = status();
    expect(s.ok && s.run.status).toBe("cancelled");
    expect(reminders()).toHaveLength(1);
  });

  it("a replica whose GitHub fails gives the wake-up back at once, and the other fires it on time", async () => {
    const { a, b, clock } = await twoReplicas();
    let tries = 0;
    Object.assign(a.h.probot, {
      auth: async () => {
        tries++;
        const cause = Object.assign(new Error("connect ECONNREFUSED 140.82.112.6:443"), {
          code: "ECONNREFUSED",
        });
        throw new TypeError("fetch failed", { cause });
      },
    });
    clock.later(DAY + 60_000);
    expect(await a.timer.runDue()).toBe(0);
    expect(tries).toBe(1);
    // The same moment: the healthy replica has it.
    expect(await b.timer.runDue()).toBe(1);
    await b.h.drain();
    expect(reminders()).toHaveLength(1);
    // The failing replica stays away for a while (its next wake-up is the timeout anyway).
    expect(await a.timer.runDue()).toBe(0);
    expect(tries).toBe(1);
  });
});
