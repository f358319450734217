import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeGitHub } from "../../helpers/fake-github.js";
import {
  ADHOC_MARKER,
  readAdhocComment,
  type AdhocLog,
} from "../../../src/runtime/run-service/adhoc-log.js";
import { SHIP } from "./fixtures.js";
import { Harness, sealOf, startApp } from "./harness.js";

let fake: FakeGitHub;
let h: Harness;

/** The app's comments holding an ad-hoc block. */
const logs = () =>
  [...fake.comments.values()].filter(
    (c) => c.performed_via_github_app && c.body.includes(ADHOC_MARKER),
  );

function logOf(): AdhocLog {
  const c = logs()[0];
  if (!c) throw new Error("no ad-hoc log");
  const read = readAdhocComment(c.body, sealOf(c.issue, c.id));
  if (typeof read !== "object") throw new Error(`log not believed: ${read}`);
  return read;
}

const said = (log: AdhocLog) =>
  log.entries.map((e) => (e.kind === "record" ? `${e.key}=${e.value}` : e.text));

beforeEach(async () => {
  ({ fake, h } = await startApp(
    { ".github/playbooks/ship.yaml": SHIP },
    { alice: "write", carol: "triage" },
  ));
  fake.openIssue("Disk full on db-1", "", "alice");
});
afterEach(() => fake.uninstall());

describe("the ad-hoc log is sealed with a sequence", () => {
  it("numbers each version the app writes", async () => {
    await h.comment(1, "alice", "/record disk_pct=97");
    expect(logOf().seq).toBe(1);
    await h.comment(1, "carol", "/note rotated the WAL archive");
    expect(logOf().seq).toBe(2);
  });

  it("an earlier sealed body put back by a write user's edit loses no one's entries", async () => {
    await h.comment(1, "alice", "/record disk_pct=97");
    const c = logs()[0]!;
    const earlier = c.body;
    await h.comment(1, "carol", "/note rotated the WAL archive");
    await h.comment(1, "carol", "/record cause=wal_growth");
    // The earlier body verifies (it is the app's own, sealed to this comment)…
    fake.editAs(c.id, earlier, "alice");
    expect(readAdhocComment(logs()[0]!.body, sealOf(1, c.id))).toMatchObject({ seq: 1 });
    // …but its sequence is behind the newest the app wrote: the newest wins.
    await h.comment(1, "alice", "/note freed 40 GB");
    expect(logs()).toHaveLength(1);
    const log = logOf();
    expect(said(log)).toEqual([
      "disk_pct=97",
      "rotated the WAL archive",
      "cause=wal_growth",
      "freed 40 GB",
    ]);
    expect(log.seq).toBe(4);
    // The tampering is said in the thread.
    const told = [...fake.comments.values()].filter(
      (x) => x.performed_via_github_app && x.body.includes("edited back to an earlier version"),
    );
    expect(told).toHaveLength(1);
  });

  it("a log written in order says nothing of tampering", async () => {
    await h.comment(1, "alice", "/record disk_pct=97");
    await h.comment(1, "carol", "/note rotated the WAL archive");
    const bodies = [...fake.comments.values()].map((x) => x.body).join("\n");
    expect(bodies).not.toContain("edited back to an earlier version");
  });
});
