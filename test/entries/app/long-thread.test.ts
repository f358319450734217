import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeGitHub, requestsDuring } from "../../helpers/fake-github.js";
import { shipApp } from "./fixtures.js";
import type { Harness } from "./harness.js";

const R = "/repos/Codertocat/Hello-World";
const LIST = `GET ${R}/issues/1/comments`;
const listings = (rs: string[]) => rs.filter((r) => r === LIST);

/**
 * The start of a run on a fresh process: discovery (the default branch, its tree, the playbook,
 * no organisation repository), the labeller's permission, the thread's listing (`pages` pages),
 * then the status comment created and its state written into it.
 */
function startRequests(fake: FakeGitHub, pages: number): string[] {
  const status = fake.statusComments(1)[0]?.id;
  return [
    `GET ${R}/git/ref/heads/master`,
    expect.stringMatching(new RegExp(`^GET ${R}/git/trees/[0-9a-f]{40}$`)) as unknown as string,
    expect.stringMatching(new RegExp(`^GET ${R}/git/blobs/[0-9a-f]{40}$`)) as unknown as string,
    "GET /repos/Codertocat/.github",
    `GET ${R}/collaborators/alice/permission`,
    ...Array<string>(pages).fill(LIST),
    `POST ${R}/issues/1/comments`,
    `PATCH ${R}/issues/comments/${status}`,
  ];
}

/**
 * An /approve on a warm process: 👀, the approver's role, the save, 🚀 — the status comment is
 * the one this process last wrote, and its run is pinned to a commit known to be on the default
 * branch: neither is asked for.
 */
function approveRequests(fake: FakeGitHub): string[] {
  const status = fake.statusComments(1)[0]?.id;
  const vote = [...fake.comments.values()].find((c) => c.body === "/approve")?.id;
  return [
    `POST ${R}/issues/comments/${vote}/reactions`,
    `GET ${R}/collaborators/carol/permission`,
    `PATCH ${R}/issues/comments/${status}`,
    `POST ${R}/issues/comments/${vote}/reactions`,
  ];
}

/** Requests of the start, the first continuation and an /approve, on a thread of `comments`. */
async function measure(h: Harness, fake: FakeGitHub, comments: number) {
  fake.openIssue("Ship it", "", "alice");
  fake.seedComments(1, comments);
  const start = await requestsDuring(fake, () => h.label(1, "playbook:ship", "alice"));
  const cont = await requestsDuring(fake, () => h.drain());
  fake.postAs(1, "carol", "/approve");
  const approve = await requestsDuring(fake, () =>
    h.deliver("issue_comment", h.commentPayload(fake.events.shift()!)),
  );
  return { start, cont, approve };
}

describe("long threads", () => {
  let fake: FakeGitHub;
  let h: Harness;
  beforeEach(async () => {
    nock.disableNetConnect();
    ({ fake, h } = await shipApp());
  });
  afterEach(() => fake.uninstall());

  it("on an issue with 10 comments: one listing on the first event, none after", async () => {
    const m = await measure(h, fake, 10);
    expect(m.start.requests).toEqual(startRequests(fake, 1));
    expect(listings(m.cont.requests)).toHaveLength(0);
    expect(m.approve.requests).toEqual(approveRequests(fake));
    expect(listings(m.approve.requests)).toHaveLength(0);
  });

  it("on an issue with 1,000 comments: ten pages once, then the remembered status comment", async () => {
    const m = await measure(h, fake, 1000);
    // The first event looks for the newest status comment from the thread's last page back (the
    // webhook's comment count names it); with no run on the issue yet, every page is read once.
    const pages = fake.requests
      .filter((r) => r.path.startsWith("/repos/Codertocat/Hello-World/issues/1/comments?"))
      .map((r) => new URL(r.path, "https://x").searchParams);
    expect(pages.map((q) => q.get("per_page"))).toEqual(Array(10).fill("100"));
    expect(pages.map((q) => q.get("page") ?? "1")).toEqual([
      "10",
      "9",
      "8",
      "7",
      "6",
      "5",
      "4",
      "3",
      "2",
      "1",
    ]);
    expect(m.start.requests).toEqual(startRequests(fake, 10));
    expect(listings(m.start.requests)).toHaveLength(10);
    // Later events: no listing, and no read of the status comment this process wrote.
    expect(listings(m.cont.requests)).toHaveLength(0);
    expect(m.approve.requests).toEqual(approveRequests(fake));
    await h.drain();
    expect(fake.branches()).toContain("playbook/ship-1");
    // A new process has forgotten the status comment: one listing again (now 11 pages), then none.
    await h.start();
    fake.postAs(1, "alice", "/status");
    const cold = await requestsDuring(fake, () =>
      h.deliver("issue_comment", h.commentPayload(fake.events.shift()!)),
    );
    expect(listings(cold.requests)).toHaveLength(11);
    const listed = [...fake.comments.values()].at(-1)?.body ?? "";
    expect(listed).toContain(`(#issuecomment-${fake.statusComments(1)[0]?.id}) of **ship**`);
    fake.postAs(1, "alice", "/status");
    const warm = await requestsDuring(fake, () =>
      h.deliver("issue_comment", h.commentPayload(fake.events.shift()!)),
    );
    expect(listings(warm.requests)).toHaveLength(0);
  });
});
