import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { pino } from "pino";
import { Probot } from "probot";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryCoordination } from "../../../src/adapters/coordination/memory.js";
import { readInboxSettings } from "../../../src/adapters/inbox/index.js";
import { AppMetrics } from "../../../src/adapters/metrics/metrics.js";
import { deliveryInbox, type DeliveryInbox } from "../../../src/entries/app/delivery-inbox.js";
import { Serving } from "../../../src/adapters/github-app/serving.js";

const SECRET = "delivery-inbox-secret";
const MARKER = "PAYLOAD-MARKER-kept-out-of-logs";

interface Wired {
  deliveries: DeliveryInbox;
  metrics: AppMetrics;
  serving: Serving;
  logged: () => Record<string, unknown>[];
  post(id: string, payload: unknown): Promise<number>;
}

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** The server's wiring in one process: Probot, the app's Serving, the route and the worker. */
async function wire(
  handler: (id: string) => Promise<void>,
  env: NodeJS.ProcessEnv = {},
): Promise<Wired> {
  const lines: string[] = [];
  const out = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split("\n").filter(Boolean));
      done();
    },
  });
  const probot = new Probot({ githubToken: "test", secret: SECRET, log: pino(out) });
  const metrics = new AppMetrics();
  const serving = new Serving(metrics);
  const deliveries = deliveryInbox(
    probot,
    readInboxSettings({ INBOX_RETRY_BASE: "0.01", ...env }),
    serving,
    metrics,
  );
  await probot.load((app: Probot) => {
    serving.attach(app, new MemoryCoordination());
    app.on("issues", (context) => handler(context.id));
  });
  deliveries.worker.start();
  const server: Server = createServer((req, res) => {
    void deliveries.route(req, res).then((handled) => {
      if (!handled) res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/github/webhooks`;
  stops.push(async () => {
    await deliveries.worker.stop();
    await deliveries.worker.settle(500);
    await deliveries.inbox.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    deliveries,
    metrics,
    serving,
    logged: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
    post: async (id, payload) => {
      const body = JSON.stringify(payload);
      const res = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": "issues",
          "x-github-delivery": id,
          "x-hub-signature-256": `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`,
        },
        body,
      });
      return res.status;
    },
  };
}

async function metric(metrics: AppMetrics, line: string): Promise<number | undefined> {
  const text = await metrics.registry.metrics();
  const found = text.split("\n").find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within 5 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const payload = { action: "opened", issue: { number: 1, body: MARKER } };

describe("the server's delivery inbox (route, worker and the app's handlers in one process)", () => {
  it("answers 202, retries a failed delivery, and logs the retry without the payload", async () => {
    let calls = 0;
    const w = await wire(() =>
      ++calls === 1 ? Promise.reject(new Error("the role lookup hung")) : Promise.resolve(),
    );
    expect(await w.post("retried-1", payload)).toBe(202);
    await until("second try", () => calls === 2);
    await until(
      "retry counted",
      async () =>
        (await metric(w.metrics, 'playbook_bot_inbox_retries_total{event="issues.opened"}')) === 1,
    );
    expect(await metric(w.metrics, 'playbook_bot_webhook_deliveries_total{status="202"}')).toBe(1);
    const retry = w.logged().find((l) => l.name === "inbox" && l.id === "retried-1");
    expect(retry).toMatchObject({ event: "issues.opened", attempt: 1 });
    expect(String(retry?.msg)).toMatch(
      /^delivery retried-1 \(issues\.opened\) failed \(try 1\): the role lookup hung; retried in \d+ s$/,
    );
    expect(JSON.stringify(w.logged())).not.toContain(MARKER);
  });

  it("records a delivery that fails every try as dead: logged at error and counted", async () => {
    const w = await wire(() => Promise.reject(new Error("always")), { INBOX_MAX_ATTEMPTS: "2" });
    expect(await w.post("dead-1", payload)).toBe(202);
    await until(
      "dead counted",
      async () =>
        (await metric(w.metrics, 'playbook_bot_inbox_dead_total{event="issues.opened"}')) === 1,
    );
    const dead = w.logged().find((l) => l.id === "dead-1" && l.level === 50 && l.name === "inbox");
    expect(String(dead?.msg)).toContain("delivery dead-1 (issues.opened) is dead after 2 tries");
    expect(JSON.stringify(w.logged())).not.toContain(MARKER);
  });

  it("logs the inbox's own trouble once, not on every poll", async () => {
    const w = await wire(() => Promise.resolve(), {});
    const take = w.deliveries.inbox.take.bind(w.deliveries.inbox);
    let failures = 0;
    w.deliveries.inbox.take = (max, wait) =>
      ++failures <= 3 ? Promise.reject(new Error("Redis is down")) : take(max, wait);
    await until("three failed takes", () => failures > 3);
    const trouble = w.logged().filter((l) => String(l.msg).includes("could not take entries"));
    expect(trouble.map((l) => l.msg)).toEqual([
      "inbox (memory): could not take entries: Redis is down",
    ]);
  });

  it("on a drain, names the delivery it hands back to the memory inbox", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const w = await wire(() => held);
    expect(await w.post("held-1", payload)).toBe(202);
    await until(
      "in work",
      async () => (await metric(w.metrics, "playbook_bot_inbox_in_work")) === 1,
    );
    const lines = await w.deliveries.drain(50, [
      "delivery held-1 (issues.opened) on o/r#1, in flight for 0 s",
    ]);
    expect(lines).toEqual([
      "delivery held-1 (issues.opened) on o/r#1, in flight for 0 s: handed back to the inbox in this process's memory, which ends with it (set REDIS_URL to keep deliveries across a restart)",
    ]);
    release();
  });
});
