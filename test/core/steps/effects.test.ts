import { describe, expect, it } from "vitest";
import { describeEffect, EFFECT_KINDS } from "../../../src/core/steps/effects.js";

describe("what an effect does, in words", () => {
  it("says it for every effect kind, from the effect's own params", () => {
    const said = {
      comment: describeEffect({ kind: "comment", params: { body: "x", issue: "7" } }),
      reply: describeEffect({ kind: "comment", params: { body: "x", issue: "7", reply_to: "9" } }),
      branch: describeEffect({ kind: "branch", params: { name: "fix/a" } as never }),
      commit: describeEffect({ kind: "commit", params: { branch: "fix/a" } as never }),
      dispatch: describeEffect({ kind: "dispatch", params: { workflow: "deploy.yml" } as never }),
      script: describeEffect({ kind: "script", params: { shell: "bash" } as never }),
      tool_call: describeEffect({
        kind: "tool_call",
        params: { calls: [{ number: 1, tool: "k8s/get", args: {}, required: false }] },
      }),
    };
    expect(said).toEqual({
      comment: "comment on #7",
      reply: "reply to review comment 9",
      branch: "create branch fix/a",
      commit: "commit to fix/a",
      dispatch: "dispatch deploy.yml",
      script: "run a bash script",
      tool_call: "call k8s/get",
    });
    for (const kind of EFFECT_KINDS) {
      const text = describeEffect({ kind, params: { calls: [], shell: "sh" } as never });
      expect(text, kind).toMatch(/^[a-z_]/);
    }
  });
});
