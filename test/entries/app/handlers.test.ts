import type { IncomingMessage, ServerResponse } from "node:http";
import nock from "nock";
import type { Probot } from "probot";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { readStatusComment } from "../../../src/runtime/run-service/status-comment.js";
import { API, recordScopes, requestsDuring } from "../../helpers/fake-github.js";
import { RELEASE, SHIP, snapshots, voteSnapshot, type Snapshots } from "./fixtures.js";
import {
  APP_ID,
  CONFIG,
  example,
  makeClock,
  makeProbot,
  sealOf,
  type Handler,
  type Payload,
} from "./harness.js";

const R = "/repos/Codertocat/Hello-World";
const TREE = "a".repeat(40);
const BLOB = "b".repeat(40);

let snap: Snapshots;
beforeAll(async () => {
  nock.disableNetConnect();
  snap = await snapshots();
});

let probot: Probot;
let handlers: Handler[];
let scope: nock.Scope;
let recorded: ReturnType<typeof recordScopes>;

beforeEach(async () => {
  nock.disableNetConnect();
  ({ probot, handlers } = await makeProbot({ clock: makeClock("2026-02-02T09:00:00Z") }));
  scope = nock(API);
  recorded = recordScopes(scope);
});

afterEach(() => {
  const pending = scope.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

/** The discovery of a fresh app: default branch head, its tree, the playbook, no org repository. */
function discovery(s = scope, head = snap.head, source = SHIP): nock.Scope {
  return s
    .get(`${R}/git/ref/heads%2Fmaster`)
    .reply(200, { ref: "refs/heads/master", object: { sha: head } })
    .get(`${R}/git/trees/${head}`)
    .query({ recursive: "1" })
    .reply(200, {
      sha: TREE,
      truncated: false,
      tree: [
        { path: "README.md", type: "blob", sha: "c".repeat(40), size: 8 },
        { path: ".github/playbooks/ship.yaml", type: "blob", sha: BLOB, size: source.length },
      ],
    })
    .get(`${R}/git/blobs/${BLOB}`)
    .reply(200, { sha: BLOB, encoding: "base64", content: Buffer.from(source).toString("base64") })
    .get("/repos/Codertocat/.github")
    .reply(404, { message: "Not Found" });
}

/** The app's bot user: the author of its comments, and the sender of its own edits. */
const BOT = { login: "playbook-bot[bot]", id: 99, type: "Bot" };

function appComment(id: number, body: string, created = "2026-02-02T09:00:00Z"): Payload {
  return {
    id,
    body,
    created_at: created,
    updated_at: created,
    user: BOT,
    performed_via_github_app: { id: APP_ID, slug: "playbook-bot" },
  };
}

/**
 * A comment event as GitHub sends it: the sender is the comment's author unless `by` names who
 * edited or deleted it; an edit carries the body it replaced.
 */
function commentEvent(
  action: "created" | "edited" | "deleted",
  comment: Payload,
  by?: Payload,
  previous = "",
): Payload {
  const p = example("issue_comment", action);
  p.comment = { ...p.comment, ...comment };
  p.sender = by ?? comment.user ?? p.sender;
  if (action === "edited") p.changes = { body: { from: previous } };
  return p;
}

/** A person, as a payload's `sender`. */
function person(login: string): Payload {
  return { login, id: 8, type: "User" };
}

/** Request lines of the discovery a fresh app makes (see `discovery()`), for exact sequences. */
function discovered(head = snap.head): string[] {
  return [
    `GET ${R}/git/ref/heads/master`,
    `GET ${R}/git/trees/${head}`,
    `GET ${R}/git/blobs/${BLOB}`,
    "GET /repos/Codertocat/.github",
  ];
}

function personComment(login: string, body: string, id = 555): Payload {
  return {
    id,
    body,
    created_at: "2026-02-02T10:00:00Z",
    updated_at: "2026-02-02T10:00:00Z",
    user: { login, id: 7, type: "User" },
    performed_via_github_app: null,
  };
}

async function receive(name: string, payload: Payload, id = `d-${Math.random()}`) {
  return requestsDuring(recorded, () => probot.receive({ id, name, payload } as never));
}

describe("issues.labeled", () => {
  it("starts a run for playbook:<id>: discovery, the labeller's permission, the status comment", async () => {
    discovery()
      .get(`${R}/collaborators/Codertocat/permission`)
      .reply(200, { permission: "write", role_name: "write" })
      .get(`${R}/issues/1/comments`)
      .query({ per_page: "100" })
      .reply(200, [])
      // The comment comes first, without state: its id is what the state is sealed to.
      .post(`${R}/issues/1/comments`, (b: { body: string }) =>
        /^⏳ Starting \*\*ship\*\* \(run `20260202-0900-1-[a-z0-9]{5}`\)…$/.test(b.body),
      )
      .reply(201, appComment(700, "⏳ Starting **ship**…"))
      .patch(`${R}/issues/comments/700`, (b: { body: string }) => {
        expect(b.body).toContain("### 🔄 Ship a change");
        expect(b.body).toContain("started by @\u200bCodertocat");
        const read = readStatusComment(b.body, sealOf(1, 700));
        expect(read.ok && read.run.stack[0]?.playbook).toBe("ship");
        // Sealed to that comment: the same block in any other comment does not verify.
        expect(readStatusComment(b.body, sealOf(1, 701))).toMatchObject({
          ok: false,
          reason: "tampered",
        });
        return true;
      })
      .reply(200, appComment(700, "…"));
    const p = example("issues", "labeled");
    p.label.name = "playbook:ship";
    const r = await receive("issues", p);
    expect(r.requests).toEqual([
      ...discovered(),
      `GET ${R}/collaborators/Codertocat/permission`,
      `GET ${R}/issues/1/comments`,
      `POST ${R}/issues/1/comments`,
      `PATCH ${R}/issues/comments/700`,
    ]);
  });

  it("refuses a labeller without triage access, saying who may start it", async () => {
    discovery()
      .get(`${R}/collaborators/Codertocat/permission`)
      .reply(200, { permission: "read", role_name: "read" })
      // The notice says (hidden) which event it answers: a runtime replaying events knows it.
      .post(`${R}/issues/1/comments`, (b: { body: string }) =>
        /^Label `playbook:ship` did not start \*\*ship\*\*: @\u200bCodertocat needs triage access or more to start it\.\n<!-- playbook-bot:answers [A-Za-z0-9:_.-]+ -->\n$/.test(
          b.body,
        ),
      )
      .reply(201, personComment("playbook-bot[bot]", "x", 701));
    const p = example("issues", "labeled");
    p.label.name = "playbook:ship";
    await receive("issues", p);
  });

  it("reads the playbooks but does nothing else for a label no playbook uses", async () => {
    discovery();
    const r = await receive("issues", example("issues", "labeled"));
    expect(r.requests.some((x) => x.startsWith("POST"))).toBe(false);
  });
});

describe("issues.opened", () => {
  it("starts the playbooks of the issue form's labels", async () => {
    discovery()
      .get(`${R}/collaborators/Codertocat/permission`)
      .reply(200, { role_name: "admin", permission: "admin" })
      .get(`${R}/issues/1/comments`)
      .query({ per_page: "100" })
      .reply(200, [])
      .post(`${R}/issues/1/comments`, (b: { body: string }) =>
        b.body.startsWith("⏳ Starting **ship**"),
      )
      .reply(201, appComment(702, "…"))
      .patch(`${R}/issues/comments/702`, (b: { body: string }) => {
        expect(b.body).toContain("### 🔄 Ship a change");
        const read = readStatusComment(b.body, sealOf(1, 702));
        expect(read.ok && read.run.stack[0]?.playbook).toBe("ship");
        return true;
      })
      .reply(200, appComment(702, "…"));
    const p = example("issues", "opened");
    p.issue.labels = [{ name: "bug" }, { name: "playbook:ship" }];
    p.issue.body = "### Service\n\ncheckout\n";
    await receive("issues", p);
  });

  it("makes no request for an issue opened without labels by someone outside the repository", async () => {
    const p = example("issues", "opened");
    p.issue.labels = [];
    // Only a collaborator's issue may start a playbook by its text (on.issues).
    for (const association of ["NONE", "CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR"]) {
      p.issue.author_association = association;
      expect((await receive("issues", p)).count).toBe(0);
    }
  });
});

describe("issue_comment.created", () => {
  it("obeys a command: 👀, the commenter's permission, the waiting run, the save, 🚀", async () => {
    // Carol answers after the step announced its wait (a higher comment id than the prompt's).
    const vote = snap.promptId + 1;
    discovery()
      .post(`${R}/issues/comments/${vote}/reactions`, { content: "eyes" })
      .reply(201, {})
      .get(`${R}/collaborators/carol/permission`)
      .reply(200, { permission: "write", role_name: "maintain" })
      .get(`${R}/issues/1/comments`)
      .query({ per_page: "100" })
      .reply(200, [appComment(snap.statusId, snap.waiting)])
      .patch(`${R}/issues/comments/${snap.statusId}`, (b: { body: string }) => {
        const read = readStatusComment(b.body, sealOf(1, snap.statusId));
        expect(read.ok && read.run.status).toBe("running");
        expect(read.ok && read.run.stack[0]?.results.approve?.outputs?.approved_by).toEqual([
          "carol",
        ]);
        expect(b.body).toContain("- [x] `approve`");
        return true;
      })
      .reply(200, appComment(snap.statusId, "…"))
      .post(`${R}/issues/comments/${vote}/reactions`, { content: "rocket" })
      .reply(201, {});
    const r = await receive(
      "issue_comment",
      commentEvent("created", personComment("carol", "/approve", vote)),
    );
    // The permission is looked up once, on arrival, and used for the vote too.
    // The run's playbooks are read at the commit it is pinned to (a fresh process asks once).
    expect(r.requests).toEqual([
      `POST ${R}/issues/comments/${vote}/reactions`,
      `GET ${R}/collaborators/carol/permission`,
      `GET ${R}/issues/1/comments`,
      ...discovered(),
      `PATCH ${R}/issues/comments/${snap.statusId}`,
      `POST ${R}/issues/comments/${vote}/reactions`,
    ]);
  });

  it("refuses a command in a comment older than the step's announcement, and saves nothing", async () => {
    // A comment written before the step announced its wait (GitHub's ids only grow).
    const early = 555;
    expect(early).toBeLessThan(snap.promptId);
    discovery()
      .post(`${R}/issues/comments/${early}/reactions`, { content: "eyes" })
      .reply(201, {})
      .get(`${R}/collaborators/carol/permission`)
      .reply(200, { permission: "write", role_name: "maintain" })
      .get(`${R}/issues/1/comments`)
      .query({ per_page: "100" })
      .reply(200, [appComment(snap.statusId, snap.waiting)])
      .post(`${R}/issues/1/comments`, {
        body: "> /approve\n\n👎 the comment was written before this step started waiting",
      })
      .reply(201, appComment(710, "…"))
      .post(`${R}/issues/comments/${early}/reactions`, { content: "-1" })
      .reply(201, {});
    const r = await receive(
      "issue_comment",
      commentEvent("created", personComment("carol", "/approve", early)),
    );
    expect(r.requests.filter((x) => x.startsWith("PATCH"))).toEqual([]);
  });

  it("answers /help with the command list, no run needed", async () => {
    scope
      .post(`${R}/issues/comments/555/reactions`, { content: "eyes" })
      .reply(201, {})
      .get(`${R}/collaborators/bob/permission`)
      .reply(200, { permission: "read", role_name: "triage" })
      .post(`${R}/issues/1/comments`, (b: { body: string }) => b.body.includes("/approve"))
      .reply(201, appComment(703, "help"))
      .post(`${R}/issues/comments/555/reactions`, { content: "rocket" })
      .reply(201, {});
    await receive("issue_comment", commentEvent("created", personComment("bob", "/help")));
  });

  it("answers a commenter without a role above read with reactions only: 👀, then 👎", async () => {
    scope
      .post(`${R}/issues/comments/555/reactions`, { content: "eyes" })
      .reply(201, {})
      .get(`${R}/collaborators/mallory/permission`)
      .reply(200, { permission: "read", role_name: "read" })
      .post(`${R}/issues/comments/555/reactions`, { content: "-1" })
      .reply(201, {});
    const r = await receive(
      "issue_comment",
      commentEvent("created", personComment("mallory", "/help\n/help\n/help")),
    );
    // Nothing starts a run: where the default branch is, is not asked.
    expect(r.requests).toEqual([
      `POST ${R}/issues/comments/555/reactions`,
      `GET ${R}/collaborators/mallory/permission`,
      `POST ${R}/issues/comments/555/reactions`,
    ]);
  });

  it("makes no request at all for a bot's comment, even a command", async () => {
    const c = personComment("dependabot[bot]", "/approve");
    c.user.type = "Bot";
    expect((await receive("issue_comment", commentEvent("created", c))).count).toBe(0);
  });

  it("makes no request for a comment without a command", async () => {
    const r = await receive(
      "issue_comment",
      commentEvent("created", personComment("bob", "Looks good to me, approve?")),
    );
    expect(r.count).toBe(0);
  });

  it("makes no request for the creation of this app's status comment: its first edit is what moves the run", async () => {
    const r = await receive(
      "issue_comment",
      commentEvent("created", appComment(snap.statusId, snap.created)),
    );
    expect(r.count).toBe(0);
  });

  it("ignores this app's other comments without a request", async () => {
    const r = await receive(
      "issue_comment",
      commentEvent("created", appComment(705, "**approve** waits for approval")),
    );
    expect(r.count).toBe(0);
  });
});

describe("issue_comment.edited and .deleted", () => {
  it("carries a status comment into its first step on the app's own edit (the start's continuation)", async () => {
    discovery()
      .get(`${R}/issues/comments/${snap.statusId}`)
      .reply(200, appComment(snap.statusId, snap.created))
      // The wait is announced first: the id of that comment orders the answers.
      .post(`${R}/issues/1/comments`, (b: { body: string }) =>
        b.body.startsWith("**approve** waits for approval: Ship the change?"),
      )
      .reply(201, appComment(704, "…"))
      .patch(`${R}/issues/comments/${snap.statusId}`, (b: { body: string }) => {
        expect(b.body).toContain(
          "**Waiting for:** /approve from people with maintain access or more",
        );
        const read = readStatusComment(b.body, sealOf(1, snap.statusId));
        expect(read.ok && read.run.stack[0]?.prompt?.comment).toBe("704");
        return true;
      })
      .reply(200, {});
    const r = await receive(
      "issue_comment",
      commentEvent("edited", appComment(snap.statusId, snap.created), BOT),
    );
    expect(r.requests).toEqual([
      `GET ${R}/issues/comments/${snap.statusId}`,
      ...discovered(),
      `POST ${R}/issues/1/comments`,
      `PATCH ${R}/issues/comments/${snap.statusId}`,
    ]);
  });

  it("carries the run one step on the app's own edit: the branch is made and saved", async () => {
    discovery()
      .get(`${R}/issues/comments/${snap.statusId}`)
      .reply(200, appComment(snap.statusId, snap.approved))
      .patch(`${R}/issues/comments/${snap.statusId}`, (b: { body: string }) =>
        b.body.includes("**`branch`** ← current"),
      )
      .reply(200, {})
      // The approving comment is read again before the effect runs, then the approver's role.
      .get(`${R}/issues/comments/${snap.approval.id}`)
      .reply(200, snap.approval)
      .get(`${R}/collaborators/carol/permission`)
      .reply(200, { permission: "write", role_name: "maintain" })
      .get(`${R}/git/ref/heads%2Fplaybook%2Fship-1`)
      .reply(404, { message: "Not Found" })
      .get(`${R}/git/ref/heads%2Fmaster`)
      .reply(200, { object: { sha: snap.head } })
      .post(`${R}/git/refs`, { ref: "refs/heads/playbook/ship-1", sha: snap.head })
      .reply(201, { ref: "refs/heads/playbook/ship-1", object: { sha: snap.head } })
      .patch(`${R}/issues/comments/${snap.statusId}`, (b: { body: string }) =>
        b.body.includes("- [x] `branch`"),
      )
      .reply(200, {});
    const r = await receive(
      "issue_comment",
      commentEvent("edited", appComment(snap.statusId, snap.approved), BOT, snap.waiting),
    );
    expect(r.requests).toEqual([
      `GET ${R}/issues/comments/${snap.statusId}`,
      ...discovered(),
      `PATCH ${R}/issues/comments/${snap.statusId}`,
      `GET ${R}/issues/comments/${snap.approval.id}`,
      `GET ${R}/collaborators/carol/permission`,
      `GET ${R}/git/ref/heads/playbook/ship-1`,
      `GET ${R}/git/ref/heads/master`,
      `POST ${R}/git/refs`,
      `PATCH ${R}/issues/comments/${snap.statusId}`,
    ]);
  });

  it("refuses the effect when the approver lost the role since approving (an API error denies too)", async () => {
    discovery()
      .get(`${R}/issues/comments/${snap.statusId}`)
      .reply(200, appComment(snap.statusId, snap.approved))
      .patch(`${R}/issues/comments/${snap.statusId}`, (b: { body: string }) =>
        b.body.includes("**`branch`** ← current"),
      )
      .reply(200, {})
      .get(`${R}/issues/comments/${snap.approval.id}`)
      .reply(200, snap.approval)
      .get(`${R}/collaborators/carol/permission`)
      .reply(200, { permission: "read", role_name: "triage" })
      .patch(`${R}/issues/comments/${snap.statusId}`, (b: { body: string }) =>
        b.body.includes(
          "the approval of 'approve' no longer holds: @\u200bcarol may not approve this step; approval is for people with maintain access or more (`GH-PERMISSION`)",
        ),
      )
      .reply(200, {})
      .post(`${R}/issues/1/comments`, (b: { body: string }) =>
        b.body.includes("failed at **branch**"),
      )
      .reply(201, {
        id: 9001,
        body: "x",
        created_at: "2026-02-02T09:00:00Z",
        user: { login: "pb[bot]", type: "Bot" },
      });
    await receive(
      "issue_comment",
      commentEvent("edited", appComment(snap.statusId, snap.approved), BOT, snap.waiting),
    );
  });

  it("freezes the run when a person edits its status comment: the app's last state goes back, with a notice", async () => {
    const edited = `${snap.waiting}\n\nApproved already.`;
    discovery()
      .patch(`${R}/issues/comments/${snap.statusId}`, (b: { body: string }) => {
        expect(b.body).not.toContain("Approved already.");
        const read = readStatusComment(b.body, sealOf(1, snap.statusId));
        expect(read.ok && read.run.status).toBe("failed");
        expect(read.ok && read.run.error?.code).toBe("PB-STATE-EDITED");
        expect(read.ok && read.run.trace.at(-1)).toMatchObject({
          event: "edited",
          actor: "carol",
          outcome: "frozen",
        });
        return true;
      })
      .reply(200, {})
      .post(`${R}/issues/1/comments`, (b: { body: string }) => {
        expect(b.body).toContain(
          `@\u200bcarol edited [the status comment](#issuecomment-${snap.statusId})`,
        );
        expect(b.body).toContain("To go on, start it again: `/run ship`");
        return true;
      })
      .reply(201, appComment(711, "…"));
    const r = await receive(
      "issue_comment",
      commentEvent("edited", appComment(snap.statusId, edited), person("carol"), snap.waiting),
    );
    // No permission lookup, no effect: the state it writes back is the one it verified.
    expect(r.requests).toEqual([
      ...discovered(),
      `PATCH ${R}/issues/comments/${snap.statusId}`,
      `POST ${R}/issues/1/comments`,
    ]);
  });

  it("says how to start again when a person deletes the status comment of an open run", async () => {
    scope
      .post(`${R}/issues/1/comments`, (b: { body: string }) => {
        expect(b.body).toContain("@\u200bcarol deleted the status comment of run");
        expect(b.body).toContain("stopped where it was (at `approve`)");
        expect(b.body).toContain("To start it again: `/run ship`");
        return true;
      })
      .reply(201, appComment(712, "…"));
    const r = await receive(
      "issue_comment",
      commentEvent("deleted", appComment(snap.statusId, snap.waiting), person("carol")),
    );
    expect(r.requests).toEqual([`POST ${R}/issues/1/comments`]);
  });

  it("withdraws votes when a person edits a comment: looks for runs, saves nothing when no vote changes", async () => {
    discovery()
      .get(`${R}/issues/1/comments`)
      .query({ per_page: "100" })
      .reply(200, [appComment(snap.statusId, snap.waiting), personComment("bob", "hi", 556)]);
    await receive("issue_comment", commentEvent("edited", personComment("bob", "/approve", 556)));
  });

  it("withdraws the vote of a deleted /approve comment and saves the run", async () => {
    const v = await voteSnapshot();
    nock.disableNetConnect();
    discovery(scope, v.head, RELEASE)
      .get(`${R}/issues/1/comments`)
      .query({ per_page: "100" })
      .reply(200, [appComment(v.statusId, v.body)])
      .patch(`${R}/issues/comments/${v.statusId}`, (b: { body: string }) => {
        const read = readStatusComment(b.body, sealOf(1, v.statusId));
        expect(read.ok && read.run.stack[0]?.votes).toEqual([]);
        expect(read.ok && read.run.trace.at(-1)?.outcome).toBe("vote withdrawn");
        return true;
      })
      .reply(200, {});
    const r = await receive(
      "issue_comment",
      commentEvent("deleted", personComment("dave", "/approve", v.voteId)),
    );
    expect(r.count).toBe(6);
  });

  it("treats a deleted comment the same way", async () => {
    discovery()
      .get(`${R}/issues/1/comments`)
      .query({ per_page: "100" })
      .reply(200, [appComment(snap.statusId, snap.waiting)]);
    await receive("issue_comment", commentEvent("deleted", personComment("bob", "/approve", 556)));
  });

  it("makes no request when a bot edits its comment, or when this app edits a plain comment", async () => {
    const bot = personComment("ci[bot]", "/approve");
    bot.user.type = "Bot";
    expect((await receive("issue_comment", commentEvent("edited", bot))).count).toBe(0);
    const plain = appComment(706, "Waiting for pull request #2 to be merged.");
    expect((await receive("issue_comment", commentEvent("edited", plain))).count).toBe(0);
    expect((await receive("issue_comment", commentEvent("deleted", plain))).count).toBe(0);
    // A person's edit of one too: it never held state.
    const edit = commentEvent("edited", plain, person("carol"), "Waiting for #2.");
    expect((await receive("issue_comment", edit)).count).toBe(0);
  });
});

describe("pull_request.closed", () => {
  const MARKED = "Closes #1\n\n<!-- playbook-bot:pull-request issue=1 key=k/pr/1 -->";

  it("leads a merge back to its issue by the body's marker and moves the run", async () => {
    // The payload does not name the app that opened the pull request: its issue view does.
    scope
      .get(`${R}/issues/2`)
      .reply(200, { number: 2, user: BOT, performed_via_github_app: { id: APP_ID } });
    discovery()
      .get(`${R}/issues/1/comments`)
      .query({ per_page: "100" })
      .reply(200, [appComment(snap.statusId, snap.merging)])
      .patch(`${R}/issues/comments/${snap.statusId}`, (b: { body: string }) =>
        b.body.includes("- [x] `pr`"),
      )
      .reply(200, {});
    const p = example("pull_request", "closed");
    p.pull_request.merged = true;
    p.pull_request.number = 2;
    p.pull_request.body = MARKED;
    p.pull_request.user = BOT;
    await receive("pull_request", p);
  });

  it("makes no request for a pull request without the marker", async () => {
    expect((await receive("pull_request", example("pull_request", "closed"))).count).toBe(0);
  });

  it("ignores the marker in a pull request the app did not open", async () => {
    const p = example("pull_request", "closed");
    p.pull_request.number = 2;
    p.pull_request.body = MARKED;
    // A person's: no request at all.
    expect((await receive("pull_request", p)).count).toBe(0);
    // Another app's: one look at who opened it.
    p.pull_request.user = { login: "other[bot]", id: 7, type: "Bot" };
    scope
      .get(`${R}/issues/2`)
      .reply(200, { number: 2, user: p.pull_request.user, performed_via_github_app: { id: 7 } });
    expect((await receive("pull_request", p)).requests).toEqual([`GET ${R}/issues/2`]);
  });

  it("knows its own pull request by the bot login when configured, without asking", async () => {
    ({ probot } = await makeProbot({ config: { ...CONFIG, botLogin: BOT.login } }));
    discovery()
      .get(`${R}/issues/1/comments`)
      .query({ per_page: "100" })
      .reply(200, [appComment(snap.statusId, snap.merging)])
      .patch(`${R}/issues/comments/${snap.statusId}`)
      .reply(200, {});
    const p = example("pull_request", "closed");
    p.pull_request.merged = true;
    p.pull_request.number = 2;
    p.pull_request.body = MARKED;
    p.pull_request.user = BOT;
    const r = await receive("pull_request", p);
    expect(r.requests).not.toContain(`GET ${R}/issues/2`);
  });
});

describe("payload edge cases", () => {
  it("makes no request for a labeled event without a label, or labels without names", async () => {
    const p = example("issues", "labeled");
    delete p.label;
    expect((await receive("issues", p)).count).toBe(0);
    const o = example("issues", "opened");
    o.issue.labels = [{}, ""];
    o.issue.author_association = "NONE";
    expect((await receive("issues", o)).count).toBe(0);
  });

  it("accepts labels given as plain strings on an opened issue", async () => {
    discovery()
      .get(`${R}/collaborators/Codertocat/permission`)
      .reply(200, { role_name: "triage" })
      .get(`${R}/issues/1/comments`)
      .query({ per_page: "100" })
      .reply(200, [])
      .post(`${R}/issues/1/comments`, (b: { body: string }) =>
        b.body.startsWith("⏳ Starting **ship**"),
      )
      .reply(201, appComment(707, "…"))
      .patch(
        `${R}/issues/comments/707`,
        (b: { body: string }) => readStatusComment(b.body, sealOf(1, 707)).ok,
      )
      .reply(200, appComment(707, "…"));
    const o = example("issues", "opened");
    o.issue.labels = ["playbook:ship"];
    o.issue.body = null;
    await receive("issues", o);
  });

  it("makes no request for a comment by a deleted user with no body", async () => {
    const c = personComment("x", "");
    c.user = null;
    c.body = null;
    expect((await receive("issue_comment", commentEvent("created", c))).count).toBe(0);
  });

  it("knows its own comments by the app that wrote them, not by the bot login alone (and keeps time by the real clock)", async () => {
    ({ probot } = await makeProbot({ config: { ...CONFIG, botLogin: "playbook-bot[bot]" } }));
    // The bot's login without GitHub's word that this app wrote it: not this app's, no request.
    const c = { ...appComment(snap.statusId, snap.merging), performed_via_github_app: null };
    expect((await receive("issue_comment", commentEvent("edited", c, BOT))).count).toBe(0);
  });

  it("makes no request for a workflow run without a name or a path", async () => {
    const w = example("workflow_run", "completed", 1);
    w.workflow_run.name = null;
    delete w.workflow_run.path;
    expect((await receive("workflow_run", w)).count).toBe(0);
  });

  it("loads without HTTP routes when the server cannot take handlers", async () => {
    const { Probot, ProbotOctokit } = await import("probot");
    const { createPlaybookBot } = await import("../../../src/adapters/github-app/app.js");
    const p = new Probot({ githubToken: "test", Octokit: ProbotOctokit, logLevel: "fatal" });
    await expect(
      p.load(createPlaybookBot({ config: CONFIG, wakeUps: false, reconcile: false }), {
        cwd: process.cwd(),
        addHandler: () => {
          throw new Error("no server");
        },
      }),
    ).resolves.toBeUndefined();
    await expect(
      p.load(createPlaybookBot({ config: CONFIG, wakeUps: false, reconcile: false })),
    ).resolves.toBeUndefined();
  });
});

describe("other deliveries", () => {
  it("makes no request for a workflow run nobody waits for", async () => {
    expect((await receive("workflow_run", example("workflow_run", "completed"))).count).toBe(0);
  });

  it("returns quickly with no request for an event it does not handle", async () => {
    const t = Date.now();
    expect((await receive("star", example("star", "created"))).count).toBe(0);
    expect((await receive("issues", example("issues", "pinned"))).count).toBe(0);
    expect(Date.now() - t).toBeLessThan(500);
  });

  it("treats a delivery id seen before as a no-op", async () => {
    const p = example("issues", "labeled");
    discovery();
    expect((await receive("issues", p, "same-id")).count).toBe(4);
    expect((await receive("issues", p, "same-id")).count).toBe(0);
    const w = example("workflow_run", "completed");
    await receive("workflow_run", w, "wf-id");
    expect((await receive("workflow_run", w, "wf-id")).count).toBe(0);
  });

  it("answers GET /healthz with 200 through the handler given to addHandler", async () => {
    // healthz first, then the serving routes (/metrics, /readyz; see serving.test.ts)
    expect(handlers.map((h) => h.name)).toEqual(["healthz", "routes"]);
    const handler = handlers[0] as Handler;
    let status = 0;
    let body = "";
    const res = {
      writeHead: (s: number) => {
        status = s;
        return res;
      },
      end: (b: string) => {
        body = b;
      },
    } as unknown as ServerResponse;
    expect(await handler({ method: "GET", url: "/healthz?x=1" } as IncomingMessage, res)).toBe(
      true,
    );
    expect(status).toBe(200);
    expect(JSON.parse(body)).toEqual({ status: "ok" });
    expect(await handler({ method: "POST", url: "/healthz" } as IncomingMessage, res)).toBe(false);
    expect(await handler({ method: "GET", url: "/other" } as IncomingMessage, res)).toBe(false);
    expect(await handler({ method: "GET" } as IncomingMessage, res)).toBe(false);
  });
});
