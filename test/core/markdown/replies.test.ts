import { describe, expect, it } from "vitest";
import {
  ccLine,
  code,
  frozenNotice,
  invalidInputsNotice,
  invalidPlaybookNotice,
  labelRefusedNotice,
  messageComment,
  refusalReply,
  runList,
  spans,
  startingNotice,
  statusDeletedNotice,
  statusEditedNotice,
  unknownCommandReason,
} from "../../../src/core/markdown/index.js";
import { HELP_TEXT } from "../../../src/core/engine/commands.js";
import { expectInert } from "./audit.js";

const Z = "\u200b";
const EVIL = "@root <!-- playbook-bot:state x --> #1 ![i](http://x/i.png) </details>";

describe("the controller's comments", () => {
  it("a refusal quotes the command line and gives the reason", () => {
    expect(refusalReply("/approve deploy", "`deploy` is not waiting; **ok** is")).toBe(
      "> /approve deploy\n\n👎 `deploy` is not waiting; **ok** is",
    );
    expect(refusalReply("/x", unknownCommandReason("aprove", "approve"))).toBe(
      "> /x\n\n👎 `/aprove` is not a command — did you mean `/approve`? (`/help` lists them)",
    );
    const md = refusalReply(`/approve ${EVIL}\n/cancel`, `@eve may not approve: ${EVIL}`);
    expect(md).toContain(`👎 @${Z}eve may not approve`);
    expectInert(md);
  });

  it("spans: code and bold marks only, the rest text", () => {
    expect(spans("a `b` **c** d").map((n) => n.type)).toEqual([
      "text",
      "inlineCode",
      "text",
      "strong",
      "text",
    ]);
    expect(spans("")).toEqual([]);
    expect(spans("`<!-- x -->`")).toEqual([code("<!-- x -->")]);
  });

  it("inputs that do not fit, and a playbook that does not validate", () => {
    expect(invalidInputsNotice("ship", ["version is required", "env must be one of a, b"])).toBe(
      "**ship** did not start: its inputs are invalid.\n\n- version is required\n- env must be one of a, b",
    );
    expectInert(invalidInputsNotice(EVIL, [EVIL, `x\n\n- y`]));
    expect(
      invalidPlaybookNotice("ship", ".github/playbooks/ship.yaml", "ship.yaml:3:1: bad [rule]\n"),
    ).toBe(
      "Playbook **ship** cannot run: `.github/playbooks/ship.yaml` is invalid.\n\n```text\nship.yaml:3:1: bad [rule]\n```",
    );
    const md = invalidPlaybookNotice(EVIL, EVIL, `3 | name: "${EVIL}"\n\`\`\`\n</details>`);
    expect(md).toContain("````text");
    expectInert(md);
  });

  it("frozen, edited and deleted status comments", () => {
    const frozen = frozenNotice("123", "@mallory edited it and its state block no longer verifies");
    expect(frozen).toBe(
      `⚠️ The run in [this status comment](#issuecomment-123) is frozen: @${Z}mallory edited it and its state block no longer verifies.\nIts state cannot be trusted, so nothing more happens in it. Start a new run with \`/run <playbook>\`.`,
    );
    // The controller finds an earlier notice by this text.
    expect(frozen).toContain("#issuecomment-123) is frozen");
    expectInert(frozenNotice("9", EVIL), { anchors: true });
    expect(
      statusEditedNotice({
        editor: "mallory",
        commentId: 5,
        runId: "r1",
        playbook: "ship",
        finished: false,
        restart: "/run ship v=1",
      }),
    ).toBe(
      `⚠️ @${Z}mallory edited [the status comment](#issuecomment-5) of run \`r1\` (**ship**). Only this app writes run state, so the run is frozen and nothing more happens in it (\`PB-STATE-EDITED\`). To go on, start it again: \`/run ship v=1\`.`,
    );
    expectInert(
      statusEditedNotice({
        editor: EVIL,
        commentId: 5,
        runId: EVIL,
        playbook: EVIL,
        finished: true,
        restart: EVIL,
      }),
      { anchors: true },
    );
    expect(
      statusDeletedNotice({
        by: "eve",
        runId: "r1",
        playbook: "ship",
        at: "gate",
        restart: "/run ship",
      }),
    ).toBe(
      `🗑️ @${Z}eve deleted the status comment of run \`r1\` (**ship**), which held its state, so the run has stopped where it was (at \`gate\`). To start it again: \`/run ship\`.`,
    );
    expectInert(
      statusDeletedNotice({ by: EVIL, runId: EVIL, playbook: EVIL, at: EVIL, restart: EVIL }),
    );
  });

  it("a label refused, a run starting, the run list", () => {
    expect(labelRefusedNotice("playbook:ship", "ship", "eve", "write")).toBe(
      `Label \`playbook:ship\` did not start **ship**: @${Z}eve needs write access or more to start it.`,
    );
    expectInert(labelRefusedNotice(EVIL, EVIL, EVIL, "write"));
    expect(startingNotice("ship", "r1")).toBe("⏳ Starting **ship** (run `r1`)…");
    expect(
      runList([
        { runId: "r1", commentId: "11", playbook: "ship", status: "waiting", at: "gate" },
        { runId: "r2", commentId: 12, playbook: "triage", status: "completed" },
      ]),
    ).toBe(
      "- [run `r1`](#issuecomment-11) of **ship**: waiting at `gate`\n- [run `r2`](#issuecomment-12) of **triage**: completed",
    );
    expect(runList([])).toBe("No playbook has run on this issue. `/help` lists the commands.");
    expectInert(
      runList([
        { runId: EVIL, commentId: "1)](javascript:x", playbook: EVIL, status: EVIL, at: EVIL },
      ]),
      { anchors: true },
    );
  });

  it("cc: live mentions for valid logins and teams only", () => {
    expect(ccLine(["bob", "@carol"], ["acme/sre"])).toBe("cc @bob @carol @acme/sre");
    expect(ccLine(["bad user", "x<!--"])).toBe(`cc @${Z}bad user @${Z}x\\<!${Z}--`);
    expectInert(ccLine(["bob", EVIL], [EVIL]), { mentions: ["@bob"] });
    expect(messageComment({ text: "Waits." })).toBe("Waits.");
    expect(messageComment({ text: "Waits.\n", to: ["bob"] })).toBe("Waits.\n\ncc @bob");
  });

  it("the help text", () => {
    expect(HELP_TEXT.split("\n")[0]).toBe("**Playbook Bot commands** (each on its own line):");
    expect(HELP_TEXT).toContain("- `/run <playbook> [key=value …]` — start a playbook");
    expectInert(HELP_TEXT);
  });
});
