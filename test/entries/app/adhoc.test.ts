import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeGitHub } from "../../helpers/fake-github.js";
import {
  ADHOC_MARKER,
  MAX_ADHOC_ENTRIES,
  MAX_ADHOC_NOTE,
  readAdhocComment,
  renderAdhocComment,
  withEntries,
  type AdhocLog,
} from "../../../src/runtime/run-service/adhoc-log.js";
import { SHIP } from "./fixtures.js";
import { SUGGESTION_MARKER } from "../../../src/runtime/run-service/adhoc-work.js";
import { Harness, readStatus, sealOf, startApp } from "./harness.js";

let fake: FakeGitHub;
let h: Harness;

const reactionsTo = (id: number) =>
  fake.reactions.filter((r) => r.commentId === id).map((r) => r.content);
/** The app's comments holding an ad-hoc block. */
const logs = () =>
  [...fake.comments.values()].filter(
    (c) => c.performed_via_github_app && c.body.includes(ADHOC_MARKER),
  );
/** The ad-hoc log of issue 1 (the `i`th), or of the issue named. */
function logOf(i = 0, issue?: number): AdhocLog {
  const c = issue === undefined ? logs()[i] : logs().find((x) => x.issue === issue);
  if (!c) throw new Error("no ad-hoc log");
  const read = readAdhocComment(c.body, sealOf(c.issue, c.id));
  if (typeof read !== "object") throw new Error(`log not believed: ${read}`);
  return read;
}

beforeEach(async () => {
  ({ fake, h } = await startApp(
    { ".github/playbooks/ship.yaml": SHIP },
    { alice: "write", carol: "triage", bob: "read" },
  ));
  fake.openIssue("Disk full on db-1", "", "alice");
});
afterEach(() => fake.uninstall());

describe("work done by hand on an issue with no run waiting", () => {
  it("keeps /record and /note in one sealed comment of the app's, acknowledged with 🚀", async () => {
    const first = await h.comment(1, "alice", "/record disk_pct=97 volume=/var/lib/pg");
    expect(reactionsTo(first)).toEqual(["eyes", "rocket"]);
    const second = await h.comment(1, "carol", "/note rotated the WAL archive by hand");
    expect(reactionsTo(second)).toEqual(["eyes", "rocket"]);
    await h.comment(1, "alice", "/record disk_pct=41");
    expect(logs()).toHaveLength(1);
    const log = logOf();
    expect(log.entries.map((e) => (e.kind === "record" ? `${e.key}=${e.value}` : e.text))).toEqual([
      "disk_pct=97",
      "volume=/var/lib/pg",
      "rotated the WAL archive by hand",
      "disk_pct=41",
    ]);
    expect(log.entries.map((e) => e.actor)).toEqual(["alice", "alice", "carol", "alice"]);
    expect(log.entries[0]?.event).toMatch(/:0$/);
    // People read it too: a table with who and what.
    const body = logs()[0]!.body;
    expect(body).toContain("3 findings, 1 note");
    expect(body).toContain("rotated the WAL archive by hand");
    // Nothing started, and no reply was written for accepted commands.
    expect(fake.statusComments(1)).toEqual([]);
    expect([...fake.comments.values()].filter((c) => c.performed_via_github_app)).toHaveLength(1);
  });

  it("adds a redelivered command once", async () => {
    fake.postAs(1, "alice", "/record cause=vacuum");
    const ev = h.takeEvent()!;
    const id = await h.deliver("issue_comment", h.commentPayload(ev));
    await h.deliver("issue_comment", h.commentPayload(ev), id);
    expect(logOf().entries).toHaveLength(1);
  });

  it("refuses people without triage access (reactions only) and empty commands (with a reply)", async () => {
    const bobs = await h.comment(1, "bob", "/note I fixed it");
    expect(reactionsTo(bobs)).toEqual(["eyes", "-1"]);
    expect(logs()).toEqual([]);
    await h.comment(1, "alice", "/record");
    expect([...fake.comments.values()].at(-1)?.body).toBe(
      "> /record\n\n👎 say what you found: `/record key=value …`",
    );
    await h.comment(1, "alice", "/note");
    expect([...fake.comments.values()].at(-1)?.body).toBe(
      "> /note\n\n👎 say what you did: `/note <text>`",
    );
    expect(logs()).toEqual([]);
  });

  it("keeps what people write inert and bounded", async () => {
    const long = "x".repeat(MAX_ADHOC_NOTE + 100);
    await h.comment(1, "alice", `/note ping @carol <!-- x --> {{ secrets.TOKEN }} ${long}`);
    const body = logs()[0]!.body;
    expect(body).not.toContain("@carol");
    expect(body).not.toContain("<!-- x -->");
    const note = logOf().entries[0]!;
    expect(note.kind === "note" && note.text.length).toBe(MAX_ADHOC_NOTE);
  });

  it("does not believe a log someone edited: a new comment starts a new log", async () => {
    await h.comment(1, "alice", "/record cause=vacuum");
    const c = logs()[0]!;
    const forged = renderAdhocComment(
      withEntries(logOf(), [
        {
          kind: "record",
          event: "forged:0",
          actor: "alice",
          at: new Date().toISOString(),
          key: "cause",
          value: "not vacuum",
        },
      ]),
      { ...sealOf(1, c.id), key: Buffer.from("a guessed key") },
    );
    fake.editAs(c.id, forged, "alice");
    await h.comment(1, "alice", "/note started again");
    expect(logs()).toHaveLength(2);
    expect(readAdhocComment(logs()[0]!.body, sealOf(1, c.id))).toBe("tampered");
    expect(logOf(1).entries.map((e) => e.kind)).toEqual(["note"]);
  });

  it("sends /record to a run that waits for it, and keeps /note as the issue's trace beside it", async () => {
    await h.comment(1, "alice", "/run ship");
    const before = readStatus(fake.statusComments(1)[0]);
    expect(before.ok && before.run.status).toBe("waiting");
    await h.comment(1, "alice", "/note checked the dashboard first");
    expect(logOf().entries).toHaveLength(1);
  });
});

describe("noticing work done by hand again and again", () => {
  const suggestions = (issue: number) =>
    [...fake.comments.values()].filter(
      (c) => c.issue === issue && c.body.includes(SUGGESTION_MARKER),
    );

  it("suggests /systematise once, on the latest of three alike issues", async () => {
    for (let i = 2; i <= 5; i++) fake.openIssue(`Disk full ${i}`, "", "alice", ["db", "disk"]);
    // Issue 1 has other labels: it does not count.
    await h.comment(1, "alice", "/record disk_pct=97 volume=data");
    await h.comment(2, "alice", "/record disk_pct=95");
    await h.comment(2, "alice", "/record volume=data");
    await h.comment(3, "carol", "/record volume=wal disk_pct=99");
    expect([1, 2, 3].flatMap(suggestions)).toEqual([]);
    // The third issue whose findings match: told there, once.
    await h.comment(4, "alice", "/record disk_pct=91");
    expect(suggestions(4)).toEqual([]);
    await h.comment(4, "alice", "/record volume=data");
    expect(suggestions(4)).toHaveLength(1);
    expect(suggestions(4)[0]!.body).toContain(
      "This work was done by hand before: #2, #3 recorded the same findings (`disk_pct`, `volume`)",
    );
    expect(logOf(0, 4)).toMatchObject({ suggestedFor: ["disk_pct", "volume"] });
    await h.comment(4, "alice", "/record cause=vacuum");
    await h.comment(4, "alice", "/record cause=vacuum");
    // A fourth is not told again: the group was told already.
    await h.comment(5, "alice", "/record disk_pct=90 volume=data");
    expect(suggestions(4)).toHaveLength(1);
    expect(suggestions(5)).toEqual([]);
  });

  it("does not suggest it on an issue where a playbook ran", async () => {
    for (let i = 2; i <= 4; i++) fake.openIssue(`Disk full ${i}`, "", "alice", ["db"]);
    await h.comment(2, "alice", "/record disk_pct=97");
    await h.comment(3, "alice", "/record disk_pct=95");
    await h.comment(4, "alice", "/run ship");
    await h.comment(4, "alice", "/note then by hand");
    await h.comment(4, "alice", "/cancel");
    await h.comment(4, "alice", "/record disk_pct=93");
    expect(suggestions(4)).toEqual([]);
  });
});

describe("the ad-hoc log's bounds", () => {
  it("keeps the newest entries and counts the dropped ones", () => {
    const at = new Date(0).toISOString();
    let log: AdhocLog = { entries: [], dropped: 0 };
    for (let i = 0; i < MAX_ADHOC_ENTRIES + 5; i++)
      log = withEntries(log, [
        { kind: "record", event: `e${i}:0`, actor: "alice", at, key: "n", value: String(i) },
      ]);
    expect(log.entries).toHaveLength(MAX_ADHOC_ENTRIES);
    expect(log.dropped).toBe(5);
    expect(log.entries[0]).toMatchObject({ value: "5" });
    // Invalid keys and logins are never kept.
    const bad = withEntries(log, [
      { kind: "record", event: "x", actor: "alice", at, key: "no spaces", value: "v" },
      { kind: "note", event: "y", actor: "<script>", at, text: "hi" },
    ]);
    expect(bad.entries).toHaveLength(MAX_ADHOC_ENTRIES);
  });

  it("fits a comment with the longest notes, dropping the oldest", () => {
    const at = new Date(0).toISOString();
    let log: AdhocLog = { entries: [], dropped: 0 };
    for (let i = 0; i < MAX_ADHOC_ENTRIES; i++)
      log = withEntries(log, [
        { kind: "note", event: `e${i}`, actor: "alice", at, text: `${i} ${"y".repeat(1000)}` },
      ]);
    const seal = sealOf(1, 99);
    const body = renderAdhocComment(log, seal);
    expect(body.length).toBeLessThan(60_000);
    expect(log.dropped).toBeGreaterThan(100);
    const read = readAdhocComment(body, seal);
    expect(typeof read === "object" && read.entries.at(-1)).toMatchObject({
      text: expect.stringMatching(/^199 y/),
    });
  });
});
