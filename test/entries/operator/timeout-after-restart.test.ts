import { afterEach, describe, expect, it } from "vitest";
import { startRedis } from "../../helpers/redis.js";
import {
  approveOrTimeOut,
  commentsWith,
  OperatorBench,
  operatorRepo,
  timedOutNoteOf,
  waitFor,
} from "../../helpers/replicas.js";

/**
 * A checkpoint's timeout falls due while the only `npm start` is down (killed with kill -9), and
 * fires once after it is started again on the same store: with Redis, from the wake-up kept
 * there; without Redis, from the embedded store's promise — the waiting-label scan at start and
 * the reconcile sweep find the issue whose wake-up the process forgot.
 */
const stops: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s.stop();
});

const TIMEOUT_S = 15;
const WAITING = "playbook-bot:waiting";

async function timeoutAcrossRestart(redisUrl: string | undefined): Promise<void> {
  const bench = await OperatorBench.start({
    fakes: operatorRepo(2, {
      ".github/playbooks/time-out.yaml": approveOrTimeOut(`${TIMEOUT_S}s`),
    }),
    replicas: 1,
    ...(redisUrl ? { redisUrl } : {}),
  });
  stops.push(bench);
  const replica = bench.replicas[0]!;
  const issue = bench.openIssue("Nobody answers before the restart").number;
  await bench.label(issue, "playbook:time-out", "alice");
  await waitFor("the checkpoint to be announced", () => bench.announced(issue), {
    timeoutMs: 60_000,
  });
  const dueAt = Date.now() + TIMEOUT_S * 1000;
  await waitFor("the waiting label", () => bench.fake.issues.get(issue)!.labels.includes(WAITING), {
    timeoutMs: 30_000,
  });
  await bench.settled();

  await replica.kill9();
  // Down until the timeout is 5 s overdue: it can only fire after the restart.
  await waitFor("the timeout to be overdue", () => Date.now() >= dueAt + 5_000, {
    timeoutMs: TIMEOUT_S * 1000 + 10_000,
    everyMs: 250,
  });
  expect(commentsWith(bench.fake, issue, timedOutNoteOf(issue))).toHaveLength(0);
  replica.spawn();
  await replica.ready(60_000);
  const readyAt = Date.now();
  await waitFor(
    "the timeout's comment",
    () => commentsWith(bench.fake, issue, timedOutNoteOf(issue)).length > 0,
    { timeoutMs: 90_000, everyMs: 200 },
  );
  const firedAt = Date.now();
  await waitFor("the run to end", () => bench.runOf(issue)?.status === "completed", {
    timeoutMs: 60_000,
  });
  await waitFor(
    "the waiting label to go",
    () => !bench.fake.issues.get(issue)!.labels.includes(WAITING),
    {
      timeoutMs: 30_000,
    },
  );
  await bench.settled();
  process.stderr.write(
    `timeout across a kill -9 (${redisUrl ? "Redis" : "no Redis"}): fired ${Math.round((firedAt - readyAt) / 100) / 10} s after the restart was ready, ${Math.round((firedAt - dueAt) / 1000)} s after due\n`,
  );
  // Once, whatever found it (the scan at start, the sweep, the wake-up kept in Redis).
  expect(commentsWith(bench.fake, issue, timedOutNoteOf(issue))).toHaveLength(1);
  expect(bench.fake.statusComments(issue)).toHaveLength(1);
  expect(replica.starts).toBe(2);
  // The scan at start ticks the labelled issue at once (no minute's poll, no sweep interval).
  expect(firedAt - readyAt).toBeLessThan(30_000);
}

describe("operator: a checkpoint's timeout after a restart", () => {
  it("with Redis: the wake-up kept in Redis fires once after the restart", async () => {
    const redis = await startRedis();
    stops.push(redis);
    await timeoutAcrossRestart(redis.url);
  }, 180_000);

  it("without Redis: the restarted process finds the waiting issue and fires the timeout once", async () => {
    await timeoutAcrossRestart(undefined);
  }, 180_000);
});
