/**
 * The package: its default export is the Probot app function; the named exports are the
 * validation and rendering library.
 */
import type { ApplicationFunctionOptions, Probot } from "probot";
import { createPlaybookBot } from "./adapters/github-app/app.js";
import { readAppConfig } from "./adapters/github-app/config.js";
import { loadAlertsConfig } from "./adapters/alerts/config.js";

/** The Probot app: settings from the environment (WEBHOOK_SECRET is required, APP_ID, STATE_SECRET, APP_SLUG). */
export default function playbookBot(app: Probot, options?: ApplicationFunctionOptions): void {
  // A server of the app's own holds STATE_SECRET: a state it can verify was written by the app.
  const bot: Parameters<typeof createPlaybookBot>[0] = {
    config: readAppConfig(process.env),
    stateKeyPrivate: true,
  };
  if (process.env.ALERTS_CONFIG)
    bot.alerts = loadAlertsConfig(process.env.ALERTS_CONFIG, process.env);
  createPlaybookBot(bot)(app, options);
}

export { createPlaybookBot } from "./adapters/github-app/app.js";
export { readAppConfig, deriveStateSecret } from "./adapters/github-app/config.js";
export type { Coordination } from "./runtime/coordination.js";
export {
  openCoordination,
  MemoryCoordination,
  RedisCoordination,
} from "./adapters/coordination/index.js";
export { validateSet, validateSource, countBySeverity } from "./core/rules/validate.js";
export type { FileReport, ValidateOptions, RuleSetting } from "./core/rules/validate.js";
export type { Diagnostic } from "./core/format/diagnostics.js";
export { RULES, RULE_CODES } from "./core/rules/catalogue.js";
export type { RuleCode, RuleDiagnostic, Severity } from "./core/rules/catalogue.js";
export { PLAYBOOK_SCHEMA, API_VERSION, STEP_KINDS } from "./core/format/schema.js";
export type * from "./core/format/types.js";
export { PlaybookGraph } from "./core/format/graph.js";
export { renderMermaid } from "./core/format/mermaid.js";
export { parseExpression, evaluateExpression } from "./core/format/expression.js";
export { parseTemplate } from "./core/format/template.js";
