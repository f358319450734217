import { describe, expect, it } from "vitest";
import { terminalLines } from "../../../src/core/util/log-line.js";
import { workflowCommands } from "../../helpers/workflow-commands.js";

describe("terminalLines", () => {
  it("shows control characters as escapes and keeps line breaks and tabs", () => {
    expect(terminalLines("a\u001b]52;c;eA==\u0007\tb\nc\u009b2J")).toBe(
      "a\\u001b]52;c;eA==\\u0007\tb\nc\\u009b2J",
    );
  });
  it("leaves no line a workflow command, whatever whitespace leads it", () => {
    const out = terminalLines(
      "x\n::add-mask::y\n  ::warning::z\r\n\t::error::w\nok :: not a command",
    );
    expect(workflowCommands(out)).toEqual([]);
    expect(out).toContain("ok :: not a command");
  });
});
