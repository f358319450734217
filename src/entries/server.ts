import { run } from "probot";
import { AlertsConfigError, loadAlertsConfig } from "../adapters/alerts/config.js";
import { AppConfigError, readAppConfig } from "./app/config.js";
import { createPlaybookBot } from "./app/app.js";

/**
 * `npm start`: serve the app with Probot's server (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH,
 * WEBHOOK_SECRET, HOST, PORT, LOG_LEVEL). Refuses to start without a webhook secret.
 */
try {
  const config = readAppConfig(process.env);
  const alertsFile = process.env.ALERTS_CONFIG;
  const options: Parameters<typeof createPlaybookBot>[0] = { config };
  if (alertsFile) options.alerts = loadAlertsConfig(alertsFile, process.env);
  await run(createPlaybookBot(options));
} catch (err) {
  if (err instanceof AppConfigError || err instanceof AlertsConfigError) {
    process.stderr.write(`playbook-bot: ${err.message}\n`);
    process.exit(1);
  }
  throw err;
}
