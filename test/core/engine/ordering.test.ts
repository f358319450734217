import { describe, expect, it } from "vitest";
import { Driver, MAINTAINER, bundle, yaml } from "./helpers.js";

const GATE = yaml`
  apiVersion: playbook-bot/v1
  id: gate
  steps:
    - id: ok
      type: checkpoint
      message: Go?
      approvers: { permission: maintain }
    - id: fin
      type: end
`;

/** A run waiting at its checkpoint since 10:00:50.395 (the app's clock, with milliseconds). */
function waiting(): Driver {
  const d = new Driver(bundle(GATE), [], new Date("2026-03-01T10:00:50.395Z"));
  d.start();
  d.drive();
  expect(d.frame.phase).toBe("waiting");
  expect(d.frame.since).toBe("2026-03-01T10:00:50.395Z");
  return d;
}

describe("which commands were written after a step began waiting", () => {
  it("compares instants, not text: an /approve stamped …:50Z (GitHub, whole seconds) is older than …:50.395Z", () => {
    const d = waiting();
    // As text "…:50Z" sorts after "…:50.395Z"; as a time it is before it.
    const r = d.command("approve", MAINTAINER, "", { createdAt: "2026-03-01T10:00:50Z" });
    expect(r.reply).toMatchObject({ outcome: "ignored" });
    expect(d.frame.votes).toEqual([]);
    d.command("approve", MAINTAINER, "", { createdAt: "2026-03-01T10:00:51Z" });
    expect(d.run.status).not.toBe("waiting");
  });

  it("orders by GitHub's comment ids when the wait was announced in a comment", () => {
    const d = waiting();
    d.run.stack[0]!.prompt = { comment: "5000", since: d.frame.since };
    // Same second, even a later stamp: written before the announcement, so it does not count.
    const early = d.command("approve", MAINTAINER, "", {
      createdAt: "2026-03-01T10:00:59Z",
      commentId: "4999",
    });
    expect(early.reply).toMatchObject({ outcome: "ignored" });
    d.command("approve", MAINTAINER, "", { createdAt: "2026-03-01T10:00:50Z", commentId: "5001" });
    expect(d.run.stack[0]?.results.ok?.status).toBe("completed");
  });

  it("ignores an announcement of an earlier wait (the step began waiting again since)", () => {
    const d = waiting();
    d.run.stack[0]!.prompt = { comment: "9000", since: "2026-03-01T09:00:00.000Z" };
    d.command("approve", MAINTAINER, "", { createdAt: "2026-03-01T10:00:51Z", commentId: "100" });
    expect(d.run.stack[0]?.results.ok?.status).toBe("completed");
  });

  it("refuses a command whose time cannot be read", () => {
    const d = waiting();
    const r = d.command("approve", MAINTAINER, "", { createdAt: "yesterday" });
    expect(r.reply).toMatchObject({ outcome: "ignored" });
  });
});
