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

  it("takes no command from a line GitHub shows as code or hides", () => {
    // A fence closes only on a line of its marks alone: "``` still code" is code.
    expect(names("```\n``` still code\n/approve\n```\n/status")).toEqual(["status"]);
    // `<!--` inside a fence (or an inline code span before one) does not hide the fence.
    expect(names("`<!--`\n```\n`-->`\n/approve\n```\n/status")).toEqual(["status"]);
    expect(names("```\n<!--\n```\n/status\n")).toEqual(["status"]);
    // A fence in a list item, closed at the item's indent; one indented past it stays open.
    expect(names("- ```\n  /approve\n  ```\n/status")).toEqual(["status"]);
    expect(names("1.  ```\n    /approve\n    ```\n/status")).toEqual(["status"]);
    expect(names("```\n    ```\n/approve\n```\n/status")).toEqual(["status"]);
    expect(names("```\n\t```\n/approve\n```\n/status")).toEqual(["status"]);
    // A list item's fence ended by the item: the marks at the left open a new fence.
    expect(names("- ```\n  x\n```\n/approve\n```\n/status")).toEqual(["status"]);
    // Raw HTML blocks GitHub shows preformatted or drops.
    expect(names("<pre>\n/approve\n</pre>\n/status")).toEqual(["status"]);
    expect(names("<script>\n/approve\n</script>\n<STYLE>\n/cancel\n</style>\n/status")).toEqual([
      "status",
    ]);
    // An inline comment hides the rest of its line and, left open, the lines after.
    expect(names("/approve <!-- later -->\n<!-- a --> <!-- b\n/cancel\n-->\n/status")).toEqual([
      "approve",
      "status",
    ]);
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
