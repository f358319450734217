import type { Probot } from "probot";
import { openInbox, webhookRoute, type InboxSettings } from "../../adapters/inbox/index.js";
import type { AppMetrics } from "../../adapters/metrics/metrics.js";
import { InboxMetrics } from "../../adapters/metrics/inbox.js";
import { InboxWorker, type Inbox, type InboxEntry } from "../../runtime/inbox.js";
import type { Serving } from "../../adapters/github-app/serving.js";

/** How often the same inbox trouble (Redis down, …) is logged again. */
const TROUBLE_EVERY_MS = 30_000;

const eventOf = (e: InboxEntry) => {
  const action = e.payload.action;
  return typeof action === "string" ? `${e.name}.${action}` : e.name;
};
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** What the server serves and drains: the webhook route, the inbox and its worker. */
export interface DeliveryInbox {
  readonly inbox: Inbox;
  readonly worker: InboxWorker;
  /** The webhook route (mounted after the app's routes, in place of Probot's webhooks path). */
  readonly route: ReturnType<typeof webhookRoute>;
  /**
   * Stops taking entries, waits up to `ms` for the ones in work, and gives back the rest: the
   * lines that say what was handed back (none when everything finished).
   */
  drain(ms: number, inFlight: string[]): Promise<string[]>;
}

/**
 * The deliveries' path through the app: the route verifies a delivery and stores it in the inbox
 * (202 at once); the worker takes it and runs the app's handlers (`probot.webhooks.receive`, the
 * delivery's dedupe by id included), acknowledging it only after they succeeded.
 */
export function deliveryInbox(
  probot: Probot,
  settings: InboxSettings,
  serving: Serving,
  metrics: AppMetrics,
): DeliveryInbox {
  const inbox = openInbox(settings);
  // Read at each scrape, once the worker exists.
  const counts = new InboxMetrics(metrics.registry, () => worker.busy);
  // Probot's logger exists once the app is loaded: the lines' loggers are made on first use.
  let inboxLog: Probot["log"] | undefined;
  let routeLog: Probot["log"] | undefined;
  const log = () => (inboxLog ??= probot.log.child({ name: "inbox" }));
  const webhooksLog = () => (routeLog ??= probot.log.child({ name: "webhooks" }));
  let troubleLogged = { what: "", at: 0 };
  const worker = new InboxWorker(
    inbox,
    (d) => probot.webhooks.receive(d as Parameters<Probot["webhooks"]["receive"]>[0]),
    {
      ...settings.worker,
      // Touched well within the claim timeout, so no other replica claims an entry in work here.
      touchEveryMs: Math.max(100, Math.floor(settings.claimAfterMs / 3)),
      observer: {
        retry: (e, err, delayMs) => {
          counts.retried.inc({ event: eventOf(e) });
          log().warn(
            { id: e.id, event: eventOf(e), attempt: e.attempt + 1, delayMs },
            `delivery ${e.id} (${eventOf(e)}) failed (try ${e.attempt + 1}): ${message(err)}; retried in ${Math.round(delayMs / 1000)} s`,
          );
        },
        dead: (e, err) => {
          counts.dead.inc({ event: eventOf(e) });
          log().error(
            { id: e.id, event: eventOf(e), attempts: e.attempt + 1 },
            `delivery ${e.id} (${eventOf(e)}) is dead after ${e.attempt + 1} tries: ${message(err)}. Redeliver it from the app's settings (Advanced) once the cause is fixed.`,
          );
        },
        trouble: (what, err) => {
          const now = Date.now();
          if (troubleLogged.what === what && now - troubleLogged.at < TROUBLE_EVERY_MS) return;
          troubleLogged = { what, at: now };
          log().error(`inbox (${inbox.kind}): could not ${what}: ${message(err)}`);
        },
      },
    },
  );
  serving.addReadinessCheck(() => inbox.unwritable());
  const route = webhookRoute({
    path: probot.webhookPath,
    verify: (body, signature) => probot.webhooks.verify(body, signature),
    enqueue: (delivery) => inbox.enqueue(delivery),
    log: {
      info: (fields, line) => webhooksLog().info(fields, line),
      warn: (fields, line) => webhooksLog().warn(fields, line),
    },
    answered: (status) => counts.answered.inc({ status: String(status) }),
    ...settings.route,
  });

  async function drain(ms: number, inFlight: string[]): Promise<string[]> {
    const deadline = Date.now() + ms;
    await worker.stop();
    await worker.settle(Math.max(0, deadline - Date.now()));
    const given = await worker.handBack();
    const where =
      inbox.kind === "redis"
        ? "handed back to the inbox on Redis: another replica takes it now"
        : "handed back to the inbox in this process's memory, which ends with it (set REDIS_URL to keep deliveries across a restart)";
    return given.map((e) => {
      const known = inFlight.find((line) => line.startsWith(`delivery ${e.id} `));
      return `${known ?? `delivery ${e.id} (${eventOf(e)})`}: ${where}`;
    });
  }

  return { inbox, worker, route, drain };
}
