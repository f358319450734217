import { describe, expect, it } from "vitest";
import type { Actor } from "../../../src/core/engine/state.js";
import {
  BOT,
  DAY,
  Driver,
  HOUR,
  INITIATOR,
  MAINTAINER,
  MAINTAINER2,
  MIN,
  READER,
  WRITER,
  bundle,
  yaml,
} from "./helpers.js";

function checkpoint(approvers: string, extra = ""): string {
  return yaml`
    apiVersion: playbook-bot/v1
    id: gate
    limits: { max_steps: 20 }
    steps:
      - id: ok
        type: checkpoint
        name: Go ahead
        message: "Proceed for {{ run.initiator }}?"
        approvers: ${approvers}
        ${extra}
      - id: after
        type: comment
        body: "approved by {{ steps.ok.outputs.approved_by }} ({{ steps.ok.outputs.note }})"
      - id: fin
        type: end
      - id: rejected
        type: end
        status: neutral
        conclusion: rejected
  `;
}

function waiting(text: string): Driver {
  const d = new Driver(bundle(text, { allow: ["unreachable"] }));
  d.start();
  d.drive();
  expect(d.run.status).toBe("waiting");
  expect(d.frame.phase).toBe("waiting");
  return d;
}

describe("checkpoint", () => {
  it("posts a waiting message naming who may approve, and continues after an allowed /approve", () => {
    const d = waiting(checkpoint("{ permission: maintain }"));
    const msg = d.last.messages[0];
    expect(msg?.kind).toBe("waiting");
    expect(msg?.text).toContain("**Go ahead** waits for approval: Proceed for alice?");
    expect(msg?.text).toContain("people with maintain access or more");
    const w = d.command("approve", WRITER);
    expect(w.changed).toBe(false);
    expect(w.reply?.outcome).toBe("refused");
    expect(w.reply?.reason).toContain("@dave may not approve this step");
    const m = d.command("approve", MAINTAINER, "ok looks good");
    // the step id named in /approve is not part of the note
    expect(m.reply?.outcome).toBe("accepted");
    expect(d.frame.results.ok).toMatchObject({
      status: "completed",
      outputs: { approved_by: ["bob"], note: "looks good" },
    });
    d.drive();
    expect(d.effect().params).toEqual({ body: "approved by bob (looks good)" });
  });

  it("without approvers, write access is needed", () => {
    const d = waiting(checkpoint("{}"));
    expect(d.command("approve", READER).reply?.reason).toContain(
      "people with write access or more",
    );
    expect(d.command("approve", WRITER).reply?.outcome).toBe("accepted");
    expect(d.frame.current).toBe("after");
  });

  it("named users and teams may approve regardless of permission; others may not", () => {
    const d = waiting(checkpoint("{ users: [Erin], teams: [sre] }"));
    expect(d.last.messages[0]?.to).toEqual(["Erin"]);
    expect(d.last.messages[0]?.text).toContain("@\u200bErin or members of sre");
    const refused = d.command("approve", MAINTAINER);
    expect(refused.reply?.reason).toContain("approval is for @Erin or members of sre");
    expect(d.command("approve", READER).reply?.outcome).toBe("accepted");

    const t = waiting(checkpoint("{ teams: [sre] }"));
    expect(
      t.command("approve", { login: "x", permission: "read", teams: ["platform"] }).reply?.outcome,
    ).toBe("refused");
    t.command("approve", { login: "y", permission: "read", teams: ["acme/SRE"] });
    expect(t.frame.current).toBe("after");

    const full = waiting(checkpoint("{ teams: [acme/sre] }"));
    full.command("approve", { login: "z", teams: ["sre"] });
    expect(full.frame.current).toBe("after");
  });

  it("counts distinct approvers; each person's last vote counts", () => {
    const d = waiting(checkpoint("{ permission: maintain, count: 2 }"));
    expect(d.last.messages[0]?.text).toContain("(2 people)");
    const first = d.command("approve", MAINTAINER);
    expect(first.reply).toEqual({ outcome: "accepted", reason: "1 of 2 approvals" });
    const again = d.command("approve", { ...MAINTAINER, login: "BOB" });
    expect(again.reply).toEqual({ outcome: "accepted", reason: "1 of 2 approvals" });
    expect(d.frame.current).toBe("ok");
    d.command("approve", MAINTAINER2);
    expect(d.frame.current).toBe("after");
    expect(d.frame.results.ok?.outputs?.approved_by).toEqual(["BOB", "carol"]);
  });

  it("a later /reject by someone who approved replaces their approval", () => {
    const d = waiting(checkpoint("{ permission: maintain, count: 2 }"));
    d.command("approve", MAINTAINER);
    d.command("reject", MAINTAINER, "changed my mind");
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-REJECTED");
    expect(d.run.error?.message).toContain("rejected by @bob: changed my mind");
  });

  it("refuses the initiator unless allow_initiator, and records a self-approval", () => {
    const d = waiting(checkpoint("{ permission: write }"));
    const r = d.command("approve", INITIATOR);
    expect(r.reply?.reason).toContain("@alice started this run and cannot approve it");
    expect(d.frame.votes).toEqual([]);

    const self = waiting(checkpoint("{ permission: write, allow_initiator: true }"));
    self.command("approve", INITIATOR);
    expect(self.frame.current).toBe("after");
    expect(self.run.selfApproved).toEqual(["ok"]);
  });

  it("refuses bots, even with admin access", () => {
    const d = waiting(checkpoint("{ permission: read }"));
    const r = d.command("approve", BOT);
    expect(r.reply).toEqual({ outcome: "refused", reason: "commands from bots are not accepted" });
    expect(r.changed).toBe(false);
  });

  it("takes a first word as the step only when it names the waiting step; otherwise it is the note", () => {
    const d = waiting(checkpoint("{}"));
    const r = d.command("approve", WRITER, "looks good");
    expect(r.reply?.outcome).toBe("accepted");
    expect(d.frame.results.ok?.outputs).toMatchObject({
      approved_by: ["dave"],
      note: "looks good",
    });

    const named = waiting(checkpoint("{}"));
    named.command("approve", WRITER, "ok");
    expect(named.frame.current).toBe("after");
    expect(named.frame.results.ok?.outputs?.note).toBe("");

    // A step of the playbook that is not the one waiting is just a word of the note.
    const other = waiting(checkpoint("{}"));
    other.command("approve", WRITER, "after that ok");
    expect(other.frame.results.ok?.outputs?.note).toBe("after that ok");
  });

  it("/reject takes the text as the reason, less a leading name of the waiting step", () => {
    const d = waiting(checkpoint("{}"));
    d.command("reject", WRITER, "too risky");
    expect(d.run.error?.message).toBe("'ok' was rejected by @dave: too risky");

    const named = waiting(checkpoint("{}"));
    named.command("reject", WRITER, "ok too risky");
    expect(named.run.error?.message).toBe("'ok' was rejected by @dave: too risky");
  });

  it("keeps the note and the response values apart", () => {
    const text = checkpoint(
      "{ permission: write }",
      `response_schema:
          type: object
          properties:
            version: { type: string }
          required: [version]`,
    );
    const d = waiting(text);
    expect(d.command("approve", WRITER, "looks good version=1.2.3").reply?.outcome).toBe(
      "accepted",
    );
    expect(d.frame.results.ok?.outputs).toMatchObject({ version: "1.2.3", note: "looks good" });
  });

  it("drops an earlier approval whose author, looked up again, the policy no longer admits", () => {
    const d = waiting(checkpoint("{ teams: [sre], count: 2 }"));
    const approve = (actor: Actor, voters: Actor[]) =>
      d.send({
        type: "command",
        id: d.nextId("cmd"),
        command: "approve",
        args: { positional: [], values: {}, text: "" },
        actor,
        voters,
        createdAt: d.now.toISOString(),
      });
    approve({ login: "x", permission: "read", teams: ["sre"] }, []);
    // x left the team before y approved: x's vote does not complete the count.
    const r = approve({ login: "y", permission: "read", teams: ["sre"] }, [
      { login: "x", permission: "read", teams: [] },
    ]);
    expect(r.reply).toEqual({ outcome: "accepted", reason: "1 of 2 approvals" });
    expect(d.frame.current).toBe("ok");
    expect(d.frame.votes.map((v) => v.user)).toEqual(["y"]);
    expect(r.messages).toEqual([
      {
        kind: "reminder",
        text: "An earlier approval of **Go ahead** no longer counts: @\u200bx may not approve this step; approval is for members of sre. 1 of 2 approvals.",
      },
    ]);
    // An earlier voter the adapter did not look up again is not admitted either.
    approve({ login: "x", permission: "read", teams: ["sre"] }, []);
    expect(d.frame.current).toBe("ok");
    expect(d.frame.votes.map((v) => v.user)).toEqual(["x"]);
    approve({ login: "z", teams: ["sre"] }, [{ login: "x", teams: ["sre"] }]);
    expect(d.frame.current).toBe("after");
    expect(d.frame.results.ok?.outputs?.approved_by).toEqual(["x", "z"]);
  });

  it("checks /approve values against response_schema", () => {
    const text = checkpoint(
      "{ permission: write }",
      `response_schema:
          type: object
          properties:
            version: { type: string, pattern: "^[0-9]+\\\\.[0-9]+\\\\.[0-9]+$" }
            count: { type: integer }
          required: [version]`,
    ).replace("({{ steps.ok.outputs.note }})", "v{{ steps.ok.outputs.version }}");
    const d = waiting(text);
    const bad = d.command("approve", WRITER, "version=banana");
    expect(bad.reply?.outcome).toBe("refused");
    expect(bad.reply?.reason).toContain(
      "the approval's values do not fit: version must match pattern",
    );
    const missing = d.command("approve", WRITER);
    expect(missing.reply?.reason).toContain("must have required property 'version'");
    const good = d.command("approve", WRITER, "version=1.2.3 count=4");
    expect(good.reply?.outcome).toBe("accepted");
    expect(d.frame.results.ok?.outputs).toMatchObject({ version: "1.2.3", count: 4 });
    d.drive();
    expect(d.effect().params).toEqual({ body: "approved by dave v1.2.3" });
  });

  it("/reject fails the run, or follows on_reject", () => {
    const d = waiting(checkpoint("{}"));
    const r = d.command("reject", WRITER, "too risky");
    expect(r.reply?.outcome).toBe("accepted");
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-REJECTED");

    const f = waiting(checkpoint("{}", "on_reject: rejected"));
    f.command("reject", WRITER, "no");
    expect(f.frame.current).toBe("rejected");
    expect(f.frame.results.ok?.outputs).toEqual({ approved_by: [], note: "rejected by @dave: no" });
    f.drive();
    expect(f.run.end).toEqual({ status: "neutral", conclusion: "rejected" });
  });

  it("does not count a command written before the checkpoint started waiting", () => {
    const d = waiting(checkpoint("{}"));
    const since = Date.parse(d.frame.since);
    const early = d.command("approve", WRITER, "", {
      createdAt: new Date(since - 1).toISOString(),
    });
    expect(early.reply).toEqual({
      outcome: "ignored",
      reason: "the comment was written before this step started waiting",
    });
    expect(early.changed).toBe(false);
    expect(d.frame.current).toBe("ok");
  });

  it("a withdrawn vote no longer counts", () => {
    const d = waiting(checkpoint("{ permission: maintain, count: 2 }"));
    d.command("approve", MAINTAINER, "", { commentId: "c-1" });
    expect(d.frame.votes).toHaveLength(1);
    const other = d.send({ type: "vote_withdrawn", id: "w0", commentId: "c-unknown" });
    expect(other.changed).toBe(false);
    const w = d.send({ type: "vote_withdrawn", id: "w1", commentId: "c-1" });
    expect(w.changed).toBe(true);
    expect(w.messages[0]?.text).toContain("withdrawn");
    expect(d.frame.votes).toEqual([]);
    d.command("approve", MAINTAINER2);
    expect(d.frame.current).toBe("ok");
    d.command("approve", MAINTAINER);
    expect(d.frame.current).toBe("after");
  });

  it("reminds once, then times out: on_timeout fail", () => {
    const d = waiting(checkpoint("{}", "timeout: 2d\n        reminder: 1d"));
    expect(d.last.wakeAt).toBe(new Date(Date.parse(d.frame.since) + DAY).toISOString());
    d.tick(HOUR);
    expect(d.timeout().changed).toBe(false);
    d.tick(DAY);
    const rem = d.timeout();
    expect(rem.messages).toEqual([
      { kind: "reminder", text: "Reminder: **Go ahead** still waits for approval." },
    ]);
    expect(rem.wakeAt).toBe(new Date(Date.parse(d.frame.since) + 2 * DAY).toISOString());
    expect(d.timeout().changed).toBe(false);
    d.tick(DAY);
    d.timeout();
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-TIMEOUT");
  });

  it("the reminder names the approvers", () => {
    const d = waiting(checkpoint("{ users: [carol] }", "timeout: 1h\n        reminder: 10m"));
    d.tick(10 * MIN);
    expect(d.timeout().messages[0]?.to).toEqual(["carol"]);
  });

  it("on_timeout cancel cancels; on_timeout <step> goes there", () => {
    const c = waiting(checkpoint("{}", "timeout: 1h\n        on_timeout: cancel"));
    c.tick(HOUR);
    c.timeout();
    expect(c.run.status).toBe("cancelled");
    expect(c.run.error?.code).toBe("PB-CANCELLED");

    const g = waiting(checkpoint("{}", "timeout: 1h\n        on_timeout: rejected"));
    g.tick(HOUR);
    g.timeout();
    expect(g.frame.current).toBe("rejected");
    expect(g.frame.results.ok?.outputs).toEqual({ approved_by: [], note: "timed out" });
  });

  it("/choose and /record are not votes", () => {
    const d = waiting(checkpoint("{}"));
    expect(d.command("choose", WRITER, "x").changed).toBe(false);
    expect(d.frame.votes).toEqual([]);
  });
});

describe("ask-first approval", () => {
  const askFirst = yaml`
    apiVersion: playbook-bot/v1
    id: gated
    steps:
      - id: note
        type: comment
        body: hi
        authority: ask-first
      - id: fin
        type: end
  `;

  it("takes a note that does not name the step, and records who approved", () => {
    const d = new Driver(bundle(askFirst));
    d.start();
    d.drive();
    expect(d.frame.phase).toBe("approval");
    const r = d.command("approve", MAINTAINER, "looks good");
    expect(r.reply?.outcome).toBe("accepted");
    expect(d.frame.approved).toEqual(["note"]);
    expect(d.frame.approvedBy).toEqual({ note: ["bob"] });
    d.drive();
    expect(d.effect()).toMatchObject({ kind: "comment", step: "note" });
    d.answer({});
    d.drive();
    expect(d.run.status).toBe("completed");
  });

  it("/reject takes the text as the reason, less a leading name of the step", () => {
    const d = new Driver(bundle(askFirst));
    d.start();
    d.drive();
    d.command("reject", MAINTAINER, "too risky");
    expect(d.run.error?.message).toBe("'note' was rejected by @bob: too risky");

    const named = new Driver(bundle(askFirst));
    named.start();
    named.drive();
    named.command("reject", MAINTAINER, "note too risky");
    expect(named.run.error?.message).toBe("'note' was rejected by @bob: too risky");
  });
});

describe("commands that nothing waits for", () => {
  it("are refused while a step is pending or has an effect out", () => {
    const d = new Driver(
      // With the checkpoint gone, what read its outputs names nothing.
      bundle(checkpoint("{}").replace(/- id: ok[\s\S]*?- id: after/, "- id: after"), {
        allow: ["unreachable", "template-unresolved"],
      }),
    );
    d.start();
    const r = d.command("approve", WRITER as Actor);
    expect(r.reply).toEqual({ outcome: "refused", reason: "nothing waits for /approve now" });
  });
});
