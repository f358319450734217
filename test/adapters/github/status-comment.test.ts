import { describe, expect, it } from "vitest";
import {
  awaitedBy,
  hasStateBlock,
  MAX_CHECKLIST_STEPS,
  MAX_COMMENT_BODY,
  readStatusComment,
  renderStatusComment,
  STATE_MARKER,
} from "../../../src/runtime/run-service/status-comment.js";
import { start } from "../../../src/core/engine/engine.js";
import type { Frame, RunState } from "../../../src/core/engine/state.js";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import {
  encodeSigned,
  repositoryStateKey,
  type StateSeal,
} from "../../../src/runtime/state-codec.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import { expectInert } from "../../core/markdown/audit.js";

/** The seal of status comment 77 on issue 5 of one repository. */
const SECRET: StateSeal = { key: repositoryStateKey("s3cret", 1, 2), issue: 5, comment: "77" };

function bundle(text: string): PlaybookBundle {
  const r = validateSource("p.yaml", text);
  const errors = r.diagnostics.filter((d) => d.severity === "error");
  if (!r.playbook || errors.length) throw new Error(JSON.stringify(errors));
  return { playbook: r.playbook, hash: `h-${r.playbook.id}`, files: {} };
}

const RELEASE = bundle(`apiVersion: playbook-bot/v1
id: release
name: "Release for @octo/team <!-- x -->"
description: Ship it.
steps:
  - id: approve
    type: checkpoint
    name: "Approve @ops <!-- hidden -->"
    description: "Check the notes <!-- sneaky -->\\nand ping @someone"
    message: Go?
    approvers: { users: [bob, carol], teams: [octo/release], permission: maintain, count: 2 }
  - id: look
    type: investigate
    description: Look around.
    expected_findings: [seen]
  - id: pr
    type: pull_request
    name: Open the pull request
    head: feature
    title: Ship
    wait: merged
  - id: ci
    type: dispatch
    name: Deploy
    workflow: deploy.yml
  - id: sub
    type: playbook
    name: Hand over
    playbook: child
    mode: delegate
  - id: note
    type: comment
    name: Say it
    body: hi
  - id: single
    type: checkpoint
    name: One more approval
    message: Sure?
  - id: fin
    type: end
    name: Done
`);

const CHILD = bundle(`apiVersion: playbook-bot/v1
id: child
name: The child
description: Delegated.
steps:
  - id: kid-ok
    type: checkpoint
    name: Child approval
    description: The child's own check.
    message: Fine?
    approvers: { permission: write }
  - id: kid-end
    type: end
    name: Child done
`);

const BUNDLES = new Map([
  ["release", RELEASE],
  ["child", CHILD],
]);
const lookup = (id: string) => BUNDLES.get(id);

function baseRun(): RunState {
  const r = start(
    {
      bundle: RELEASE,
      inputs: {},
      initiator: { login: "alice", permission: "admin" },
      eventId: "e1",
      runIndex: 1,
    },
    { now: new Date("2026-01-05T09:00:00Z"), playbooks: lookup },
  );
  if (!r.ok) throw new Error(r.error.message);
  return r.result.run;
}

/** A run at `current` in phase `phase`, with the root frame patched. */
function at(current: string, phase: Frame["phase"], patch: Partial<Frame> = {}): RunState {
  const run = baseRun();
  const root = run.stack[0] as Frame;
  run.stack = [{ ...root, current, phase, ...patch }];
  run.status = phase === "waiting" || phase === "approval" ? "waiting" : "running";
  return run;
}

function render(run: RunState, bundles: (id: string) => PlaybookBundle | undefined = lookup) {
  return renderStatusComment(run, bundles, SECRET);
}

describe("renderStatusComment", () => {
  it("renders a running run: title, status, checklist with the current step, flowchart, state", () => {
    const run = at("approve", "pending");
    const body = render(run);
    const lines = body.split("\n");
    expect(lines[0]).toBe(
      `### 🔄 Release for @\u200bocto/team \\<!\u200b-- x -\u200b-> · run \`${run.id}\``,
    );
    expect(lines[2]).toBe("**Status:** running · started by @\u200balice");
    expect(body).not.toContain("**Waiting for:**");
    expect(body).not.toContain("**How to recover:**");
    expect(body).toContain(
      "- [ ] **`approve` — Approve @\u200bops \\<!\u200b-- hidden -\u200b->** ← current\n",
    );
    expect(body).toContain("- [ ] `look`\n");
    expect(body).toContain("- [ ] `pr` — Open the pull request\n");
    // The current step's description, neutralised and quoted line by line.
    expect(body).toContain(
      "> **Approve @\u200bops \\<!\u200b-- hidden -\u200b->:** Check the notes \\<!\u200b-- sneaky -\u200b->\n> and ping @\u200bsomeone",
    );
    expect(body).toContain("<details><summary>Flowchart</summary>");
    expect(body).toContain("```mermaid");
    expect(body).toContain("<details><summary>Recent events</summary>");
    expect(body).toContain("| 2026-01-05 09:00 | | start by @\u200balice | started |");
    // The only HTML comment is the state block, last.
    expect(body.match(/<!--/g)).toHaveLength(1);
    expect(body.trimEnd().split("\n").at(-1)).toMatch(
      new RegExp(`^<!-- ${STATE_MARKER} ${run.id} [A-Za-z0-9_.-]+ -->$`),
    );
    expect(hasStateBlock(body)).toBe(true);
    const back = readStatusComment(body, SECRET);
    expect(back).toEqual({ ok: true, run });
  });

  it("names every approver of a checkpoint that needs several people", () => {
    const body = render(at("approve", "waiting"));
    expect(body.split("\n")[0]).toMatch(/^### ⏸️ /);
    expect(body).toContain("**Status:** waiting · started by @\u200balice");
    expect(body).toContain(
      "**Waiting for:** /approve from @\u200bbob, @\u200bcarol or members of octo/release or people with maintain access or more (2 people)\n",
    );
  });

  it("says whom a one-person checkpoint, an investigation, a merge and a workflow wait for", () => {
    expect(awaitedBy(at("single", "waiting"), RELEASE)).toBe(
      "/approve from people with write access or more",
    );
    expect(awaitedBy(at("look", "waiting"), RELEASE)).toBe(
      "findings (/record key=value) and a choice (/choose <branch>) from people with triage access",
    );
    expect(awaitedBy(at("pr", "waiting", { awaiting: { pullRequest: 7 } }), RELEASE)).toBe(
      "the merge of pull request #7",
    );
    expect(
      awaitedBy(
        at("ci", "waiting", { awaiting: { workflow: "deploy.yml", workflowRun: 3 } }),
        RELEASE,
      ),
    ).toBe("workflow deploy.yml to finish");
    const body = render(at("pr", "waiting", { awaiting: { pullRequest: 7 } }));
    expect(body).toContain("**Waiting for:** the merge of pull request #7\n");
  });

  it("says nothing is awaited from people in the other cases", () => {
    // Waiting at a step that awaits nothing in particular.
    expect(awaitedBy(at("note", "waiting"), RELEASE)).toBeUndefined();
    // Working on an effect, or about to enter a step.
    expect(awaitedBy(at("approve", "effect"), RELEASE)).toBeUndefined();
    expect(awaitedBy(at("approve", "pending"), RELEASE)).toBeUndefined();
    // Without the playbook, the step is unknown.
    expect(awaitedBy(at("approve", "waiting"), undefined)).toBeUndefined();
    // A step the playbook does not have (a stale run).
    expect(awaitedBy(at("gone", "waiting"), RELEASE)).toBeUndefined();
    // A finished run waits for nobody.
    const done = at("approve", "waiting");
    done.status = "completed";
    expect(awaitedBy(done, RELEASE)).toBeUndefined();
  });

  it("asks maintainers first in an ask-first approval phase, whatever the step", () => {
    const run = at("note", "approval");
    expect(awaitedBy(run, RELEASE)).toBe("/approve from people with maintain access or more");
    expect(awaitedBy(run, undefined)).toBe("/approve from people with maintain access or more");
    expect(render(run)).toContain(
      "**Waiting for:** /approve from people with maintain access or more\n",
    );
  });

  it("shows a failed run's error and guidance, neutralised, and marks results", () => {
    const run = at("pr", "pending", {
      results: {
        approve: { status: "completed", attempt: 1, at: "2026-01-05T09:01:00Z" },
        look: { status: "skipped", attempt: 1, at: "2026-01-05T09:02:00Z" },
        pr: { status: "failed", attempt: 2, at: "2026-01-05T09:03:00Z" },
        ci: { status: "ignored", attempt: 1, at: "2026-01-05T09:04:00Z" },
        sub: { status: "running", attempt: 1, at: "2026-01-05T09:05:00Z" },
      },
    });
    run.status = "failed";
    run.error = {
      code: "PB-EFFECT-FAILED",
      message: "branch @mallory <!-- injected --> is gone",
      guidance: "ask @admins --> then /retry",
    };
    const body = render(run);
    expect(body.split("\n")[0]).toMatch(/^### ❌ /);
    expect(body).toContain(
      "**Status:** failed — branch @\u200bmallory \\<!\u200b-- injected -\u200b-> is gone (`PB-EFFECT-FAILED`) · started by @\u200balice\n",
    );
    expect(body).toContain("**How to recover:** ask @\u200badmins -\u200b-> then /retry\n");
    expect(body).not.toContain("**Waiting for:**");
    expect(body).toContain("- [x] `approve` — Approve @\u200bops \\<!\u200b-- hidden -\u200b->\n");
    expect(body).toContain("- [ ] `look` _(skipped)_\n");
    expect(body).toContain("- [ ] `pr` — Open the pull request _(failed)_\n");
    expect(body).toContain("- [ ] `ci` — Deploy _(failed, ignored)_\n");
    expect(body).toContain("- [ ] `sub` — Hand over\n");
    // A finished run has no current step and no step description.
    expect(body).not.toContain("← current");
    expect(body).not.toContain("> **");
    expect(body.match(/<!--/g)).toHaveLength(1);
  });

  it("shows a cancelled run and a completed run with its advice", () => {
    const cancelled = at("approve", "waiting");
    cancelled.status = "cancelled";
    expect(render(cancelled).split("\n")[0]).toMatch(/^### 🚫 /);
    const done = at("fin", "pending", {
      results: { fin: { status: "completed", attempt: 1, at: "2026-01-05T10:00:00Z" } },
    });
    done.status = "completed";
    done.end = { status: "success", advice: "Merged; thanks @team <!-- x -->" };
    const body = render(done);
    expect(body.split("\n")[0]).toMatch(/^### ✅ /);
    expect(body).toContain("\nMerged; thanks @\u200bteam \\<!\u200b-- x -\u200b->\n");
    expect(body).toContain("- [x] `fin` — Done\n");
    expect(body).not.toContain("← current");
  });

  it("shows an author's Markdown advice as Markdown, still inert", () => {
    // The shape of Triagent's terminal_advice (sourcehawk/triagent system/wiki_recall.yaml).
    const advice = [
      "Hand the citations back to the parent investigation:",
      "",
      "  - INC-1234 (resolved) — overlaps on `control-plane`, `oom-kill`.",
      "",
      "This playbook does NOT call summarize — it's a **sub-flow**.",
      "Ping @ops about #12 <b>now</b>: [the issue](https://github.com/o/r/issues/3),",
      "[a dashboard](https://grafana.example.com/d/1), [x](javascript:alert(1)).",
      "",
    ].join("\n");
    const done = at("fin", "pending", {
      results: { fin: { status: "completed", attempt: 1, at: "2026-01-05T10:00:00Z" } },
    });
    done.status = "completed";
    done.end = { status: "success", advice };
    const body = render(done);
    expect(body).not.toContain("&#xA;");
    expect(body).not.toContain("\\`");
    expect(body).toContain(
      "\nHand the citations back to the parent investigation:\n- INC-1234 (resolved) — overlaps on `control-plane`, `oom-kill`.\n\nThis playbook does NOT call summarize — it's a **sub-flow**.\n",
    );
    const a = expectInert(body, { details: 2, markers: 1 });
    // Only the http(s) link outside GitHub's threads is a link; the others are shown as text.
    expect(a.links).toEqual(["https://grafana.example.com/d/1"]);
    expect(body).toContain("Ping @\u200bops about #\u200b12 \\<b>now\\</b>");
    expect(body).toContain("`https://github.com/o/r/issues/3`");
    expect(body).toContain("`javascript:alert(1)`");
    // A fence's info string is the author's too: it never opens an HTML comment.
    done.end = {
      status: "success",
      advice: "~~~<!-- x\nkubectl get pods\n~~~\n\n```sh run\nls\n```",
    };
    const fenced = render(done);
    expectInert(fenced, { details: 2, markers: 1 });
    expect(fenced).toContain("\n```\nkubectl get pods\n```\n\n```sh\nls\n```\n");
  });

  it("shows the step of a delegated child next to the parent's current step", () => {
    const run = at("sub", "effect");
    const child: Frame = {
      ...(run.stack[0] as Frame),
      playbook: "child",
      hash: "h-child",
      current: "kid-ok",
      phase: "waiting",
      results: {},
      returnTo: "sub",
    };
    run.stack.push(child);
    run.status = "waiting";
    const body = render(run);
    expect(body).toContain("- [ ] **`sub` — Hand over** ← current (in `child`: `kid-ok`)\n");
    // What the child's step waits for, and its title, come from the child's playbook.
    expect(body).toContain("**Waiting for:** /approve from people with write access or more\n");
    expect(body).toContain("> **Child approval:** The child's own check.");
  });

  it("renders a delegated child whose playbook is gone without its step's details", () => {
    const run = at("sub", "effect");
    run.stack.push({
      ...(run.stack[0] as Frame),
      playbook: "gone",
      current: "x",
      phase: "waiting",
    });
    run.status = "waiting";
    const body = render(run);
    expect(body).toContain("- [ ] **`sub` — Hand over** ← current (in `gone`: `x`)\n");
    expect(body).not.toContain("**Waiting for:**");
    expect(body).not.toContain("> **");
  });

  it("renders a run that stands between steps (no current step)", () => {
    const run = at("approve", "waiting");
    (run.stack[0] as Frame).current = null;
    expect(awaitedBy(run, RELEASE)).toBeUndefined();
    const body = render(run);
    expect(body).not.toContain("← current");
    expect(body).not.toContain("**Waiting for:**");
    expect(body).not.toContain("class s_");
    expect(readStatusComment(body, SECRET)).toEqual({ ok: true, run });
  });

  it("renders without the playbook: status only, no checklist or flowchart", () => {
    const run = at("approve", "waiting");
    const body = render(run, () => undefined);
    expect(body.split("\n")[0]).toBe(`### ⏸️ release · run \`${run.id}\``);
    expect(body).not.toContain("**Waiting for:**");
    expect(body).not.toContain("- [ ]");
    expect(body).not.toContain("Flowchart");
    expect(readStatusComment(body, SECRET)).toMatchObject({ ok: true });
  });

  it("refuses a run without any frame (state the codec would not accept)", () => {
    const run = at("approve", "waiting");
    run.stack = [];
    expect(() => render(run)).toThrow("run has no frame");
    expect(() => awaitedBy(run, RELEASE)).toThrow("run has no frame");
  });

  it("lists only the last eight events, with actor and step when known", () => {
    const run = at("approve", "waiting");
    run.trace = Array.from({ length: 12 }, (_, i) => ({
      event: i % 2 ? "/approve" : "continue",
      ...(i % 2 ? { actor: `user${i}` } : {}),
      ...(i % 3 ? { step: "approve" } : {}),
      outcome: i === 11 ? "vote by @x <!-- y -->" : `outcome ${i}`,
      start: `2026-01-05T09:${String(10 + i)}:00Z`,
      end: `2026-01-05T09:${String(10 + i)}:30Z`,
    }));
    const body = render(run);
    const rows = body.split("\n").filter((l) => l.startsWith("| 2026"));
    expect(rows).toHaveLength(8);
    expect(rows[0]).toBe("| 2026-01-05 09:14 | `approve` | continue | outcome 4 |");
    expect(rows[5]).toBe("| 2026-01-05 09:19 | | /approve by @\u200buser9 | outcome 9 |");
    expect(rows[7]).toBe(
      "| 2026-01-05 09:21 | `approve` | /approve by @\u200buser11 | vote by @\u200bx \\<!\u200b-- y -\u200b-> |",
    );
  });

  it("leaves the events table out when there is no trace", () => {
    const run = at("approve", "waiting");
    run.trace = [];
    expect(render(run)).not.toContain("Recent events");
  });

  const long = (count: number, title = "") => {
    const steps = Array.from(
      { length: count },
      (_, i) => `  - id: s${i}\n    type: comment\n    name: "${title}${i}"\n    body: hi\n`,
    ).join("");
    return bundle(
      `apiVersion: playbook-bot/v1\nid: big\nname: Big\ndescription: Many steps.\nsteps:\n${steps}`,
    );
  };
  const begin = (b: PlaybookBundle) => {
    const r = start(
      {
        bundle: b,
        inputs: {},
        initiator: { login: "alice", permission: "admin" },
        eventId: "e1",
        runIndex: 1,
      },
      { now: new Date("2026-01-05T09:00:00Z"), playbooks: () => b },
    );
    if (!r.ok) throw new Error(r.error.message);
    return r.result.run;
  };

  it("a long playbook: the checklist shows the steps around the current one, the flowchart its neighbourhood", () => {
    const big = long(300, "Long step title ".repeat(12));
    const run = begin(big);
    const root = run.stack[0] as Frame;
    for (let i = 0; i < 120; i++)
      root.results[`s${i}`] = { status: i === 7 ? "skipped" : "completed", attempt: 1, at: "x" };
    root.current = "s120";
    const body = renderStatusComment(run, () => big, SECRET);
    expect(body.length).toBeLessThanOrEqual(MAX_COMMENT_BODY);
    expect(body).toContain("_… 110 steps: 109 done, 1 not before these_");
    expect(body).toContain("**`s120` — Long step title");
    expect(body).toContain("_… 150 steps: 0 done, 150 not after these_");
    expect(body.match(/^- \[[ x]\] /gm)).toHaveLength(MAX_CHECKLIST_STEPS);
    expect(body).toContain("<summary>Flowchart (around the current step)</summary>");
    expect(body).toContain("these are the 40 steps around `s120`");
    expect(body).toContain('more[["… 260 more steps"]]');
    expect(body).toContain("class s_s120 current");
    expect(readStatusComment(body, SECRET)).toEqual({ ok: true, run });
  });

  it("keeps the state block and drops the readable parts, flowchart first, of a run that would still be too long", () => {
    const big = long(45, "Long step title ".repeat(40));
    const run = begin(big);
    for (let i = 0; i < 8; i++)
      run.trace.push({
        start: "2026-01-05T09:00:00.000Z",
        end: "2026-01-05T09:00:00.000Z",
        event: "continue",
        step: `s${i}`,
        outcome: "x".repeat(6_000),
      } as never);
    const body = renderStatusComment(run, () => big, SECRET);
    expect(body.length).toBeLessThanOrEqual(MAX_COMMENT_BODY);
    expect(body).not.toContain("```mermaid");
    expect(body).toMatch(
      /_The flowchart (and recent events )?omitted: the comment would be too long\._/,
    );
    expect(body).toContain(`<!-- ${STATE_MARKER} ${encodeSigned(run, SECRET)} -->`);
    expect(readStatusComment(body, SECRET)).toEqual({ ok: true, run });
  });

  it("counts and ticks folded steps as they ended", () => {
    const big = long(60);
    const run = begin(big);
    const root = run.stack[0] as Frame;
    // s0…s49 folded (s3 skipped), s50…s54 kept; s55 current.
    root.folded = `${"c".repeat(3)}s${"c".repeat(46)}${"-".repeat(10)}`;
    for (let i = 50; i < 55; i++)
      root.results[`s${i}`] = { status: "completed", attempt: 1, at: "x" };
    root.current = "s55";
    const body = renderStatusComment(run, () => big, SECRET);
    expect(body).toContain("_… 20 steps: 19 done, 1 not before these_");
    expect(body).toContain("- [x] `s25`");
    expect(body).toContain("- [x] `s54`");
    expect(body).toContain("**`s55`");
    expect(body).toMatch(/class (s_s\d+,)*s_s20,(s_s\d+,)*s_s54 done/);
    expect(readStatusComment(body, SECRET)).toEqual({ ok: true, run });
  });

  it("a 3,000-step playbook still fits, whatever the step", () => {
    const big = long(3_000);
    const run = begin(big);
    const body = renderStatusComment(run, () => big, SECRET);
    expect(body.length).toBeLessThanOrEqual(MAX_COMMENT_BODY);
    expect(body).toContain("```mermaid");
    expect(body).toContain("_… 2960 steps: 0 done, 2960 not after these_");
  });
});

describe("readStatusComment", () => {
  const run = at("approve", "waiting");
  const body = render(run);

  it("reads back the run of a status comment", () => {
    expect(readStatusComment(body, SECRET)).toEqual({ ok: true, run });
  });

  it("reports a comment without a state block as absent", () => {
    expect(readStatusComment("just text", SECRET)).toEqual({
      ok: false,
      reason: "absent",
      detail: "no state block",
    });
    // A block with characters the encoding never uses is no block.
    expect(readStatusComment(`<!-- ${STATE_MARKER} a+b/c -->`, SECRET)).toMatchObject({
      reason: "absent",
    });
  });

  it("reports a block signed with another secret, or edited, as tampered", () => {
    expect(
      readStatusComment(body, { ...SECRET, key: repositoryStateKey("other", 1, 2) }),
    ).toMatchObject({ ok: false, reason: "tampered" });
    const edited = body.replace(
      /state (\S+) ([A-Za-z0-9_-])/,
      (_m, id: string, c: string) => `state ${id} ${c === "A" ? "B" : "A"}`,
    );
    expect(readStatusComment(edited, SECRET)).toMatchObject({ ok: false, reason: "tampered" });
  });

  it("reports a block that is not in the signed form as corrupt", () => {
    expect(readStatusComment(`<!-- ${STATE_MARKER} ${run.id} nodot -->`, SECRET)).toMatchObject({
      ok: false,
      reason: "corrupt",
    });
  });
});
