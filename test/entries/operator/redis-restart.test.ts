import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { startRedis, type RedisServer } from "../../helpers/redis.js";
import {
  commentsWith,
  noteOf,
  OperatorBench,
  operatorRepo,
  sleep,
  waitFor,
} from "../../helpers/replicas.js";

/**
 * Redis going away under the replicas, as an operator restarts or loses it: idle, or for 15 s
 * while runs are under way; the runs complete afterwards with no person's help, each effect once.
 */
const started: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of started.splice(0).reverse()) await s.stop();
});

async function redisWith(persistence: "none" | "aof"): Promise<RedisServer> {
  const redis = await startRedis({ persistence });
  started.push(redis);
  return redis;
}

async function valueAfterRestart(redis: RedisServer, crash: boolean): Promise<string | null> {
  const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    await client.set("kept", "yes");
    client.disconnect();
    await redis.restart({ crash });
    await client.connect();
    return await client.get("kept");
  } finally {
    client.disconnect();
  }
}

async function readyz(url: string): Promise<number> {
  try {
    return (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3000) })).status;
  } catch {
    return 0;
  }
}

describe("operator: Redis restarted", () => {
  it("keeps its data across a restart, even a crash, with an append-only file; without persistence it comes back empty", async () => {
    expect(await valueAfterRestart(await redisWith("aof"), true)).toBe("yes");
    expect(await valueAfterRestart(await redisWith("none"), false)).toBeNull();
  });

  it("with persistence, stopped and started under two idle replicas: /readyz follows it, and a run waiting before completes after", async () => {
    const redis = await redisWith("aof");
    const bench = await OperatorBench.start({
      fakes: operatorRepo(),
      replicas: 2,
      redisUrl: redis.url,
    });
    started.push(bench);
    const issue = bench.openIssue("Across a Redis restart").number;
    await bench.label(issue, "playbook:approve-comment", "alice");
    await waitFor("the checkpoint to be announced", () => bench.announced(issue), {
      timeoutMs: 40_000,
    });
    await bench.settled();

    await redis.pause();
    for (const r of bench.replicas)
      await waitFor(
        `replica ${r.index} to say it is not ready`,
        async () => (await readyz(r.url)) === 503,
        {
          timeoutMs: 10_000,
        },
      );
    await redis.resume();
    for (const r of bench.replicas)
      await waitFor(
        `replica ${r.index} to be ready again`,
        async () => (await readyz(r.url)) === 200,
        {
          timeoutMs: 20_000,
        },
      );

    bench.comment(issue, "carol", "/approve");
    await waitFor("the run to complete", () => bench.runOf(issue)?.status === "completed", {
      timeoutMs: 40_000,
    });
    await bench.settled();
    expect(
      [...bench.fake.comments.values()].filter((c) => c.body.includes(noteOf(issue))),
    ).toHaveLength(1);
    expect(bench.replicas.every((r) => r.running && r.starts === 1)).toBe(true);
  }, 90_000);

  it("a 15 s outage (stopped, started again with its append-only file) while runs are under way: every run completes, each effect once", async () => {
    const redis = await redisWith("aof");
    const bench = await OperatorBench.start({
      fakes: operatorRepo(),
      replicas: 2,
      redisUrl: redis.url,
      // Deliveries answered 503 during the outage are not sent again (GitHub does not): the
      // sweep finds the commands and continuations they carried.
      env: { RECONCILE_INTERVAL: "20" },
    });
    started.push(bench);
    const issues = [1, 2, 3].map((i) => bench.openIssue(`Under way ${i}`).number);
    await Promise.all(issues.map((n) => bench.label(n, "playbook:approve-comment", "alice")));
    await waitFor(
      "every checkpoint to be announced",
      () => issues.every((n) => bench.announced(n)),
      {
        timeoutMs: 90_000,
        everyMs: 100,
      },
    );
    await bench.settled();

    // The approvals' work (a reaction, the status comment, the comment step) is under way when
    // Redis stops.
    for (const n of issues) bench.comment(n, "carol", "/approve");
    await sleep(500);
    await redis.pause();
    const downAt = Date.now();
    await sleep(15_000);
    await redis.resume();
    const upAt = Date.now();
    await waitFor(
      "every run to complete",
      () => issues.every((n) => bench.runOf(n)?.status === "completed"),
      { timeoutMs: 180_000, everyMs: 200 },
    );
    const tookMs = Date.now() - upAt;
    await bench.settled();
    const refused = bench.deliveries.filter((d) => d.sentAt >= downAt && d.status === 503).length;
    process.stderr.write(
      `Redis down 15 s under 3 runs (${refused} deliveries answered 503): completed ${tookMs} ms after it was back\n`,
    );
    for (const n of issues) {
      expect(commentsWith(bench.fake, n, noteOf(n))).toHaveLength(1);
      expect(bench.fake.statusComments(n)).toHaveLength(1);
    }
    expect(bench.replicas.every((r) => r.running && r.starts === 1)).toBe(true);
  }, 300_000);
});
