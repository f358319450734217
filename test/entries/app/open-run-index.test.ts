import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  INDEX_MARKER,
  MAX_INDEX_EVENTS,
  MAX_INDEX_OPEN,
  readIndexBlock,
  renderIndexBlock,
} from "../../../src/runtime/run-service/status-comment.js";
import { FakeGitHub, requestsDuring } from "../../helpers/fake-github.js";
import { shipApp } from "./fixtures.js";
import { Harness, readStatus, sealOf } from "./harness.js";

const R = "/repos/Codertocat/Hello-World";
const BLOCK = new RegExp(`<!-- ${INDEX_MARKER} [^ ]+ -->`);

describe("the open-run index block", () => {
  const seal = sealOf(1, 1000);

  it("reads back what was written, only for the comment and issue it was sealed to", () => {
    const block = renderIndexBlock({ open: ["1002", "1000"], events: ["d-1", "d-2"] }, seal);
    expect(readIndexBlock(`text\n${block}`, seal)).toEqual({
      open: ["1002", "1000"],
      events: ["d-1", "d-2"],
    });
    expect(readIndexBlock(block, sealOf(1, 1001))).toBeUndefined();
    expect(readIndexBlock(block, sealOf(2, 1000))).toBeUndefined();
    expect(readIndexBlock(block, { ...seal, key: Buffer.from("another key") })).toBeUndefined();
  });

  it("refuses a payload changed by hand, even one that still parses", () => {
    const block = renderIndexBlock({ open: ["1000"], events: [] }, seal);
    const [, payload, mac] = /open-runs ([^.]+)\.(\S+) -->/.exec(block) as unknown as string[];
    const forged = Buffer.from(JSON.stringify({ open: ["1", "2"], events: [] })).toString(
      "base64url",
    );
    expect(readIndexBlock(block.replace(payload as string, forged), seal)).toBeUndefined();
    expect(readIndexBlock(block.replace(mac as string, "A".repeat(43)), seal)).toBeUndefined();
  });

  it("is bounded: at most 100 open runs, 30 events, and only numeric comment ids", () => {
    const open = Array.from({ length: 150 }, (_, i) => String(2000 - i));
    const events = Array.from({ length: 80 }, (_, i) => `e-${i}`);
    const block = renderIndexBlock({ open: [...open, "../../x", "1 OR 1"], events }, seal);
    const read = readIndexBlock(block, seal);
    expect(read?.open).toHaveLength(MAX_INDEX_OPEN);
    expect(read?.open.every((id) => /^[0-9]+$/.test(id))).toBe(true);
    expect(read?.events).toEqual(events.slice(-MAX_INDEX_EVENTS));
    expect(block.length).toBeLessThan(4000);
  });
});

describe("the open-run index in the app", () => {
  let fake: FakeGitHub;
  let h: Harness;
  beforeEach(async () => {
    nock.disableNetConnect();
    ({ fake, h } = await shipApp());
  });
  afterEach(() => fake.uninstall());

  async function ship(): Promise<number> {
    await h.label(1, "playbook:ship", "alice");
    await h.drain();
    return fake.statusComments(1).at(-1)!.id;
  }

  it("after a restart, a command reads only the runs that may still move", async () => {
    fake.openIssue("Ship it", "", "alice");
    fake.seedComments(1, 250); // three pages of 100
    const first = await ship();
    await h.comment(1, "carol", "/cancel");
    expect(readStatus(fake.comments.get(first)).ok).toBe(true);
    // The label is taken off and put back: a second run, waiting for /approve.
    fake.issues.get(1)!.labels = [];
    const second = await ship();
    expect(second).not.toBe(first);
    await h.start(); // a new process: the coordination store (in memory) is empty
    fake.postAs(1, "carol", "/approve");
    const r = await requestsDuring(fake, () => h.drain());
    // The newest status comment is found on the thread's last page (the webhook's comment count
    // names it: one request, not the three pages); its sealed index names the open run only: the
    // cancelled run's status comment is not read.
    expect(r.requests.filter((q) => q === `GET ${R}/issues/comments/${first}`)).toEqual([]);
    expect(r.requests.filter((q) => q.startsWith(`GET ${R}/issues/1/comments`))).toHaveLength(1);
    const read = readStatus(fake.comments.get(second));
    expect(read.ok && read.run.stack[0]?.results.approve?.status).toBe("completed");
  });

  it("an index block a write user changes does not verify: the thread is read instead, nothing is lost", async () => {
    fake.openIssue("Ship it", "", "alice");
    const status = await ship();
    const c = fake.comments.get(status)!;
    expect(c.body).toMatch(BLOCK);
    // The edit's webhook is lost; the process restarts and knows nothing.
    c.body = c.body.replace(BLOCK, renderIndexBlock({ open: [], events: [] }, sealOf(1, 999)));
    await h.start();
    fake.postAs(1, "carol", "/approve");
    await h.drain();
    const read = readStatus(fake.comments.get(status));
    expect(read.ok && read.run.stack[0]?.results.approve?.status).toBe("completed");
  });

  it("a status comment's index names only status comments: a person's comment it names is passed over", async () => {
    fake.openIssue("Ship it", "", "alice");
    const status = await ship();
    const person = fake.postAs(1, "alice", "hello");
    fake.events.length = 0;
    // An index that (through a bug or an old copy) names a person's comment as an open run.
    const c = fake.comments.get(status)!;
    c.body = c.body.replace(
      BLOCK,
      renderIndexBlock(
        { open: [String(person.id), String(status)], events: [] },
        sealOf(1, status),
      ),
    );
    await h.start();
    fake.postAs(1, "carol", "/approve");
    await h.drain();
    const read = readStatus(fake.comments.get(status));
    expect(read.ok && read.run.stack[0]?.results.approve?.status).toBe("completed");
    expect(fake.comments.get(person.id)?.body).toBe("hello");
  });
});
