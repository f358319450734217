import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RedisInbox } from "../../../src/adapters/inbox/redis.js";
import { InboxWorker, type InboxDelivery } from "../../../src/runtime/inbox.js";
import { startRedis, type RedisServer } from "../../helpers/redis.js";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
}, 30_000);
afterAll(async () => {
  await redis.stop();
});

let prefixes = 0;
const opened: RedisInbox[] = [];
afterEach(async () => {
  for (const inbox of opened.splice(0)) await inbox.close();
});

function inbox(prefix: string, consumer: string, claimAfterMs = 30_000): RedisInbox {
  const i = new RedisInbox({ url: redis.url, prefix, consumer, claimAfterMs });
  opened.push(i);
  return i;
}

const delivery = (id: string): InboxDelivery => ({
  id,
  name: "issue_comment",
  payload: { action: "created", comment: { body: "/approve" } },
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe("the inbox on Redis Streams (a real redis-server)", () => {
  it("hands a delivery to one consumer of the group, under REDIS_PREFIX, until it is acknowledged", async () => {
    const prefix = `t${++prefixes}:`;
    const a = inbox(prefix, "a");
    const b = inbox(prefix, "b");
    await a.enqueue(delivery("d1"));
    const [taken] = await a.take(5, 100);
    expect(taken).toMatchObject({ ...delivery("d1"), attempt: 0 });
    // The other consumer does not get it while it is pending with the first.
    expect(await b.take(5, 50)).toEqual([]);
    expect(await a.size()).toBe(1);
    const raw = new Redis(redis.url);
    try {
      expect((await raw.keys(`${prefix}*`)).sort()).toEqual([`${prefix}inbox`]);
    } finally {
      raw.disconnect();
    }
    if (taken) await a.ack(taken);
    expect(await a.size()).toBe(0);
  });

  it("a consumer killed mid-entry (no ack, no touch): another takes the entry after the claim timeout, not before", async () => {
    const prefix = `t${++prefixes}:`;
    const killed = inbox(prefix, "killed", 400);
    const survivor = inbox(prefix, "survivor", 400);
    await killed.enqueue(delivery("approve-1"));
    const [taken] = await killed.take(1, 100);
    expect(taken?.id).toBe("approve-1");
    const since = Date.now();
    expect(await survivor.take(1, 100)).toEqual([]);
    let claimed: Awaited<ReturnType<RedisInbox["take"]>> = [];
    while (claimed.length === 0 && Date.now() - since < 5_000) claimed = await survivor.take(1, 50);
    const waited = Date.now() - since;
    expect(claimed.map((e) => e.id)).toEqual(["approve-1"]);
    expect(waited).toBeGreaterThanOrEqual(300);
    expect(waited).toBeLessThan(2_000);
    const [entry] = claimed;
    if (entry) await survivor.ack(entry);
    expect(await survivor.size()).toBe(0);
  });

  it("a consumer that touches its entries while it works keeps them", async () => {
    const prefix = `t${++prefixes}:`;
    const busy = inbox(prefix, "busy", 300);
    const other = inbox(prefix, "other", 300);
    await busy.enqueue(delivery("long"));
    const taken = await busy.take(1, 100);
    for (let i = 0; i < 6; i++) {
      await sleep(100);
      await busy.touch(taken);
      expect(await other.take(1, 10)).toEqual([]);
    }
  });

  it("a failed entry comes back when its retry is due, with its attempt counted; a dead one is recorded without its payload", async () => {
    const prefix = `t${++prefixes}:`;
    const a = inbox(prefix, "a");
    await a.enqueue(delivery("flaky"));
    const [first] = await a.take(1, 100);
    if (!first) throw new Error("nothing taken");
    await a.retryAt(first, Date.now() + 300);
    expect(await a.take(1, 50)).toEqual([]);
    await sleep(350);
    const [again] = await a.take(1, 100);
    expect(again).toMatchObject({ id: "flaky", attempt: 1 });
    if (!again) throw new Error("not taken again");
    await a.dead(again, "2 tries failed; the last: boom");
    expect(await a.size()).toBe(0);
    expect(await a.deadDeliveries()).toEqual([
      {
        id: "flaky",
        name: "issue_comment",
        attempts: "2",
        reason: "2 tries failed; the last: boom",
      },
    ]);
  });

  it("an entry given back is taken by another consumer at once", async () => {
    const prefix = `t${++prefixes}:`;
    const draining = inbox(prefix, "draining");
    const other = inbox(prefix, "other");
    await draining.enqueue(delivery("handed"));
    const [taken] = await draining.take(1, 100);
    if (!taken) throw new Error("nothing taken");
    await draining.giveBack(taken);
    const since = Date.now();
    const [again] = await other.take(1, 1_000);
    expect(again).toMatchObject({ id: "handed", attempt: 0 });
    expect(Date.now() - since).toBeLessThan(500);
  });

  it("a worker on each of two replicas: every delivery's work is done once between them", async () => {
    const prefix = `t${++prefixes}:`;
    const done: string[] = [];
    const workers = ["r1", "r2"].map((name) => {
      const w = new InboxWorker(
        inbox(prefix, name),
        async (d) => {
          await sleep(5);
          done.push(d.id);
        },
        { pollMs: 50, concurrency: 4 },
      );
      w.start();
      return w;
    });
    const producer = inbox(prefix, "producer");
    for (let i = 0; i < 40; i++) await producer.enqueue(delivery(`d${i}`));
    const deadline = Date.now() + 10_000;
    while (done.length < 40 && Date.now() < deadline) await sleep(20);
    for (const w of workers) await w.stop();
    expect(done.sort()).toEqual(Array.from({ length: 40 }, (_, i) => `d${i}`).sort());
    expect(await producer.size()).toBe(0);
  });
});

describe("the inbox when Redis restarts", () => {
  it("refuses to store while Redis is down, says so for /readyz, and works again once it is back", async () => {
    const own = await startRedis();
    const i = new RedisInbox({
      url: own.url,
      prefix: "restart:",
      consumer: "c",
      commandTimeoutMs: 1_000,
    });
    try {
      await i.enqueue(delivery("before"));
      const [before] = await i.take(1, 100);
      expect(before?.id).toBe("before");
      expect(await i.unwritable()).toBeUndefined();

      await own.stop();
      await expect(i.enqueue(delivery("while-down"))).rejects.toThrow();
      expect(await i.unwritable()).toMatch(
        /^the inbox's Redis at redis:\/\/127\.0\.0\.1:\d+ does not answer/,
      );

      // A fresh Redis on the same port (no persistence: the stream and its group are gone).
      const back = await startRedis({ port: own.port });
      try {
        let stored = false;
        for (let n = 0; n < 50 && !stored; n++) {
          stored = await i.enqueue(delivery("after")).then(
            () => true,
            () => false,
          );
          if (!stored) await sleep(100);
        }
        expect(stored).toBe(true);
        expect(await i.unwritable()).toBeUndefined();
        // The group is made again: the entry stored after the restart is taken.
        const [after] = await i.take(1, 200);
        expect(after?.id).toBe("after");
      } finally {
        await i.close();
        await back.stop();
      }
    } finally {
      await own.stop().catch(() => undefined);
    }
  }, 30_000);
});
