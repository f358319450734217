import { StatusCommentCache } from "../../../src/runtime/run-service/status-ids.js";
import { MemoryCoordination } from "../../../src/adapters/coordination/memory.js";
import { LockLostError, type Fence } from "../../../src/runtime/coordination.js";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  IssueController,
  type PlaybookCatalog,
} from "../../../src/runtime/run-service/controller.js";
import {
  readStatusComment,
  renderStatusComment,
} from "../../../src/runtime/run-service/status-comment.js";
import { advance, start } from "../../../src/core/engine/engine.js";
import type { RunState } from "../../../src/core/engine/state.js";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import { FakeGitHub, requestsDuring } from "../../helpers/fake-github.js";
import { SHIP } from "./fixtures.js";
import {
  BRANCH,
  Harness,
  makeClock,
  OWNER,
  REPO,
  readStatus,
  sealOf,
  testPort,
  EXAMPLE_REPO,
} from "./harness.js";

function bundle(text: string): PlaybookBundle {
  const r = validateSource("p.yaml", text);
  if (!r.playbook) throw new Error(JSON.stringify(r.diagnostics));
  return { playbook: r.playbook, hash: `h-${r.playbook.id}`, files: {} };
}

const REMIND = bundle(`apiVersion: playbook-bot/v1
id: remind
name: Remind
description: Carol approves; reminded after an hour.
steps:
  - id: gate
    type: checkpoint
    description: Carol decides.
    message: Go?
    approvers: { users: [carol] }
    reminder: 1h
    timeout: 1d
  - id: note
    type: comment
    body: Gone.
  - id: done
    type: end
    status: success
    advice: All good.
`);

const ASK = `apiVersion: playbook-bot/v1
id: ask
name: Ask first
description: The branch step asks first.
steps:
  - id: branch
    type: branch
    name: asked
    authority: ask-first
  - id: done
    type: end
    status: success
`;

let fake: FakeGitHub;
let now: number;
const clock = () => new Date(now);

function controller(
  catalog: PlaybookCatalog,
  inProcess: boolean,
  statusCache = new StatusCommentCache(),
  fence?: Pick<Fence, "confirm">,
) {
  const port = testPort({ statusCache });
  return new IssueController({
    ...(fence ? { fence } : {}),
    memory: new MemoryCoordination(),
    port,
    catalog,
    stateKey: sealOf(1, 0).key,
    clock,
    issue: { number: 1, title: "T", url: "u", author: "alice" },
    repo: { owner: OWNER, name: REPO, default_branch: BRANCH },
    inProcess,
  });
}
const single = (b: PlaybookBundle): PlaybookCatalog => ({
  get: (id) => (id === b.playbook.id ? b : undefined),
  all: () => [b],
});
const comment = (login: string, body: string, bot = false) => {
  const c = fake.postAs(1, login, body);
  return { id: String(c.id), author: login, bot, byThisApp: false, body, createdAt: c.created_at };
};

beforeEach(() => {
  nock.disableNetConnect();
  now = Date.parse("2026-03-01T09:00:00Z");
  fake = new FakeGitHub({
    ...EXAMPLE_REPO,
    clock: () => new Date((now += 1000)),
  }).install();
  fake.openIssue("T", "", "alice");
  fake.permissions.set("alice", "write");
  fake.permissions.set("carol", "write");
});
afterEach(() => fake.uninstall());

describe("the issue controller on GitHub through Octokit", () => {
  it("reminds the named approvers once; in process it runs on until it waits; a finished run ignores ticks", async () => {
    const c = controller(single(REMIND), true);
    await c.onComment(comment("alice", "/run remind"), "d1");
    now += 2 * 3_600_000;
    await c.onTick("tick-1");
    await c.onTick("tick-2");
    const reminders = [...fake.comments.values()].filter((x) => x.body.startsWith("Reminder:"));
    expect(reminders.map((x) => x.body)).toEqual([
      "Reminder: **gate** still waits for approval.\n\ncc @carol",
    ]);
    await c.onComment(comment("carol", "/approve"), "d2");
    // In process: the comment step and the end ran in the same call.
    const bodies = [...fake.comments.values()].map((x) => x.body);
    expect(bodies.some((b) => b.startsWith("Gone."))).toBe(true);
    const status = fake.statusComments(1)[0]?.body ?? "";
    expect(status).toContain("All good.");
    now += 2 * 86_400_000;
    const r = await requestsDuring(fake, () => c.onTick("tick-3"));
    expect(r.requests.filter((x) => x.startsWith("PATCH"))).toEqual([]);
  });

  it("ignores bots, this app and comments without commands without a request", async () => {
    const c = controller(single(REMIND), true);
    const r = await requestsDuring(fake, async () => {
      await c.onComment({ ...comment("ci[bot]", "/approve"), bot: true }, "b1");
      await c.onComment({ ...comment("x", "/approve"), byThisApp: true }, "b2");
      await c.onComment(comment("alice", "no command"), "b3");
    });
    expect(r.count).toBe(0);
  });

  it("freezes a tampered run found while listing the thread (a cold cache)", async () => {
    const c = controller(single(REMIND), false);
    await c.onComment(comment("alice", "/run remind"), "d1");
    const status = fake.statusComments(1)[0]!;
    const tampered = status.body.replace(/ ([A-Za-z0-9_-]{10})([A-Za-z0-9_-]*\.)/, " x$1$2");
    expect(tampered).not.toBe(status.body); // the block's payload, not its run id
    status.body = tampered;
    const cold = controller(single(REMIND), false);
    expect(await cold.runs()).toEqual([]);
    expect([...fake.comments.values()].filter((x) => x.body.includes("is frozen"))).toHaveLength(1);
    // The run pinned to no commit uses the current catalog.
    expect(await c.runs()).toEqual([]);
  });
});

const TWO_NOTES = bundle(`apiVersion: playbook-bot/v1
id: two-notes
name: Two notes
description: Two comments, one after the other.
steps:
  - id: first
    type: comment
    body: First note.
  - id: second
    type: comment
    body: Second note.
  - id: done
    type: end
    status: success
`);

describe("the issue's lock, confirmed before each write", () => {
  const bodies = () => [...fake.comments.values()].map((x) => x.body);

  it("a replica whose lock another took over during an effect writes nothing more: no save, no next effect", async () => {
    let confirmed = 0;
    const fence = {
      confirm: async () => {
        confirmed++;
        // The lease ran out while the first comment was being posted: another replica holds it.
        if (bodies().some((b) => b.startsWith("First note."))) throw new LockLostError("issue:x");
      },
    };
    const c = controller(single(TWO_NOTES), true, undefined, fence);
    await expect(c.onComment(comment("alice", "/run two-notes"), "f1")).rejects.toBeInstanceOf(
      LockLostError,
    );
    expect(bodies().filter((b) => b.startsWith("First note."))).toHaveLength(1);
    expect(bodies().some((b) => b.startsWith("Second note."))).toBe(false);
    // Confirmed for the save that asked for the first note and before it went out; the save of
    // its result was refused.
    expect(confirmed).toBe(3);
    const saved = readStatus(fake.statusComments(1)[0]);
    expect(saved.ok && saved.run.status).toBe("running");
    expect(saved.ok && saved.run.stack[0]?.current).toBe("first");
  });

  it("with the lock held throughout, both notes are posted and the run completes", async () => {
    let confirmed = 0;
    const c = controller(single(TWO_NOTES), true, undefined, {
      confirm: async () => void confirmed++,
    });
    await c.onComment(comment("alice", "/run two-notes"), "f2");
    expect(bodies().filter((b) => /^(First|Second) note\./.test(b))).toHaveLength(2);
    expect(confirmed).toBeGreaterThanOrEqual(4);
  });
});

describe("reading a status comment for a continuation", () => {
  it("fails the event when GitHub fails to answer (to be retried), and ignores a comment that is gone", async () => {
    const c = controller(single(REMIND), false);
    await c.onComment(comment("alice", "/run remind"), "d1");
    const status = fake.statusComments(1)[0]!;
    // Not in process: the run waits for its continuation (the app's own edit).
    expect(readStatus(status)).toMatchObject({ ok: true, run: { stack: [{ phase: "pending" }] } });
    // A server error is not "gone": the event fails, nothing is saved, and a retry carries on.
    fake.fault = ({ method, path }) =>
      method === "GET" && path.endsWith(`/issues/comments/${status.id}`)
        ? { status: 502, body: { message: "Bad Gateway" } }
        : undefined;
    const failed = await requestsDuring(fake, () =>
      expect(c.onContinuation(String(status.id), "e1")).rejects.toMatchObject({ status: 502 }),
    );
    expect(failed.requests).toEqual([`GET /repos/${OWNER}/${REPO}/issues/comments/${status.id}`]);
    fake.fault = undefined;
    await c.onContinuation(String(status.id), "e1");
    const read = readStatus(fake.statusComments(1)[0]);
    expect(read.ok && read.run.status).toBe("waiting");
    // A status comment that is gone (404) ends the continuation quietly.
    const gone = String(status.id);
    fake.comments.delete(status.id);
    const r = await requestsDuring(fake, () => c.onContinuation(gone, "e2"));
    expect(r.requests).toEqual([`GET /repos/${OWNER}/${REPO}/issues/comments/${gone}`]);
  });
});

describe("the app with bundled and ask-first playbooks", () => {
  let h: Harness;
  beforeEach(async () => {
    fake.uninstall();
    const clock = makeClock();
    fake = new FakeGitHub({
      ...EXAMPLE_REPO,
      clock,
      files: { ".github/playbooks/ask.yaml": ASK, ".github/playbooks/ship.yaml": SHIP },
    }).install();
    fake.permissions.set("alice", "write");
    fake.permissions.set("erin", "admin");
    h = await new Harness(fake, clock).start();
    fake.openIssue("checkout pods are not Ready", "", "alice");
  });

  it("records findings and choices on an investigate step", async () => {
    await h.label(1, "incident", "alice");
    await h.drain();
    expect(fake.statusComments(1)[0]?.body).toContain(
      "**Waiting for:** findings (/record key=value) and a choice (/choose \\<branch>) from people with triage access",
    );
    await h.comment(1, "erin", "/approve");
    expect([...fake.comments.values()].at(-1)?.body).toBe(
      "> /approve\n\n👎 nothing on this issue waits for /approve",
    );
    const r = await h.comment(1, "erin", "/record failing_pods=3");
    expect(fake.reactions.filter((x) => x.commentId === r).map((x) => x.content)).toEqual([
      "eyes",
      "rocket",
    ]);
    await h.comment(1, "erin", "/choose unhealthy");
    const read = readStatus(fake.statusComments(1)[0]);
    expect(read.ok && read.run.stack[0]?.current).not.toBe("pod_state");
  });

  it("asks first before a side effect: /approve, then the branch", async () => {
    await h.comment(1, "alice", "/run ask");
    expect(fake.statusComments(1)[0]?.body).toContain("**Waiting for:** /approve from");
    expect(fake.branches()).toEqual(["master"]);
    await h.comment(1, "erin", "/approve");
    expect(fake.branches()).toContain("asked");
  });
});

describe("the status comment", () => {
  const S = sealOf(1, 1);
  function waitingRun(b: PlaybookBundle): RunState {
    const env = { now: new Date("2026-03-01T09:00:00Z"), playbooks: () => b };
    const s = start({ bundle: b, inputs: {}, initiator: { login: "alice" }, eventId: "e" }, env);
    if (!s.ok) throw new Error("no start");
    return advance(s.result.run, { type: "continue", id: "c", seq: s.result.run.seq }, env).run;
  }

  it("marks skipped, failed and ignored steps, shows a nested playbook, and the description", () => {
    const run = waitingRun(REMIND);
    const root = run.stack[0]!;
    root.results.note = { status: "skipped", attempt: 1, at: run.updatedAt };
    root.results.done = { status: "failed", attempt: 1, at: run.updatedAt };
    root.results.gate = { status: "ignored", attempt: 1, at: run.updatedAt };
    run.stack.push({ ...structuredClone(root), current: "note" });
    const body = renderStatusComment(run, () => REMIND, S);
    expect(body).toContain("- [ ] `note` _(skipped)_");
    expect(body).toContain("- [ ] `done` _(failed)_");
    expect(body).toContain("(in `remind`: `note`) _(failed, ignored)_");
    const one = renderStatusComment(waitingRun(REMIND), () => REMIND, S);
    expect(one).toContain("> **gate:** Carol decides.");
    expect(one).toContain("**Waiting for:** /approve from @\u200bcarol");
  });

  it("drops the readable parts of a body that would be too long, never the state", () => {
    const big = structuredClone(REMIND);
    big.playbook.steps![0]!.description = "x".repeat(70_000);
    const run = waitingRun(big);
    const body = renderStatusComment(run, () => big, S);
    expect(body.length).toBeLessThan(60_000);
    expect(body).toContain("_Details omitted: the comment would be too long._");
    const read = readStatusComment(body, S);
    expect(read.ok && read.run.id).toBe(run.id);
    // Without its playbook the comment still carries the state.
    const bare = renderStatusComment(run, () => undefined, S);
    expect(bare).toContain("### ⏸️ remind");
    expect(readStatusComment("no block", S)).toMatchObject({ ok: false, reason: "absent" });
  });
});
