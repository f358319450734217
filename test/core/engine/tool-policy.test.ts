import { describe, expect, it } from "vitest";
import { toolCallAuthority } from "../../../src/core/engine/tool-policy.js";

describe("toolCallAuthority", () => {
  it("runs a read-only tool at once, whatever the step says", () => {
    expect(
      toolCallAuthority({
        readOnly: true,
        deploymentAllowsWrites: false,
        stepAuthority: "ask-first",
      }),
    ).toBe("just-do-it");
  });
  it("runs a writing tool at once only when the deployment and the playbook both allow it", () => {
    expect(
      toolCallAuthority({
        readOnly: false,
        deploymentAllowsWrites: true,
        stepAuthority: "just-do-it",
      }),
    ).toBe("just-do-it");
    expect(
      toolCallAuthority({
        readOnly: false,
        deploymentAllowsWrites: false,
        stepAuthority: "just-do-it",
      }),
    ).toBe("ask-first");
    expect(
      toolCallAuthority({
        readOnly: false,
        deploymentAllowsWrites: true,
        stepAuthority: "show-me",
      }),
    ).toBe("ask-first");
    expect(toolCallAuthority({ readOnly: false, deploymentAllowsWrites: true })).toBe("ask-first");
  });
});
