import { run } from "probot";
import { AiConfigError } from "../adapters/ai/config.js";
import { AlertsConfigError, loadAlertsConfig } from "../adapters/alerts/config.js";
import { AppConfigError, readAppConfig } from "./app/config.js";
import { createPlaybookBot } from "./app/app.js";

/**
 * `npm start`: serve the app with Probot's server (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH,
 * WEBHOOK_SECRET, HOST, PORT, LOG_LEVEL; the AI adapter from PLAYBOOK_AI_*). Refuses to start without a webhook secret. On SIGTERM
 * (and SIGINT) the wake-up timer stops after the deliveries under way, then the server.
 */
try {
  const config = readAppConfig(process.env);
  const alertsFile = process.env.ALERTS_CONFIG;
  const options: Parameters<typeof createPlaybookBot>[0] = { config };
  if (alertsFile) options.alerts = loadAlertsConfig(alertsFile, process.env);
  const bot = createPlaybookBot(options);
  const ownSigint = new Set(process.listeners("SIGINT"));
  const server = await run(bot);
  // Probot's own SIGINT handler exits without the timer's deliveries; this one replaces it.
  for (const l of process.listeners("SIGINT")) if (!ownSigint.has(l)) process.off("SIGINT", l);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`playbook-bot: ${signal}: stopping\n`);
    void bot
      .close()
      .then(() => server.stop())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          process.stderr.write(`playbook-bot: could not stop cleanly: ${String(err)}\n`);
          process.exit(1);
        },
      );
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
} catch (err) {
  if (
    err instanceof AppConfigError ||
    err instanceof AlertsConfigError ||
    err instanceof AiConfigError
  ) {
    process.stderr.write(`playbook-bot: ${err.message}\n`);
    process.exit(1);
  }
  throw err;
}
