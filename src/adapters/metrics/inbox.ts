import { Counter, Gauge, type Registry } from "prom-client";

/**
 * The webhook route's and the inbox's metrics, in the app's registry: deliveries answered (by
 * HTTP status), retried and dead (by event name; the route only counts names after the signature
 * was checked), and the entries this replica works on.
 */
export class InboxMetrics {
  readonly answered: Counter<"status">;
  readonly retried: Counter<"event">;
  readonly dead: Counter<"event">;
  readonly inWork: Gauge;

  /** `busy`: how many entries the worker has now (read at each scrape). */
  constructor(registry: Registry, busy: () => number) {
    const registers = [registry];
    this.answered = new Counter({
      name: "playbook_bot_webhook_deliveries_total",
      help: "Webhook deliveries answered by the webhook route, by HTTP status (202: stored in the inbox; 4xx: refused; 503: the inbox could not store it).",
      labelNames: ["status"],
      registers,
    });
    this.retried = new Counter({
      name: "playbook_bot_inbox_retries_total",
      help: "Inbox entries whose work failed and was scheduled again (with exponential backoff), by event.",
      labelNames: ["event"],
      registers,
    });
    this.dead = new Counter({
      name: "playbook_bot_inbox_dead_total",
      help: "Inbox entries whose work failed every try (INBOX_MAX_ATTEMPTS) and were recorded as dead, by event.",
      labelNames: ["event"],
      registers,
    });
    this.inWork = new Gauge({
      name: "playbook_bot_inbox_in_work",
      help: "Inbox entries this replica's worker is working on now.",
      registers,
      collect() {
        this.set(busy());
      },
    });
  }
}
