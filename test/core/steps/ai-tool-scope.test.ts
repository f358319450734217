import { describe, expect, it } from "vitest";
import { toolScopeRefusal, writeByName } from "../../../src/core/steps/ai/tool-scope.js";

describe("which tools an ai step may offer under its scope", () => {
  it("tells a writing tool by its name: a shell server or tool, or a first word that changes something", () => {
    expect(writeByName("shell/anything")).toBe("shell runs commands");
    expect(writeByName("tools/run_command")).toBe("run_command runs commands");
    expect(writeByName("bash")).toBe("bash runs commands");
    expect(writeByName("fs/writeFile")).toBe("'write' changes something");
    expect(writeByName("git/push-tags")).toBe("'push' changes something");
    expect(writeByName("create_issue")).toBe("'create' changes something");
    expect(writeByName("github/get_issue")).toBeUndefined();
    expect(writeByName("search")).toBeUndefined();
  });

  it("lets a write step offer anything, and a read-only one only what reads", () => {
    expect(toolScopeRefusal("shell/bash", "write", undefined)).toBeUndefined();
    // A shell is refused whatever its descriptor says.
    expect(toolScopeRefusal("shell/bash", "read-only", { readOnly: true })).toBe(
      "shell runs commands",
    );
    // A descriptor decides over the name, both ways.
    expect(toolScopeRefusal("github/set_topic", "read-only", { readOnly: true })).toBeUndefined();
    expect(toolScopeRefusal("github/get_issue", "read-only", { readOnly: false })).toBe(
      "it is not marked read-only here",
    );
    // Without one, the name decides.
    expect(toolScopeRefusal("fs/delete_file", "read-only", undefined)).toBe(
      "'delete' changes something",
    );
    expect(toolScopeRefusal("fs/read_file", "read-only", undefined)).toBeUndefined();
  });
});
