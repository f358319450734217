import { existsSync } from "node:fs";
import { join } from "node:path";
import { isRuleCode, RULE_CODES, type RuleCode } from "../../core/rules/catalogue.js";
import { formatPath, loadSourceText } from "../../core/format/source.js";
import type { RuleSetting } from "../../core/rules/validate.js";
import { didYouMean } from "../../core/util/suggest.js";
import { FileRefusedError, readConfined, rootFor } from "./safe-files.js";

export const CONFIG_FILES = [".playbook-bot.yml", ".playbook-bot.yaml"];

export class ConfigError extends Error {}

/** A config file is a few lines; this is far above any real one. */
const MAX_CONFIG_BYTES = 256 * 1024;

export interface ValidatorConfig {
  file?: string;
  rules: Partial<Record<RuleCode, RuleSetting>>;
}

/**
 * The validator's config file:
 *   rules:
 *     step-no-description: off      # or warning / error
 */
export function parseConfig(file: string, text: string): ValidatorConfig {
  const loaded = loadSourceText(file, text);
  if (!loaded.ok) {
    const p = loaded.problems[0];
    throw new ConfigError(`${file}:${p?.span.line}:${p?.span.column}: ${p?.message}`);
  }
  const doc = loaded.document;
  const value = doc.value ?? {};
  const fail = (path: (string | number)[], message: string): never => {
    const s = doc.span(path, true);
    throw new ConfigError(`${file}:${s.line}:${s.column}: ${formatPath(path)}: ${message}`);
  };
  if (typeof value !== "object" || Array.isArray(value))
    fail([], "the config is a mapping with a rules: field");
  const config: ValidatorConfig = { file, rules: {} };
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (key !== "rules") fail([key], `unknown field '${key}' (expected: rules)`);
    if (v === null || typeof v !== "object" || Array.isArray(v))
      fail([key], "rules: is a mapping of rule code to off, warning or error");
    for (const [code, setting] of Object.entries(v as Record<string, unknown>)) {
      if (!isRuleCode(code)) {
        const guess = didYouMean(code, RULE_CODES);
        fail(
          ["rules", code],
          `unknown rule '${code}'${guess ? ` — did you mean '${guess}'?` : ""} (see \`playbook-bot rules\`)`,
        );
      }
      if (setting !== "off" && setting !== "warning" && setting !== "error") {
        fail(
          ["rules", code],
          `'${String(setting)}' is not a setting (expected off, warning or error)`,
        );
      }
      config.rules[code as RuleCode] = setting as RuleSetting;
    }
  }
  return config;
}

/** The config file in `dir`, if any. */
export function loadConfig(dir: string, explicit?: string): ValidatorConfig {
  const file = explicit ?? CONFIG_FILES.map((f) => join(dir, f)).find((f) => existsSync(f));
  if (!file) return { rules: {} };
  if (!existsSync(file)) throw new ConfigError(`config file ${file} does not exist`);
  // The config is in the checkout, as the playbooks are: read as data, inside the folder.
  const read = readConfined(file, { root: rootFor(file, dir), maxBytes: MAX_CONFIG_BYTES });
  // Like a config path that cannot be read at all, a refused one is no config error: it fails.
  if (!read.ok) throw new FileRefusedError("config file", read.refusal);
  return parseConfig(file, read.bytes.toString("utf8"));
}
