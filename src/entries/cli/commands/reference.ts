import { toolInfo } from "../../../adapters/local/sarif-context.js";
import { GENERIC_ALERT_SCHEMA } from "../../../core/alerts/generic-schema.js";
import { ruleHelpText, rulesMarkdown, ruleUrl } from "../../../core/format/report/rule-help.js";
import { PLAYBOOK_SCHEMA } from "../../../core/format/schema.js";
import { isRuleCode, RULE_CODES, RULES } from "../../../core/rules/catalogue.js";
import { didYouMean } from "../../../core/util/suggest.js";
import { EXIT, UsageError, type CliContext } from "../cli-io.js";

/** `playbook-bot schema`: the playbook JSON Schema, or the generic alert format's. */
export function schemaCommand(ctx: CliContext, opts: { genericAlert?: boolean }): number {
  const schema = opts.genericAlert ? GENERIC_ALERT_SCHEMA : PLAYBOOK_SCHEMA;
  ctx.io.out(JSON.stringify(schema, null, 2) + "\n");
  return EXIT.ok;
}

/** `playbook-bot rules`: every rule in a table, one rule explained, or all of them as Markdown. */
export function rulesCommand(
  ctx: CliContext,
  code: string | undefined,
  opts: { markdown?: boolean },
): number {
  const { io } = ctx;
  if (opts.markdown) {
    io.out(rulesMarkdown());
    return EXIT.ok;
  }
  if (code !== undefined) {
    if (!isRuleCode(code)) {
      const near = didYouMean(code, RULE_CODES);
      throw new UsageError(
        `no rule '${code}'${near ? ` — did you mean '${near}'?` : ""} (playbook-bot rules lists them)`,
      );
    }
    const { repositoryUrl } = toolInfo();
    io.out(ruleHelpText(code, repositoryUrl && ruleUrl(repositoryUrl, code)));
    return EXIT.ok;
  }
  const width = Math.max(...RULE_CODES.map((c) => c.length));
  for (const c of RULE_CODES)
    io.out(
      `${c.padEnd(width)}  ${RULES[c].severity.padEnd(7)}  ${RULES[c].layer.padEnd(9)}  ${RULES[c].summary}\n`,
    );
  return EXIT.ok;
}
