/**
 * The package: its default export is the Probot app function; the named exports are the
 * validation and rendering library.
 */
import type { ApplicationFunctionOptions, Probot } from "probot";
import { createPlaybookBot } from "./app/app.js";
import { readAppConfig } from "./app/config.js";
import { loadAlertsConfig } from "./alerts/config.js";

/** The Probot app: settings from the environment (WEBHOOK_SECRET is required, APP_ID, STATE_SECRET, APP_SLUG). */
export default function playbookBot(app: Probot, options?: ApplicationFunctionOptions): void {
  const bot: Parameters<typeof createPlaybookBot>[0] = { config: readAppConfig(process.env) };
  if (process.env.ALERTS_CONFIG)
    bot.alerts = loadAlertsConfig(process.env.ALERTS_CONFIG, process.env);
  createPlaybookBot(bot)(app, options);
}

export { createPlaybookBot } from "./app/app.js";
export { readAppConfig, deriveStateSecret } from "./app/config.js";
export { validateSet, validateSource, countBySeverity } from "./playbook/validate.js";
export type { FileReport, ValidateOptions, RuleSetting } from "./playbook/validate.js";
export type { Diagnostic } from "./playbook/diagnostics.js";
export { RULES, RULE_CODES } from "./playbook/rules.js";
export type { RuleCode, Severity } from "./playbook/rules.js";
export { PLAYBOOK_SCHEMA, API_VERSION, STEP_KINDS } from "./playbook/schema.js";
export type * from "./playbook/types.js";
export { PlaybookGraph } from "./playbook/graph.js";
export { renderMermaid } from "./playbook/mermaid.js";
export { parseExpression, evaluateExpression } from "./playbook/expression.js";
export { parseTemplate } from "./playbook/template.js";
