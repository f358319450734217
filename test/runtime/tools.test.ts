import { describe, expect, it } from "vitest";
import {
  createToolsPort,
  parseToolName,
  toolRunnerOf,
  ToolError,
  type ToolProvider,
} from "../../src/runtime/tools.js";

const SECRET = "s3cr3t-token-value";

function provider(overrides: Partial<ToolProvider> = {}): ToolProvider {
  return {
    server: "ops",
    describe: async (tool) =>
      ["read", "write", "hang", "big", "leak", "boom"].includes(tool)
        ? {
            name: `ops/${tool}`,
            server: "ops",
            tool,
            readOnly: tool !== "write",
            allowWrites: false,
            description: tool,
          }
        : undefined,
    call: async (tool, args, signal) => {
      if (tool === "hang")
        return new Promise((_, reject) =>
          signal.addEventListener("abort", () => reject(new Error("aborted"))),
        );
      if (tool === "big") return "x".repeat(2048);
      if (tool === "leak") return { echoed: `token=${SECRET}` };
      if (tool === "boom") throw new ToolError("TOOL-FAILED", `server said Bearer ${SECRET}`);
      return { tool, args };
    },
    ...overrides,
  };
}

describe("parseToolName", () => {
  it("accepts server/tool", () => {
    expect(parseToolName("k8s/list_resources")).toEqual({ server: "k8s", tool: "list_resources" });
    expect(parseToolName("db/readonly.query")).toEqual({ server: "db", tool: "readonly.query" });
  });
  it.each([
    "github/../secrets",
    "../github/x",
    "github//x",
    "github/a/b",
    "github",
    "/x",
    "GitHub/x",
    "a/.hidden",
    "a/b\u0000",
  ])("refuses %j", (name) => expect(parseToolName(name)).toBeUndefined());
});

describe("createToolsPort", () => {
  const port = createToolsPort([provider()], {
    maxResultBytes: 1024,
    defaultDeadlineMs: 2000,
    secrets: [SECRET],
  });

  it("describes configured tools and nothing else", async () => {
    expect(await port.describe("ops/read")).toMatchObject({ readOnly: true });
    expect(await port.describe("ops/nope")).toBeUndefined();
    expect(await port.describe("other/read")).toBeUndefined();
  });

  it("calls a read-only tool and makes its result a finding", async () => {
    const outcome = await port.call("ops/read", { a: 1 });
    expect(outcome).toMatchObject({ ok: true, result: { tool: "read", args: { a: 1 } } });
    expect(outcome.ok && outcome.findings.ops_read).toBe('{"tool":"read","args":{"a":1}}');
  });

  it("refuses unknown tools and names with path tricks", async () => {
    expect(await port.call("ops/missing", {})).toMatchObject({ ok: false, code: "TOOL-UNKNOWN" });
    expect(await port.call("ops/../read", {})).toMatchObject({ ok: false, code: "TOOL-INVALID" });
  });

  it("refuses a writing tool unless the call was approved", async () => {
    expect(await port.call("ops/write", {})).toMatchObject({ ok: false, code: "TOOL-DENIED" });
    expect(await port.call("ops/write", {}, { writeApproved: true })).toMatchObject({ ok: true });
  });

  it("abandons a hanging tool at its deadline", async () => {
    const started = Date.now();
    expect(await port.call("ops/hang", {}, { deadlineMs: 50 })).toMatchObject({
      ok: false,
      code: "TOOL-TIMEOUT",
    });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it("stops when the caller aborts", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    expect(await port.call("ops/hang", {}, { signal: controller.signal })).toMatchObject({
      ok: false,
      code: "TOOL-TIMEOUT",
    });
  });

  it("refuses a result over the size cap", async () => {
    expect(await port.call("ops/big", {})).toMatchObject({ ok: false, code: "TOOL-TOO-LARGE" });
  });

  it("keeps secrets out of results and errors", async () => {
    const leak = await port.call("ops/leak", {});
    const boom = await port.call("ops/boom", {});
    expect(JSON.stringify(leak)).not.toContain(SECRET);
    expect(JSON.stringify(boom)).not.toContain(SECRET);
    expect(boom).toMatchObject({ ok: false, code: "TOOL-FAILED" });
  });

  it("reports a provider's plain error as TOOL-FAILED", async () => {
    const failing = createToolsPort([
      provider({
        call: async () => {
          throw new Error("no route");
        },
      }),
    ]);
    expect(await failing.call("ops/read", {})).toMatchObject({
      ok: false,
      code: "TOOL-FAILED",
      message: "ops/read: no route",
    });
  });

  it("serves as the interpreter's ToolRunner", async () => {
    const runner = toolRunnerOf(port);
    expect(await runner.call("ops/read", {}, new AbortController().signal)).toMatchObject({
      ok: true,
    });
    expect(await runner.call("ops/write", {}, new AbortController().signal)).toMatchObject({
      ok: false,
      code: "TOOL-DENIED",
    });
  });

  it("tells an ai step which configured tools only read, and what they say of themselves", async () => {
    const runner = toolRunnerOf(port);
    expect(await runner.describe?.("ops/read")).toEqual({ readOnly: true, description: "read" });
    expect(await runner.describe?.("ops/write")).toMatchObject({ readOnly: false });
    expect(await runner.describe?.("nowhere/x")).toBeUndefined();
  });
});
