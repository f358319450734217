// The webhook deliveries' inbox: how long storing a delivery takes (what the route waits for
// before its 202), how many entries per second a worker whose handler does nothing gets through,
// and how long an entry of a worker killed mid-work waits before another worker takes it; for the
// memory inbox and for Redis Streams on a real local redis-server (test/helpers/redis.ts).
// Payload: the webhooks-examples issue_comment.created delivery. Run with
// `node --import tsx bench/inbox.ts` (bench/run.mjs does).
import { createRequire } from "node:module";
import { MemoryInbox } from "../src/adapters/inbox/memory.js";
import { RedisInbox } from "../src/adapters/inbox/redis.js";
import { InboxWorker, type Inbox, type InboxDelivery } from "../src/runtime/inbox.js";
import { startRedis } from "../test/helpers/redis.js";
import { fmt, now, percentile, table } from "./lib/common.mjs";

type Definition = { name: string; examples: Record<string, unknown>[] };
const examples = createRequire(import.meta.url)(
  "@octokit/webhooks-examples/api.github.com/index.json",
) as Definition[];
const payload = examples
  .find((d) => d.name === "issue_comment")
  ?.examples.find((e) => e.action === "created") as Record<string, unknown>;
const delivery = (id: string): InboxDelivery => ({ id, name: "issue_comment", payload });

const ENQUEUES = 2_000;
const ENTRIES = 5_000;

async function enqueueLatency(inbox: Inbox, tag: string): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < ENQUEUES; i++) {
    const t = now();
    await inbox.enqueue(delivery(`${tag}-${i}`));
    ms.push(now() - t);
  }
  return ms;
}

/** Entries per second through `workers` no-op workers, each 8 at once. */
async function throughput(inboxes: Inbox[], producer: Inbox, tag: string): Promise<number> {
  for (let i = 0; i < ENTRIES; i++) await producer.enqueue(delivery(`${tag}-${i}`));
  let done = 0;
  const t = now();
  const workers = inboxes.map((inbox) => {
    const w = new InboxWorker(inbox, () => Promise.resolve(), {
      pollMs: 50,
      observer: { done: () => void done++ },
    });
    w.start();
    return w;
  });
  while (done < ENTRIES) await new Promise((r) => setTimeout(r, 5));
  const seconds = (now() - t) / 1000;
  for (const w of workers) await w.stop();
  return ENTRIES / seconds;
}

/** How long an entry taken by a worker that then dies waits until another worker has it. */
async function claimWait(url: string, claimAfterMs: number): Promise<number> {
  const killed = new RedisInbox({ url, prefix: "claim:", consumer: "killed", claimAfterMs });
  const survivor = new RedisInbox({ url, prefix: "claim:", consumer: "survivor", claimAfterMs });
  await killed.enqueue(delivery("orphan"));
  await killed.take(1, 100);
  const t = now();
  let got = 0;
  // The worker's own rhythm: a take every poll (1 s by default) while idle.
  while (got === 0) got = (await survivor.take(1, 1_000)).length;
  const waited = now() - t;
  await killed.close();
  await survivor.close();
  return waited;
}

const rows: string[][] = [];
const memory = new MemoryInbox();
const memLatency = await enqueueLatency(memory, "m");
// The memory inbox's worker and producer are the same object.
const mem = new MemoryInbox();
const memThroughput = await throughput([mem], mem, "mt");
rows.push([
  "memory",
  fmt(percentile(memLatency, 50)),
  fmt(percentile(memLatency, 99)),
  `${Math.round(memThroughput)}/s`,
  "—",
  "(lost with the process)",
]);

const redis = await startRedis();
try {
  const r = (prefix: string, consumer: string) =>
    new RedisInbox({ url: redis.url, prefix, consumer });
  const producer = r("lat:", "p");
  const redisLatency = await enqueueLatency(producer, "r");
  await producer.close();
  const one = r("one:", "w1");
  const oneRate = await throughput([one], one, "one");
  await one.close();
  const two = [r("two:", "w1"), r("two:", "w2")];
  const twoRate = await throughput(two, two[0] as Inbox, "two");
  for (const i of two) await i.close();
  const claim1 = await claimWait(redis.url, 1_000);
  rows.push([
    "Redis Streams",
    fmt(percentile(redisLatency, 50)),
    fmt(percentile(redisLatency, 99)),
    `${Math.round(oneRate)}/s`,
    `${Math.round(twoRate)}/s`,
    `${fmt(claim1)} (INBOX_CLAIM_TIMEOUT=1)`,
  ]);
} finally {
  await redis.stop();
}

console.log("## Inbox (bench/inbox.ts)\n");
console.log(
  `Storing a ${Math.round(JSON.stringify(payload).length / 1024)} KiB issue_comment delivery ${ENQUEUES} times (what the webhook route waits for before its 202); ${ENTRIES} entries through no-op workers (8 at once each); the wait of an entry whose worker died before another takes it (the claim timeout, INBOX_CLAIM_TIMEOUT, plus at most one poll).\n`,
);
console.log(
  table(
    [
      "inbox",
      "store p50 (ms)",
      "store p99 (ms)",
      "1 worker",
      "2 workers",
      "killed worker's entry taken after (ms)",
    ],
    rows,
  ),
);
