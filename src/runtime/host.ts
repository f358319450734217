import type { HostCapabilities } from "../core/engine/requirements.js";

const SECRET_NAME = /^[A-Z_][A-Z0-9_]*$/;

/**
 * The secrets a deployment lets playbooks require: the names listed in PLAYBOOK_SECRETS
 * (comma-separated) that are set. Only listed names count, so a playbook cannot probe for any
 * other variable of the process (the app's own keys among them).
 */
export function exposedSecrets(env: NodeJS.ProcessEnv): Set<string> {
  const names = (env.PLAYBOOK_SECRETS ?? "")
    .split(",")
    .map((n) => n.trim())
    .filter((n) => SECRET_NAME.test(n));
  return new Set(names.filter((n) => (env[n] ?? "") !== ""));
}

/** The app's capabilities: the secrets it exposes and the tools it has. */
export function appHost(
  env: NodeJS.ProcessEnv,
  hasTool: (name: string) => boolean,
): HostCapabilities {
  const secrets = exposedSecrets(env);
  return {
    where: "this app",
    hasSecret: (name) => secrets.has(name),
    hasTool,
    howToProvide: {
      secret: "set it in the app's environment and list its name in PLAYBOOK_SECRETS",
      tool: "configure its server in the app's tools file (PLAYBOOK_TOOLS_CONFIG)",
    },
  };
}

/** A local run's capabilities: the machine's environment variables and the tools configured. */
export function localHost(
  env: NodeJS.ProcessEnv,
  hasTool: (name: string) => boolean,
): HostCapabilities {
  return {
    where: "this machine",
    hasSecret: (name) => SECRET_NAME.test(name) && (env[name] ?? "") !== "",
    hasTool,
    howToProvide: {
      secret: "export it as an environment variable before the run",
      tool: "configure its server in a tools file named by PLAYBOOK_TOOLS_CONFIG",
    },
  };
}
