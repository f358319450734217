import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createNodeMiddleware, createProbot, run } from "probot";
import { AiConfigError } from "../adapters/ai/config.js";
import { InboxConfigError, readInboxSettings } from "../adapters/inbox/index.js";
import { AlertsConfigError, loadAlertsConfig } from "../adapters/alerts/config.js";
import { AppMetrics } from "../adapters/metrics/metrics.js";
import {
  deadlineFetch,
  GitHubReachability,
  githubPacing,
} from "../adapters/github/octokit-pacing.js";
import {
  AppConfigError,
  loadDotEnv,
  readAppConfig,
  startMode,
} from "../adapters/github-app/config.js";
import { createPlaybookBot } from "../adapters/github-app/app.js";
import type { Serving } from "../adapters/github-app/serving.js";
import { deliveryInbox } from "./app/delivery-inbox.js";
import { startPlayground } from "./playground/start.js";

/**
 * `npm start`. Settings come from the environment, over `.env` in the working directory. Without
 * APP_ID and a private key, the playground starts (a local sandbox, nothing sent anywhere), or
 * with `--setup` (`npm run setup`) Probot's setup flow registers the app; otherwise the app is served
 * (refused without a webhook secret). Deliveries go through the inbox (src/adapters/inbox): the
 * webhook route stores a verified delivery and answers 202, workers do its work. On SIGTERM or
 * SIGINT it stops taking events (503) and inbox entries, lets the work in flight finish within
 * SHUTDOWN_TIMEOUT seconds (25), gives the rest back to the inbox, stops the wake-up timer, and
 * exits; non-zero, naming what it handed back or abandoned, when the work did not finish in time.
 * The AI adapter comes from PLAYBOOK_AI_* (the mock by default).
 */

const say = (line: string) => process.stderr.write(`playbook-bot: ${line}\n`);

function logDefaults(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  // Structured logs by default (pino's JSON lines); LOG_FORMAT=pretty for people.
  return { ...env, LOG_LEVEL: env.LOG_LEVEL || "info", LOG_FORMAT: env.LOG_FORMAT || "json" };
}

/** Probot's setup flow: its pages at `/` and `/probot` post app.yml to GitHub's manifest flow. */
async function setup(): Promise<void> {
  const host = process.env.HOST || "localhost";
  const port = Number(process.env.PORT) || 3000;
  say(
    `APP_ID and a private key are not set: serving the setup flow that registers the app on GitHub. Open http://${host}:${port}/ and create the app; its id, private key and webhook secret are written to .env in ${process.cwd()}. Then restart.`,
  );
  if (!existsSync("app.yml"))
    say(
      "there is no app.yml in this directory: the app would be registered without Playbook Bot's permissions and events. Start from the directory that holds app.yml (the package's root).",
    );
  // The manifest's webhook URL is app.yml's, so no smee.io channel is made for it.
  process.env.NO_SMEE_SETUP ??= "true";
  const env = logDefaults(process.env);
  // `run` copies .env over the environment as it starts (synchronously): the environment, which
  // .env never overrides here, is put back at once.
  const kept = { ...process.env };
  const started = run(() => undefined, { env });
  for (const k of Object.keys(process.env)) if (!(k in kept)) delete process.env[k];
  Object.assign(process.env, kept);
  await started;
}

/** The playground: no GitHub App yet, so the app runs against an in-memory GitHub here. */
async function playground(): Promise<void> {
  say(
    "APP_ID and a private key are not set: starting the playground (an in-memory GitHub and the app, on this machine only). `npm run setup` registers the app on GitHub instead.",
  );
  const port = process.env.PORT?.trim() ? Number(process.env.PORT) : 3000;
  const running = await startPlayground(
    { port, ...(process.env.PLAYBOOKS_DIR ? { playbooks: process.env.PLAYBOOKS_DIR } : {}) },
    {
      out: (t) => process.stdout.write(t),
      err: (t) => process.stderr.write(t),
      cwd: process.cwd(),
    },
  );
  const stop = () => void running.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

async function serve(): Promise<void> {
  const config = readAppConfig(process.env);
  const alertsFile = process.env.ALERTS_CONFIG;
  const metrics = new AppMetrics({ processMetrics: true });
  // This server alone holds STATE_SECRET: a state it can verify was written by this app.
  const options: Parameters<typeof createPlaybookBot>[0] = {
    config,
    metrics,
    stateKeyPrivate: true,
  };
  if (alertsFile) options.alerts = loadAlertsConfig(alertsFile, process.env);
  const inboxSettings = readInboxSettings(process.env, config.redis);
  const bot = createPlaybookBot(options);
  // The logger is Probot's, made below: a rate limit can only come once requests are made.
  const pacing = appPacing(bot.serving, (line) => probot.log.warn(line));
  // Probot is not given REDIS_URL: its throttle would queue every installation's requests in one
  // Redis-clustered limiter, under keys outside REDIS_PREFIX. Requests are paced per installation.
  const probotEnv = logDefaults(process.env);
  delete probotEnv.REDIS_URL;
  const probot = createProbot({
    env: probotEnv,
    overrides: { Octokit: pacing.Octokit, request: { fetch: pacing.fetch } },
  });
  const deliveries = deliveryInbox(probot, inboxSettings, bot.serving, metrics);
  // The app's routes (/healthz, /readyz, /metrics, alerts) come before the webhook route, which
  // takes the webhooks path before Probot's own middleware would.
  const middleware = await createNodeMiddleware(
    (app, loaded) => {
      bot(app, loaded);
      loaded.addHandler(deliveries.route);
    },
    { probot },
  );
  deliveries.worker.start();
  const log = probot.log;
  const server = createServer((req, res) => {
    void middleware(req, res, () => {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "not found" }));
    });
  });
  const host = process.env.HOST || "localhost";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    // PORT=0: any free port (the line below says which).
    server.listen(process.env.PORT?.trim() ? Number(process.env.PORT) : 3000, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  log.info({ host, port }, `listening on http://${host}:${port}`);

  const seconds = Number(process.env.SHUTDOWN_TIMEOUT ?? "");
  const timeoutMs = (Number.isFinite(seconds) && seconds > 0 ? seconds : 25) * 1000;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const deadline = Date.now() + timeoutMs;
    say(
      `${signal}: stopping; new deliveries are answered 503, the work in flight has ${timeoutMs / 1000} s to finish`,
    );
    log.info({ signal }, "stopping: no new events; waiting for the work in flight");
    bot.serving.drain();
    const inFlight = await bot.serving.settle(timeoutMs);
    // Deliveries not finished go back to the inbox; alert requests still in flight are abandoned.
    const handedBack = await deliveries.drain(Math.max(0, deadline - Date.now()), inFlight);
    const abandoned = [
      ...handedBack,
      ...inFlight.filter((line) => !line.startsWith("delivery ")).map((l) => `${l}: abandoned`),
    ];
    // Past the deadline, the last steps still get a second each.
    const until = () => Math.max(deadline, Date.now() + 1000);
    // The wake-up timer stops after the ticks under way; then the stores close.
    if (!(await within(bot.close(), until())))
      abandoned.push("the wake-up timer's ticks under way");
    if (!(await within(closeServer(server, abandoned.length > 0), until())))
      abandoned.push("answers still being sent");
    await within(deliveries.inbox.close(), until());
    if (abandoned.length === 0) {
      say("stopped");
      process.exit(0);
    }
    say(
      `stopped after ${timeoutMs / 1000} s with work unfinished:\n${abandoned.map((a) => `  - ${a}`).join("\n")}`,
    );
    process.exit(1);
  };
  const onSignal = (signal: string) => () =>
    void stop(signal).catch((err: unknown) => {
      say(`could not stop cleanly: ${String(err)}`);
      process.exit(1);
    });
  process.once("SIGTERM", onSignal("SIGTERM"));
  process.once("SIGINT", onSignal("SIGINT"));
}

/**
 * The app's GitHub requests: paced per installation, each with 30 s from its sending, rate limits
 * waited out. `/readyz` answers 503 after GITHUB_UNREACHABLE_AFTER (3) requests in a row got no
 * answer, until GitHub answers again (its API root is asked while it does not).
 */
function appPacing(serving: Serving, warn: (line: string) => void) {
  const after = Number(process.env.GITHUB_UNREACHABLE_AFTER ?? "");
  const baseUrl = process.env.GHE_HOST
    ? `${process.env.GHE_PROTOCOL || "https"}://${process.env.GHE_HOST}/api/v3`
    : "https://api.github.com";
  const reachability: GitHubReachability = new GitHubReachability(
    Number.isInteger(after) && after > 0 ? after : 3,
    () => deadlineFetch(2_000, { reachability })(`${baseUrl}/`),
  );
  serving.addReadinessCheck(() => reachability.check());
  return githubPacing({
    reachability,
    onRateLimit: (installation, waitMs, request) =>
      warn(
        `GitHub rate-limited ${request} (${installation}): its requests wait ${Math.ceil(waitMs / 1000)} s`,
      ),
  });
}

/** Whether `work` ended before `deadline` (a failure counts as ended: there is nothing to wait for). */
async function within(work: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
  });
  const ended = work.then(
    () => true as const,
    () => true as const,
  );
  try {
    return await Promise.race([ended, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Stops listening; idle connections close now, busy ones once answered (or at once: `abort`). */
function closeServer(server: Server, abort: boolean): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  if (abort) server.closeAllConnections();
  return closed;
}

try {
  const env = loadDotEnv();
  if (env === "unsupported")
    say(
      `.env is not read: this Node (${process.version}) has no process.loadEnvFile; set the variables in the environment`,
    );
  const mode = startMode(process.env, process.cwd(), process.argv.includes("--setup"));
  if (mode === "setup") await setup();
  else if (mode === "playground") await playground();
  else await serve();
} catch (err) {
  if (
    err instanceof AppConfigError ||
    err instanceof AlertsConfigError ||
    err instanceof InboxConfigError ||
    err instanceof AiConfigError
  ) {
    say(err.message);
    process.exit(1);
  }
  throw err;
}
