import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  createDeploymentTools,
  loadDeploymentTools,
  parseToolsConfig,
  ToolsConfigError,
} from "../../../src/adapters/tools/registry.js";

const GOOD = `
timeout_ms: 5000
http:
  - name: status
    url: https://status.example.com/api
    method: GET
    hosts: [Status.Example.com]
    headers: { Authorization: { env: STATUS_TOKEN, prefix: "Bearer " } }
servers:
  k8s:
    url: https://mcp.example.com/mcp
    allow_writes: false
    tools: [list_resources]
    read_only: [list_resources]
`;

describe("parseToolsConfig", () => {
  it("reads a valid YAML file", () => {
    const config = parseToolsConfig("tools.yaml", GOOD);
    expect(config.http?.[0]?.hosts).toEqual(["status.example.com"]);
    expect(config.servers?.k8s?.tools).toEqual(["list_resources"]);
  });

  it("reads JSON too", () => {
    expect(parseToolsConfig("tools.json", JSON.stringify({ github: false }))).toEqual({
      github: false,
    });
  });

  it("points at the line and column of an unknown field", () => {
    const text =
      "http:\n  - name: s\n    url: https://a.example/x\n    method: GET\n    hosts: [a.example]\n    token: abc\n";
    expect(() => parseToolsConfig("tools.yaml", text)).toThrow(/tools\.yaml:6:5: .*'token'/);
  });

  it("points at a YAML syntax error", () => {
    expect(() => parseToolsConfig("tools.yaml", "servers: [\n")).toThrow(/^tools\.yaml:\d+:\d+: /);
  });

  it.each([
    [
      "a secret written into the file",
      "servers:\n  k8s:\n    url: https://a.example/\n    headers: { Authorization: { value: 'Bearer x' } }\n",
    ],
    ["a reserved server name", "servers:\n  github:\n    url: https://a.example/\n"],
    ["a server name with a path", "servers:\n  ../x:\n    url: https://a.example/\n"],
    [
      "a method other than GET and POST",
      "http:\n  - { name: s, url: 'https://a.example/', method: DELETE, hosts: [a.example] }\n",
    ],
    [
      "an http tool without hosts",
      "http:\n  - { name: s, url: 'https://a.example/', method: GET }\n",
    ],
  ])("refuses %s", (_what, text) => {
    expect(() => parseToolsConfig("tools.yaml", text)).toThrow(ToolsConfigError);
  });

  it("refuses a tool listed twice", () => {
    const text =
      "http:\n  - { name: s, url: 'https://a.example/', method: GET, hosts: [a.example] }\n  - { name: s, url: 'https://a.example/', method: GET, hosts: [a.example] }\n";
    expect(() => parseToolsConfig("tools.yaml", text)).toThrow(
      /tools\.yaml:3:\d+: http tool s is listed twice/,
    );
  });
});

describe("deployment tools", () => {
  it("stop at start-up when a header's variable is unset, naming it", () => {
    expect(() => createDeploymentTools(parseToolsConfig("tools.yaml", GOOD), {})).toThrow(
      /STATUS_TOKEN/,
    );
  });

  it("offer the configured tools and, per run, the GitHub built-ins", async () => {
    const tools = createDeploymentTools(parseToolsConfig("tools.yaml", GOOD), {
      STATUS_TOKEN: "abcd1234",
    });
    const port = tools.forRun();
    expect(await port.describe("http/status")).toMatchObject({ readOnly: true });
    expect(await port.describe("github/issue_get")).toBeUndefined(); // no run repository given
    await tools.close();
  });

  it("load from PLAYBOOK_TOOLS_CONFIG, and say which file cannot be read", () => {
    const dir = mkdtempSync(join(tmpdir(), "tools-config-"));
    const file = join(dir, "tools.yaml");
    writeFileSync(file, "github: true\n");
    expect(loadDeploymentTools({ PLAYBOOK_TOOLS_CONFIG: file }).config).toEqual({ github: true });
    expect(loadDeploymentTools({}).config).toEqual({});
    expect(() => loadDeploymentTools({ PLAYBOOK_TOOLS_CONFIG: join(dir, "missing.yaml") })).toThrow(
      /missing\.yaml.*ENOENT/,
    );
  });
});
