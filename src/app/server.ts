import { run } from "probot";
import { AppConfigError, readAppConfig } from "./config.js";
import { createPlaybookBot } from "./app.js";

/**
 * `npm start`: serve the app with Probot's server (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH,
 * WEBHOOK_SECRET, HOST, PORT, LOG_LEVEL). Refuses to start without a webhook secret.
 */
try {
  const config = readAppConfig(process.env);
  await run(createPlaybookBot({ config }));
} catch (err) {
  if (err instanceof AppConfigError) {
    process.stderr.write(`playbook-bot: ${err.message}\n`);
    process.exit(1);
  }
  throw err;
}
