import { describe, expect, it } from "vitest";
import {
  parseScript,
  ScriptError,
  simulate,
  type Script,
} from "../../../src/entries/cli/simulate.js";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import { validateSource } from "../../../src/core/rules/validate.js";

function bundle(text: string): PlaybookBundle {
  const r = validateSource("p.yaml", text);
  const errors = r.diagnostics.filter((d) => d.severity === "error");
  if (!r.playbook || errors.length) throw new Error(JSON.stringify(errors));
  return { playbook: r.playbook, hash: `h-${r.playbook.id}`, files: {} };
}

const SHIP = bundle(`apiVersion: playbook-bot/v1
id: ship
name: Ship it
description: Approve, commit, open a pull request, relabel and close the issue.
on:
  labels: [ship]
steps:
  - id: ok
    type: checkpoint
    name: Approve
    message: Ship?
    approvers: { teams: [octo/release] }
    timeout: 2d
    reminder: 1d
    on_timeout: cancel
  - id: branch
    type: branch
    name: playbook/ship
  - id: commit
    type: commit
    name: Commit
    branch: "{{ steps.branch.outputs.name }}"
    message: ship it
    files:
      - { path: SHIP.md, content: shipped }
  - id: pr
    type: pull_request
    name: Open the PR
    head: "{{ steps.branch.outputs.name }}"
    title: Ship
    wait: merged
  - id: relabel
    type: label
    name: Relabel
    add: [shipped]
    remove: [ship]
  - id: close
    type: close
    name: Close
    reason: completed
  - id: fin
    type: end
    name: Done
    advice: Shipped.
`);

const DEPLOY = bundle(`apiVersion: playbook-bot/v1
id: deploy
name: Deploy
description: Dispatch a workflow and wait for it.
steps:
  - id: wf
    type: dispatch
    name: Run deploy
    workflow: deploy.yml
  - id: fin
    type: end
    name: Done
`);

const PROPOSE = bundle(`apiVersion: playbook-bot/v1
id: propose
name: Propose
description: Open a pull request without waiting for it.
steps:
  - id: branch
    type: branch
    name: playbook/propose
  - id: pr
    type: pull_request
    name: Open the PR
    head: playbook/propose
    title: Proposal
  - id: fin
    type: end
    name: Done
`);

const BUNDLES = new Map([
  ["ship", SHIP],
  ["deploy", DEPLOY],
  ["propose", PROPOSE],
]);

const run = (script: Script) => simulate(BUNDLES, script);

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error("did not throw");
}

describe("parseScript", () => {
  it("accepts a full script", () => {
    const text = [
      "issue: { title: t, body: b, author: a }",
      "users: { a: triage, b: maintain }",
      "teams: { octo/release: [b] }",
      "events:",
      "  - label: ship",
      "    by: a",
      "  - comment: /approve",
      "    by: b",
      "    id: vote",
      "  - edit: vote",
      "    body: /reject",
      "  - delete: vote",
      "  - merge: true",
      "  - merge: 3",
      "  - close_pr: false",
      "  - workflow: cancelled",
      "  - wait: 1d",
      "",
    ].join("\n");
    const s = parseScript("e.yaml", text);
    expect(s.issue).toEqual({ title: "t", body: "b", author: "a" });
    expect(s.users).toEqual({ a: "triage", b: "maintain" });
    expect(s.teams).toEqual({ "octo/release": ["b"] });
    expect(s.events).toHaveLength(9);
    expect(s.events[1]).toEqual({ comment: "/approve", by: "b", id: "vote" });
    expect(s.events[5]).toEqual({ merge: 3 });
  });

  it.each([
    ["a YAML syntax error", "events: [\n", "e.yaml:2:1: deficient indentation"],
    ["an empty file", "", "e.yaml:1:1: (document): must be object"],
    ["a scalar document", "hello\n", "e.yaml:1:1: (document): must be object"],
    ["no events", "{}\n", "e.yaml:1:1: (document): must have required property 'events'"],
    [
      "an unknown top-level key",
      "events: []\nextra: 1\n",
      "e.yaml:1:1: (document): must NOT have additional properties ('extra')",
    ],
    ["events not a list", "events: 3\n", "e.yaml:1:9: events: must be array"],
    [
      "an unknown issue field",
      "issue: { labels: [] }\nevents: []\n",
      "e.yaml:1:8: issue: must NOT have additional properties ('labels')",
    ],
    [
      "an unknown permission",
      "users: { a: god }\nevents: []\n",
      "e.yaml:1:13: users.a: must be equal to one of the allowed values",
    ],
    [
      "a team that is not a list of logins",
      "teams: { t: [1] }\nevents: []\n",
      "e.yaml:1:14: teams.t[0]: must be string",
    ],
    [
      "an empty event",
      "events:\n  - {}\n",
      "e.yaml:2:5: events[0]: an event has exactly one of label, comment, edit, delete, merge, close_pr, pull_request, workflow, wait",
    ],
    [
      "an event with two kinds",
      "events:\n  - label: x\n  - comment: hi\n    merge: true\n",
      "e.yaml:3:5: events[1]: an event has exactly one of label, comment, edit, delete, merge, close_pr, pull_request, workflow, wait",
    ],
    [
      "an event of an unknown kind",
      "events:\n  - teams: 1\n",
      "e.yaml:2:5: events[0]: an event has exactly one of label, comment, edit, delete, merge, close_pr, pull_request, workflow, wait",
    ],
    [
      "an unknown field on an event",
      "events:\n  - comment: hi\n    extra: 1\n",
      "e.yaml:2:5: events[0]: must NOT have additional properties ('extra')",
    ],
    [
      "a merge that is neither",
      "events:\n  - merge: yes\n",
      "e.yaml:2:12: events[0].merge: must be boolean,integer",
    ],
    [
      "an unknown workflow conclusion",
      "events:\n  - workflow: maybe\n",
      "e.yaml:2:15: events[0].workflow: must be equal to one of the allowed values",
    ],
    [
      "a wait that is not a duration",
      "events:\n  - wait: soon\n",
      "e.yaml:2:11: events[0].wait: must match pattern",
    ],
    [
      "a comment that is not text",
      "events:\n  - comment: [1]\n",
      "e.yaml:2:14: events[0].comment: must be string",
    ],
  ])("reports %s with file:line:col", (_what, text, message) => {
    const err = thrown(() => parseScript("e.yaml", text));
    expect(err).toBeInstanceOf(ScriptError);
    expect(err.message.startsWith(message)).toBe(true);
  });
});

describe("simulate", () => {
  it("runs from a label through team approval, a merge, relabelling and closing", async () => {
    const t = await run({
      issue: { title: "Release 1.2", author: "alice", body: "please" },
      users: { Alice: "triage", bob: "write" },
      teams: { "Octo/Release": ["BOB"] },
      events: [{ label: "ship" }, { comment: "/approve", by: "bob", id: "vote" }, { merge: true }],
    });
    expect(
      t.startsWith("#1 Release 1.2 — opened by @alice\n\n🏷️  @alice added the label ship\n"),
    ).toBe(true);
    expect(t).toMatch(/💬 @playbook-bot\[bot\] \(edited \d+ times\)\n {3}### ✅ Ship it · run `/);
    expect(t).toContain("   <!-- playbook-bot:state … (signed state) -->\n");
    expect(t).not.toMatch(/playbook-bot:state [A-Za-z0-9]/);
    expect(t).toContain("Approval is for members of octo/release.");
    expect(t).toContain("💬 @bob  [👀 🚀]\n   /approve\n");
    expect(t).toContain('   · pull request #2 "Ship" opened from playbook/ship\n');
    expect(t).toContain("   · pull request #2 was merged\n");
    expect(t).toContain("   · labels of #1: shipped\n");
    expect(t).toContain("   · issue #1 closed as completed\n");
    expect(t).toContain("Pull requests:\n  #2 Ship (playbook/ship → main): merged\n");
    expect(t.endsWith("Issue #1: closed (completed), labels: shipped\n")).toBe(true);
    expect(t).not.toMatch(/\n{3}/);
  });

  it("without team membership, the approval is refused with a 👎", async () => {
    const t = await run({
      issue: { author: "alice" },
      users: { alice: "triage", bob: "admin" },
      events: [{ label: "ship" }, { comment: "/approve", by: "bob" }],
    });
    expect(t).toContain("💬 @bob  [👀 👎]\n   /approve\n");
    expect(t).toContain("**Status:** waiting");
    expect(t.endsWith("Issue #1: open, labels: ship\n")).toBe(true);
  });

  it("merges a pull request named by its number, and closes one without merging", async () => {
    const base: Script = {
      issue: { author: "alice" },
      users: { alice: "triage", bob: "write" },
      teams: { "octo/release": ["bob"] },
      events: [{ label: "ship" }, { comment: "/approve", by: "bob" }],
    };
    const merged = await run({ ...base, events: [...base.events, { merge: 2 }] });
    expect(merged).toContain("   · pull request #2 was merged\n");
    expect(merged).toContain("### ✅ Ship it");
    const closed = await run({ ...base, events: [...base.events, { close_pr: true }] });
    expect(closed).toContain("   · pull request #2 was closed without merging\n");
    expect(closed).toContain(
      "**Status:** failed — pull request #2 was closed without being merged",
    );
    expect(closed).toContain("- [ ] `pr` — Open the PR _(failed)_");
    expect(closed).toContain("  #2 Ship (playbook/ship → main): closed\n");
    expect(closed.endsWith("Issue #1: open, labels: ship\n")).toBe(true);
    const byNumber = await run({ ...base, events: [...base.events, { close_pr: 2 }] });
    expect(byNumber).toContain("   · pull request #2 was closed without merging\n");
  });

  it("merges the last open pull request when no run waits for one", async () => {
    const t = await run({
      users: { octocat: "write" },
      events: [{ comment: "/run propose" }, { merge: true }],
    });
    expect(t).toContain("### ✅ Propose");
    expect(t).toContain("   · pull request #2 was merged\n");
    expect(t).toContain("  #2 Proposal (playbook/propose → main): merged\n");
  });

  it("fails the script when there is no pull request to merge or close", async () => {
    await expect(run({ events: [{ merge: true }] })).rejects.toThrow(
      new ScriptError("no open pull request to merge"),
    );
    await expect(run({ events: [{ close_pr: false }] })).rejects.toThrow(
      "no open pull request to close",
    );
  });

  it("reports a workflow's failure, and a /retry dispatches it again", async () => {
    const t = await run({
      users: { bob: "write" },
      events: [
        { comment: "/run deploy", by: "bob" },
        { workflow: "failure" },
        { comment: "/retry", by: "bob" },
        { workflow: "success" },
      ],
    });
    expect(t).toContain("   · workflow deploy.yml started (run 1000)\n");
    expect(t).toContain("   · workflow deploy.yml finished: failure\n");
    expect(t).toContain(
      "failed at **Run deploy**: workflow deploy.yml ended with 'failure' (PB-WORKFLOW-FAILED)",
    );
    expect(t).toContain("   · workflow deploy.yml started (run 1001)\n");
    expect(t).toContain("   · workflow deploy.yml finished: success\n");
    expect(t).toContain("### ✅ Deploy");
    expect(t.endsWith("Issue #1: open\n")).toBe(true);
  });

  it("notes a workflow event when nothing was dispatched, and nothing runs", async () => {
    const t = await run({ events: [{ workflow: "success" }] });
    expect(t).toBe(
      "#1 Simulated issue — opened by @octocat\n\n   · workflow ? finished: success\n\nIssue #1: open\n",
    );
  });

  it("reminds approvers after the reminder delay and cancels at the timeout", async () => {
    const t = await run({
      issue: { author: "alice" },
      users: { alice: "triage" },
      events: [{ label: "ship" }, { wait: "1d" }, { wait: "1d" }],
    });
    const reminder = t.indexOf("Reminder: **Approve** still waits for approval.");
    const firstWait = t.indexOf("   · 1d later\n");
    const cancelled = t.indexOf("No approval for 'ok' within 2d; the run is cancelled.\n");
    expect(firstWait).toBeGreaterThan(0);
    expect(reminder).toBeGreaterThan(firstWait);
    expect(cancelled).toBeGreaterThan(reminder);
    expect(t).toContain("### 🚫 Ship it");
  });

  it("edits and deletes comments by their script id or by their number", async () => {
    const t = await run({
      events: [
        { comment: "first", id: "one" },
        { comment: "second" },
        { edit: "one", body: "first, edited" },
        { edit: "2", body: "second, edited" },
        { delete: "one" },
        { delete: "999" },
      ],
    });
    expect(t).toBe(
      [
        "#1 Simulated issue — opened by @octocat",
        "",
        "💬 (comment 1 deleted)",
        "",
        "💬 @octocat",
        "   second, edited",
        "",
        "   · comment 1 was edited",
        "",
        "   · comment 2 was edited",
        "",
        "   · comment 1 was deleted",
        "",
        "   · comment 999 was deleted",
        "",
        "Issue #1: open",
        "",
      ].join("\n"),
    );
  });

  it("keeps blank lines of a comment's body blank", async () => {
    const t = await run({ events: [{ comment: "a\n\nb", by: "dana" }] });
    expect(t).toContain("💬 @dana\n   a\n\n   b\n");
  });
});
