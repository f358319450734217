import { documented, documentedEnum, text } from "../../format/schema-docs.js";
import { typeChoice } from "../../format/schema-parts.js";
import { stepKindSchema } from "../kind-schema.js";

/** Shells a `script` step may name. */
export const SCRIPT_SHELLS = ["bash", "sh", "powershell", "node"] as const;

/** The `script` step in the playbook format: what it is, its fields, its snippet. */
export const scriptSchema = stepKindSchema({
  kind: "script",
  doc: {
    md: "Runs a script where an operator allowed scripts (`playbook-bot run … --allow-scripts`, or the Actions runtime); the app refuses it with `PB-SCRIPT-REFUSED`. A non-zero exit fails the step with `PB-SCRIPT-FAILED`. Outputs: `exit_code`, `stdout`, `stderr` (their last 4,000 characters).",
    yaml: 'id: test\ntype: script\nshell: bash\nrun: npm test -- "$PACKAGE"\nenv: { PACKAGE: "{{ inputs.package }}" }',
  },
  fields: {
    shell: documented(
      documentedEnum(SCRIPT_SHELLS, {
        bash: "Run the text with bash.",
        sh: "Run the text with sh.",
        powershell: "Run the text with PowerShell.",
        node: "Run the text with Node.js.",
      }),
      "The interpreter that runs the script.",
    ),
    run: text({
      md: "The script's text, passed as written: it is never a template, so `{{ … }}` in it is not filled in (a warning). Values reach it as environment variables through `env`.",
      yaml: 'run: |\n  npm install "$PACKAGE@latest"\n  npm test',
    }),
    env: documented(
      {
        type: "object",
        propertyNames: { pattern: "^[A-Z_][A-Z0-9_]*$" },
        additionalProperties: typeChoice("string", "number", "boolean"),
      },
      {
        md: "Environment variables of the script, in capitals; string values are templates. This is how values reach the script.",
        yaml: "env: { PACKAGE: '{{ inputs.package }}', RETRIES: 3 }",
      },
    ),
  },
  required: ["shell", "run"],
  snippet: {
    label: "script step",
    description: "Run a script where scripts are allowed.",
    id: "script",
    body: {
      type: "script",
      name: "${2:Run the check}",
      shell: "${3|bash,sh,powershell,node|}",
      run: "${4:./scripts/check.sh}",
      env: { TARGET: "${5:main}" },
    },
    order: 15,
  },
});
