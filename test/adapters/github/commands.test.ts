import { describe, expect, it } from "vitest";
import {
  HELP_TEXT,
  MAX_COMMANDS_PER_COMMENT,
  parseCommands,
} from "../../../src/core/engine/commands.js";

const names = (body: string) =>
  parseCommands(body).map((c) => (c.kind === "command" ? c.name : `?${c.word}`));

describe("parseCommands", () => {
  it("reads a command with positional words, k=v values and quoted values", () => {
    const [c] = parseCommands('/run bump package=lodash note="two words" now');
    expect(c).toEqual({
      kind: "command",
      name: "run",
      line: 1,
      args: {
        positional: ["bump", "now"],
        values: { package: "lodash", note: "two words" },
        text: 'bump package=lodash note="two words" now',
      },
    });
  });

  it("takes commands only at the start of a line, with at most three spaces of indent", () => {
    expect(names("please /approve this")).toEqual([]);
    expect(names("   /approve")).toEqual(["approve"]);
    expect(names("    /approve")).toEqual([]);
    expect(names("LGTM\n/approve\n/status")).toEqual(["approve", "status"]);
  });

  it("matches whole words: /approvex is not /approve, and paths are not commands", () => {
    expect(parseCommands("/approvex")).toEqual([
      { kind: "unknown", word: "approvex", suggestion: "approve", line: 1 },
    ]);
    expect(names("/approve/now")).toEqual([]);
    expect(names("/approve: yes")).toEqual([]);
  });

  it("ignores commands in fenced code, block quotes and HTML comments", () => {
    const body = [
      "```",
      "/approve",
      "```",
      "> /approve",
      "<!-- /approve",
      "/cancel -->",
      "~~~~",
      "/reject",
      "~~~",
      "/reject",
      "~~~~",
      "/retry",
    ].join("\n");
    expect(names(body)).toEqual(["retry"]);
    expect(parseCommands(body)[0]?.line).toBe(12);
  });

  it("answers a likely typo with a suggestion and leaves prose alone", () => {
    expect(parseCommands("/aprove")).toEqual([
      { kind: "unknown", word: "aprove", suggestion: "approve", line: 1 },
    ]);
    expect(parseCommands("/tmp is full")).toEqual([]);
  });

  it("is case-insensitive in the command word and handles CRLF", () => {
    expect(names("/Approve\r\n/CANCEL now")).toEqual(["approve", "cancel"]);
  });

  it(`takes at most ${MAX_COMMANDS_PER_COMMENT} commands from one comment`, () => {
    expect(parseCommands(Array(15).fill("/status").join("\n"))).toHaveLength(
      MAX_COMMANDS_PER_COMMENT,
    );
  });

  it("has help text that names every command", () => {
    for (const c of [
      "run",
      "approve",
      "reject",
      "choose",
      "record",
      "retry",
      "cancel",
      "status",
      "help",
    ]) {
      expect(HELP_TEXT).toContain(`/${c}`);
    }
  });
});
