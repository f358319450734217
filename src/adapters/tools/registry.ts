import { readFileSync } from "node:fs";
import type { Octokit } from "../github/octokit-port.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { formatPath, loadSourceText, parsePointer } from "../../core/format/source.js";
import {
  createToolsPort,
  parseToolName,
  type ToolProvider,
  type ToolsPort,
} from "../../runtime/tools.js";
import { GITHUB_TOOL_NAMES, githubTools } from "./github.js";
import { httpTools, type HttpToolConfig } from "./http.js";
import { mcpTools, type McpServerConfig } from "./mcp.js";

export class ToolsConfigError extends Error {}

/** The deployment's tools (`PLAYBOOK_TOOLS_CONFIG`): secrets only by environment-variable name. */
export interface ToolsConfig {
  /** The built-in read-only `github/...` tools (on unless false). */
  github?: boolean;
  http?: HttpToolConfig[];
  servers?: Record<string, McpServerConfig>;
  /** How long one call may take, unless the caller says otherwise. */
  timeout_ms?: number;
}

const NAME = "^[a-z0-9][a-z0-9_-]{0,63}$";
const RESERVED_SERVERS = ["github", "http"];
const secretHeaders = {
  type: "object",
  maxProperties: 20,
  propertyNames: { pattern: "^[A-Za-z0-9-]{1,64}$" },
  additionalProperties: {
    type: "object",
    additionalProperties: false,
    required: ["env"],
    properties: {
      env: { type: "string", pattern: "^[A-Z_][A-Z0-9_]{0,127}$" },
      prefix: { type: "string", maxLength: 32 },
    },
  },
};
const toolNames = {
  type: "array",
  maxItems: 500,
  items: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$" },
};
const byteCap = { type: "integer", minimum: 1024, maximum: 16 * 1024 * 1024 };

export const TOOLS_CONFIG_SCHEMA = {
  type: "object",
  additionalProperties: false,
  properties: {
    github: { type: "boolean" },
    timeout_ms: { type: "integer", minimum: 100, maximum: 600_000 },
    http: {
      type: "array",
      maxItems: 200,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["name", "url", "method", "hosts"],
        properties: {
          name: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$" },
          url: { type: "string", pattern: "^https?://", maxLength: 2048 },
          method: { enum: ["GET", "POST"] },
          description: { type: "string", maxLength: 500 },
          headers: secretHeaders,
          hosts: {
            type: "array",
            minItems: 1,
            maxItems: 20,
            items: { type: "string", minLength: 1, maxLength: 253 },
          },
          read_only: { type: "boolean" },
          max_response_bytes: byteCap,
        },
      },
    },
    servers: {
      type: "object",
      maxProperties: 50,
      propertyNames: { pattern: NAME, not: { enum: RESERVED_SERVERS } },
      additionalProperties: {
        type: "object",
        additionalProperties: false,
        required: ["url"],
        properties: {
          url: { type: "string", pattern: "^https?://", maxLength: 2048 },
          headers: secretHeaders,
          allow_writes: { type: "boolean" },
          tools: toolNames,
          read_only: toolNames,
          max_response_bytes: byteCap,
        },
      },
    },
  },
};

/** The config file's text parsed and checked; errors point at file:line:column. */
export function parseToolsConfig(file: string, text: string): ToolsConfig {
  const loaded = loadSourceText(file, text);
  if (!loaded.ok) {
    const p = loaded.problems[0];
    throw new ToolsConfigError(`${file}:${p?.span.line}:${p?.span.column}: ${p?.message}`);
  }
  const doc = loaded.document;
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(TOOLS_CONFIG_SCHEMA);
  if (!validate(doc.value)) {
    const lines = (validate.errors ?? []).slice(0, 5).map((e) => {
      const path = parsePointer(e.instancePath);
      const unknown =
        e.keyword === "additionalProperties"
          ? String((e.params as { additionalProperty: string }).additionalProperty)
          : undefined;
      // An unknown field is shown on its own name, not on the mapping that holds it.
      const s = unknown !== undefined ? doc.span([...path, unknown], true) : doc.span(path);
      const extra = unknown !== undefined ? ` ('${unknown}')` : "";
      return `${file}:${s.line}:${s.column}: ${formatPath(path)}: ${e.message ?? "invalid"}${extra}`;
    });
    throw new ToolsConfigError(
      `${lines.join("\n")}\nSee docs/ai-and-tools.md (Tools) for the format.`,
    );
  }
  const config = doc.value as ToolsConfig;
  const seen = new Set<string>();
  for (const [index, tool] of (config.http ?? []).entries()) {
    if (seen.has(tool.name)) {
      const s = doc.span(["http", index, "name"]);
      throw new ToolsConfigError(
        `${file}:${s.line}:${s.column}: http tool ${tool.name} is listed twice`,
      );
    }
    seen.add(tool.name);
    tool.hosts = tool.hosts.map((h) => h.toLowerCase());
  }
  return config;
}

/** The tools a deployment configured, shared by every run; the GitHub tools are added per run. */
export interface DeploymentTools {
  config: ToolsConfig;
  /**
   * Whether a tool is configured here, from the config alone (no request): a built-in GitHub
   * tool, an HTTP tool, or a tool of a configured MCP server (its allowlist, when it has one).
   */
  has(name: string): boolean;
  /**
   * The tools of one run: the GitHub tools on its repository when GitHub is reached, else
   * `local` in their place (a local run's file tools reading its clone).
   */
  forRun(
    run?: { octokit: Octokit; repository: { owner: string; repo: string } },
    local?: ToolProvider,
  ): ToolsPort;
  close(): Promise<void>;
}

/** Builds the deployment's tools; a header whose variable is unset stops it here, at start-up. */
export function createDeploymentTools(
  config: ToolsConfig,
  env: NodeJS.ProcessEnv,
): DeploymentTools {
  const shared: (ToolProvider & { secrets: string[] })[] = [];
  try {
    if (config.http?.length) shared.push(httpTools(config.http, env));
    for (const [name, server] of Object.entries(config.servers ?? {}))
      shared.push(mcpTools(name, server, env));
  } catch (err) {
    throw new ToolsConfigError((err as Error).message);
  }
  const secrets = shared.flatMap((p) => p.secrets);
  return {
    config,
    has: (name) => {
      const parsed = parseToolName(name);
      if (!parsed) return false;
      if (parsed.server === "github")
        return config.github !== false && GITHUB_TOOL_NAMES.includes(name);
      if (parsed.server === "http") return (config.http ?? []).some((t) => t.name === parsed.tool);
      const server = config.servers?.[parsed.server];
      return (
        server !== undefined && (server.tools === undefined || server.tools.includes(parsed.tool))
      );
    },
    forRun: (run, local) =>
      createToolsPort(
        [
          ...shared,
          ...(config.github === false
            ? []
            : run
              ? [githubTools(run.octokit, run.repository)]
              : local
                ? [local]
                : []),
        ],
        { secrets, ...(config.timeout_ms ? { defaultDeadlineMs: config.timeout_ms } : {}) },
      ),
    close: async () => {
      await Promise.allSettled(shared.map((p) => p.close?.()));
    },
  };
}

/** The deployment's tools from `PLAYBOOK_TOOLS_CONFIG`, or only the built-ins when it is unset. */
export function loadDeploymentTools(env: NodeJS.ProcessEnv = process.env): DeploymentTools {
  const file = env.PLAYBOOK_TOOLS_CONFIG;
  if (!file) return createDeploymentTools({}, env);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ToolsConfigError(
      `cannot read the tools config ${file} (PLAYBOOK_TOOLS_CONFIG): ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  return createDeploymentTools(parseToolsConfig(file, text), env);
}
