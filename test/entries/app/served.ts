import { createHmac, generateKeyPairSync } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { createNodeMiddleware, Probot } from "probot";
import type { AlertsConfig } from "../../../src/adapters/alerts/config.js";
import { createPlaybookBot } from "../../../src/adapters/github-app/app.js";
import { APP_ID, CONFIG, Harness, testOctokitClass, type Payload } from "./harness.js";

/** The webhook secret the served app verifies deliveries with. */
export const WEBHOOK_SECRET = "served-app-webhook-secret";

/** One RSA key per test process: the app signs its JWTs with it to get installation tokens. */
let privateKey: string | undefined;
function appPrivateKey(): string {
  privateKey ??= generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  }).privateKey;
  return privateKey;
}

/** The `X-Hub-Signature-256` GitHub sends with a delivery. */
export function signDelivery(body: string, secret = WEBHOOK_SECRET): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/**
 * The app as it is deployed: a Probot authenticated as a GitHub App (a private key, so each
 * installation's token is asked of GitHub — the fake counts them), behind a real HTTP server on
 * loopback, receiving deliveries signed with the webhook secret.
 */
export class ServedHarness extends Harness {
  private server: Server | undefined;
  private url = "";
  /** The app's alert sources and routes in the next `start()` (ALERTS_CONFIG); none by default. */
  alerts: AlertsConfig | undefined;

  override async start(): Promise<this> {
    await this.stop();
    const probot = new Probot({
      appId: APP_ID,
      privateKey: appPrivateKey(),
      secret: WEBHOOK_SECRET,
      Octokit: testOctokitClass(this.octokitRetries),
      logLevel: "fatal",
    });
    // Probot's own middleware, as its server mounts it: the app's routes and the webhooks path.
    const middleware = await createNodeMiddleware(
      createPlaybookBot({
        config: CONFIG,
        clock: this.clock,
        ...(this.coordination ? { coordination: this.coordination } : {}),
        wakeUps: this.wakeUps,
        reconcile: false,
        // As `npm start` runs it: the state key is the server's alone.
        stateKeyPrivate: true,
        ...(this.alerts ? { alerts: this.alerts } : {}),
      }),
      { probot, webhooksPath: "/api/github/webhooks" },
    );
    this.probot = probot;
    const server = createServer((req, res) => {
      void middleware(req, res, () => res.writeHead(404).end());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/github/webhooks`;
    nock.enableNetConnect("127.0.0.1");
    return this;
  }

  /** The loopback port the app listens on. */
  port(): number {
    return Number(new URL(this.url).port);
  }

  /** A POST to the app's `/alerts/<source>` route, as an alert source sends it. */
  async postAlert(
    source: string,
    body: string,
    headers: Record<string, string>,
  ): Promise<{ status: number; text: string }> {
    const res = await fetch(this.url.replace("/api/github/webhooks", `/alerts/${source}`), {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    });
    return { status: res.status, text: await res.text() };
  }

  /** The process stops: its server closes (its memory is gone with it). */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** A delivery as GitHub sends it: signed JSON over HTTP; anything but 2xx is a failure. */
  override async deliver(name: string, payload: Payload, id = this.nextId()): Promise<string> {
    this.delivered.push({ id, name, payload });
    const body = JSON.stringify(payload);
    const res = await fetch(this.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": name,
        "x-github-delivery": id,
        "x-hub-signature-256": signDelivery(body),
      },
      body,
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`delivery ${id} (${name}): HTTP ${res.status} ${text}`);
    return id;
  }
}
